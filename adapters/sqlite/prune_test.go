package sqlite_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"counsel/adapters/sqlite"
	"counsel/domain/account"

	"github.com/matryer/is"
)

func TestPrune(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	ctx := context.Background()
	db, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "prune.db"))
	is.NoErr(err) // open
	defer db.Close()
	s := db.Stores().Accounts
	now := time.Date(2026, 11, 21, 9, 0, 0, 0, time.UTC)
	uid, err := sqlite.CreateUser(ctx, s, account.NewUser{Email: "p@example.com"})
	is.NoErr(err)
	mk := func(id string, created, expires time.Time) {
		is.NoErr(s.CreateSession(ctx, account.Session{ID: id, UserID: uid, Method: "password", CreatedAt: created, ExpiresAt: expires}, []byte(id)))
	}
	mk("live", now, now.Add(time.Hour))
	mk("expired-long-ago", now.Add(-72*time.Hour), now.Add(-48*time.Hour))
	mk("expired-recently", now.Add(-2*time.Hour), now.Add(-time.Hour))
	mk("revoked-long-ago", now.Add(-72*time.Hour), now.Add(time.Hour))
	is.NoErr(s.RevokeSession(ctx, "revoked-long-ago", now.Add(-48*time.Hour)))
	is.NoErr(s.UpdateOTP(ctx, "old@example.com", func(st *account.OTPState) error {
		st.ExpiresAt, st.Sends = now.Add(-3*time.Hour), []time.Time{now.Add(-3 * time.Hour)}
		return nil
	}))
	is.NoErr(s.UpdateOTP(ctx, "new@example.com", func(st *account.OTPState) error {
		st.CodeHash, st.ExpiresAt, st.Sends = []byte{1}, now.Add(time.Minute), []time.Time{now}
		return nil
	}))
	n, err := s.Prune(ctx, now)
	is.NoErr(err)
	is.Equal(n, int64(2)) // the two sessions that ended more than a day ago
	for id, want := range map[string]bool{"live": true, "expired-recently": true, "expired-long-ago": false, "revoked-long-ago": false} {
		_, err := s.Session(ctx, id)
		is.Equal(err == nil, want) // kept or pruned
		_, err = s.SessionByRefreshHash(ctx, []byte(id))
		is.Equal(err == nil, want) // refresh tokens go with their session
	}
	var kept int
	is.NoErr(db.Read().QueryRowContext(ctx, `SELECT count(*) FROM otps`).Scan(&kept))
	is.Equal(kept, 1) // only the live code's row stays
}
