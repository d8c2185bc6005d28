package sqlite

import (
	"context"
	"strings"
	"testing"

	"github.com/matryer/is"

	"counsel/adapters/sqlrow"
	"counsel/ports/porttest"
)

// TestKeyDatesQueryUsesIndexes: the key-date job's candidates come from
// the range of contracts_notice, whatever the statistics say of status
// (most contracts are live), each with its owner and its announced
// threshold by primary key: no table is scanned (docs/performance.md,
// "Key-date digests").
func TestKeyDatesQueryUsesIndexes(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	db := openDB(t)
	from, to, th := porttest.KeyDatePlanWindow()
	q, args := sqlrow.DueKeyDatesSQL(dialect{}, from, to, th)
	rows, err := db.read.QueryContext(context.Background(), "EXPLAIN QUERY PLAN "+q, args...)
	is.NoErr(err)
	defer rows.Close()
	var plan []string
	for rows.Next() {
		var id, parent, unused int
		var detail string
		is.NoErr(rows.Scan(&id, &parent, &unused, &detail))
		plan = append(plan, detail)
	}
	joined := strings.Join(plan, "; ")
	t.Log(joined)
	is.True(strings.Contains(joined, "SEARCH c USING INDEX contracts_notice (notice_date>? AND notice_date<?)"))
	is.True(strings.Contains(joined, "key_date_announcements_1 (contract_id=? AND threshold_days=?)"))
	for _, step := range plan {
		is.True(!strings.HasPrefix(step, "SCAN")) // no table or whole index scanned
	}
}
