package sqlite

import (
	"context"
	"testing"
	"time"

	"github.com/matryer/is"

	"counsel/domain"
	"counsel/domain/account"
)

func TestConsoleSessions(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	_, s := bootstrapped(t)
	uid := addUser(t, s, "c@example.com")
	is := is.New(t)
	ss := account.Session{ID: "console-1", UserID: uid, Method: account.MethodPassword, CreatedAt: t0, ExpiresAt: t0.Add(time.Hour),
		Kind: account.SessionConsole, TokenHash: []byte("cookie-hash"), LastSeen: t0, AuthenticatedAt: t0}
	is.NoErr(s.CreateSession(ctx, ss, nil)) // no refresh token
	got, err := s.ConsoleSession(ctx, []byte("cookie-hash"))
	is.NoErr(err)
	is.Equal(got, ss) // every field
	_, err = s.SessionByRefreshHash(ctx, []byte("cookie-hash"))
	is.Equal(code(err), domain.ENOTFOUND) // the cookie is no refresh token

	is.NoErr(s.TouchSession(ctx, "console-1", t0.Add(time.Minute)))
	got, _ = s.ConsoleSession(ctx, []byte("cookie-hash"))
	is.Equal(got.LastSeen, t0.Add(time.Minute)) // last use recorded

	is.NoErr(s.RevokeUserSessions(ctx, uid, t0.Add(2*time.Minute))) // the API's revocations reach console sessions
	got, _ = s.ConsoleSession(ctx, []byte("cookie-hash"))
	is.True(got.RevokedAt != nil)

	newSession(t, s, "api-1", uid, "refresh-1")
	api, err := s.Session(ctx, "api-1")
	is.NoErr(err)
	is.Equal(api.Kind, "") // API sessions read as before
	_, err = s.ConsoleSession(ctx, []byte("nope"))
	is.Equal(code(err), domain.ENOTFOUND)
}
