package postgres

import (
	"context"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"
)

// rebuilds are what a bulk load of a table must recompute, in the load's
// transaction, because its triggers were off: the tables they keep.
var rebuilds = map[string][]string{
	"contracts": {
		`SELECT contract_words_rebuild()`,
		`UPDATE contract_counts SET n = 0`,
		`INSERT INTO contract_counts (status, n) SELECT status, count(*) FROM contracts GROUP BY status
			ON CONFLICT (status) DO UPDATE SET n = EXCLUDED.n`,
	},
}

// Load fills table in one transaction, the way a bulk load into an empty
// table is fastest: its secondary indexes (those no constraint needs) are
// dropped first and built once at the end, its triggers are off meanwhile
// and what they keep is recomputed in one statement each (rebuilds), and
// fill writes the rows with COPY through write, in as many batches as it
// likes. A failure rolls everything back, indexes and triggers included.
// counsel copy uses it: the target holds nothing else, and nothing else
// writes to it.
func (db *DB) Load(ctx context.Context, table string, fill func(write func(cols []string, rows [][]any) error) error) error {
	return db.tx(ctx, func(x q) error {
		// Index builds and the rebuilds' sorts in memory: one load at a
		// time, on a server that is not yet serving.
		if _, err := x.exec(ctx, `SET LOCAL maintenance_work_mem = '256MB'; SET LOCAL work_mem = '64MB'`); err != nil {
			return err
		}
		rows, err := x.query(ctx, `SELECT i.indexname::text, i.indexdef FROM pg_indexes i
			WHERE i.schemaname = current_schema() AND i.tablename = ?
			AND NOT EXISTS (SELECT 1 FROM pg_constraint k WHERE k.conindid = (quote_ident(i.schemaname) || '.' || quote_ident(i.indexname))::regclass)`, table)
		if err != nil {
			return err
		}
		type index struct{ Name, Def string }
		indexes, err := pgx.CollectRows(rows, pgx.RowToStructByPos[index])
		if err != nil {
			return err
		}
		ident := pgx.Identifier{table}.Sanitize()
		for _, ix := range indexes {
			if _, err := x.exec(ctx, `DROP INDEX `+pgx.Identifier{ix.Name}.Sanitize()); err != nil {
				return err
			}
		}
		if _, err := x.exec(ctx, `ALTER TABLE `+ident+` DISABLE TRIGGER USER`); err != nil {
			return err
		}
		err = fill(func(cols []string, rows [][]any) error { return copyRows(ctx, x, table, cols, rows) })
		if err != nil {
			return err
		}
		for _, ix := range indexes {
			if _, err := x.exec(ctx, ix.Def); err != nil {
				return fmt.Errorf("rebuild %s: %w", ix.Name, err)
			}
		}
		if _, err := x.exec(ctx, `ALTER TABLE `+ident+` ENABLE TRIGGER USER`); err != nil {
			return err
		}
		for _, s := range rebuilds[table] {
			if _, err := x.exec(ctx, s); err != nil {
				return fmt.Errorf("rebuild after loading %s: %w", table, err)
			}
		}
		return nil
	})
}

// Analyze refreshes the planner's statistics of every table of the
// schema, which a bulk load leaves stale.
func (db *DB) Analyze(ctx context.Context) error {
	rows, err := db.pool.Query(ctx, `SELECT quote_ident(tablename) FROM pg_tables WHERE schemaname = current_schema()`)
	if err != nil {
		return err
	}
	tables, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil || len(tables) == 0 {
		return err
	}
	_, err = db.pool.Exec(ctx, `ANALYZE `+strings.Join(tables, ", "))
	return err
}

// bulkRows is the size of a bulk write after which its store vacuums and
// analyzes the tables it wrote (analyzeAfter), as autovacuum would a
// minute later: until then the planner has the statistics of the empty
// tables it last sampled (a sort of every user for the last page of
// 10,000, planned as if there were 15) and no visibility map for
// index-only scans.
const bulkRows = 1000

// analyzeAfter vacuums and analyzes tables after a bulk write of n rows.
// A failure only leaves them to autovacuum.
func (db *DB) analyzeAfter(ctx context.Context, n int, tables ...string) {
	if n >= bulkRows {
		db.pool.Exec(ctx, `VACUUM (ANALYZE) `+strings.Join(tables, ", "))
	}
}
