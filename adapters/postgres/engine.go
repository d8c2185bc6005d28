package postgres

import (
	"context"
	"errors"
	"time"

	"counsel/adapters/sqlrow"
)

// engine is db as the stores written once in sqlrow use it.
type engine struct {
	dialect
	db *DB
}

func (e engine) Now() time.Time       { return e.db.Now() }
func (e engine) Read() sqlrow.Querier { return e.db.read() }

// PrincipalsChanged notifies with x's transaction (tx's).
func (e engine) PrincipalsChanged(ctx context.Context, x sqlrow.Querier) error {
	tx, ok := x.(q)
	if !ok || tx.changed == nil {
		return errors.New("principals changed outside a write transaction")
	}
	return notify(ctx, tx, changedPrincipals)
}

// Grown analyzes tables after a bulk write (analyzeAfter).
func (e engine) Grown(ctx context.Context, n int, tables ...string) {
	e.db.analyzeAfter(ctx, n, tables...)
}

// Upkeep does nothing: autovacuum keeps the statistics.
func (e engine) Upkeep(context.Context) error { return nil }

// Serialize takes the transaction-level advisory lock of name.
func (e engine) Serialize(ctx context.Context, x sqlrow.Querier, name string) error {
	key := lockKey(name)
	if name == sqlrow.LockAdministrators {
		key = lockLastAdmin
	}
	_, err := x.Exec(ctx, `SELECT pg_advisory_xact_lock(?)`, key)
	return err
}

func (e engine) ReadTx(ctx context.Context, fn func(sqlrow.Querier) error) error {
	return e.db.readTx(ctx, func(x q) error { return fn(x) })
}

func (e engine) ListTx(ctx context.Context, fn func(sqlrow.Querier) error) error {
	return e.db.listTx(ctx, func(x q) error { return fn(x) })
}

func (e engine) WriteTx(ctx context.Context, fn func(sqlrow.Querier) error) error {
	return e.db.tx(ctx, func(x q) error { return fn(x) })
}

func (e engine) ProfileTx(ctx context.Context, fn func(sqlrow.Querier) error) error {
	return e.db.profileTx(ctx, func(x q) error { return fn(x) })
}

func (e engine) AccessTx(ctx context.Context, fn func(sqlrow.Querier) error) error {
	return e.db.accessTx(ctx, func(x q) error { return fn(x) })
}

// Stores returns the stores of db written in sqlrow, with this engine's
// parts: its chunk reads, OTP rows, batched refresh, user list and
// one-query profile.
func (db *DB) Stores() sqlrow.Stores {
	return sqlrow.NewStores(engine{db: db}, sqlrow.Parts{
		Chunk: db.loadChunk, OTP: otpRows{}, Refresh: refresher{db}, Users: userRows{db}, Profiles: &db.profiles,
	})
}
