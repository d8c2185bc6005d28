package porttest

import (
	"context"
	"testing"
	"time"

	"github.com/matryer/is"

	"counsel/domain"
	"counsel/domain/account"
)

// ConsoleSessionsSuite covers console sessions: kept beside API sessions,
// found by their cookie's hash, touched, and ended by the same
// revocations.
func ConsoleSessionsSuite(t *testing.T, s Stores) {
	ctx := context.Background()
	is := is.New(t)
	bootstrap(t, s)
	uid, err := s.Accounts.CreateUser(ctx, account.NewUser{Email: "c@example.com", PasswordHash: "p"})
	is.NoErr(err)
	ss := account.Session{ID: "console-1", UserID: uid, Method: account.MethodPassword, CreatedAt: T0, ExpiresAt: T0.Add(time.Hour),
		Kind: account.SessionConsole, TokenHash: []byte("cookie-hash"), LastSeen: T0}
	is.NoErr(s.Accounts.CreateSession(ctx, ss, nil)) // no refresh token
	got, err := s.Accounts.ConsoleSession(ctx, []byte("cookie-hash"))
	is.NoErr(err)
	is.Equal(got, ss) // every field
	_, err = s.Accounts.SessionByRefreshHash(ctx, []byte("cookie-hash"))
	is.Equal(code(err), domain.ENOTFOUND) // the cookie is no refresh token

	is.NoErr(s.Accounts.TouchSession(ctx, "console-1", T0.Add(time.Minute)))
	got, _ = s.Accounts.ConsoleSession(ctx, []byte("cookie-hash"))
	is.Equal(got.LastSeen, T0.Add(time.Minute)) // last use recorded

	is.NoErr(s.Accounts.RevokeUserSessions(ctx, uid, T0.Add(2*time.Minute))) // the API's revocations reach console sessions
	got, _ = s.Accounts.ConsoleSession(ctx, []byte("cookie-hash"))
	is.True(got.RevokedAt != nil)

	is.NoErr(s.Accounts.CreateSession(ctx, account.Session{ID: "api-1", UserID: uid, Method: account.MethodPassword, CreatedAt: T0, ExpiresAt: T0.Add(time.Hour)}, []byte("refresh-1")))
	api, err := s.Accounts.Session(ctx, "api-1")
	is.NoErr(err)
	is.Equal(api.Kind, "") // API sessions read as before
	_, err = s.Accounts.ConsoleSession(ctx, []byte("nope"))
	is.Equal(code(err), domain.ENOTFOUND)
}
