package sqlite

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"counsel/domain/contract"
	"counsel/tools/bench/contractgen"
)

// planShapes are the list shapes the console and API offer, each with
// the indexes its plan must read (any order) and a word of the text that
// must not appear in it. Made for shape sh of the generated data.
func planShapes(sh contractgen.Shape) []struct {
	name string
	f    contract.Filter
	want []string
} {
	yes := true
	from, to := t0.AddDate(-3, 0, 0), t0.AddDate(-1, 0, 0)
	matter := int64(7)
	return []struct {
		name string
		f    contract.Filter
		want []string
	}{
		{"first page", contract.Filter{SortDesc: true, Limit: 20}, []string{"contracts_updated"}},
		{"one status", contract.Filter{Statuses: []contract.Status{sh.Status}, SortDesc: true, Limit: 20}, []string{"contracts_status_updated"}},
		{"one status by name", contract.Filter{Statuses: []contract.Status{sh.Status}, SortBy: contract.SortContractName, Limit: 20}, []string{"contracts_status_name"}},
		{"rare word", contract.Filter{Search: sh.Rare, SortDesc: true, Limit: 20}, []string{"contract_terms_fts", "contracts_words"}},
		{"common word", contract.Filter{Search: sh.Common, SortDesc: true, Limit: 20}, []string{"contract_terms_fts", "contracts_words"}},
		{"common word and status", contract.Filter{Search: sh.Common, Statuses: []contract.Status{sh.Status}, SortDesc: true, Limit: 20}, []string{"contracts_words"}},
		{"type signed start", contract.Filter{Types: []contract.Type{contract.Type(2)}, IsSigned: &yes, StartFrom: &from, StartTo: &to, SortDesc: true, Limit: 20}, []string{"contracts_filter"}},
		{"status deep page", contract.Filter{Statuses: []contract.Status{sh.Status}, SortDesc: true, Limit: 20, Offset: 100}, []string{"contracts_status_updated"}},
		{"status and end range", contract.Filter{Statuses: []contract.Status{contract.Signed}, EndFrom: &from, EndTo: &to, SortBy: contract.SortEndDate, Limit: 20}, []string{"contracts_status_end"}},
		{"matter", contract.Filter{MatterID: &matter, SortDesc: true, Limit: 20}, []string{"contracts_matter"}},
		{"short search and status", contract.Filter{Search: "ab", Statuses: []contract.Status{sh.Status}, SortDesc: true, Limit: 20}, []string{"contracts_search"}},
		{"phrase", contract.Filter{Search: "a " + sh.Common, SortDesc: true, Limit: 20}, []string{"contracts_fts"}},
		{"phrase and status", contract.Filter{Search: sh.Common + " a", Statuses: []contract.Status{sh.Status}, SortDesc: true, Limit: 20}, []string{"contracts_fts"}},
		{"common word and start", contract.Filter{Search: sh.Common, StartFrom: &from, SortDesc: true, Limit: 20}, []string{"contracts_words"}},
	}
}

// listPlans runs each shape's list on s and returns, per shape, the query
// plans (EXPLAIN QUERY PLAN) of every query it ran.
func listPlans(t *testing.T, db *DB, s *ContractStore, sh contractgen.Shape) map[string]string {
	t.Helper()
	ctx := context.Background()
	plans := map[string]string{}
	for _, tt := range planShapes(sh) {
		type query struct {
			q    string
			args []any
		}
		var ran []query
		s.trace = func(q string, args []any) { ran = append(ran, query{q, args}) }
		if _, _, err := s.Contracts(ctx, tt.f); err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		s.trace = nil
		var b strings.Builder
		for _, r := range ran {
			if strings.Contains(r.q, "FROM contract_counts c") {
				b.WriteString("(stored counts)\n--\n") // a table of at most 192 rows
				continue
			}
			rows, err := db.read.QueryContext(ctx, "EXPLAIN QUERY PLAN "+r.q, r.args...)
			if err != nil {
				t.Fatalf("%s: explain %s: %v", tt.name, r.q, err)
			}
			for rows.Next() {
				var id, parent, unused int
				var detail string
				if err := rows.Scan(&id, &parent, &unused, &detail); err != nil {
					t.Fatal(err)
				}
				b.WriteString(detail + "\n")
			}
			rows.Close()
			b.WriteString("--\n")
		}
		plans[tt.name] = b.String()
	}
	return plans
}

// freshReads closes the read pool's idle connections, so the next query
// opens one that loads the statistics as they now are.
func freshReads(db *DB) {
	db.read.SetMaxIdleConns(0)
	db.read.SetMaxIdleConns(4)
}

// TestContractListPlans replaces the check of migration 0003's
// hand-written statistics: the plan of every list shape must be the
// intended one whatever the statistics say. For each generated data
// shape it compares the plans with no statistics at all and after
// ANALYZE (as Open, housekeeping and counsel copy run it), and checks
// that each reads the indexes it should and never scans the contracts
// table without one.
func TestContractListPlans(t *testing.T) {
	t.Parallel()
	for _, sh := range contractgen.Shapes() {
		t.Run(sh.Name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			db := openDB(t)
			s := NewContractStore(db)
			// 1,000 contracts stand for 100,000: the thresholds shrink with them.
			s.knobs.walkThreshold, s.knobs.searchProbe = 20, 5
			cs := sh.Make(1000, 17, t0)
			for i := range cs {
				cs[i].UUID = fmt.Sprintf("u%d", i)
				if rand.IntN(50) == 0 {
					m := int64(7)
					cs[i].MatterID = &m
				}
			}
			start := time.Now()
			if err := s.ImportContracts(ctx, cs, 1); err != nil {
				t.Fatal(err)
			}
			t.Logf("import %v", time.Since(start))
			exec(t, db, `DELETE FROM sqlite_stat1`)
			exec(t, db, `ANALYZE sqlite_schema`)
			freshReads(db)
			none := listPlans(t, db, s, sh)
			if err := db.Analyze(ctx); err != nil {
				t.Fatal(err)
			}
			if scalar[int](t, db, `SELECT count(*) FROM sqlite_stat1 WHERE tbl = 'contracts'`) < 10 {
				t.Fatal("ANALYZE wrote no statistics of contracts")
			}
			freshReads(db)
			analyzed := listPlans(t, db, s, sh)
			for _, tt := range planShapes(sh) {
				plan := none[tt.name]
				if analyzed[tt.name] != plan {
					t.Errorf("%s: the plan depends on the statistics:\nnone:\n%s\nanalyzed:\n%s", tt.name, plan, analyzed[tt.name])
				}
				for _, idx := range tt.want {
					if !strings.Contains(plan, idx) {
						t.Errorf("%s: the plan does not read %s:\n%s", tt.name, idx, plan)
					}
				}
				for _, line := range strings.Split(plan, "\n") {
					if line == "SCAN c" || line == "SCAN contracts" {
						t.Errorf("%s: the plan reads every contract:\n%s", tt.name, plan)
					}
				}
				if testing.Verbose() {
					t.Logf("%s:\n%s", tt.name, plan)
				}
			}
		})
	}
}
