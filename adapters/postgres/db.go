// Package postgres implements Counsel's stores on PostgreSQL through
// jackc/pgx (pgxpool), for firms that run several instances on one
// database (docs/decisions.md §10).
//
// Every method behaves as its SQLite twin: the engine-neutral suites of
// ports/porttest hold both to one contract. What differs is how: rows
// that a write decides on are locked (SELECT … FOR UPDATE) instead of
// relying on SQLite's single writer; substring search reads a pg_trgm GIN
// index; document bytes live in the database in chunks, so instances
// share no disk. Migrations are embedded and applied at open, each in a
// transaction, under an advisory lock so that instances starting together
// migrate once.
package postgres

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"counsel/adapters/sqlrow"
	"counsel/ports"
)

//go:embed migrations/*.sql
var migrationFS embed.FS

// Advisory lock keys (one namespace per purpose).
const (
	lockMigrate   int64 = 0x436f756e73656c01 // "Counsel" + 1
	lockLastAdmin int64 = 0x436f756e73656c02
)

// DB is an open Counsel database on PostgreSQL.
type DB struct {
	pool *pgxpool.Pool
	url  string
	// profiles caches GET /api/me's profile rows; see profiles.go.
	profiles sqlrow.ProfileCache
	// refreshes queues concurrent token refreshes; see refresh_batch.go.
	refreshes refreshQueue
	// Now is the clock used for timestamps the stores set themselves.
	Now func() time.Time
	// effectsListener hears of effects once committed (OnEffects).
	effectsListener func([]ports.Effect)
	// changeListener hears of changed principals once committed
	// (OnChange).
	changeListener func()
	// connectListener, if set, replaces pgx.ConnectConfig for Listen's
	// connection (tests hold the listener down with it).
	connectListener func(context.Context, *pgx.ConnConfig) (*pgx.Conn, error)
}

// IsURL reports whether s names a PostgreSQL database rather than a
// SQLite file.
func IsURL(s string) bool {
	return strings.HasPrefix(s, "postgres://") || strings.HasPrefix(s, "postgresql://")
}

// Open connects to the database at url and applies pending migrations.
func Open(ctx context.Context, url string) (*DB, error) {
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		return nil, fmt.Errorf("postgres: %w", err)
	}
	if cfg.MaxConns < 8 {
		cfg.MaxConns = 8
	}
	cfg.ConnConfig.RuntimeParams["timezone"] = "UTC"
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("postgres: %w", err)
	}
	db := &DB{pool: pool, url: url, Now: func() time.Time { return time.Now().UTC() }}
	db.profiles.TTL = profileTTL
	if err := db.migrate(ctx); err != nil {
		pool.Close()
		return nil, err
	}
	db.analyzeStale(ctx)
	return db, nil
}

// analyzeStale analyzes the schema's tables whose statistics autovacuum
// would refresh (more rows changed since they were last measured than
// 50 and a tenth of the table), so that a database just restored, copied
// or loaded is planned from its rows from the first request, not from
// the empty tables last sampled until autovacuum comes by. A failure
// only leaves them to autovacuum.
func (db *DB) analyzeStale(ctx context.Context) {
	rows, err := db.pool.Query(ctx, `SELECT quote_ident(s.relname) FROM pg_stat_user_tables s JOIN pg_class c ON c.oid = s.relid
		WHERE s.schemaname = current_schema() AND s.n_mod_since_analyze > 50 + 0.1 * greatest(c.reltuples, 0)`)
	if err != nil {
		return
	}
	tables, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil || len(tables) == 0 {
		return
	}
	db.pool.Exec(ctx, `ANALYZE `+strings.Join(tables, ", "))
}

// Close closes the pool.
func (db *DB) Close() error {
	db.pool.Close()
	return nil
}

// Pool returns the connection pool (tests and tools).
func (db *DB) Pool() *pgxpool.Pool { return db.pool }

// Ping checks that the database answers a query.
func (db *DB) Ping(ctx context.Context) error {
	var one int
	return db.pool.QueryRow(ctx, "SELECT 1").Scan(&one)
}

// migrate applies the embedded migrations schema_migrations lacks, each
// in its own transaction, holding a session advisory lock meanwhile.
func (db *DB) migrate(ctx context.Context) error {
	conn, err := db.pool.Acquire(ctx)
	if err != nil {
		return fmt.Errorf("postgres: %w", err)
	}
	defer conn.Release()
	if _, err := conn.Exec(ctx, "SELECT pg_advisory_lock($1)", lockMigrate); err != nil {
		return fmt.Errorf("migration lock: %w", err)
	}
	defer conn.Exec(context.WithoutCancel(ctx), "SELECT pg_advisory_unlock($1)", lockMigrate)
	if _, err := conn.Exec(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (
		version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL)`); err != nil {
		return fmt.Errorf("create schema_migrations: %w", err)
	}
	ms, err := sqlrow.Migrations(migrationFS, 0)
	if err != nil {
		return err
	}
	for _, m := range ms {
		err = pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error {
			var n int
			if err := tx.QueryRow(ctx, "SELECT count(*) FROM schema_migrations WHERE version = $1", m.Version).Scan(&n); err != nil || n > 0 {
				return err
			}
			if _, err := tx.Exec(ctx, m.Body); err != nil {
				return err
			}
			_, err := tx.Exec(ctx, "INSERT INTO schema_migrations (version, name, applied_at) VALUES ($1, $2, now())", m.Version, m.Name)
			return err
		})
		if err != nil {
			return fmt.Errorf("migration %s: %w", m.Name, err)
		}
	}
	return nil
}

// Migrations returns the applied migrations' names, oldest first.
func (db *DB) Migrations(ctx context.Context) ([]string, error) {
	rows, err := db.pool.Query(ctx, "SELECT name FROM schema_migrations ORDER BY version")
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, pgx.RowTo[string])
}

// querier is what the pool and a transaction both offer.
type querier interface {
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

// q runs statements written with ? placeholders (as the SQLite adapter's
// are) on a pool or transaction, numbering them for PostgreSQL. With
// custom set, each statement is planned for its arguments (see listTx).
type q struct {
	c      querier
	custom bool
	// changed, in a write transaction (tx), is set by a notification of
	// changed principals or profiles, announced in process after commit.
	changed *bool
}

func (x q) args(args []any) []any {
	if x.custom {
		return append([]any{pgx.QueryExecModeCacheDescribe}, args...)
	}
	return args
}

func (x q) exec(ctx context.Context, s string, args ...any) (int64, error) {
	tag, err := x.c.Exec(ctx, rebind(s), x.args(args)...)
	return tag.RowsAffected(), err
}

func (x q) query(ctx context.Context, s string, args ...any) (pgx.Rows, error) {
	return x.c.Query(ctx, rebind(s), x.args(args)...)
}

func (x q) row(ctx context.Context, s string, args ...any) pgx.Row {
	return x.c.QueryRow(ctx, rebind(s), x.args(args)...)
}

// Row, Query, Exec and Insert make q a sqlrow.Querier.
var _ sqlrow.Querier = q{}

func (x q) Row(ctx context.Context, s string, args ...any) sqlrow.Scanner {
	return x.row(ctx, s, args...)
}

func (x q) Query(ctx context.Context, s string, args ...any) (sqlrow.ClosingRows, error) {
	return x.query(ctx, s, args...)
}

func (x q) Exec(ctx context.Context, s string, args ...any) (int64, error) {
	return x.exec(ctx, s, args...)
}

// Insert runs an INSERT with RETURNING id appended.
func (x q) Insert(ctx context.Context, s string, args ...any) (int64, error) {
	var id int64
	err := x.row(ctx, s+` RETURNING id`, args...).Scan(&id)
	return id, err
}

var (
	rebound  sync.Map // string -> string
	reboundN atomic.Int64
)

const maxRebound = 4096

// rebind numbers ? placeholders outside quoted literals: $1, $2, ….
func rebind(s string) string {
	if v, ok := rebound.Load(s); ok {
		return v.(string)
	}
	var b strings.Builder
	n, quoted := 0, false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\'':
			quoted = !quoted
		case c == '?' && !quoted:
			n++
			b.WriteString("$" + strconv.Itoa(n))
			continue
		}
		b.WriteByte(c)
	}
	out := b.String()
	if reboundN.Add(1) < maxRebound { // bounded: list queries vary with their filters
		rebound.Store(s, out)
	}
	return out
}

// read is the pool as a q.
func (db *DB) read() q { return q{c: db.pool} }

// tx runs fn in a READ COMMITTED transaction and commits. A deadlock or
// serialization failure, which row locks taken in different orders can
// cause, is retried a few times.
func (db *DB) tx(ctx context.Context, fn func(q) error) error {
	fx := ports.EffectsOf(ctx)
	mark := fx.Begin()
	var err error
	var written []ports.Effect
	changed := false
	for attempt := 0; attempt < 5; attempt++ {
		changed = false
		err = pgx.BeginFunc(ctx, db.pool, func(tx pgx.Tx) error {
			x := q{c: tx, changed: &changed}
			if err := fn(x); err != nil {
				return err
			}
			var err error
			if written, err = fx.Pending(); err != nil || len(written) == 0 {
				return err
			}
			if err := sqlrow.WriteEffects(ctx, x, dialect{}, db.Now(), written); err != nil {
				return err
			}
			if queuesMail(written) { // other instances' outbox workers start at once
				if err := notify(ctx, x, changedMail); err != nil {
					return err
				}
			}
			if queuesWebhooks(written) { // and their webhook workers
				return notify(ctx, x, changedWebhooks)
			}
			return nil
		})
		var pe *pgconn.PgError
		if !errors.As(err, &pe) || (pe.Code != "40P01" && pe.Code != "40001") {
			break
		}
		fx.Rollback(mark)
	}
	if err != nil {
		fx.Rollback(mark)
		return formatError(err)
	}
	fx.Committed()
	if changed {
		db.announce()
	}
	if len(written) > 0 && db.effectsListener != nil {
		db.effectsListener(written)
	}
	return nil
}

// OnChange sets fn to run after each commit in this process that changed
// who may do what (sessions, roles, permissions, users, profiles), before
// the write returns; other instances hear of it through Listen. With
// Listen it is the one path by which cached principals learn of a change.
// fn must not block. Call it before the database is in use.
func (db *DB) OnChange(fn func()) { db.changeListener = fn }

// announce tells the change listener of a committed change.
func (db *DB) announce() {
	if db.changeListener != nil {
		db.changeListener()
	}
}

// OnEffects sets fn to run after each commit that wrote effects, with the
// effects written, so a worker in this process starts on them at once
// (other instances hear of them their own way). fn must not block. Call
// it before the database is in use.
func (db *DB) OnEffects(fn func([]ports.Effect)) { db.effectsListener = fn }

// readTx runs fn in a read-only REPEATABLE READ transaction, so that a
// count and its page see one snapshot.
func (db *DB) readTx(ctx context.Context, fn func(q) error) error {
	return db.snapshot(ctx, false, fn)
}

// listTx is readTx for the list queries, whose statements are planned for
// each call's arguments (an unnamed statement, its description cached)
// instead of prepared once: after a few calls PostgreSQL may settle on
// one generic plan for a prepared statement, and the plan that suits a
// rare search term (the trigram index) reads 40% of the table for a
// common one (26 ms where its own plan takes 2). Planning costs a tenth
// of a millisecond.
func (db *DB) listTx(ctx context.Context, fn func(q) error) error {
	return db.snapshot(ctx, true, fn)
}

func (db *DB) snapshot(ctx context.Context, custom bool, fn func(q) error) error {
	err := pgx.BeginTxFunc(ctx, db.pool, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly},
		func(tx pgx.Tx) error { return fn(q{c: tx, custom: custom}) })
	return formatError(err)
}

// formatError turns constraint violations into domain errors
// (sqlrow.FormatError).
func formatError(err error) error { return sqlrow.FormatError(err, violation) }

func violation(err error) sqlrow.Violation {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		switch pe.Code {
		case "23505":
			return sqlrow.UniqueViolation
		case "23503":
			return sqlrow.MissingReference
		case "22021", "22P05", "54000": // PostgreSQL text cannot hold a NUL character
			return sqlrow.NULInText
		}
	}
	return sqlrow.NoViolation
}

// nullTime stores a zero or nil time as NULL.
func nullTime(t *time.Time) any {
	if t == nil || t.IsZero() {
		return nil
	}
	return *t
}

// placeholders returns n comma-separated question marks.
func placeholders(n int) string {
	return strings.TrimSuffix(strings.Repeat("?,", n), ",")
}

// copyRows writes rows into table with COPY, the fastest bulk load.
func copyRows(ctx context.Context, x q, table string, cols []string, rows [][]any) error {
	c, ok := x.c.(interface {
		CopyFrom(context.Context, pgx.Identifier, []string, pgx.CopyFromSource) (int64, error)
	})
	if !ok {
		return fmt.Errorf("copy into %s: not on a connection", table)
	}
	_, err := c.CopyFrom(ctx, pgx.Identifier{table}, cols, pgx.CopyFromRows(rows))
	return err
}

// Import writes rows into table (columns cols) with COPY in one
// transaction: bulk copies between databases (counsel copy) use it.
func (db *DB) Import(ctx context.Context, table string, cols []string, rows [][]any) error {
	return db.tx(ctx, func(x q) error { return copyRows(ctx, x, table, cols, rows) })
}

// identityTables lists the tables whose id is an identity column.
func identityTables(ctx context.Context, x q) ([]string, error) {
	rows, err := x.query(ctx, `SELECT table_name::text FROM information_schema.columns
		WHERE table_schema = current_schema() AND column_name = 'id' AND is_identity = 'YES'`)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, pgx.RowTo[string])
}

// Sequences returns the high-water mark of every identity column, by
// table: the last id given, used or not.
func (db *DB) Sequences(ctx context.Context) (map[string]int64, error) {
	out := map[string]int64{}
	tables, err := identityTables(ctx, db.read())
	if err != nil {
		return nil, err
	}
	for _, t := range tables {
		var v *int64
		if err := db.read().row(ctx, `SELECT pg_sequence_last_value(pg_get_serial_sequence(?, 'id')::regclass)`, t).Scan(&v); err != nil {
			return nil, err
		}
		if v != nil {
			out[t] = *v
		}
	}
	return out, nil
}

// SetSequences makes every identity column continue after its table's
// greatest id and after marks (another database's high-water marks), so
// no id is given twice.
func (db *DB) SetSequences(ctx context.Context, marks map[string]int64) error {
	return db.tx(ctx, func(x q) error {
		tables, err := identityTables(ctx, x)
		if err != nil {
			return err
		}
		for _, t := range tables {
			var maxID int64
			if err := x.row(ctx, `SELECT coalesce(max(id), 0) FROM `+pgx.Identifier{t}.Sanitize()).Scan(&maxID); err != nil {
				return err
			}
			v := max(maxID, marks[t])
			if v == 0 {
				continue
			}
			if _, err := x.exec(ctx, `SELECT setval(pg_get_serial_sequence(?, 'id'), ?)`, t, v); err != nil {
				return err
			}
		}
		return nil
	})
}

// dialect is PostgreSQL's side of the rows shared with SQLite (package
// sqlrow): timestamptz, LIKE on the trigram index, arrays for id lists.
type dialect struct{}

var _ sqlrow.Dialect = dialect{}

func (dialect) Arg(t time.Time) any { return t }

// OneOf is an equality for one code, so that a generic plan still reads
// the (col, order…) index in order, which the planner does not do for
// = ANY of an array parameter; an array of smallints otherwise.
func (dialect) OneOf(col string, codes []int) (string, []any) {
	cond, arg := anyOf(col, smallints(codes))
	return cond, []any{arg}
}

// Decode returns t in UTC (pgx reads timestamptz in the local zone).
func (dialect) Decode(src any) (time.Time, error) {
	t, ok := src.(time.Time)
	if !ok {
		return time.Time{}, fmt.Errorf("a timestamp read as %T", src)
	}
	return t.UTC(), nil
}

// Contains matches the folded key with LIKE, which the trigram index
// answers.
func (dialect) Contains(col, term string) (string, any) {
	return col + ` LIKE ? ESCAPE '\'`, "%" + escapeLike(term) + "%"
}

func (dialect) In(col string, ids []int64) (string, []any) {
	return col + " = ANY (?)", []any{ids}
}

func (dialect) FormatError(err error) error { return formatError(err) }

func (dialect) LockedUntil(t time.Time) any { return nullTime(&t) }

func (dialect) Fold(col string) string { return `lower(` + col + ` COLLATE "C")` }

func (dialect) IsTrue(col string) string { return col }

func (dialect) IndexedBy(string) string { return "" }

func (dialect) LockRow() string { return " FOR UPDATE" }
