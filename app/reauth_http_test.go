package app_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"counsel/app"
	"counsel/app/apptest"
	"counsel/domain/account"

	"github.com/matryer/is"
)

// Recent authentication (docs/security.md, "Recent authentication"), through HTTP on
// the engine of COUNSEL_TEST_ENGINE, with the fake clock: a factor change
// needs a sign-in or re-authentication within COUNSEL_REAUTH_WINDOW.

const reauthType = "/problems/reauthentication-required"

// expectReauth checks that r is the 403 of recent authentication.
func expectReauth(t *testing.T, r *apptest.Response, what string) {
	t.Helper()
	if r.Status != 403 || !strings.HasPrefix(r.Header.Get("Content-Type"), "application/problem+json") {
		t.Fatalf("%s: want a 403 problem, got %d %s %s", what, r.Status, r.Header.Get("Content-Type"), r.Body)
	}
	var p struct {
		Type   string
		Status int
		Detail string
	}
	r.JSON(t, &p)
	if p.Type != reauthType || p.Status != 403 || p.Detail == "" {
		t.Fatalf("%s: want type %s, got %+v", what, reauthType, p)
	}
}

// emailedCode asks get-otp for a code (response delivery).
func emailedCode(t *testing.T, s *apptest.Server, email string) string {
	t.Helper()
	var o struct{ OTP string }
	s.Do(t, "POST", "/api/account/login/get-otp", "", map[string]string{"email": email}).Expect(t, 200, "get-otp").JSON(t, &o)
	return o.OTP
}

func reauth(t *testing.T, s *apptest.Server, token, password, otp string) *apptest.Response {
	t.Helper()
	return s.Do(t, "POST", "/api/account/reauthenticate", token, map[string]string{"password": password, "otp": otp})
}

// staffUser creates a Staff user (ContractView) with password-123 and
// signs it in.
func staffUser(t *testing.T, s *apptest.Server, email string) (int64, apptest.Tokens) {
	t.Helper()
	id, err := s.App.CreateUser(context.Background(), account.NewUser{Email: email, FirstName: "R", LastName: "Auth", Roles: []string{account.StaffRole}}, "password-123")
	if err != nil {
		t.Fatalf("create user: %v", err)
	}
	return id, s.Login(t, email, "password-123")
}

func TestRecentAuthentication(t *testing.T) {
	t.Parallel()
	s := apptest.New(t, func(c *app.Config) { c.LockoutThreshold = 4 })
	late := account.DefaultReauthWindow + time.Second

	t.Run("a fresh sign-in may change factors; ten minutes later it may not", func(t *testing.T) {
		is := is.New(t)
		_, tok := staffUser(t, s, "fresh@example.com")
		enrol(t, s, tok.AccessToken) // just signed in
		s.Clock.Advance(account.DefaultReauthWindow - time.Second)
		enrol(t, s, tok.AccessToken) // still inside the window
		s.Clock.Advance(2 * time.Second)
		expectReauth(t, s.Do(t, "POST", "/api/account/totp/enroll", tok.AccessToken, nil), "enroll")
		expectReauth(t, confirm(t, s, tok.AccessToken, "123456"), "confirm")
		expectReauth(t, s.Do(t, "POST", "/api/users/changepassword", tok.AccessToken, map[string]any{"password": "new-password-1"}), "change own password")
		expectReauth(t, s.Do(t, "POST", "/api/users/changepassword", tok.AccessToken, map[string]any{"id": 0, "password": "new-password-1"}), "change own password by id 0")
		s.Do(t, "GET", "/api/account/totp", tok.AccessToken, nil).Expect(t, 200, "reading is not a change")
		is.True(true)
	})

	t.Run("turning the app off needs it too, even with password and code", func(t *testing.T) {
		_, _, secret, codes := totpUser(t, s, "off@example.com")
		// A session signed in with the app.
		r := s.Do(t, "POST", "/api/account/login", "", map[string]string{"email": "off@example.com", "password": "password-123", "otp": appCode(t, secret, s.Clock.Now())})
		r.Expect(t, 200, "sign in with the app")
		var at apptest.Tokens
		r.JSON(t, &at)
		s.Clock.Advance(late)
		expectReauth(t, s.Do(t, "DELETE", "/api/account/totp", at.AccessToken, map[string]string{"password": "password-123", "otp": codes[0]}), "turn off")
		// A recovery code re-authenticates; then the app goes off.
		reauth(t, s, at.AccessToken, "password-123", codes[1]).Expect(t, 200, "re-authenticate with a recovery code")
		s.Do(t, "DELETE", "/api/account/totp", at.AccessToken, map[string]string{"password": "password-123", "otp": appCode(t, secret, s.Clock.Now())}).Expect(t, 204, "turn off")
	})

	t.Run("re-authenticating with an emailed code renews this session only", func(t *testing.T) {
		is := is.New(t)
		_, a := staffUser(t, s, "renew@example.com")
		b := s.Login(t, "renew@example.com", "password-123")
		s.Clock.Advance(late)
		expectReauth(t, s.Do(t, "POST", "/api/account/totp/enroll", a.AccessToken, nil), "session a, late")
		code := emailedCode(t, s, "renew@example.com")
		r := reauth(t, s, a.AccessToken, "password-123", code).Expect(t, 200, "re-authenticate")
		is.Equal(r.Header.Get("Cache-Control"), "no-store")
		var got struct{ AuthenticatedAt, ValidUntil string }
		r.JSON(t, &got)
		is.Equal(got.AuthenticatedAt, s.Clock.Now().UTC().Format(time.RFC3339))                               // now
		is.Equal(got.ValidUntil, s.Clock.Now().Add(account.DefaultReauthWindow).UTC().Format(time.RFC3339))   // the window
		enrol(t, s, a.AccessToken)                                                                            // renewed
		expectReauth(t, s.Do(t, "POST", "/api/account/totp/enroll", b.AccessToken, nil), "the other session") // not renewed
		reauth(t, s, a.AccessToken, "password-123", code).Expect(t, 401, "the emailed code is used up")
		// A refresh keeps the session's authentication time: it is no sign-in.
		s.Clock.Advance(late)
		var fresh apptest.Tokens
		s.Do(t, "POST", "/api/account/refresh-token", "", map[string]string{"accessToken": a.AccessToken, "refreshToken": a.RefreshToken}).
			Expect(t, 200, "refresh").JSON(t, &fresh)
		expectReauth(t, s.Do(t, "POST", "/api/account/totp/enroll", fresh.AccessToken, nil), "after a refresh")
	})

	t.Run("wrong credentials are a 401 and count toward the lockout", func(t *testing.T) {
		_, tok := staffUser(t, s, "wrong@example.com")
		s.Clock.Advance(late)
		s.Do(t, "POST", "/api/account/reauthenticate", tok.AccessToken, map[string]string{"password": "password-123"}).Expect(t, 400, "no otp")
		s.Do(t, "POST", "/api/account/reauthenticate", "", map[string]string{"password": "password-123", "otp": "123456"}).Expect(t, 401, "no token")
		code := emailedCode(t, s, "wrong@example.com")
		reauth(t, s, tok.AccessToken, "not-the-password", code).Expect(t, 401, "wrong password")
		reauth(t, s, tok.AccessToken, "password-123", "000000").Expect(t, 401, "wrong code")
		reauth(t, s, tok.AccessToken, "not-the-password", emailedCode(t, s, "wrong@example.com")).Expect(t, 401, "wrong password again")
		s.Do(t, "POST", "/api/users/changepassword", tok.AccessToken, map[string]any{"password": "new-password-1", "currentPassword": "nope-nope"}).
			Expect(t, 401, "a wrong current password")
		// Four failures: locked, so even the right credentials fail.
		reauth(t, s, tok.AccessToken, "password-123", emailedCode(t, s, "wrong@example.com")).Expect(t, 401, "locked")
		r := s.Do(t, "POST", "/api/account/login", "", map[string]string{"email": "wrong@example.com", "password": "password-123", "otp": emailedCode(t, s, "wrong@example.com")})
		r.Expect(t, 401, "sign-in while locked")
	})

	t.Run("a correct currentPassword stands in for it on one's own password change", func(t *testing.T) {
		_, tok := staffUser(t, s, "current@example.com")
		s.Clock.Advance(late)
		expectReauth(t, s.Do(t, "POST", "/api/users/changepassword", tok.AccessToken, map[string]any{"password": "new-password-1"}), "without")
		s.Do(t, "POST", "/api/users/changepassword", tok.AccessToken, map[string]any{"password": "new-password-1", "currentPassword": "password-123"}).
			Expect(t, 200, "with the current password")
		s.Login(t, "current@example.com", "new-password-1") // the new password works
	})

	t.Run("changing one's own email is a change of how one signs in", func(t *testing.T) {
		is := is.New(t)
		id, tok := s.User(t, account.UsersEdit)
		path := fmt.Sprintf("/api/users/%d", id)
		var me struct{ Email string }
		s.Do(t, "GET", path, tok, nil).Expect(t, 200, "read oneself").JSON(t, &me)
		s.Do(t, "PUT", path, tok, map[string]any{"email": "fresh-" + me.Email}).Expect(t, 200, "a fresh sign-in may")
		s.Clock.Advance(late)
		expectReauth(t, s.Do(t, "PUT", path, tok, map[string]any{"email": "late-" + me.Email}), "own email, late")
		expectReauth(t, s.Do(t, "PUT", path, tok, map[string]any{"email": "late-" + me.Email, "firstName": "Both"}), "own email with a name, late")
		s.Do(t, "PUT", path, tok, map[string]any{"email": "fresh-" + me.Email, "firstName": "Same"}).Expect(t, 200, "the same email and a name")
		s.Do(t, "PUT", path, tok, map[string]any{"firstName": "Renamed"}).Expect(t, 200, "a name alone")
		var got struct{ Email, FirstName string }
		s.Do(t, "GET", path, tok, nil).Expect(t, 200, "read again").JSON(t, &got)
		is.Equal(got.Email, "fresh-"+me.Email) // the refused change left nothing
		is.Equal(got.FirstName, "Renamed")
		reauth(t, s, tok, "password-123", emailedCode(t, s, got.Email)).Expect(t, 200, "re-authenticate")
		s.Do(t, "PUT", path, tok, map[string]any{"email": "late-" + me.Email}).Expect(t, 200, "after re-authenticating")
		// Another user's email is the takeover rule's, not this one's.
		other, _ := staffUser(t, s, "their-email@example.com")
		s.Clock.Advance(late)
		s.Do(t, "PUT", fmt.Sprintf("/api/users/%d", other), s.Admin(t), map[string]any{"email": "changed-by-admin@example.com"}).Expect(t, 200, "an administrator sets another's email")
	})

	t.Run("an administrator's change of another user needs no re-authentication", func(t *testing.T) {
		admin := s.Admin(t)
		id, _ := staffUser(t, s, "other@example.com")
		s.Clock.Advance(late)
		s.Do(t, "POST", "/api/users/changepassword", admin, map[string]any{"id": id, "password": "set-by-admin-1"}).Expect(t, 200, "set another's password")
		s.Do(t, "DELETE", fmt.Sprintf("/api/users/%d/totp", id), admin, nil).Expect(t, 204, "reset another's app")
	})
}

func TestReauthWindowSetting(t *testing.T) {
	t.Parallel()
	s := apptest.New(t, func(c *app.Config) { c.ReauthWindow = 2 * time.Minute })
	_, tok := staffUser(t, s, "window@example.com")
	s.Clock.Advance(time.Minute)
	enrol(t, s, tok.AccessToken) // inside two minutes
	s.Clock.Advance(time.Minute)
	expectReauth(t, s.Do(t, "POST", "/api/account/totp/enroll", tok.AccessToken, nil), "at two minutes")
	r := reauth(t, s, tok.AccessToken, "password-123", emailedCode(t, s, "window@example.com")).Expect(t, 200, "re-authenticate")
	var got struct{ ValidUntil string }
	r.JSON(t, &got)
	is.New(t).Equal(got.ValidUntil, s.Clock.Now().Add(2*time.Minute).UTC().Format(time.RFC3339)) // the configured window
}

// TestResetOwnTOTPRefused: the administrators' route is for others; one's
// own app goes off through the account route (password, code, recent
// authentication).
func TestResetOwnTOTPRefused(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	s := apptest.New(t)
	editorID, editor := s.User(t, account.UsersEdit, account.UsersView)
	r := s.Do(t, "DELETE", fmt.Sprintf("/api/users/%d/totp", editorID), editor, nil)
	is.Equal(r.Status, 403) // one's own id
	is.Equal(r.Map(t)["type"], "/problems/forbidden")
	admin := s.Admin(t)
	r = s.Do(t, "DELETE", "/api/users/1/totp", admin, nil)
	is.Equal(r.Status, 403) // a system administrator too
	s.Do(t, "DELETE", fmt.Sprintf("/api/users/%d/totp", editorID), admin, nil).Expect(t, 204, "another user's")
}
