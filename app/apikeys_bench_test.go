package app_test

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"counsel/app/apptest"
)

// benchKey makes an API key of the administrator's.
func benchKey(b *testing.B, s *apptest.Server) string {
	b.Helper()
	var k struct{ Key string }
	s.Do(b, "POST", "/api/account/api-keys", s.Admin(b), map[string]any{"name": "bench", "permissions": []string{"PermissionsView"}}).
		Expect(b, 201, "create key").JSON(b, &k)
	return k.Key
}

// BenchmarkAPIKeyRead is BenchmarkAuthenticatedRead with an API key: a
// cached key principal (the fake clock never moves, so it stays cached).
// go test -run '^$' -bench APIKeyRead -cpu 2 ./app
func BenchmarkAPIKeyRead(b *testing.B) {
	s := apptest.New(b)
	benchGet(b, s.App.Handler(), benchKey(b, s), "/api/permissions/me", "read with a key")
}

// BenchmarkAPIKeyReadUncached reads the key and its creator's access from
// the database on every request (the cache is invalidated each time, as
// after a revocation anywhere): the cost a key pays once a second.
func BenchmarkAPIKeyReadUncached(b *testing.B) {
	s := apptest.New(b)
	h := s.App.Handler()
	key := benchKey(b, s)
	b.ResetTimer()
	for range b.N {
		s.App.Accounts.Invalidate()
		req := httptest.NewRequest("GET", "/api/permissions/me", nil)
		req.Header.Set("Authorization", "Bearer "+key)
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != http.StatusOK {
			b.Fatalf("read with a key: %d", rec.Code)
		}
	}
}
