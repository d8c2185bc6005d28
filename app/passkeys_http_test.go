package app_test

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/matryer/is"

	"counsel/adapters/webauthn/webauthntest"
	"counsel/app"
	"counsel/app/apptest"
	"counsel/domain/account"
)

// Passkeys (docs/decisions.md §20) through HTTP on the engine of the run,
// with the software authenticator of webauthntest standing in for a
// browser and its platform authenticator.

type begun struct {
	ChallengeID string          `json:"challengeId"`
	Options     json.RawMessage `json:"options"`
}

type passkeyOut struct {
	ID         int64      `json:"id"`
	Name       string     `json:"name"`
	CreatedAt  time.Time  `json:"createdAt"`
	LastUsedAt *time.Time `json:"lastUsedAt"`
}

// addPasskey registers a new software passkey for the holder of token.
func addPasskey(t testing.TB, s *apptest.Server, token, name string) (*webauthntest.Authenticator, passkeyOut) {
	t.Helper()
	a := webauthntest.New(s.URL)
	var b begun
	s.Do(t, "POST", "/api/account/passkeys/register/begin", token, nil).Expect(t, 200, "register begin").JSON(t, &b)
	cred, err := a.Create(b.Options)
	if err != nil {
		t.Fatal(err)
	}
	var p passkeyOut
	s.Do(t, "POST", "/api/account/passkeys/register/finish", token, map[string]any{"challengeId": b.ChallengeID, "name": name, "credential": json.RawMessage(cred)}).
		Expect(t, 201, "register finish").JSON(t, &p)
	return a, p
}

// passkeySignIn runs the sign-in ceremony with a and returns the answer.
func passkeySignIn(t testing.TB, s *apptest.Server, a *webauthntest.Authenticator) *apptest.Response {
	t.Helper()
	var b begun
	s.Do(t, "POST", "/api/account/login/passkey/begin", "", nil).Expect(t, 200, "login begin").JSON(t, &b)
	cred, err := a.Get(b.Options)
	if err != nil {
		t.Fatal(err)
	}
	return s.Do(t, "POST", "/api/account/login/passkey/finish", "", map[string]any{"challengeId": b.ChallengeID, "credential": json.RawMessage(cred)})
}

// staff creates a Staff user and signs it in with password and code.
func staff(t testing.TB, s *apptest.Server, email string) (int64, string) {
	t.Helper()
	id, err := s.App.CreateUser(context.Background(), account.NewUser{Email: email, FirstName: "P", LastName: "Key", Roles: []string{account.StaffRole}}, "password-123")
	if err != nil {
		t.Fatalf("create user: %v", err)
	}
	return id, s.Login(t, email, "password-123").AccessToken
}

// failedLoginBody is the body of a failed password sign-in, which every
// failed passkey sign-in must repeat.
func failedLoginBody(t testing.TB, s *apptest.Server) string {
	t.Helper()
	r := s.Do(t, "POST", "/api/account/login", "", map[string]string{"email": "nobody@example.com", "password": "wrong-password", "otp": "000000"})
	r.Expect(t, 401, "failed login")
	return string(r.Body)
}

func TestPasskeyRegisterAndSignIn(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	s := apptest.New(t)
	uid, tok := staff(t, s, "pk@example.com")
	a, p := addPasskey(t, s, tok, "  Work laptop ")
	is.Equal(p.Name, "Work laptop")                 // trimmed
	is.True(p.LastUsedAt == nil)                    // never used
	is.True(p.CreatedAt.Equal(s.Clock.Now().UTC())) // now

	r := passkeySignIn(t, s, a).Expect(t, 200, "passkey sign-in")
	is.Equal(r.Header.Get("Cache-Control"), "no-store") // a token response
	var tokens apptest.Tokens
	r.JSON(t, &tokens)
	is.Equal(tokens.UserID, fmt.Sprint(uid)) // the passkey's owner
	me := s.Do(t, "GET", "/api/me", tokens.AccessToken, nil).Expect(t, 200, "me").Map(t)
	is.Equal(me["email"], "pk@example.com") // the token works
	// The refresh token works like a password sign-in's.
	s.Do(t, "POST", "/api/account/refresh-token", "", map[string]string{"accessToken": tokens.AccessToken, "refreshToken": tokens.RefreshToken}).
		Expect(t, 200, "refresh")

	var list struct{ Items []passkeyOut }
	s.Do(t, "GET", "/api/account/passkeys", tok, nil).Expect(t, 200, "list").JSON(t, &list)
	is.Equal(len(list.Items), 1)
	is.True(list.Items[0].LastUsedAt != nil) // the sign-in is recorded

	// The same authenticator cannot be registered twice: the options
	// exclude it, and the server refuses it.
	var b begun
	s.Do(t, "POST", "/api/account/passkeys/register/begin", tok, nil).Expect(t, 200, "begin").JSON(t, &b)
	var opts struct {
		ExcludeCredentials     []struct{ ID string } `json:"excludeCredentials"`
		AuthenticatorSelection struct {
			ResidentKey      string `json:"residentKey"`
			UserVerification string `json:"userVerification"`
		} `json:"authenticatorSelection"`
		RP struct{ ID string } `json:"rp"`
	}
	is.NoErr(json.Unmarshal(b.Options, &opts))
	is.Equal(len(opts.ExcludeCredentials), 1)                          // the registered one excluded
	is.Equal(opts.AuthenticatorSelection.ResidentKey, "required")      // discoverable
	is.Equal(opts.AuthenticatorSelection.UserVerification, "required") // both factors
	is.Equal(opts.RP.ID, "localhost")                                  // a development URL's id
	cred, err := a.Create(b.Options)
	is.NoErr(err)
	s.Do(t, "POST", "/api/account/passkeys/register/finish", tok, map[string]any{"challengeId": b.ChallengeID, "name": "Again", "credential": json.RawMessage(cred)}).
		Expect(t, 409, "registered twice")
}

func TestPasskeyManage(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	s := apptest.New(t)
	_, tok := staff(t, s, "pk@example.com")
	_, otherTok := staff(t, s, "other@example.com")
	a, p := addPasskey(t, s, tok, "Phone")
	_, p2 := addPasskey(t, s, tok, "Key")

	r := s.Do(t, "PUT", fmt.Sprintf("/api/account/passkeys/%d", p.ID), tok, map[string]string{"name": "Old phone"}).Expect(t, 200, "rename")
	var renamed passkeyOut
	r.JSON(t, &renamed)
	is.Equal(renamed.Name, "Old phone") // renamed
	s.Do(t, "PUT", fmt.Sprintf("/api/account/passkeys/%d", p.ID), tok, map[string]string{"name": " "}).Expect(t, 400, "blank name")
	s.Do(t, "PUT", fmt.Sprintf("/api/account/passkeys/%d", p.ID), tok, map[string]string{"name": "a\nb"}).Expect(t, 400, "two lines")
	s.Do(t, "PUT", fmt.Sprintf("/api/account/passkeys/%d", p.ID), otherTok, map[string]string{"name": "Mine"}).Expect(t, 404, "another's")
	s.Do(t, "DELETE", fmt.Sprintf("/api/account/passkeys/%d", p.ID), otherTok, nil).Expect(t, 404, "another's")

	// Removing needs recent authentication.
	s.Clock.Advance(11 * time.Minute)
	rr := s.Do(t, "DELETE", fmt.Sprintf("/api/account/passkeys/%d", p.ID), tok, nil).Expect(t, 403, "stale session")
	is.Equal(rr.Map(t)["type"], "/problems/reauthentication-required")
	s.Do(t, "POST", "/api/account/passkeys/register/begin", tok, nil).Expect(t, 403, "adding needs it too")
	// Re-authenticating with a passkey renews it (§21).
	var b begun
	s.Do(t, "POST", "/api/account/login/passkey/begin", "", nil).Expect(t, 200, "begin").JSON(t, &b)
	cred, err := a.Get(b.Options)
	is.NoErr(err)
	s.Do(t, "POST", "/api/account/reauthenticate", tok, map[string]any{"challengeId": b.ChallengeID, "credential": json.RawMessage(cred)}).
		Expect(t, 200, "reauthenticate with a passkey")
	s.Do(t, "DELETE", fmt.Sprintf("/api/account/passkeys/%d", p.ID), tok, nil).Expect(t, 204, "remove")
	var list struct{ Items []passkeyOut }
	s.Do(t, "GET", "/api/account/passkeys", tok, nil).Expect(t, 200, "list").JSON(t, &list)
	is.Equal(len(list.Items), 1)      // one left
	is.Equal(list.Items[0].ID, p2.ID) // the other
	// The removed credential no longer signs in.
	body := failedLoginBody(t, s)
	r = passkeySignIn(t, s, a).Expect(t, 401, "removed credential")
	is.Equal(string(r.Body), body) // the body of any failed sign-in
}

func TestPasskeyReauthenticateRefusesAnothersPasskey(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	s := apptest.New(t)
	_, tok := staff(t, s, "pk@example.com")
	_, otherTok := staff(t, s, "other@example.com")
	a, _ := addPasskey(t, s, otherTok, "Theirs")
	s.Clock.Advance(11 * time.Minute)
	var b begun
	s.Do(t, "POST", "/api/account/login/passkey/begin", "", nil).Expect(t, 200, "begin").JSON(t, &b)
	cred, err := a.Get(b.Options)
	is.NoErr(err)
	s.Do(t, "POST", "/api/account/reauthenticate", tok, map[string]any{"challengeId": b.ChallengeID, "credential": json.RawMessage(cred)}).
		Expect(t, 401, "another user's passkey")
	s.Do(t, "POST", "/api/account/passkeys/register/begin", tok, nil).Expect(t, 403, "still not recent")
}

func TestPasskeySignInRefusals(t *testing.T) {
	t.Parallel()
	s := apptest.New(t)
	uid, tok := staff(t, s, "pk@example.com")
	a, _ := addPasskey(t, s, tok, "Laptop")
	body := failedLoginBody(t, s)
	refused := func(t *testing.T, r *apptest.Response, what string) {
		t.Helper()
		r.Expect(t, 401, what)
		if string(r.Body) != body {
			t.Fatalf("%s: body %s, want the failed login's %s", what, r.Body, body)
		}
	}
	finish := func(challengeID string, cred []byte) *apptest.Response {
		return s.Do(t, "POST", "/api/account/login/passkey/finish", "", map[string]any{"challengeId": challengeID, "credential": json.RawMessage(cred)})
	}

	t.Run("a replayed challenge", func(t *testing.T) {
		var b begun
		s.Do(t, "POST", "/api/account/login/passkey/begin", "", nil).Expect(t, 200, "begin").JSON(t, &b)
		cred, _ := a.Get(b.Options)
		finish(b.ChallengeID, cred).Expect(t, 200, "first use")
		again, _ := a.Get(b.Options) // a fresh counter, the same challenge
		refused(t, finish(b.ChallengeID, again), "second use")
	})
	t.Run("an expired challenge", func(t *testing.T) {
		var b begun
		s.Do(t, "POST", "/api/account/login/passkey/begin", "", nil).Expect(t, 200, "begin").JSON(t, &b)
		s.Clock.Advance(5*time.Minute + time.Second)
		cred, _ := a.Get(b.Options)
		refused(t, finish(b.ChallengeID, cred), "expired")
	})
	t.Run("an unknown credential", func(t *testing.T) {
		stranger := webauthntest.New(s.URL)
		stranger.UserHandle = []byte{0, 0, 0, 0, 0, 0, 0, 1}
		refused(t, passkeySignIn(t, s, stranger), "unknown credential")
	})
	t.Run("no user verification", func(t *testing.T) {
		a.SkipUV = true
		defer func() { a.SkipUV = false }()
		refused(t, passkeySignIn(t, s, a), "no user verification")
	})
	t.Run("another origin", func(t *testing.T) {
		a.Origin = "https://counsel.example.evil"
		defer func() { a.Origin = s.URL }()
		refused(t, passkeySignIn(t, s, a), "wrong origin")
	})
	t.Run("another relying party id", func(t *testing.T) {
		a.RPID = "evil.example"
		defer func() { a.RPID = "" }()
		refused(t, passkeySignIn(t, s, a), "wrong relying party")
	})
	t.Run("a counter that goes backwards", func(t *testing.T) {
		passkeySignIn(t, s, a).Expect(t, 200, "good") // resets the failure count
		a.Counter -= 2
		refused(t, passkeySignIn(t, s, a), "counter backwards")
		a.Counter += 10
		passkeySignIn(t, s, a).Expect(t, 200, "counter ahead again")
	})
	t.Run("a deactivated user", func(t *testing.T) {
		s.Exec(t, fmt.Sprintf("UPDATE users SET active = false WHERE id = %d", uid))
		refused(t, passkeySignIn(t, s, a), "deactivated")
		s.Exec(t, fmt.Sprintf("UPDATE users SET active = true, failed_logins = 0 WHERE id = %d", uid))
		passkeySignIn(t, s, a).Expect(t, 200, "active again")
	})
	t.Run("malformed bodies are 400", func(t *testing.T) {
		for _, body := range []string{`{}`, `{"challengeId":"x"}`, `{"challengeId":"x","credential":{}}`, `{"challengeId":"x","credential":{"id":1}}`} {
			var b begun
			s.Do(t, "POST", "/api/account/login/passkey/begin", "", nil).Expect(t, 200, "begin").JSON(t, &b)
			r := s.Do(t, "POST", "/api/account/login/passkey/finish", "", body)
			if r.Status != 400 && r.Status != 401 {
				t.Fatalf("%s: %d %s", body, r.Status, r.Body)
			}
		}
	})
}

func TestPasskeyLockout(t *testing.T) {
	t.Parallel()
	s := apptest.New(t, func(c *app.Config) { c.LockoutThreshold, c.LockoutDuration = 3, 15*time.Minute })
	_, tok := staff(t, s, "pk@example.com")
	a, _ := addPasskey(t, s, tok, "Laptop")
	body := failedLoginBody(t, s)
	refused := func(t *testing.T, r *apptest.Response, what string) {
		t.Helper()
		r.Expect(t, 401, what)
		if string(r.Body) != body {
			t.Fatalf("%s: body %s, want the failed login's %s", what, r.Body, body)
		}
	}
	t.Run("failures count toward the lockout and a locked account is refused", func(t *testing.T) {
		a.SkipUV = true
		for range 3 {
			refused(t, passkeySignIn(t, s, a), "no user verification")
		}
		a.SkipUV = false
		refused(t, passkeySignIn(t, s, a), "locked") // a good assertion, a locked account
		r := s.Do(t, "POST", "/api/account/login/get-otp", "", map[string]string{"email": "pk@example.com"})
		var otp struct{ OTP string }
		r.JSON(t, &otp)
		refused(t, s.Do(t, "POST", "/api/account/login", "", map[string]string{"email": "pk@example.com", "password": "password-123", "otp": otp.OTP}), "password sign-in locked too")
		s.Clock.Advance(15 * time.Minute)
		passkeySignIn(t, s, a).Expect(t, 200, "unlocked")
	})
}

func TestPasskeyConcurrentAssertionsOnce(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	s := apptest.New(t)
	_, tok := staff(t, s, "pk@example.com")
	a, _ := addPasskey(t, s, tok, "Laptop")
	var b begun
	s.Do(t, "POST", "/api/account/login/passkey/begin", "", nil).Expect(t, 200, "begin").JSON(t, &b)
	cred, err := a.Get(b.Options)
	is.NoErr(err)
	var wg sync.WaitGroup
	var mu sync.Mutex
	ok := 0
	for range 6 {
		wg.Go(func() {
			r := s.Do(t, "POST", "/api/account/login/passkey/finish", "", map[string]any{"challengeId": b.ChallengeID, "credential": json.RawMessage(cred)})
			if r.Status == 200 {
				mu.Lock()
				ok++
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	is.Equal(ok, 1) // one assertion, one session
}

func TestAdminRemovesPasskeys(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	s := apptest.New(t)
	uid, tok := staff(t, s, "pk@example.com")
	a, _ := addPasskey(t, s, tok, "Laptop")
	editorID, editor := s.User(t, account.UsersEdit)
	admin := s.Admin(t)
	_, adminTok := apptest.Tokens{}, admin

	s.Do(t, "DELETE", fmt.Sprintf("/api/users/%d/passkeys", editorID), editor, nil).Expect(t, 403, "one's own id")
	s.Do(t, "DELETE", fmt.Sprintf("/api/users/%d/passkeys", uid), tok, nil).Expect(t, 403, "without UsersEdit")
	s.Do(t, "DELETE", "/api/users/424242/passkeys", editor, nil).Expect(t, 404, "unknown user")
	// A system administrator's passkeys are for system administrators.
	adminA, _ := addPasskey(t, s, adminTok, "Admin key")
	s.Do(t, "DELETE", "/api/users/1/passkeys", editor, nil).Expect(t, 403, "a stronger account")
	passkeySignIn(t, s, adminA).Expect(t, 200, "the administrator's passkey stays")

	s.Do(t, "DELETE", fmt.Sprintf("/api/users/%d/passkeys", uid), editor, nil).Expect(t, 204, "removed")
	var list struct{ Items []passkeyOut }
	s.Do(t, "GET", "/api/account/passkeys", tok, nil).Expect(t, 200, "list").JSON(t, &list)
	is.Equal(len(list.Items), 0) // none left
	passkeySignIn(t, s, a).Expect(t, 401, "removed")
}

func TestPasskeyOfDeletedUserRefused(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	s := apptest.New(t)
	uid, tok := staff(t, s, "pk@example.com")
	a, _ := addPasskey(t, s, tok, "Laptop")
	body := failedLoginBody(t, s)
	s.Do(t, "DELETE", fmt.Sprintf("/api/users/%d", uid), s.Admin(t), nil).Expect(t, 204, "delete user")
	r := passkeySignIn(t, s, a).Expect(t, 401, "deleted user")
	is.Equal(string(r.Body), body) // the body of any failed sign-in
}
