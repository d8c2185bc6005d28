package console_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"testing"
	"time"

	"counsel/app/apptest"
	"counsel/domain/user"
)

// seedUsers adds n users in one transaction through the store.
func seedUsers(tb testing.TB, s *apptest.Server, n int) {
	tb.Helper()
	first := []string{"James", "Olivia", "William", "Charlotte", "Jack", "Amelia", "Noah", "Isla", "Thomas", "Mia"}
	last := []string{"Smith", "Jones", "Williams", "Brown", "Wilson", "Taylor", "Johnson", "White", "Martin", "Nguyen"}
	us := make([]user.User, n)
	for i := range us {
		u := user.New()
		u.FirstName, u.LastName = first[i%len(first)], last[(i/len(first))%len(last)]
		u.Email = fmt.Sprintf("user%05d@firm.example", i)
		u.Active, u.IsLegal = i%10 != 0, i%3 == 0
		us[i] = u
	}
	if _, err := s.App.Stores().Users.CreateUsers(context.Background(), us); err != nil {
		tb.Fatalf("seed: %v", err)
	}
}

// BenchmarkUsersPage renders the users page (20 of 10,000) in the server
// handler, without the network, and reports the median and 99th
// percentile.
//
//	go test ./adapters/console -run '^$' -bench UsersPage -benchtime 300x
func BenchmarkUsersPage(b *testing.B) {
	s := apptest.New(b)
	seedUsers(b, s, 10_000)
	benchPages(b, s, "/console/users", []benchPage{
		{"first-page", ""},
		{"deep-page", "?Offset=5000"},
		{"search", "?Search=smith&Active=true"},
		{"filters", "?IsLegal=true&Active=true&Sort=desc"},
	})
}

// benchPage is a page of a render benchmark: its name and the query (or
// path tail) after the page's address.
type benchPage struct{ name, query string }

// benchPages renders each page, as the administrator, in the server
// handler, without the network, and reports the median and 99th
// percentile of the render times.
func benchPages(b *testing.B, s *apptest.Server, base string, pages []benchPage) {
	br := newBrowser(b, s)
	br.signIn(apptest.AdminEmail, apptest.AdminPassword)
	cookie := &http.Cookie{Name: "counsel_session", Value: br.cookie("counsel_session")}
	h := s.App.Handler()
	for _, tt := range pages {
		b.Run(tt.name, func(b *testing.B) {
			ds := make([]time.Duration, 0, b.N)
			path := base + tt.query
			for b.Loop() {
				req := httptest.NewRequest("GET", path, nil)
				req.AddCookie(cookie)
				rec := httptest.NewRecorder()
				t0 := time.Now()
				h.ServeHTTP(rec, req)
				ds = append(ds, time.Since(t0))
				if rec.Code != 200 {
					b.Fatalf("%s: %d", path, rec.Code)
				}
			}
			slices.Sort(ds)
			b.ReportMetric(float64(ds[len(ds)/2].Microseconds())/1000, "p50-ms")
			b.ReportMetric(float64(ds[min(len(ds)-1, len(ds)*99/100)].Microseconds())/1000, "p99-ms")
		})
	}
}

var assetRe = regexp.MustCompile(`(?:href|src)="(/console/static/[^"]+)"`)

// TestPageWeight checks that no page with its assets weighs more than
// 150 KB, uncompressed, with a full users page of 20 rows.
func TestPageWeight(t *testing.T) {
	s := newServer(t)
	seedUsers(t, s, 40)
	b := newBrowser(t, s)
	b.signIn(apptest.AdminEmail, apptest.AdminPassword)
	for _, path := range []string{"/console/login", "/console", "/console/users", "/console/users/1", "/console/users/1/pay",
		"/console/roles", "/console/roles/1", "/console/offices", "/console/account"} {
		page := b.get(path)
		if path == "/console/login" {
			page = newBrowser(t, s).get(path)
		}
		checkWeight(t, b, path, page)
	}
}

// checkWeight fails the test if the page at path, with the assets it
// links, weighs more than 150 KB, uncompressed.
func checkWeight(t *testing.T, b *browser, path string, page resp) {
	t.Helper()
	total := len(page.Body)
	for _, m := range assetRe.FindAllStringSubmatch(page.Body, -1) {
		total += len(b.get(m[1]).Body)
	}
	t.Logf("%s: %.1f KB with assets (page %.1f KB)", path, float64(total)/1024, float64(len(page.Body))/1024)
	if total > 150*1024 {
		t.Errorf("%s weighs %d bytes with its assets", path, total)
	}
}
