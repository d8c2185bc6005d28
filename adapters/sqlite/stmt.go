package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"sync"
)

// stmts caches prepared statements per pool, so hot queries are parsed
// once rather than on every call (SQLite's parser is a measurable share of
// a short transaction).
type stmts struct {
	mu sync.Mutex
	m  map[stmtKey]*sql.Stmt
}

type stmtKey struct {
	pool *sql.DB
	q    string
}

// maxStmts bounds the cache: list queries are built from their filters,
// and a cache per distinct text must not grow without end.
const maxStmts = 512

// errCacheFull tells callers to run the query unprepared.
var errCacheFull = errors.New("statement cache full")

func (c *stmts) get(ctx context.Context, pool *sql.DB, q string) (*sql.Stmt, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if s, ok := c.m[stmtKey{pool, q}]; ok {
		return s, nil
	}
	if len(c.m) >= maxStmts {
		return nil, errCacheFull
	}
	s, err := pool.PrepareContext(ctx, q)
	if err != nil {
		return nil, err
	}
	if c.m == nil {
		c.m = map[stmtKey]*sql.Stmt{}
	}
	c.m[stmtKey{pool, q}] = s
	return s, nil
}

func (c *stmts) close() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, s := range c.m {
		s.Close()
	}
	c.m = nil
}

// queryRow runs a single-row read on the read pool with a cached statement.
func (db *DB) queryRow(ctx context.Context, q string, args ...any) *sql.Row {
	s, err := db.stmts.get(ctx, db.read, q)
	if err != nil {
		return db.read.QueryRowContext(ctx, q, args...) // reports the same error, or runs unprepared
	}
	return s.QueryRowContext(ctx, args...)
}

// query runs a read on the read pool with a cached statement.
func (db *DB) query(ctx context.Context, q string, args ...any) (*sql.Rows, error) {
	s, err := db.stmts.get(ctx, db.read, q)
	if err != nil {
		return db.read.QueryContext(ctx, q, args...) // reports the same error, or runs unprepared
	}
	return s.QueryContext(ctx, args...)
}

// reader is a queryer over the read pool whose statements are prepared
// once, for store functions that take either a pool or a transaction.
type reader struct{ db *DB }

func (r reader) QueryContext(ctx context.Context, q string, args ...any) (*sql.Rows, error) {
	return r.db.query(ctx, q, args...)
}

func (r reader) QueryRowContext(ctx context.Context, q string, args ...any) *sql.Row {
	return r.db.queryRow(ctx, q, args...)
}

// hotWrites are the statements of the busiest write transactions
// (refresh; writing a contract, whose preparation compiles the word
// triggers), prepared on the writer when the database opens. They cannot be
// prepared lazily: preparing on the writer pool needs its only connection,
// which the running transaction holds.
var hotWrites = []string{refreshSelectSQL, revokeSessionSQL, useRefreshSQL, insertRefreshSQL, insertContractSQL, updateContractSQL}

func (db *DB) prepareHotWrites(ctx context.Context) error {
	for _, q := range hotWrites {
		if _, err := db.stmts.get(ctx, db.write, q); err != nil {
			return err
		}
	}
	return nil
}

// txStmt returns q bound to tx: the writer's prepared statement when q is
// one of hotWrites, else a statement prepared for this transaction.
func (db *DB) txStmt(ctx context.Context, tx *sql.Tx, q string) (*sql.Stmt, error) {
	db.stmts.mu.Lock()
	s, ok := db.stmts.m[stmtKey{db.write, q}]
	db.stmts.mu.Unlock()
	if !ok {
		return tx.PrepareContext(ctx, q)
	}
	return tx.StmtContext(ctx, s), nil
}

// txExec runs a write statement in tx with a cached statement.
func (db *DB) txExec(ctx context.Context, tx *sql.Tx, q string, args ...any) (sql.Result, error) {
	s, err := db.txStmt(ctx, tx, q)
	if err != nil {
		return nil, err
	}
	return s.ExecContext(ctx, args...)
}

// txQueryRow runs a single-row read in tx with a cached statement.
func (db *DB) txQueryRow(ctx context.Context, tx *sql.Tx, q string, args ...any) *sql.Row {
	s, err := db.txStmt(ctx, tx, q)
	if err != nil {
		return tx.QueryRowContext(ctx, q, args...) // reports the same error
	}
	return s.QueryRowContext(ctx, args...)
}
