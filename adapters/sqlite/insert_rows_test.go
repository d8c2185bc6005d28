package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"testing"

	"github.com/matryer/is"
)

// TestInsertRows checks that insertRows writes every row, in order, over
// full statements and a last partial one: with 100 columns a statement
// holds 327 rows.
func TestInsertRows(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := openDB(t)
	cols := make([]string, 100)
	for i := range cols {
		cols[i] = fmt.Sprint("c", i)
	}
	exec(t, db, `CREATE TABLE wide (id INTEGER PRIMARY KEY, `+strings.Join(cols, ", ")+`)`)
	for _, n := range []int{0, 1, 327, 700} {
		is := is.New(t)
		exec(t, db, `DELETE FROM wide`)
		rows := make([][]any, n)
		for i := range rows {
			rows[i] = make([]any, len(cols))
			for j := range cols {
				rows[i][j] = i*1000 + j
			}
		}
		is.NoErr(db.writeTx(ctx, func(tx *sql.Tx) error { return insertRows(ctx, tx, "wide", cols, rows) }))
		is.Equal(scalar[int](t, db, `SELECT count(*) FROM wide`), n)
		is.Equal(scalar[int](t, db, `SELECT count(*) FROM wide WHERE c0 = (id - 1) * 1000 AND c99 = c0 + 99`), n) // in order, every column
	}
}
