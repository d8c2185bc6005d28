package sqlrow

import (
	"context"
	"time"
)

// Engine is one database as the stores written once in this package use
// it: its dialect, its clock and its transactions. Each engine keeps the
// choice of isolation and locks; every write transaction writes the
// effects its context carries (ports.Effects).
type Engine interface {
	Dialect
	// Now is the time the stores stamp rows with.
	Now() time.Time
	// Read runs single statements outside a transaction.
	Read() Querier
	// ReadTx runs fn in a read-only transaction that sees one snapshot,
	// so a count and its page agree.
	ReadTx(ctx context.Context, fn func(Querier) error) error
	// ListTx is ReadTx for list queries, planned for each call's
	// arguments where the engine would otherwise settle on one plan.
	ListTx(ctx context.Context, fn func(Querier) error) error
	// WriteTx runs fn in a write transaction and commits.
	WriteTx(ctx context.Context, fn func(Querier) error) error
	// ProfileTx is WriteTx for writes that may change a cached profile
	// (GET /api/me) and so a principal: after the commit every instance's
	// caches forget profiles and check their principals again.
	ProfileTx(ctx context.Context, fn func(Querier) error) error
	// AccessTx is WriteTx for writes that end sessions or change who may
	// do what: after the commit every instance checks its cached
	// principals again.
	AccessTx(ctx context.Context, fn func(Querier) error) error
	// LockRow ends a SELECT of one row that the transaction then changes,
	// so concurrent writers of that row wait for it (FOR UPDATE on
	// PostgreSQL; nothing on SQLite, whose one writer runs alone).
	LockRow() string
	// Serialize makes the transactions that call it with the same name run
	// one after another, across instances, until each ends.
	Serialize(ctx context.Context, x Querier, name string) error
	// PrincipalsChanged announces, for the commit of x's write
	// transaction, that cached principals must be checked again: this
	// process's right after the commit, every other instance's with it
	// (AccessTx calls it; a store calls it itself where only some outcomes
	// of one write change who may do what).
	PrincipalsChanged(ctx context.Context, x Querier) error
	// Grown tells the engine that one write added n rows to tables, so
	// that it refreshes its planner's statistics of them if they changed
	// much (PostgreSQL; SQLite measures at Upkeep).
	Grown(ctx context.Context, n int, tables ...string)
	// Upkeep is housekeeping's moment for the engine's own upkeep (on
	// SQLite, the planner's statistics and the word index's segments;
	// nothing on PostgreSQL, whose autovacuum sees to them).
	Upkeep(ctx context.Context) error
}
