package app_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	"counsel/app/apptest"
)

// BenchmarkRefresh measures token refresh through the real handler and a
// real database file (synchronous=FULL), each goroutine rotating its own
// session. go test -run '^$' -bench Refresh -cpu 2 ./app
func BenchmarkRefresh(b *testing.B) {
	s := apptest.New(b)
	h := s.App.Handler()
	// One session per goroutine, each of its own user: a newer one-time
	// password replaces the older, so concurrent sign-ins of one user clash.
	var sessions []apptest.Tokens
	for range 64 {
		_, _ = s.User(b)
	}
	for i := range 64 {
		sessions = append(sessions, s.Login(b, fmt.Sprintf("user%d@example.com", i+1), "password-123"))
	}
	var next atomic.Int64
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		tok := sessions[next.Add(1)-1]
		for pb.Next() {
			body, _ := json.Marshal(map[string]string{"accessToken": tok.AccessToken, "refreshToken": tok.RefreshToken})
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, httptest.NewRequest("POST", "/api/account/refresh-token", bytes.NewReader(body)))
			if rec.Code != http.StatusOK {
				b.Fatalf("refresh: %d %s", rec.Code, rec.Body)
			}
			json.Unmarshal(rec.Body.Bytes(), &tok)
		}
	})
}

// BenchmarkAuthenticatedRead measures GET /api/permissions/me with a
// cached principal: the per-request cost of authentication and routing.
func BenchmarkAuthenticatedRead(b *testing.B) {
	s := apptest.New(b)
	h := s.App.Handler()
	tok := s.Admin(b)
	benchGet(b, h, tok, "/api/permissions/me", "read")
}

// BenchmarkMe measures GET /api/me (a cached principal, then the profile
// query) through the real handler.
func BenchmarkMe(b *testing.B) {
	s := apptest.New(b)
	h := s.App.Handler()
	tok := s.Admin(b)
	r := s.Do(b, "POST", "/api/users/remuneration", tok, map[string]any{"staffId": 1, "fteLoad": 1, "remunerationIncSuper": 150000,
		"billingRate": 450, "billablePercentage": 85, "remunerationDate": "2026-07-01", "commencementDate": "2026-07-01"})
	if r.Status != 200 {
		b.Fatalf("remuneration: %d %s", r.Status, r.Body)
	}
	benchGet(b, h, tok, "/api/me", "me")
}

// benchGet measures GET path as the bearer of tok through h, in parallel;
// what names the request in a failure.
func benchGet(b *testing.B, h http.Handler, tok, path, what string) {
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			req := httptest.NewRequest("GET", path, nil)
			req.Header.Set("Authorization", "Bearer "+tok)
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			if rec.Code != http.StatusOK {
				b.Fatalf("%s: %d", what, rec.Code)
			}
		}
	})
}
