package app_test

import (
	"context"
	"fmt"
	"net/http"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/matryer/is"

	"counsel/adapters/postgres/pgtest"
	"counsel/app"
	"counsel/app/apptest"
	"counsel/domain/account"
)

// Sessions as their users see them (docs/decisions.md §18), through HTTP
// on the engine of COUNSEL_TEST_ENGINE.

type sessionItem struct {
	ID         string `json:"id"`
	Method     string `json:"method"`
	IP         string `json:"ip"`
	UserAgent  string `json:"userAgent"`
	CreatedAt  string `json:"createdAt"`
	LastSeenAt string `json:"lastSeenAt"`
	Current    bool   `json:"current"`
}

func sessionsOf(t *testing.T, s *apptest.Server, token, path string) []sessionItem {
	t.Helper()
	var out struct{ Items []sessionItem }
	s.Do(t, "GET", path, token, nil).Expect(t, 200, "list sessions").JSON(t, &out)
	return out.Items
}

// loginAs signs in with the given User-Agent and, when xff is set,
// X-Forwarded-For.
func loginAs(t *testing.T, s *apptest.Server, email, password, ua, xff string) apptest.Tokens {
	t.Helper()
	send := func(path string, body string) *apptest.Response {
		req, err := http.NewRequest("POST", s.URL+path, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("User-Agent", ua)
		if xff != "" {
			req.Header.Set("X-Forwarded-For", xff)
		}
		return s.Send(t, req)
	}
	var otp struct{ OTP string }
	send("/api/account/login/get-otp", fmt.Sprintf(`{"email":%q}`, email)).Expect(t, 200, "get-otp").JSON(t, &otp)
	var tok apptest.Tokens
	send("/api/account/login", fmt.Sprintf(`{"email":%q,"password":%q,"otp":%q}`, email, password, otp.OTP)).
		Expect(t, 200, "login").JSON(t, &tok)
	return tok
}

func TestMySessions(t *testing.T) {
	t.Parallel()
	s := apptest.New(t)
	is := is.New(t)
	laptop := loginAs(t, s, apptest.AdminEmail, apptest.AdminPassword, "Mozilla/5.0 (X11; Linux x86_64) Firefox/133.0", "")
	s.Clock.Advance(time.Second)
	phone := loginAs(t, s, apptest.AdminEmail, apptest.AdminPassword, "Mozilla/5.0 (iPhone) Safari/605.1", "")

	items := sessionsOf(t, s, laptop.AccessToken, "/api/account/sessions")
	is.Equal(len(items), 2) // both, newest first
	is.True(strings.Contains(items[0].UserAgent, "iPhone"))
	is.True(!items[0].Current && items[1].Current) // the laptop asked
	is.Equal(items[1].Method, account.MethodPassword)
	is.Equal(items[1].IP, "127.0.0.1")
	is.Equal(items[1].CreatedAt, apptest.Start.UTC().Format(time.RFC3339))
	is.Equal(items[1].LastSeenAt, items[1].CreatedAt)

	// Another user's session, an unknown id: 404 alike.
	_, err := s.App.CreateUser(context.Background(), account.NewUser{Email: "other@example.com", FirstName: "O", LastName: "Ther"}, "password-123")
	is.NoErr(err)
	other := s.Login(t, "other@example.com", "password-123").AccessToken
	theirs := sessionsOf(t, s, other, "/api/account/sessions")
	is.Equal(len(theirs), 1)
	is.Equal(s.Do(t, "DELETE", "/api/account/sessions/"+theirs[0].ID, laptop.AccessToken, nil).Status, 404)
	is.Equal(s.Do(t, "DELETE", "/api/account/sessions/nosuchsession", laptop.AccessToken, nil).Status, 404)
	is.Equal(s.Do(t, "GET", "/api/me", other, nil).Status, 200)

	// Signing the phone out from the laptop: its tokens stop at once.
	is.Equal(s.Do(t, "GET", "/api/me", phone.AccessToken, nil).Status, 200) // cached
	is.Equal(s.Do(t, "DELETE", "/api/account/sessions/"+items[0].ID, laptop.AccessToken, nil).Status, 204)
	is.Equal(s.Do(t, "GET", "/api/me", phone.AccessToken, nil).Status, 401)
	is.Equal(s.Do(t, "POST", "/api/account/refresh-token", "", map[string]string{"accessToken": phone.AccessToken, "refreshToken": phone.RefreshToken}).Status, 401)
	is.Equal(s.Do(t, "DELETE", "/api/account/sessions/"+items[0].ID, laptop.AccessToken, nil).Status, 404) // no longer live
	is.Equal(len(sessionsOf(t, s, laptop.AccessToken, "/api/account/sessions")), 1)

	// Revoke the others: the current one stays.
	third := s.Login(t, apptest.AdminEmail, apptest.AdminPassword)
	is.Equal(s.Do(t, "POST", "/api/account/sessions/revoke-others", laptop.AccessToken, nil).Status, 204)
	is.Equal(s.Do(t, "GET", "/api/me", third.AccessToken, nil).Status, 401)
	is.Equal(s.Do(t, "GET", "/api/me", laptop.AccessToken, nil).Status, 200)
	left := sessionsOf(t, s, laptop.AccessToken, "/api/account/sessions")
	is.Equal(len(left), 1)
	is.True(left[0].Current)

	// Signing the current session out is signing out.
	is.Equal(s.Do(t, "DELETE", "/api/account/sessions/"+left[0].ID, laptop.AccessToken, nil).Status, 204)
	is.Equal(s.Do(t, "GET", "/api/me", laptop.AccessToken, nil).Status, 401)
	is.Equal(s.Do(t, "GET", "/api/account/sessions", "", nil).Status, 401)
}

// TestSessionLastSeen: a session's last use is written at most once a
// minute, after the request (the uses are queued and written together).
func TestSessionLastSeen(t *testing.T) {
	t.Parallel()
	s := apptest.New(t)
	is := is.New(t)
	tok := s.Login(t, apptest.AdminEmail, apptest.AdminPassword)
	seen := func() string {
		s.App.Accounts.FlushSeen()
		items := sessionsOf(t, s, tok.AccessToken, "/api/account/sessions")
		is.Equal(len(items), 1)
		return items[0].LastSeenAt
	}
	at := func(d time.Duration) string { return apptest.Start.Add(d).UTC().Format(time.RFC3339) }
	is.Equal(seen(), at(0))

	s.Clock.Advance(30 * time.Second) // within the minute: nothing written
	is.Equal(s.Do(t, "GET", "/api/me", tok.AccessToken, nil).Status, 200)
	is.Equal(seen(), at(0))

	s.Clock.Advance(40 * time.Second) // 70 s after sign-in
	is.Equal(s.Do(t, "GET", "/api/me", tok.AccessToken, nil).Status, 200)
	is.Equal(seen(), at(70*time.Second))

	s.Clock.Advance(50 * time.Second) // 50 s after that: kept
	is.Equal(s.Do(t, "GET", "/api/me", tok.AccessToken, nil).Status, 200)
	is.Equal(seen(), at(70*time.Second))

	// A refresh is a use.
	s.Clock.Advance(15 * time.Minute)
	var next apptest.Tokens
	s.Do(t, "POST", "/api/account/refresh-token", "", map[string]string{"accessToken": tok.AccessToken, "refreshToken": tok.RefreshToken}).
		Expect(t, 200, "refresh").JSON(t, &next)
	tok = next
	is.Equal(seen(), at(70*time.Second+50*time.Second+15*time.Minute))
}

// TestSessionMethodsAndAddress: the method names the second factor, and
// the address is the client's (X-Forwarded-For only from a trusted proxy).
func TestSessionMethodsAndAddress(t *testing.T) {
	t.Parallel()
	s := apptest.New(t, func(c *app.Config) {
		c.TrustedProxies = []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}
	})
	is := is.New(t)
	tok := loginAs(t, s, apptest.AdminEmail, apptest.AdminPassword, "curl/8.5.0\t"+strings.Repeat("é", 300), "198.51.100.7, 127.0.0.1")
	items := sessionsOf(t, s, tok.AccessToken, "/api/account/sessions")
	is.Equal(items[0].IP, "198.51.100.7")
	is.Equal(items[0].UserAgent, "curl/8.5.0"+strings.Repeat("é", 251)) // control characters dropped, cut to 512 bytes of whole characters

	_, _, secret, recovery := totpUser(t, s, "sessions-totp@example.com")
	login := func(code string) apptest.Tokens {
		var tok apptest.Tokens
		s.Do(t, "POST", "/api/account/login", "", map[string]string{"email": "sessions-totp@example.com", "password": "password-123", "otp": code}).
			Expect(t, 200, "login").JSON(t, &tok)
		return tok
	}
	app := login(appCode(t, secret, s.Clock.Now()))
	s.Clock.Advance(time.Second)
	rec := login(recovery[0])
	items = sessionsOf(t, s, app.AccessToken, "/api/account/sessions")
	methods := map[string]string{}
	for _, it := range items {
		methods[it.ID] = it.Method
		if it.Current {
			is.Equal(it.Method, account.MethodAuthenticator)
		}
	}
	is.Equal(len(items), 3) // the emailed-code sign-in that enrolled, the app's and the recovery code's
	recItems := sessionsOf(t, s, rec.AccessToken, "/api/account/sessions")
	for _, it := range recItems {
		if it.Current {
			is.Equal(it.Method, account.MethodRecoveryCode)
		}
	}
}

// TestUserSessionsAdmin: UsersEdit sees and ends another user's sessions,
// but not a system administrator's unless it is one.
func TestUserSessionsAdmin(t *testing.T) {
	t.Parallel()
	s := apptest.New(t)
	is := is.New(t)
	editorID, editor := s.User(t, account.UsersEdit)
	staffID, staff := s.User(t)
	admin := s.Admin(t)
	_ = editorID

	items := sessionsOf(t, s, editor, fmt.Sprintf("/api/users/%d/sessions", staffID))
	is.Equal(len(items), 1)
	is.True(!items[0].Current)
	is.Equal(s.Do(t, "GET", "/api/users/1/sessions", editor, nil).Status, 403) // the administrator
	is.Equal(s.Do(t, "DELETE", "/api/users/1/sessions", editor, nil).Status, 403)
	is.Equal(s.Do(t, "GET", "/api/me", admin, nil).Status, 200)
	is.Equal(s.Do(t, "GET", fmt.Sprintf("/api/users/%d/sessions", staffID), staff, nil).Status, 403) // no UsersEdit
	is.Equal(s.Do(t, "GET", "/api/users/99999/sessions", editor, nil).Status, 404)
	is.Equal(s.Do(t, "DELETE", "/api/users/99999/sessions", editor, nil).Status, 404)

	is.Equal(s.Do(t, "GET", "/api/me", staff, nil).Status, 200)
	is.Equal(s.Do(t, "DELETE", fmt.Sprintf("/api/users/%d/sessions", staffID), editor, nil).Status, 204)
	is.Equal(s.Do(t, "GET", "/api/me", staff, nil).Status, 401)
	is.Equal(len(sessionsOf(t, s, editor, fmt.Sprintf("/api/users/%d/sessions", staffID))), 0)

	// A system administrator may see another's.
	is.Equal(len(sessionsOf(t, s, admin, fmt.Sprintf("/api/users/%d/sessions", editorID))), 1)
}

// TestInstancesRevokeSessions: a session revoked through one instance is
// refused by the others within a second.
func TestInstancesRevokeSessions(t *testing.T) {
	pgtest.Skip(t)
	s := instances(t, 3, nil)
	a, b, c := s[0], s[1], s[2]
	is := is.New(t)
	keep := a.Login(t, apptest.AdminEmail, apptest.AdminPassword)
	one := b.Login(t, apptest.AdminEmail, apptest.AdminPassword)
	two := c.Login(t, apptest.AdminEmail, apptest.AdminPassword)
	for _, srv := range s {
		is.Equal(srv.Do(t, "GET", "/api/me", one.AccessToken, nil).Status, 200) // cached everywhere
		is.Equal(srv.Do(t, "GET", "/api/me", two.AccessToken, nil).Status, 200)
	}
	var id string
	for _, it := range sessionsOf(t, c, one.AccessToken, "/api/account/sessions") {
		if it.Current {
			id = it.ID
		}
	}
	is.Equal(a.Do(t, "DELETE", "/api/account/sessions/"+id, keep.AccessToken, nil).Status, 204)
	within(t, "a session revoked", func() bool {
		return b.Do(t, "GET", "/api/me", one.AccessToken, nil).Status == 401 && c.Do(t, "GET", "/api/me", one.AccessToken, nil).Status == 401
	})
	is.Equal(c.Do(t, "POST", "/api/account/sessions/revoke-others", keep.AccessToken, nil).Status, 204)
	within(t, "the other sessions revoked", func() bool {
		return a.Do(t, "GET", "/api/me", two.AccessToken, nil).Status == 401 && b.Do(t, "GET", "/api/me", two.AccessToken, nil).Status == 401
	})
	is.Equal(b.Do(t, "GET", "/api/me", keep.AccessToken, nil).Status, 200)
}
