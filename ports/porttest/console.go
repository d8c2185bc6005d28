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
	uid, err := createUser(ctx, s.Users, account.NewUser{Email: "c@example.com", PasswordHash: "p"})
	is.NoErr(err)
	ss := account.Session{ID: "console-1", UserID: uid, Method: account.MethodPassword, CreatedAt: T0, ExpiresAt: T0.Add(time.Hour),
		Kind: account.SessionConsole, TokenHash: []byte("cookie-hash"), LastSeen: T0, AuthenticatedAt: T0}
	is.NoErr(s.Accounts.CreateSession(ctx, ss, nil)) // no refresh token
	got, err := s.Accounts.ConsoleSession(ctx, []byte("cookie-hash"))
	is.NoErr(err)
	is.Equal(got, ss) // every field
	_, err = s.Accounts.SessionByRefreshHash(ctx, []byte("cookie-hash"))
	is.Equal(code(err), domain.ENOTFOUND) // the cookie is no refresh token

	// A re-authentication (a successful Login whose fn names the session)
	// renews the session's authentication time, and only that session's.
	is.NoErr(s.Accounts.CreateSession(ctx, account.Session{ID: "console-2", UserID: uid, Method: account.MethodPassword, CreatedAt: T0, ExpiresAt: T0.Add(time.Hour),
		Kind: account.SessionConsole, TokenHash: []byte("cookie-hash-2"), LastSeen: T0}, nil))
	is.NoErr(s.Accounts.Login(ctx, uid, "c@example.com", func(st *account.LoginState) error {
		st.Reauthenticated, st.ReauthenticatedAt = "console-1", T0.Add(30*time.Second)
		return nil
	}))
	got, _ = s.Accounts.ConsoleSession(ctx, []byte("cookie-hash"))
	is.Equal(got.AuthenticatedAt, T0.Add(30*time.Second)) // renewed
	other, _ := s.Accounts.Session(ctx, "console-2")
	is.Equal(other.AuthenticatedAt, T0) // the other session keeps its sign-in time
	err = s.Accounts.Login(ctx, uid, "c@example.com", func(st *account.LoginState) error {
		st.Reauthenticated, st.ReauthenticatedAt = "no-such-session", T0
		return nil
	})
	is.Equal(code(err), domain.ENOTFOUND) // only a live session of the user

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
