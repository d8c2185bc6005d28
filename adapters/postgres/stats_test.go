package postgres

import (
	"context"
	"testing"
	"time"

	"github.com/matryer/is"

	"counsel/adapters/postgres/pgtest"
)

// TestOpenAnalyzesStaleTables: rows written without the statistics being
// refreshed (a restore, a load, a burst before autovacuum comes by) are
// measured when the service opens the database.
func TestOpenAnalyzesStaleTables(t *testing.T) {
	pgtest.Skip(t)
	is := is.New(t)
	ctx := context.Background()
	url := pgtest.URL(t)
	db, err := Open(ctx, url)
	is.NoErr(err)
	conn, err := db.pool.Acquire(ctx)
	is.NoErr(err)
	_, err = conn.Exec(ctx, `INSERT INTO contracts (uuid, contract_name, contract_type, status, search_text, created_at, updated_at)
		SELECT 'u-' || i, 'c' || i, 1, 1 + i % 8, 'c' || i, now(), now() FROM generate_series(1, 2000) i`)
	is.NoErr(err)
	_, err = conn.Exec(ctx, `SELECT pg_stat_force_next_flush()`)
	is.NoErr(err)
	conn.Release()
	analyzed := func(db *DB, table string) (at *time.Time) {
		deadline := time.Now().Add(5 * time.Second)
		for {
			err := db.pool.QueryRow(ctx, `SELECT greatest(last_analyze, last_autoanalyze) FROM pg_stat_user_tables
				WHERE schemaname = current_schema() AND relname = $1`, table).Scan(&at)
			is.NoErr(err)
			if at != nil || time.Now().After(deadline) {
				return at
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	db.Close()
	db, err = Open(ctx, url)
	is.NoErr(err)
	defer db.Close()
	first := analyzed(db, "contracts")
	is.True(first != nil) // measured at open
	var tuples float64
	is.NoErr(db.pool.QueryRow(ctx, `SELECT reltuples FROM pg_class WHERE oid = 'contracts'::regclass`).Scan(&tuples))
	is.Equal(tuples, float64(2000))
}
