package sqlite

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// TryLock takes the lock of background job name, so that of several
// services on this database file (two processes overlapping in a
// restart, say) one runs it at a time: an exclusive flock(2) on the file
// name in the folder PATH-locks beside the database (created owner-only).
// Every service on one SQLite file runs on the machine that holds the
// file, so a lock of its file system is one they all see, and the kernel
// releases it when its holder unlocks, closes or dies: a crash never
// leaves it taken. Opened twice in one process the file is still two
// locks, so two services there exclude each other too. ok is false when
// another holds it; otherwise unlock releases it.
func (db *DB) TryLock(ctx context.Context, name string) (ok bool, unlock func(), err error) {
	if name == "" || strings.ContainsAny(name, `/\`) || strings.HasPrefix(name, ".") {
		return false, nil, fmt.Errorf("job lock %q: not a job name", name)
	}
	dir := db.path + "-locks"
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return false, nil, fmt.Errorf("job lock: %w", err)
	}
	f, err := os.OpenFile(filepath.Join(dir, name), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return false, nil, fmt.Errorf("job lock: %w", err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return false, nil, nil
		}
		return false, nil, fmt.Errorf("job lock %s: %w", name, err)
	}
	return true, func() { f.Close() }, nil
}
