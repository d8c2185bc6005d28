package postgres

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"counsel/domain/account"
	"counsel/domain/contract"
	"counsel/domain/decimal"
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

// BenchmarkContractListShapes reports p50 and p99 of each list shape of
// API-DECISIONS 5 over 100,000 contracts.
func BenchmarkContractListShapes(b *testing.B) {
	db := openDB(b)
	ctx := context.Background()
	accounts := NewAccountStore(db)
	if _, err := accounts.Bootstrap(ctx, account.NewUser{Email: "admin@example.com"}); err != nil {
		b.Fatal(err)
	}
	store := NewContractStore(db)
	cs := benchContracts(100_000)
	for i := 0; i < len(cs); i += 20_000 {
		if err := store.ImportContracts(ctx, cs[i:i+20_000], 1); err != nil {
			b.Fatal(err)
		}
	}
	if _, err := db.pool.Exec(ctx, "VACUUM ANALYZE contracts"); err != nil {
		b.Fatal(err)
	}
	yes := true
	from, to := time.Date(2021, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(2021, 6, 30, 0, 0, 0, 0, time.UTC)
	shapes := []struct {
		name string
		f    contract.Filter
	}{
		{"first page", contract.Filter{}},
		{"one status", contract.Filter{Statuses: []contract.Status{contract.Signed}}},
		{"status by name", contract.Filter{Statuses: []contract.Status{contract.Draft}, SortBy: contract.SortContractName}},
		{"rare word", contract.Filter{Search: "zanzibar"}},
		{"common word", contract.Filter{Search: "standard"}},
		{"common word + status", contract.Filter{Search: "standard", Statuses: []contract.Status{contract.Signed}}},
		{"type + signed + dates", contract.Filter{Types: []contract.Type{contract.LicenseAgreement}, IsSigned: &yes, StartFrom: &from, StartTo: &to}},
		{"offset 50,000", contract.Filter{Offset: 50_000}},
	}
	for _, sh := range shapes {
		b.Run(sh.name, func(b *testing.B) {
			f := sh.f
			f.Limit = 100
			if f.SortBy == 0 {
				f.SortBy, f.SortDesc = contract.SortUpdatedAt, true
			}
			var ds []time.Duration
			for b.Loop() {
				t := time.Now()
				if _, _, err := store.Contracts(ctx, f); err != nil {
					b.Fatal(err)
				}
				ds = append(ds, time.Since(t))
			}
			slices.Sort(ds)
			b.ReportMetric(float64(ds[len(ds)/2].Microseconds())/1000, "p50-ms")
			b.ReportMetric(float64(ds[len(ds)*99/100].Microseconds())/1000, "p99-ms")
		})
	}
}
