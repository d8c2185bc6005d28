// Package sqlite implements Counsel's stores on one SQLite file through
// modernc.org/sqlite (pure Go, no cgo).
//
// The file runs in WAL mode with synchronous=FULL, so a committed
// transaction is on disk before a 2xx leaves the server. Reads go through a
// pool of read-only connections that run concurrently with the writer;
// writes go through a single connection whose transactions begin
// IMMEDIATE, so writers queue on a Go mutex instead of failing with
// SQLITE_BUSY. Migrations are embedded and applied in order, each in its
// own transaction, and recorded in schema_migrations.
package sqlite

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"net/url"
	"os"
	"runtime"
	"sort"
	"strings"
	"time"

	"counsel/adapters/sqlrow"
	"counsel/ports"

	sqlite "modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

//go:embed migrations/*.sql
var migrationFS embed.FS

// DB is an open Counsel database: a read pool and a single writer.
type DB struct {
	path  string
	read  *sql.DB
	write *sql.DB
	stmts stmts
	// profiles caches GET /api/me's profile rows (profiles.go).
	profiles sqlrow.ProfileCache
	// refreshes groups concurrent refreshes into one commit (refresh_batch.go).
	refreshes refreshQueue
	// Now is the clock used for timestamps the stores set themselves.
	Now func() time.Time
	// effectsListener hears of effects once committed (OnEffects).
	effectsListener func([]ports.Effect)
	// changeListener hears, after the commit, of each write that changed
	// principals or profiles (OnChange).
	changeListener func()
	// external is true when another component (Litestream) owns the
	// WAL's checkpoints: no automatic checkpoint, none at Close.
	external bool
}

// Options change how Open opens a database.
type Options struct {
	// ExternalCheckpoints hands WAL checkpoints to another component,
	// Litestream, which must be the only one to checkpoint while it
	// replicates: the connections run with wal_autocheckpoint=0 and Close
	// leaves the WAL as it is.
	ExternalCheckpoints bool
}

// dsn builds a modernc DSN. busy_timeout comes first so the pragmas after
// it wait for a lock instead of failing when another process holds one.
func dsn(path string, readOnly bool, o ...Options) string {
	q := url.Values{}
	q.Add("_pragma", "busy_timeout(10000)")
	if len(o) > 0 && o[0].ExternalCheckpoints {
		q.Add("_pragma", "wal_autocheckpoint(0)")
	}
	q.Add("_pragma", "journal_mode(WAL)")
	q.Add("_pragma", "synchronous(FULL)")
	q.Add("_pragma", "foreign_keys(1)")
	q.Add("_pragma", "temp_store(memory)")
	if readOnly {
		q.Add("_pragma", "query_only(1)")
	} else {
		q.Set("_txlock", "immediate")
		// ANALYZE and PRAGMA optimize sample at most about 400 rows
		// per index: milliseconds at any size, as SQLite advises.
		q.Add("_pragma", "analysis_limit(400)")
		// A row that REPLACE deletes (INSERT OR REPLACE, REPLACE INTO,
		// UPDATE OR REPLACE) fires the delete triggers only with this on;
		// without it the counts and full-text indexes the triggers keep
		// would go on holding the deleted row.
		q.Add("_pragma", "recursive_triggers(1)")
	}
	// The path is a URI's: without escaping, a "#" or "?" in it would end
	// the path and a "%" start an escape (t.TempDir of a subtest "#00").
	return "file:" + uriPath.Replace(path) + "?" + q.Encode()
}

var uriPath = strings.NewReplacer("%", "%25", "#", "%23", "?", "%3f")

// Open opens (creating if needed) the database at path and applies any
// pending migrations.
func Open(ctx context.Context, path string) (*DB, error) {
	return OpenWith(ctx, path, Options{})
}

// OpenWith is Open with options.
func OpenWith(ctx context.Context, path string, o Options) (*DB, error) {
	if path == "" {
		return nil, errors.New("sqlite: empty database path")
	}
	if err := ownerOnly(path); err != nil {
		return nil, err
	}
	write, err := sql.Open("sqlite", dsn(path, false, o))
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	write.SetMaxOpenConns(1)
	write.SetMaxIdleConns(1)
	write.SetConnMaxIdleTime(0)
	write.SetConnMaxLifetime(0)
	db := &DB{path: path, write: write, Now: func() time.Time { return time.Now().UTC() }, external: o.ExternalCheckpoints}
	db.profiles.TTL = profileTTL
	if err := pingBusy(ctx, write); err != nil {
		write.Close()
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	// Instances opening one new file together wait for each other's
	// migrations, which may take longer than a statement's busy timeout
	// on a loaded machine: the single writer connection waits up to a
	// minute while migrating, then goes back to the DSN's 10 s.
	if _, err := db.write.ExecContext(ctx, "PRAGMA busy_timeout = 60000"); err != nil {
		write.Close()
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	if err := db.migrate(ctx); err != nil {
		write.Close()
		return nil, err
	}
	if _, err := db.write.ExecContext(ctx, "PRAGMA busy_timeout = 10000"); err != nil {
		write.Close()
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	// As SQLite advises for long-lived connections: statistics for the
	// tables that lack them or have changed much since. The list queries
	// name their indexes where it matters (contracts_list.go), so these
	// only steer the rest.
	if _, err := write.ExecContext(ctx, "PRAGMA optimize=0x10002"); err != nil {
		write.Close()
		return nil, fmt.Errorf("optimize %s: %w", path, err)
	}
	if err := forgetFullTextStats(ctx, write); err != nil {
		write.Close()
		return nil, fmt.Errorf("optimize %s: %w", path, err)
	}
	if err := db.prepareHotWrites(ctx); err != nil {
		write.Close()
		return nil, fmt.Errorf("prepare statements: %w", err)
	}
	read, err := sql.Open("sqlite", dsn(path, true, o))
	if err != nil {
		write.Close()
		return nil, fmt.Errorf("open %s for reading: %w", path, err)
	}
	n := max(4, 2*runtime.GOMAXPROCS(0))
	read.SetMaxOpenConns(n)
	read.SetMaxIdleConns(n)
	read.SetConnMaxIdleTime(5 * time.Minute)
	db.read = read
	return db, nil
}

// pingBusy opens the first connection, retrying while another process
// holds the lock: switching a new file to WAL needs an exclusive lock and
// SQLite answers SQLITE_BUSY at once there, without the busy timeout. Two
// processes starting on one new file (a server and a command) meet it.
func pingBusy(ctx context.Context, db *sql.DB) error {
	delay := 10 * time.Millisecond
	deadline := time.Now().Add(10 * time.Second)
	for {
		err := db.PingContext(ctx)
		var se *sqlite.Error
		if err == nil || !errors.As(err, &se) || se.Code()&0xff != sqlite3.SQLITE_BUSY || time.Now().After(deadline) {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(delay):
		}
		delay = min(2*delay, 200*time.Millisecond)
	}
}

// Close closes both pools. The writer closes last so the WAL is
// checkpointed by the final connection.
func (db *DB) Close() error {
	db.stmts.close()
	var errs []error
	if db.read != nil {
		errs = append(errs, db.read.Close())
	}
	if !db.external {
		if _, err := db.write.Exec("PRAGMA wal_checkpoint(TRUNCATE)"); err != nil {
			errs = append(errs, err)
		}
	}
	errs = append(errs, db.write.Close())
	return errors.Join(errs...)
}

// bulkCache is the writer's page cache (KiB) during a bulk load. A
// transaction that outgrows the default 2 MB cache spills pages to the
// WAL and reads them back from it, again and again as the full-text
// indexes grow, so a bulk load's transaction must fit in the cache
// (figures in docs/performance.md). It is allocated only as used and
// given back after the load.
const bulkCache = 64 << 10

// bulkWriteTx is writeTx with the bulk cache for its duration.
func (db *DB) bulkWriteTx(ctx context.Context, fn func(*sql.Tx) error) error {
	conn, err := db.write.Conn(ctx)
	if err != nil {
		return formatError(err)
	}
	var size int64
	if err := conn.QueryRowContext(ctx, "PRAGMA cache_size").Scan(&size); err != nil {
		conn.Close()
		return formatError(err)
	}
	if _, err := conn.ExecContext(ctx, fmt.Sprintf("PRAGMA cache_size = -%d", bulkCache)); err != nil {
		conn.Close()
		return formatError(err)
	}
	conn.Close() // the pool's only connection: writeTx takes it again
	defer db.write.ExecContext(context.Background(), fmt.Sprintf("PRAGMA cache_size = %d", size))
	return db.writeTx(ctx, fn)
}

// Optimize refreshes the planner's statistics of the tables that have
// changed much since they were last measured (PRAGMA optimize), and
// merges the segments the contract word search reads, a bounded step at
// a time (mergeFullText; about 2 MB of output, some 0.1 s, only when an
// index has more than one); the housekeeping loop calls it through Prune.
func (db *DB) Optimize(ctx context.Context) error {
	if _, err := db.write.ExecContext(ctx, "PRAGMA optimize"); err != nil {
		return fmt.Errorf("optimize: %w", err)
	}
	if err := forgetFullTextStats(ctx, db.write); err != nil {
		return fmt.Errorf("optimize: %w", err)
	}
	return mergeFullText(ctx, db.write, 500, "contracts_words", "contract_terms_fts")
}

// Analyze measures every table for the planner (ANALYZE, sampled by
// analysis_limit) and merges each full-text index into one segment
// (mergeFullText): after a bulk load such as counsel copy, which changes
// the data at once.
func (db *DB) Analyze(ctx context.Context) error {
	if _, err := db.write.ExecContext(ctx, "ANALYZE"); err != nil {
		return fmt.Errorf("analyze: %w", err)
	}
	if err := forgetFullTextStats(ctx, db.write); err != nil {
		return fmt.Errorf("analyze: %w", err)
	}
	return mergeFullText(ctx, db.write, 0, fullTextIndexes...)
}

// forgetFullTextStats removes the planner statistics of the full-text
// indexes' shadow tables (migration 0024), which FTS5 reads and writes by
// rowid ranges: measured while small (a new database has two rows in
// each), they made every range a scan of the whole table, so each segment
// FTS5 merged away scanned its index and inserts grew slower with the
// table. Without statistics the planner seeks. The statistics are
// reloaded only when something was removed.
func forgetFullTextStats(ctx context.Context, x *sql.DB) error {
	conn, err := x.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	res, err := conn.ExecContext(ctx, `DELETE FROM sqlite_stat1 WHERE tbl IN (`+fullTextShadows+`)`)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n > 0 {
		_, err = conn.ExecContext(ctx, `ANALYZE sqlite_schema`)
	}
	return err
}

// fullTextShadows lists, as SQL strings, the shadow tables of
// fullTextIndexes that FTS5 reads by key.
var fullTextShadows = func() string {
	var names []string
	for _, ix := range fullTextIndexes {
		for _, t := range []string{"_data", "_idx", "_docsize"} {
			names = append(names, "'"+ix+t+"'")
		}
	}
	return strings.Join(names, ", ")
}()

// Path returns the database file's path.
func (db *DB) Path() string { return db.path }

// Ping checks that the database answers a query.
func (db *DB) Ping(ctx context.Context) error {
	var one int
	return db.read.QueryRowContext(ctx, "SELECT 1").Scan(&one)
}

// Backup writes a consistent copy of the database to dest with VACUUM
// INTO, which reads one snapshot and so works while the server writes.
// dest must not exist.
//
// The copy runs on a connection of its own: the read pool is query_only,
// which refuses VACUUM INTO, and the single writer must stay free for the
// server's writes while a large copy is made.
func (db *DB) Backup(ctx context.Context, dest string) error {
	conn, err := sql.Open("sqlite", dsn(db.path, false))
	if err != nil {
		return fmt.Errorf("backup to %s: %w", dest, err)
	}
	defer conn.Close()
	conn.SetMaxOpenConns(1)
	// VACUUM INTO takes an empty file: made here owner-only, so the copy
	// never exists readable by others, whatever the umask.
	f, err := os.OpenFile(dest, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return fmt.Errorf("backup to %s: %w", dest, err)
	}
	f.Close()
	if _, err := conn.ExecContext(ctx, "VACUUM INTO ?", dest); err != nil {
		os.Remove(dest)
		return fmt.Errorf("backup to %s: %w", dest, err)
	}
	return nil
}

// ownerOnly creates the database file 0600 before SQLite opens it, and
// tightens it and its companions when an older version or a copy left
// them wider. SQLite gives the WAL, shared-memory and journal files the
// mode of the database file, whatever the umask, so they follow.
func ownerOnly(path string) error {
	f, err := os.OpenFile(path, os.O_RDONLY|os.O_CREATE, 0o600)
	if err != nil {
		return fmt.Errorf("open %s: %w", path, err)
	}
	f.Close()
	for _, p := range []string{path, path + "-wal", path + "-shm", path + "-journal"} {
		info, err := os.Stat(p)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		} else if err != nil {
			return fmt.Errorf("check %s: %w", p, err)
		}
		if info.Mode().Perm()&0o077 != 0 {
			if err := os.Chmod(p, info.Mode().Perm()&0o700); err != nil {
				return fmt.Errorf("make %s owner-only: %w", p, err)
			}
		}
	}
	return nil
}

// Read returns the read pool, for stores that live in other packages'
// tests (benchmarks seed data through it).
func (db *DB) Read() *sql.DB { return db.read }

// writeTx runs fn in an IMMEDIATE transaction on the writer, writes the
// effects ctx carries (ports.Effects) in it, and commits.
func (db *DB) writeTx(ctx context.Context, fn func(*sql.Tx) error) error {
	fx := ports.EffectsOf(ctx)
	mark := fx.Begin()
	written, err := db.writeTxEffects(ctx, fx, fn)
	if err != nil {
		fx.Rollback(mark)
		return err
	}
	fx.Committed()
	if len(written) > 0 && db.effectsListener != nil {
		db.effectsListener(written)
	}
	return nil
}

func (db *DB) writeTxEffects(ctx context.Context, fx *ports.Effects, fn func(*sql.Tx) error) ([]ports.Effect, error) {
	tx, err := db.write.BeginTx(ctx, nil)
	if err != nil {
		return nil, formatError(err)
	}
	defer tx.Rollback()
	if err := fn(tx); err != nil {
		return nil, formatError(err)
	}
	written, err := fx.Pending()
	if err != nil {
		return nil, err
	}
	if len(written) > 0 {
		if err := sqlrow.WriteEffects(ctx, sq{tx}, dialect{}, db.Now(), written); err != nil {
			return nil, formatError(err)
		}
	}
	return written, formatError(tx.Commit())
}

// OnChange sets fn to run after each commit that changed who may do what
// (sessions, roles, permissions, users, profiles): the one path by which
// cached principals learn of it. fn must not block. Call it before the
// database is in use.
func (db *DB) OnChange(fn func()) { db.changeListener = fn }

// announce tells the change listener of a committed change.
func (db *DB) announce() {
	if db.changeListener != nil {
		db.changeListener()
	}
}

// OnEffects sets fn to run after each commit that wrote effects, with the
// effects written, so a worker in this process starts on them at once.
// fn must not block. Call it before the database is in use.
func (db *DB) OnEffects(fn func([]ports.Effect)) { db.effectsListener = fn }

// migrate applies the embedded migrations that schema_migrations lacks.
func (db *DB) migrate(ctx context.Context) error {
	return db.migrateUpTo(ctx, migrationFS, math.MaxInt)
}

// migrateUpTo applies the migrations of fsys numbered up to last that
// schema_migrations lacks, in order. Tests stop early to build a database
// as an older version left it.
func (db *DB) migrateUpTo(ctx context.Context, fsys fs.FS, last int) error {
	if _, err := db.write.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (
		version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at INTEGER NOT NULL) STRICT`); err != nil {
		return fmt.Errorf("create schema_migrations: %w", err)
	}
	ms, err := sqlrow.Migrations(fsys, last)
	if err != nil {
		return err
	}
	for _, m := range ms {
		if hasMarker(m.Body, foreignKeysOff) {
			err = db.applyForeignKeysOff(ctx, m)
		} else {
			err = db.writeTx(ctx, func(tx *sql.Tx) error { return db.apply(ctx, tx, m) })
		}
		if err != nil {
			return fmt.Errorf("migration %s: %w", m.Name, err)
		}
	}
	return nil
}

// foreignKeysOff marks a migration that rebuilds tables (copies the rows
// aside, drops the table, creates it anew and copies them back): with
// foreign keys on, dropping a table that others reference would delete or
// refuse their rows, and that setting cannot change inside a transaction.
const foreignKeysOff = "-- migrate: foreign keys off"

// hasMarker reports whether one of body's lines is marker.
func hasMarker(body, marker string) bool {
	for line := range strings.Lines(body) {
		if strings.TrimSpace(line) == marker {
			return true
		}
	}
	return false
}

// apply runs m in tx and records it, unless it is already recorded: the
// check inside the transaction makes two processes starting at once apply
// it only once.
func (db *DB) apply(ctx context.Context, tx *sql.Tx, m sqlrow.Migration) error {
	_, err := db.applyOnce(ctx, tx, m, nil)
	return err
}

// applyOnce is apply with a check, run after the body and before the
// record, that can refuse the result. It reports whether m ran.
func (db *DB) applyOnce(ctx context.Context, tx *sql.Tx, m sqlrow.Migration, check func() error) (bool, error) {
	var n int
	if err := tx.QueryRowContext(ctx, "SELECT count(*) FROM schema_migrations WHERE version = ?", m.Version).Scan(&n); err != nil || n > 0 {
		return false, err
	}
	if _, err := tx.ExecContext(ctx, m.Body); err != nil {
		return false, err
	}
	if check != nil {
		if err := check(); err != nil {
			return false, err
		}
	}
	_, err := tx.ExecContext(ctx, "INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)", m.Version, m.Name, ms(db.Now()))
	return err == nil, err
}

// applyForeignKeysOff runs m with foreign keys off on the writer's
// connection. Because nothing then enforces them, it commits only when
// PRAGMA foreign_key_check finds no broken reference and every index and
// trigger is back exactly as it was (a rebuilt table loses its own, and
// the migration must create them again); otherwise it rolls back.
func (db *DB) applyForeignKeysOff(ctx context.Context, m sqlrow.Migration) (err error) {
	conn, err := db.write.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, "PRAGMA foreign_keys = OFF"); err != nil {
		return fmt.Errorf("turn foreign keys off: %w", err)
	}
	defer func() {
		// Without context: the connection goes back to the pool and must
		// enforce foreign keys again even when ctx has ended.
		if _, e := conn.ExecContext(context.Background(), "PRAGMA foreign_keys = ON"); e != nil {
			err = errors.Join(err, fmt.Errorf("turn foreign keys back on: %w", e))
			conn.Raw(func(any) error { return driver.ErrBadConn }) // never reuse it
		}
	}()
	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		return formatError(err)
	}
	defer tx.Rollback()
	before, err := schemaObjects(ctx, tx)
	if err != nil {
		return err
	}
	ran, err := db.applyOnce(ctx, tx, m, func() error {
		after, err := schemaObjects(ctx, tx)
		if err != nil {
			return err
		}
		if err := sameObjects(before, after); err != nil {
			return err
		}
		return foreignKeyCheck(ctx, tx)
	})
	if err != nil || !ran {
		return formatError(err)
	}
	return formatError(tx.Commit())
}

// schemaObjects lists every index and trigger by name with its table and
// definition (NULL for the indexes of UNIQUE constraints).
func schemaObjects(ctx context.Context, tx *sql.Tx) (map[string]string, error) {
	rows, err := tx.QueryContext(ctx, `SELECT type || ' ' || name, tbl_name || ': ' || coalesce(sql, '')
		FROM sqlite_schema WHERE type IN ('index', 'trigger')`)
	if err != nil {
		return nil, fmt.Errorf("list indexes and triggers: %w", err)
	}
	defer rows.Close()
	out := map[string]string{}
	for rows.Next() {
		var name, def string
		if err := rows.Scan(&name, &def); err != nil {
			return nil, err
		}
		out[name] = def
	}
	return out, rows.Err()
}

// sameObjects reports the first index or trigger that differs.
func sameObjects(before, after map[string]string) error {
	names := make([]string, 0, len(before)+len(after))
	for n := range before {
		names = append(names, n)
	}
	for n := range after {
		if _, ok := before[n]; !ok {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	for _, n := range names {
		b, inBefore := before[n]
		a, inAfter := after[n]
		switch {
		case !inAfter:
			return fmt.Errorf("%s is missing after the migration", n)
		case !inBefore:
			return fmt.Errorf("%s is new: a migration that runs with foreign keys off may only rebuild tables", n)
		case a != b:
			return fmt.Errorf("%s changed: was %q, now %q", n, b, a)
		}
	}
	return nil
}

// foreignKeyCheck fails on the first reference to a missing row.
func foreignKeyCheck(ctx context.Context, tx *sql.Tx) error {
	rows, err := tx.QueryContext(ctx, "PRAGMA foreign_key_check")
	if err != nil {
		return fmt.Errorf("foreign key check: %w", err)
	}
	defer rows.Close()
	if rows.Next() {
		var table, parent string
		var rowid sql.NullInt64
		var fk int64
		if err := rows.Scan(&table, &rowid, &parent, &fk); err != nil {
			return fmt.Errorf("foreign key check: %w", err)
		}
		return fmt.Errorf("foreign key check: row %d of %s refers to a missing row of %s", rowid.Int64, table, parent)
	}
	return rows.Err()
}

// Migrations returns the applied migrations' names, oldest first.
func (db *DB) Migrations(ctx context.Context) ([]string, error) {
	rows, err := db.read.QueryContext(ctx, "SELECT name FROM schema_migrations ORDER BY version")
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, rows.Err()
}

// formatError turns constraint violations into domain errors
// (sqlrow.FormatError).
func formatError(err error) error { return sqlrow.FormatError(err, violation) }

func violation(err error) sqlrow.Violation {
	var se *sqlite.Error
	if errors.As(err, &se) {
		switch se.Code() {
		case sqlite3.SQLITE_CONSTRAINT_UNIQUE, sqlite3.SQLITE_CONSTRAINT_PRIMARYKEY:
			return sqlrow.UniqueViolation
		case sqlite3.SQLITE_CONSTRAINT_FOREIGNKEY:
			return sqlrow.MissingReference
		}
	}
	return sqlrow.NoViolation
}

// ms encodes a time as UTC Unix milliseconds, the storage form of every
// timestamp: compact, indexable and sortable.
func ms(t time.Time) int64 { return t.UnixMilli() }

// fromMs decodes a stored timestamp.
func fromMs(v int64) time.Time { return time.UnixMilli(v).UTC() }

// nullMs encodes an optional time.
func nullMs(t *time.Time) any {
	if t == nil || t.IsZero() {
		return nil
	}
	return t.UnixMilli()
}

// Import inserts rows into table (columns cols) in one transaction: bulk
// copies between databases (counsel copy) use it.
func (db *DB) Import(ctx context.Context, table string, cols []string, rows [][]any) error {
	return db.bulkWriteTx(ctx, func(tx *sql.Tx) error { return insertRows(ctx, tx, table, cols, rows) })
}

// maxVars is SQLite's limit on a statement's parameters
// (SQLITE_MAX_VARIABLE_NUMBER).
const maxVars = 32766

// insertRows inserts rows into table (columns cols) in tx, many rows to a
// statement (as many as the parameters allow). FTS5 writes its pending
// index to disk as a new segment at the start of every statement of a
// transaction that writes to it (xSavepoint), so the fewer statements a
// load takes, the fewer segments each full-text index a trigger keeps
// must later merge (figures in docs/performance.md).
func insertRows(ctx context.Context, tx *sql.Tx, table string, cols []string, rows [][]any) error {
	per := max(1, maxVars/len(cols))
	tuple := "(" + strings.TrimSuffix(strings.Repeat("?, ", len(cols)), ", ") + ")"
	head := `INSERT INTO ` + table + ` (` + strings.Join(cols, ", ") + `) VALUES `
	var full *sql.Stmt
	defer func() {
		if full != nil {
			full.Close()
		}
	}()
	args := make([]any, 0, per*len(cols))
	for len(rows) > 0 {
		n := min(per, len(rows))
		args = args[:0]
		for _, r := range rows[:n] {
			args = append(args, r...)
		}
		var err error
		switch {
		case n < per:
			_, err = tx.ExecContext(ctx, head+strings.TrimSuffix(strings.Repeat(tuple+", ", n), ", "), args...)
		case full == nil:
			if full, err = tx.PrepareContext(ctx, head+strings.TrimSuffix(strings.Repeat(tuple+", ", n), ", ")); err != nil {
				return err
			}
			fallthrough
		default:
			_, err = full.ExecContext(ctx, args...)
		}
		if err != nil {
			return err
		}
		rows = rows[n:]
	}
	return nil
}

// Sequences returns the high-water marks of the AUTOINCREMENT tables
// (none before they exist).
func (db *DB) Sequences(ctx context.Context) (map[string]int64, error) {
	out := map[string]int64{}
	rows, err := db.read.QueryContext(ctx, `SELECT name, seq FROM sqlite_sequence`)
	if err != nil {
		return out, nil // no AUTOINCREMENT table yet
	}
	defer rows.Close()
	for rows.Next() {
		var n string
		var v int64
		if err := rows.Scan(&n, &v); err != nil {
			return nil, err
		}
		out[n] = v
	}
	return out, rows.Err()
}

// SetSequences raises the AUTOINCREMENT high-water marks to marks, so that
// ids used in another database are not given again here.
func (db *DB) SetSequences(ctx context.Context, marks map[string]int64) error {
	return db.writeTx(ctx, func(tx *sql.Tx) error {
		var n int
		if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_master WHERE name = 'sqlite_sequence'`).Scan(&n); err != nil || n == 0 {
			return err
		}
		for t, v := range marks {
			res, err := tx.ExecContext(ctx, `UPDATE sqlite_sequence SET seq = max(seq, ?) WHERE name = ?`, v, t)
			if err != nil {
				return err
			}
			if k, _ := res.RowsAffected(); k == 0 {
				if _, err := tx.ExecContext(ctx, `INSERT INTO sqlite_sequence (name, seq) SELECT ?, ? WHERE EXISTS
					(SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ? AND sql LIKE '%AUTOINCREMENT%')`, t, v, t); err != nil {
					return err
				}
			}
		}
		return nil
	})
}
