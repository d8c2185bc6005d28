// Package litestream streams a live SQLite database to a replica (a
// folder, S3-compatible storage) with Litestream
// (github.com/benbjohnson/litestream) embedded in the process, and
// restores a database from such a replica.
//
// While it runs, Litestream owns the database's WAL checkpoints: the
// SQLite adapter is opened with sqlite.Options{ExternalCheckpoints: true}
// (wal_autocheckpoint=0, no checkpoint at Close), so no other connection
// moves WAL pages into the database file before Litestream has copied
// them.
package litestream

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"time"

	ls "github.com/benbjohnson/litestream"
	_ "github.com/benbjohnson/litestream/file" // file:// replicas
	_ "github.com/benbjohnson/litestream/s3"   // s3:// replicas (AWS_* environment variables)
)

// Interval is how often the WAL is read into Litestream's local files and
// how often those are shipped to the replica: a write reaches the replica
// within about two intervals (docs/operations.md, "Continuous replication").
const Interval = 100 * time.Millisecond

// Replicator streams one database to its replica until Close.
type Replicator struct {
	db    *ls.DB
	store *ls.Store
}

// Start begins replicating the SQLite database at path to replicaURL
// (file:///folder or s3://bucket/path).
func Start(ctx context.Context, path, replicaURL string, log *slog.Logger) (*Replicator, error) {
	client, err := ls.NewReplicaClientFromURL(replicaURL)
	if err != nil {
		return nil, fmt.Errorf("COUNSEL_REPLICA_URL: %w", err)
	}
	db := ls.NewDB(path)
	db.MonitorInterval = Interval
	r := ls.NewReplicaWithClient(db, client)
	r.SyncInterval = Interval
	db.Replica = r
	store := ls.NewStore([]*ls.DB{db}, ls.DefaultCompactionLevels)
	if log != nil {
		store.Logger = log.With("component", "litestream")
		db.SetLogger(store.Logger)
	}
	if err := store.Open(ctx); err != nil {
		return nil, fmt.Errorf("litestream: %w", err)
	}
	return &Replicator{db: db, store: store}, nil
}

// Sync ships every committed write to the replica now and waits for it.
func (r *Replicator) Sync(ctx context.Context) error {
	return r.db.SyncAndWait(ctx)
}

// Close ships what is left and stops; call it after the application's
// own connections are closed.
func (r *Replicator) Close(ctx context.Context) error {
	return r.store.Close(ctx)
}

// Restore writes the newest state of the replica at replicaURL to the new
// file dest (which must not exist), checked with PRAGMA integrity_check.
func Restore(ctx context.Context, replicaURL, dest string) error {
	if _, err := os.Lstat(dest); err == nil {
		return fmt.Errorf("%s exists; choose a new file name", dest)
	} else if !errors.Is(err, os.ErrNotExist) {
		return err
	}
	client, err := ls.NewReplicaClientFromURL(replicaURL)
	if err != nil {
		return fmt.Errorf("replica: %w", err)
	}
	r := ls.NewReplicaWithClient(nil, client)
	opt := ls.NewRestoreOptions()
	opt.OutputPath = dest
	opt.IntegrityCheck = ls.IntegrityCheckFull
	if err := r.Restore(ctx, opt); err != nil {
		return fmt.Errorf("restore from the replica: %w", err)
	}
	return os.Chmod(dest, 0o600)
}
