package account_test

import (
	"testing"
	"time"

	"github.com/matryer/is"

	"counsel/domain/account"
)

func TestConsoleActive(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 11, 21, 9, 0, 0, 0, time.UTC)
	live := account.Session{Kind: account.SessionConsole, CreatedAt: t0, ExpiresAt: t0.Add(30 * 24 * time.Hour), LastSeen: t0}
	revoked := live
	revoked.RevokedAt = &t0
	api := live
	api.Kind = account.SessionAPI
	tests := []struct {
		name string
		s    account.Session
		at   time.Time
		idle time.Duration
		want bool
	}{
		{"fresh", live, t0.Add(time.Minute), 8 * time.Hour, true},
		{"just before the idle timeout", live, t0.Add(8*time.Hour - time.Second), 8 * time.Hour, true},
		{"idle", live, t0.Add(8 * time.Hour), 8 * time.Hour, false},
		{"no idle timeout", live, t0.Add(29 * 24 * time.Hour), 0, true},
		{"past the absolute lifetime", live, t0.Add(30 * 24 * time.Hour), 0, false},
		{"revoked", revoked, t0.Add(time.Minute), 8 * time.Hour, false},
		{"an API session", api, t0.Add(time.Minute), 8 * time.Hour, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is.New(t).Equal(tt.s.ConsoleActive(tt.at, tt.idle), tt.want)
		})
	}
}
