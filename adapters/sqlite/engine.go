package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"counsel/adapters/sqlrow"
)

// engine is db as the stores written once in sqlrow use it.
type engine struct {
	dialect
	db *DB
}

func (e engine) Read() sqlrow.Querier { return cachedReads{e.db} }
func (e engine) Now() time.Time       { return e.db.Now() }

// PrincipalsChanged marks x's transaction (WriteTx's): one process owns
// the file, so there is no other instance to tell.
func (e engine) PrincipalsChanged(_ context.Context, x sqlrow.Querier) error {
	t, ok := x.(trackedTx)
	if !ok {
		return errors.New("principals changed outside a write transaction")
	}
	*t.changed = true
	return nil
}

// Grown needs no news: Upkeep measures what changed much.
func (e engine) Grown(context.Context, int, ...string) {}

// Upkeep refreshes the planner's statistics and merges the word index's
// segments (DB.Optimize).
func (e engine) Upkeep(ctx context.Context) error { return e.db.Optimize(ctx) }

// Serialize needs no lock: a write transaction is the file's only writer.
func (e engine) Serialize(context.Context, sqlrow.Querier, string) error { return nil }
func (e engine) ListTx(ctx context.Context, fn func(sqlrow.Querier) error) error {
	return e.ReadTx(ctx, fn)
}

func (e engine) ReadTx(ctx context.Context, fn func(sqlrow.Querier) error) error {
	return e.db.readTx(ctx, func(tx *sql.Tx) error { return fn(sq{tx}) })
}

// WriteTx hands fn a querier that records PrincipalsChanged, and
// announces the change after the commit.
func (e engine) WriteTx(ctx context.Context, fn func(sqlrow.Querier) error) error {
	var changed bool
	err := e.db.writeTx(ctx, func(tx *sql.Tx) error {
		changed = false
		return fn(trackedTx{sq{tx}, &changed})
	})
	if err == nil && changed {
		e.db.announce()
	}
	return err
}

func (e engine) AccessTx(ctx context.Context, fn func(sqlrow.Querier) error) error {
	return e.WriteTx(ctx, func(x sqlrow.Querier) error {
		if err := fn(x); err != nil {
			return err
		}
		return e.PrincipalsChanged(ctx, x)
	})
}

func (e engine) ProfileTx(ctx context.Context, fn func(sqlrow.Querier) error) error {
	err := e.db.profileWriteTx(ctx, func(tx *sql.Tx) error { return fn(sq{tx}) })
	if err == nil {
		e.db.announce()
	}
	return err
}

// trackedTx is a write transaction's querier that remembers whether the
// transaction changed principals.
type trackedTx struct {
	sq
	changed *bool
}

// cachedReads runs reads on the read pool with the statement cache.
type cachedReads struct{ db *DB }

func (c cachedReads) Row(ctx context.Context, query string, args ...any) sqlrow.Scanner {
	return c.db.queryRow(ctx, query, args...)
}

func (c cachedReads) Query(ctx context.Context, query string, args ...any) (sqlrow.ClosingRows, error) {
	rows, err := c.db.query(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	return sqlRows{rows}, nil
}

func (c cachedReads) Exec(ctx context.Context, query string, args ...any) (int64, error) {
	return sq{c.db.read}.Exec(ctx, query, args...) // refused: a write on the read pool
}

func (c cachedReads) Insert(ctx context.Context, query string, args ...any) (int64, error) {
	return sq{c.db.read}.Insert(ctx, query, args...)
}

// writeTxOf returns the transaction of x, a write transaction's querier
// (WriteTx's, or sq over writeTx's), for the statements a store runs
// prepared on the writer.
func writeTxOf(x sqlrow.Querier) (*sql.Tx, error) {
	if t, ok := x.(trackedTx); ok {
		x = t.sq
	}
	if t, ok := x.(sq); ok {
		if tx, ok := t.q.(*sql.Tx); ok {
			return tx, nil
		}
	}
	return nil, errors.New("a write outside a write transaction")
}

// Stores returns the stores of db written in sqlrow, with this engine's
// parts: its chunk reads, OTP rows, batched refresh, user list and
// one-query profile.
func (db *DB) Stores() sqlrow.Stores {
	return sqlrow.NewStores(engine{db: db}, sqlrow.Parts{
		Chunk: db.loadChunk, OTP: otpRows{}, Refresh: refresher{db}, Users: userRows{db}, Profiles: &db.profiles,
	})
}
