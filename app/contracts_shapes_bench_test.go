package app_test

import (
	"context"
	"database/sql"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strconv"
	"syscall"
	"testing"
	"time"

	"counsel/adapters/sqlite"
	"counsel/app/apptest"
	"counsel/tools/bench/contractgen"
)

// listShape is one question the issue asks of a contract list: the
// query string, and the count SQLite itself makes of the same contracts
// (the floor of a list bounded by counting them exactly).
type listShape struct {
	name, query string
	floor       string
	floorArgs   []any
}

// listShapes are the shapes for data shape d.
func listShapes(d contractgen.Shape) []listShape {
	st := int(d.Status)
	stName := d.Status.String()
	match := func(w string) string { return `"` + w + `"` }
	// The floors count over the index a list of the shape reads (the
	// filter index for type+signed+start, not the planner's pick).
	return []listShape{
		{"first-page", "", `SELECT count(*) FROM contracts`, nil},
		{"status", "Status=" + stName, `SELECT count(*) FROM contracts WHERE status = ?`, []any{st}},
		{"status+name", "Status=" + stName + "&SortBy=contractName&SortDesc=false",
			`SELECT count(*) FROM contracts WHERE status = ?`, []any{st}},
		{"rare-word", "Search=" + d.Rare, `SELECT count(*) FROM contracts_fts WHERE contracts_fts MATCH ?`, []any{match(d.Rare)}},
		{"common-word", "Search=" + d.Common, `SELECT count(*) FROM contracts_fts WHERE contracts_fts MATCH ?`, []any{match(d.Common)}},
		{"common-word+status", "Search=" + d.Common + "&Status=" + stName,
			`SELECT count(*) FROM contracts WHERE status = ? AND id IN (SELECT rowid FROM contracts_fts WHERE contracts_fts MATCH ?)`,
			[]any{st, match(d.Common)}},
		{"type+signed+start", "ContractType=ServiceAgreement&IsSigned=true&StartDateFrom=2023-01-01&StartDateTo=2024-12-31",
			`SELECT count(*) FROM contracts INDEXED BY contracts_filter WHERE contract_type = 1 AND is_signed = 1 AND start_date BETWEEN ? AND ?`,
			[]any{time.Date(2023, 1, 1, 0, 0, 0, 0, time.UTC).UnixMilli(), time.Date(2024, 12, 31, 0, 0, 0, 0, time.UTC).UnixMilli()}},
		{"status+offset-20000", "Status=" + stName + "&Offset=20000", `SELECT count(*) FROM contracts WHERE status = ?`, []any{st}},
	}
}

// wordFloor is the count of a word from the word index, where there is
// one: the floor of a word search that counts from it.
func wordFloor(ls listShape) (string, []any) {
	switch ls.name {
	case "rare-word", "common-word":
		return `SELECT count(*) FROM contracts_words WHERE contracts_words MATCH ?`, ls.floorArgs
	case "common-word+status":
		return `SELECT count(*) FROM contracts_words WHERE contracts_words MATCH ?`,
			[]any{fmt.Sprintf(`%s AND tags : s%d`, ls.floorArgs[1], ls.floorArgs[0])}
	}
	return "", nil
}

// BenchmarkContractShapes times the list shapes through the HTTP
// handler, one request at a time, over 100,000 contracts of each data
// shape of contractgen (COUNSEL_BENCH_CONTRACTS sets the number), and
// reports each shape's p50 and p99 (wall and CPU time) beside the floor:
// SQLite's own count of the same contracts, timed in the same run.
//
//	go test -run '^$' -bench ContractShapes -benchtime 200x -timeout 30m ./app
func BenchmarkContractShapes(b *testing.B) {
	if apptest.Engine() == "postgres" { // it reads SQLite's plans; PostgreSQL's shapes are adapters/postgres BenchmarkContractListShapes
		b.Skip("app: BenchmarkContractShapes measures the SQLite store")
	}
	n := 100_000
	if v, err := strconv.Atoi(os.Getenv("COUNSEL_BENCH_CONTRACTS")); err == nil && v > 0 {
		n = v
	}
	for _, d := range contractgen.Shapes() {
		b.Run(d.Name, func(b *testing.B) {
			s := apptest.New(b)
			admin := s.Admin(b)
			t0 := time.Now()
			if err := sqlite.NewContractStore(s.App.DB()).ImportContracts(context.Background(), d.Make(n, 1, apptest.Start), 1); err != nil {
				b.Fatal(err)
			}
			b.Logf("%s: seeded %d contracts in %s", d.Name, n, time.Since(t0).Round(time.Millisecond))
			h := s.App.Handler()
			read := s.App.DB().Read()
			for _, ls := range listShapes(d) {
				b.Run(ls.name, func(b *testing.B) {
					var took, cpu []time.Duration
					var count string
					for b.Loop() {
						req := httptest.NewRequest("GET", "/api/contracts?"+ls.query, nil)
						req.Header.Set("Authorization", "Bearer "+admin)
						rec := httptest.NewRecorder()
						c0 := cpuTime()
						t0 := time.Now()
						h.ServeHTTP(rec, req)
						took = append(took, time.Since(t0))
						cpu = append(cpu, cpuTime()-c0)
						if rec.Code != http.StatusOK {
							b.Fatalf("%s: %d %s", ls.query, rec.Code, rec.Body)
						}
						if count == "" {
							count = listCount(rec.Body.String())
						}
					}
					p50, p99 := percentiles(took)
					b.ReportMetric(p50, "p50-ms")
					b.ReportMetric(p99, "p99-ms")
					c50, c99 := percentiles(cpu)
					line := fmt.Sprintf("%s %s: count %s, p50 %.2f ms, p99 %.2f ms (CPU p50 %.2f, p99 %.2f)", d.Name, ls.name, count, p50, p99, c50, c99)
					f50, f99, fc := timeCount(b, read, len(took), ls.floor, ls.floorArgs...)
					line += fmt.Sprintf("; count(*) %d: p50 %.2f ms, p99 %.2f ms", fc, f50, f99)
					if q, args := wordFloor(ls); q != "" && hasTable(read, "contracts_words") {
						w50, w99, wc := timeCount(b, read, len(took), q, args...)
						line += fmt.Sprintf("; word index count %d: p50 %.2f ms, p99 %.2f ms", wc, w50, w99)
					}
					b.Log(line)
				})
			}
		})
	}
}

// timeCount runs a count query n times and returns its p50, p99 and
// result.
func timeCount(b *testing.B, db *sql.DB, n int, q string, args ...any) (p50, p99 float64, count int64) {
	took := make([]time.Duration, 0, n)
	for range max(n, 1) {
		t0 := time.Now()
		if err := db.QueryRow(q, args...).Scan(&count); err != nil {
			b.Fatalf("%s: %v", q, err)
		}
		took = append(took, time.Since(t0))
	}
	p50, p99 = percentiles(took)
	return p50, p99, count
}

func hasTable(db *sql.DB, name string) bool {
	var n int
	err := db.QueryRow(`SELECT count(*) FROM sqlite_schema WHERE name = ?`, name).Scan(&n)
	return err == nil && n > 0
}

// cpuTime is the process's CPU time so far. One request at a time, its
// growth over a request is that request's CPU time (and the GC's), which
// other work on a shared machine disturbs much less than wall time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// percentiles returns the median and 99th percentile of took, in ms.
func percentiles(took []time.Duration) (p50, p99 float64) {
	slices.Sort(took)
	pct := func(p float64) float64 {
		return float64(took[int(p*float64(len(took)-1))].Microseconds()) / 1000
	}
	return pct(0.5), pct(0.99)
}
