package app_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"counsel/app/apptest"
	"counsel/domain/contract"
	"counsel/domain/decimal"
)

// benchWords make up names, descriptions and comments.
var benchWords = strings.Fields(`services supply lease licence employment partnership consulting maintenance support
	software hardware office warehouse vehicle equipment marketing research development training catering cleaning security
	insurance logistics transport storage design construction renovation audit advisory legal finance payroll recruitment
	hosting network telecom printing translation photography events travel medical dental laboratory pharmacy engineering`)

// benchCompany is the n-th of 2000 made-up company names ("Korvatel",
// "Zubimor", ...), so a company name matches about 50 of 100,000
// contracts.
func benchCompany(n int) string {
	a := []string{"Kor", "Zu", "Mel", "Tra", "Bex", "Quo", "Fal", "Nir", "Vos", "Ard", "Pel", "Gry", "Hol", "Ith", "Jun", "Lom", "Mav", "Oxe", "Sar", "Wen"}
	b := []string{"va", "bi", "ra", "lo", "ne", "ti", "ka", "su", "do", "me"}
	c := []string{"tel", "mor", "nix", "gen", "dyn", "tek", "lux", "ware", "corp", "sys"}
	return a[n%20] + b[n/20%10] + c[n/200%10]
}

// benchContracts makes n varied contracts, reproducibly.
func benchContracts(n int) []contract.Contract {
	rnd := rand.New(rand.NewPCG(1, 2))
	start := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)
	cs := make([]contract.Contract, n)
	for i := range cs {
		w := func() string { return benchWords[rnd.IntN(len(benchWords))] }
		company := benchCompany(rnd.IntN(2000))
		c := contract.Contract{
			UUID:        fmt.Sprintf("00000000-0000-4000-8000-%012d", i),
			Name:        fmt.Sprintf("%s %s %s agreement", company, w(), w()),
			Description: fmt.Sprintf("%s of %s and %s for %s, including %s %s", w(), w(), w(), company, w(), w()),
			Type:        contract.Type(1 + rnd.IntN(6)),
			Status:      contract.Status(1 + rnd.IntN(8)),
			Currency:    []string{"AUD", "NZD", "USD", "EUR"}[rnd.IntN(4)],
		}
		if rnd.IntN(3) == 0 {
			c.Comments = fmt.Sprintf("%s review by %s", w(), benchCompany(rnd.IntN(2000)))
		}
		c.IsSigned = c.Status == contract.Signed || c.Status == contract.Expired
		if rnd.IntN(4) == 0 {
			c.DigitalContractID = fmt.Sprintf("tpl-%d", i)
		}
		if rnd.IntN(10) > 0 {
			s := start.AddDate(0, 0, rnd.IntN(2500))
			e := s.AddDate(0, 1+rnd.IntN(36), 0)
			if c.Status == contract.Signed && e.Before(apptest.Start) {
				// Ended Signed contracts would be expired by the sweep
				// while the benchmark runs.
				e = apptest.Start.AddDate(0, 1+rnd.IntN(36), 0)
			}
			c.StartDate, c.EndDate = &s, &e
		}
		if rnd.IntN(5) > 0 {
			a := decimal.New(rnd.Int64N(100_000_000), 2)
			c.Amount = &a
		}
		if rnd.IntN(2) == 0 {
			m := int64(1 + rnd.IntN(5000))
			c.MatterID = &m
		}
		if rnd.IntN(3) == 0 {
			cl := int64(1 + rnd.IntN(2000))
			c.ClientID = &cl
		}
		c.CreatedAt = start.Add(time.Duration(i) * time.Minute)
		c.UpdatedAt = c.CreatedAt.Add(time.Duration(rnd.IntN(1_000_000)) * time.Minute)
		cs[i] = c
	}
	return cs
}

// BenchmarkContractList times GET /api/contracts through the handler
// over 100,000 contracts (seeded through the store in one transaction),
// for several filters, and reports the median and 99th percentile:
//
//	go test -run '^$' -bench BenchmarkContractList -benchtime 2000x ./app/
func BenchmarkContractList(b *testing.B) {
	s := apptest.New(b)
	admin := s.Admin(b)
	seedStart := time.Now()
	if err := s.App.Stores().Contracts.ImportContracts(context.Background(), benchContracts(100_000), 1); err != nil {
		b.Fatal(err)
	}
	b.Logf("seeded 100,000 contracts in %s", time.Since(seedStart).Round(time.Millisecond))
	h := s.App.Handler()
	queries := []struct{ name, q string }{
		{"status+search+sort", "Status=Signed&Status=Draft&Search=korvatel&SortBy=contractName&SortDesc=false"},
		{"status+common-word+sort", "Status=Signed&Search=warehouse&SortBy=amount"},
		{"status+short-search+sort", "Status=Draft&Search=ko&SortBy=endDate"},
		{"default", ""},
		{"status", "Status=Expired"},
		{"search", "Search=korvatel"},
		{"type+signed+digital+dates", "ContractType=ServiceAgreement&IsSigned=true&IsDigital=false&StartDateFrom=2022-01-01&StartDateTo=2023-12-31&SortBy=startDate"},
		{"related+sort", "RelatedEntityType=Matter&RelatedEntityId=42&SortBy=createdAt"},
		{"digital+end-range", "IsDigital=true&EndDateFrom=2024-01-01&EndDateTo=2024-12-31"},
		{"statuses+end-range+sort", "Status=Draft&Status=Signed&EndDateFrom=2024-01-01&EndDateTo=2024-12-31&SortBy=contractName&SortDesc=false"},
		{"statuses+signed+start-from", "Status=Draft&Status=Signed&IsSigned=true&StartDateFrom=2024-01-01"},
		{"unsigned+sort", "IsSigned=false&SortBy=amount"},
		{"unsigned+deep-page", "IsSigned=false&SortBy=endDate&Offset=20000&Limit=100"},
		{"deep-page", "Status=Draft&SortBy=contractName&Offset=10000&Limit=100"},
	}
	for _, qq := range queries {
		b.Run(qq.name, func(b *testing.B) {
			var durations []time.Duration
			var count string
			for b.Loop() {
				req := httptest.NewRequest("GET", "/api/contracts?"+qq.q, nil)
				req.Header.Set("Authorization", "Bearer "+admin)
				rec := httptest.NewRecorder()
				t0 := time.Now()
				h.ServeHTTP(rec, req)
				durations = append(durations, time.Since(t0))
				if rec.Code != http.StatusOK {
					b.Fatalf("%s: %d %s", qq.q, rec.Code, rec.Body)
				}
				if count == "" {
					count = listCount(rec.Body.String())
				}
			}
			slices.Sort(durations)
			pct := func(p float64) float64 {
				return float64(durations[int(p*float64(len(durations)-1))].Microseconds()) / 1000
			}
			b.ReportMetric(pct(0.5), "median-ms")
			b.ReportMetric(pct(0.99), "p99-ms")
			b.Logf("%s: %d requests, %s matches, median %.2f ms, p99 %.2f ms", qq.q, len(durations), count, pct(0.5), pct(0.99))
		})
	}
}

// listCount reads the value after the last "count": of a list answer's
// body, the page's count ("" when absent).
func listCount(body string) string {
	if i := strings.LastIndex(body, `"count":`); i >= 0 {
		return strings.SplitN(body[i+8:], ",", 2)[0]
	}
	return ""
}
