package app_test

import (
	"context"
	"fmt"
	"net/url"
	"slices"
	"testing"
	"time"

	"counsel/app/apptest"
	"counsel/domain/decimal"
	"counsel/domain/user"
)

// benchUsers is the size of the directory the list benchmarks search.
const benchUsers = 10_000

var (
	benchFirst = []string{"James", "Olivia", "William", "Charlotte", "Jack", "Amelia", "Noah", "Isla", "Thomas", "Mia",
		"Henry", "Grace", "Lucas", "Chloe", "Oscar", "Zoe", "Leo", "Ella", "Ethan", "Ruby", "Élodie", "Søren", "Zoë", "Björn", "Ana"}
	benchLast = []string{"Smith", "Jones", "Williams", "Brown", "Wilson", "Taylor", "Johnson", "White", "Martin", "Anderson",
		"Thompson", "Nguyen", "Thomas", "Walker", "Harris", "Lee", "Ryan", "Robinson", "Kelly", "King", "Davis", "Wright",
		"Evans", "Roberts", "Green", "Hall", "Wood", "Jackson", "Clarke", "Patel", "Khan", "Lewis", "James", "Phillips",
		"Mitchell", "Ångström", "Young", "Scott", "Baker", "Adams"}
)

// seedDirectory adds n users in one transaction through the store.
func seedDirectory(b *testing.B, s *apptest.Server, n int) {
	b.Helper()
	us := make([]user.User, n)
	for i := range us {
		u := user.New()
		u.FirstName = benchFirst[i%len(benchFirst)]
		u.LastName = benchLast[(i/len(benchFirst))%len(benchLast)]
		u.Email = fmt.Sprintf("user%05d@firm%d.example", i, i%7)
		u.Active, u.IsLegal = i%10 != 0, i%3 == 0
		if i%4 == 0 {
			u.BillingRate = decimal.FromInt(int64(200 + i%300))
		}
		us[i] = u
	}
	if _, err := s.App.Stores().Users.CreateUsers(context.Background(), us); err != nil {
		b.Fatalf("seed: %v", err)
	}
}

// latency sends the request b.N times and reports the median and the
// 99th percentile of the round trips (loopback HTTP, JSON and SQLite).
func latency(b *testing.B, s *apptest.Server, tok, path string) {
	b.Helper()
	if r := s.Do(b, "GET", path, tok, nil); r.Status != 200 {
		b.Fatalf("%s: %d %s", path, r.Status, r.Body)
	}
	ds := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for b.Loop() {
		t0 := time.Now()
		r := s.Do(b, "GET", path, tok, nil)
		ds = append(ds, time.Since(t0))
		if r.Status != 200 {
			b.Fatalf("%s: %d", path, r.Status)
		}
	}
	b.StopTimer()
	slices.Sort(ds)
	b.ReportMetric(float64(ds[len(ds)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(ds[min(len(ds)-1, len(ds)*99/100)].Microseconds())/1000, "p99-ms")
}

// BenchmarkUserSearch measures GET /api/users?Search=... over 10,000
// users, and GET /api/me, which every page load calls.
//
//	go test ./app -run '^$' -bench UserSearch -benchtime 2000x
func BenchmarkUserSearch(b *testing.B) {
	s := apptest.New(b)
	seedDirectory(b, s, benchUsers)
	admin := s.Admin(b)
	for _, tt := range []struct{ name, query string }{
		{"common", "Search=smi"},           // ~1 in 40 match: a full page, count over the directory
		{"full-name", "Search=noah+jones"}, // a few dozen
		{"email", "Search=user04242"},      // one
		{"none", "Search=zzz"},             // nothing: the whole index walked
		{"unicode", "Search=ÅNGSTRÖM"},     // folded
		{"filtered", "Search=a&Active=true&IsRequiredBillingRate=true&Limit=100&Offset=100"},
		{"no-search-last-page", "Limit=100&Offset=9950"},
	} {
		b.Run(tt.name, func(b *testing.B) {
			q, err := url.ParseQuery(tt.query)
			if err != nil {
				b.Fatal(err)
			}
			latency(b, s, admin, "/api/users?"+q.Encode())
		})
	}
	b.Run("me", func(b *testing.B) { latency(b, s, admin, "/api/me") })
}
