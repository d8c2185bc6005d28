package postgres

import (
	"context"
	"strings"
	"testing"

	"github.com/matryer/is"

	"counsel/adapters/postgres/pgtest"
	"counsel/adapters/sqlrow"
	"counsel/ports/porttest"
)

// TestKeyDatesQueryUsesIndexes: the key-date job's candidate query can
// be answered from the range of contracts_notice (its conditions are
// sargable). An empty database would be read by a scan, so scans are
// priced out here; the plan at 100,000 contracts, a bitmap range of
// contracts_notice, is in docs/performance.md ("Key-date digests").
func TestKeyDatesQueryUsesIndexes(t *testing.T) {
	pgtest.Skip(t)
	is := is.New(t)
	db := openDB(t)
	from, to, th := porttest.KeyDatePlanWindow()
	q, args := sqlrow.DueKeyDatesSQL(dialect{}, from, to, th)
	var plan []string
	err := engine{db: db}.ReadTx(context.Background(), func(x sqlrow.Querier) error {
		if _, err := x.Exec(context.Background(), `SET LOCAL enable_seqscan = off`); err != nil {
			return err
		}
		var err error
		plan, err = sqlrow.QueryAll(context.Background(), x, func(sc sqlrow.Scanner) (string, error) {
			var line string
			return line, sc.Scan(&line)
		}, "EXPLAIN "+q, args...)
		return err
	})
	is.NoErr(err)
	joined := strings.Join(plan, "\n")
	t.Log(joined)
	is.True(strings.Contains(joined, "using contracts_notice on contracts c"))
	is.True(strings.Contains(joined, "using key_date_announcements_pkey on key_date_announcements a")) // the listed threshold by primary key
	is.True(strings.Contains(joined, "Index Cond: ((notice_date >= "))
}
