package postgres

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"counsel/adapters/postgres/pgtest"
	"counsel/domain/account"
	"counsel/domain/contract"
	"counsel/domain/decimal"
	"counsel/tools/bench/contractgen"
)

// benchVocabulary makes names and descriptions; "standard" is put in
// about 40% of the contracts, "zanzibar" in a few.
var benchVocabulary = strings.Fields(`lease supply services licence agreement renewal office equipment
	consulting maintenance software hosting marketing distribution employment confidentiality partnership
	property vehicle catering cleaning security logistics research training insurance`)

func benchContracts(n int) []contract.Contract {
	r := rand.New(rand.NewPCG(1, 2))
	base := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)
	out := make([]contract.Contract, n)
	for i := range out {
		w := func() string { return benchVocabulary[r.IntN(len(benchVocabulary))] }
		name := w() + " " + w() + fmt.Sprintf(" %d", i)
		desc := w() + " " + w() + " " + w() + " terms"
		if r.IntN(100) < 40 {
			desc += " standard"
		}
		if i%5000 == 0 {
			name += " zanzibar"
		}
		start := base.AddDate(0, 0, r.IntN(2000))
		end := start.AddDate(1, 0, 0)
		amount := decimal.FromScaled(int64(r.IntN(10_000_000)), 2)
		out[i] = contract.Contract{UUID: fmt.Sprintf("bench-%d", i), Name: name, Description: desc,
			Type: contract.Type(1 + r.IntN(6)), Status: contract.Status(1 + r.IntN(8)), IsSigned: r.IntN(2) == 0,
			StartDate: &start, EndDate: &end, Amount: &amount, Currency: "AUD",
			CreatedAt: base.Add(time.Duration(i) * time.Minute), UpdatedAt: base.Add(time.Duration(i) * time.Minute)}
	}
	return out
}

// benchShape is a data shape of BenchmarkContractListShapes: its
// contracts and what to ask of them.
type benchShape struct {
	name         string
	make         func(n int) []contract.Contract
	common, rare string
	// status is the status of the status shapes, byName that of the
	// sorted one.
	status, byName contract.Status
	typ            contract.Type
	from, to       time.Time
}

// benchShapes are the synthetic data this benchmark began with and the
// two shapes of contractgen (the SQLite benchmark's, app
// BenchmarkContractShapes), each asked the same questions.
func benchShapes() []benchShape {
	out := []benchShape{{name: "synthetic", make: benchContracts, common: "standard", rare: "zanzibar",
		status: contract.Signed, byName: contract.Draft, typ: contract.LicenseAgreement,
		from: time.Date(2021, 1, 1, 0, 0, 0, 0, time.UTC), to: time.Date(2021, 6, 30, 0, 0, 0, 0, time.UTC)}}
	now := time.Date(2026, 11, 21, 9, 30, 0, 0, time.UTC) // apptest.Start, as the SQLite benchmark
	for _, d := range contractgen.Shapes() {
		out = append(out, benchShape{name: d.Name, make: func(n int) []contract.Contract { return d.Make(n, 1, now) },
			common: d.Common, rare: d.Rare, status: d.Status, byName: d.Status, typ: contract.ServiceAgreement,
			from: time.Date(2023, 1, 1, 0, 0, 0, 0, time.UTC), to: time.Date(2024, 12, 31, 0, 0, 0, 0, time.UTC)})
	}
	return out
}

// BenchmarkContractListShapes reports p50 and p99 of each list shape of
// docs/decisions.md §5 over 100,000 contracts of each data shape (benchShapes;
// select one with -bench 'ContractListShapes/archive'), each after a few
// warm-up calls (steady state: statements prepared, pages cached). The
// "floor" shapes are PostgreSQL's own count over the index a shape's
// count reads, the bound of that shape. COUNSEL_BENCH_EXPLAIN=1 logs
// EXPLAIN (ANALYZE, BUFFERS) of every statement of one call per shape,
// through auto_explain.
func BenchmarkContractListShapes(b *testing.B) {
	for _, d := range benchShapes() {
		b.Run(d.name, func(b *testing.B) { benchListShapes(b, d) })
	}
}

func benchListShapes(b *testing.B, d benchShape) {
	url := pgtest.URL(b)
	db, err := Open(context.Background(), url)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { db.Close() })
	ctx := context.Background()
	accounts := db.Stores().Accounts
	if _, err := accounts.Bootstrap(ctx, account.NewUser{Email: "admin@example.com"}); err != nil {
		b.Fatal(err)
	}
	store := NewContractStore(db)
	cs := d.make(100_000)
	t0 := time.Now()
	for i := 0; i < len(cs); i += 20_000 {
		if err := store.ImportContracts(ctx, cs[i:i+20_000], 1); err != nil {
			b.Fatal(err)
		}
	}
	// After a bulk load: statistics for the planner, and the visibility
	// map that lets counts read indexes only.
	for _, t := range []string{"contracts", "contract_postings", "contract_words"} {
		if _, err := db.pool.Exec(ctx, "VACUUM ANALYZE "+t); err != nil {
			b.Fatal(err)
		}
	}
	b.Logf("%s: seeded %d contracts in %s", d.name, len(cs), time.Since(t0).Round(time.Millisecond))
	var common int32
	if err := db.pool.QueryRow(ctx, `SELECT word_id FROM contract_words WHERE word = $1`, d.common).Scan(&common); err != nil {
		b.Fatal(err)
	}
	explain := os.Getenv("COUNSEL_BENCH_EXPLAIN") == "1"
	var explained *ContractStore
	if explain {
		explained = NewContractStore(explainDB(b, url))
	}
	yes := true
	from, to := d.from, d.to
	shapes := []struct {
		name string
		f    contract.Filter
		// floor, if set, is a bare count over the index the shape's count
		// (or, for the deep page, its walk) reads.
		floor string
	}{
		{name: "first page"},
		{name: "one status", f: contract.Filter{Statuses: []contract.Status{d.status}}},
		{name: "status by name", f: contract.Filter{Statuses: []contract.Status{d.byName}, SortBy: contract.SortContractName}},
		{name: "rare word", f: contract.Filter{Search: d.rare}},
		{name: "common word", f: contract.Filter{Search: d.common},
			floor: fmt.Sprintf(`SELECT count(*) FROM contract_postings WHERE word_id = %d`, common)},
		{name: "common word + status", f: contract.Filter{Search: d.common, Statuses: []contract.Status{d.status}},
			floor: fmt.Sprintf(`SELECT count(*) FROM contract_postings WHERE word_id = %d AND status = %d`, common, d.status)},
		{name: "type + signed + dates", f: contract.Filter{Types: []contract.Type{d.typ}, IsSigned: &yes, StartFrom: &from, StartTo: &to},
			floor: fmt.Sprintf(`SELECT count(*) FROM contracts WHERE contract_type = %d AND is_signed AND start_date BETWEEN '%s' AND '%s'`,
				d.typ, from.Format(time.DateOnly), to.Format(time.DateOnly))},
		{name: "offset 20,000", f: contract.Filter{Offset: 20_000},
			floor: `SELECT count(*) FROM (SELECT id FROM contracts ORDER BY updated_at DESC NULLS LAST, id DESC LIMIT 20100) p`},
	}
	measure := func(b *testing.B, call func() (int64, error)) {
		var n int64
		for range 5 {
			var err error
			if n, err = call(); err != nil {
				b.Fatal(err)
			}
		}
		var ds []time.Duration
		for b.Loop() {
			t := time.Now()
			if _, err := call(); err != nil {
				b.Fatal(err)
			}
			ds = append(ds, time.Since(t))
		}
		slices.Sort(ds)
		b.ReportMetric(float64(ds[len(ds)/2].Microseconds())/1000, "p50-ms")
		b.ReportMetric(float64(ds[len(ds)*99/100].Microseconds())/1000, "p99-ms")
		b.ReportMetric(float64(n), "count")
	}
	for _, sh := range shapes {
		f := sh.f
		f.Limit = 100
		if f.SortBy == 0 {
			f.SortBy, f.SortDesc = contract.SortUpdatedAt, true
		}
		if explain {
			b.Logf("--- %s", sh.name)
			if _, _, err := explained.Contracts(ctx, f); err != nil {
				b.Fatal(err)
			}
		}
		b.Run(sh.name, func(b *testing.B) {
			measure(b, func() (int64, error) { _, n, err := store.Contracts(ctx, f); return n, err })
		})
		if sh.floor != "" {
			b.Run(sh.name+" floor", func(b *testing.B) {
				measure(b, func() (int64, error) {
					var n int64
					err := db.pool.QueryRow(ctx, sh.floor).Scan(&n)
					return n, err
				})
			})
		}
	}
}

// explainDB opens url with auto_explain logging every statement's
// EXPLAIN (ANALYZE, BUFFERS) as a notice, which b logs.
func explainDB(b *testing.B, url string) *DB {
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		b.Fatal(err)
	}
	for k, v := range map[string]string{"session_preload_libraries": "auto_explain", "auto_explain.log_min_duration": "0",
		"auto_explain.log_analyze": "on", "auto_explain.log_buffers": "on", "auto_explain.log_level": "notice",
		"auto_explain.log_nested_statements": "on", "timezone": "UTC"} {
		cfg.ConnConfig.RuntimeParams[k] = v
	}
	cfg.ConnConfig.OnNotice = func(_ *pgconn.PgConn, n *pgconn.Notice) { b.Log(n.Message) }
	pool, err := pgxpool.NewWithConfig(context.Background(), cfg)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(pool.Close)
	return &DB{pool: pool, url: url, Now: time.Now}
}
