package app_test

import (
	"bytes"
	"context"
	"encoding/base32"
	"encoding/base64"
	"fmt"
	"image/png"
	"log/slog"
	"os"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"counsel/adapters/smtp/smtptest"
	"counsel/app"
	"counsel/app/apptest"
	"counsel/domain/account"

	"github.com/matryer/is"
	"github.com/pquerna/otp"
	pqtotp "github.com/pquerna/otp/totp"
)

// The authenticator-app rules of docs/decisions.md §9, through HTTP with the
// fake clock. Codes are computed here with pquerna/otp's own TOTP
// generator, as an app would, independently of the service's adapter.

// appCode is the app's code for secret at the given time.
func appCode(t testing.TB, secret string, at time.Time) string {
	t.Helper()
	c, err := pqtotp.GenerateCodeCustom(secret, at, pqtotp.ValidateOpts{Period: 30, Digits: otp.DigitsSix, Algorithm: otp.AlgorithmSHA1})
	if err != nil {
		t.Fatalf("app code: %v", err)
	}
	return c
}

type enrolment struct {
	Secret     string `json:"secret"`
	OTPAuthURL string `json:"otpauthUrl"`
	QRCode     string `json:"qrCode"`
}

func enrol(t testing.TB, s *apptest.Server, token string) enrolment {
	t.Helper()
	var e enrolment
	s.Do(t, "POST", "/api/account/totp/enroll", token, nil).Expect(t, 200, "enroll").JSON(t, &e)
	return e
}

func confirm(t testing.TB, s *apptest.Server, token, code string) *apptest.Response {
	t.Helper()
	return s.Do(t, "POST", "/api/account/totp/confirm", token, map[string]string{"otp": code})
}

// totpUser creates a Staff user, signs in with an emailed code, and turns
// an authenticator app on. It returns the user's id, email, token, secret
// and recovery codes. The clock moves to the next step afterwards, so the
// confirming code's step is behind.
func totpUser(t testing.TB, s *apptest.Server, email string) (int64, string, string, []string) {
	t.Helper()
	id, err := s.App.CreateUser(context.Background(), account.NewUser{Email: email, FirstName: "T", LastName: "Otp", Roles: []string{account.StaffRole}}, "password-123")
	if err != nil {
		t.Fatalf("create user: %v", err)
	}
	tok := s.Login(t, email, "password-123").AccessToken
	e := enrol(t, s, tok)
	var rc struct{ RecoveryCodes []string }
	confirm(t, s, tok, appCode(t, e.Secret, s.Clock.Now())).Expect(t, 200, "confirm").JSON(t, &rc)
	s.Clock.Advance(30 * time.Second)
	return id, tok, e.Secret, rc.RecoveryCodes
}

func TestTOTPEnrolAndConfirm(t *testing.T) {
	t.Parallel()
	s := apptest.New(t)
	is := is.New(t)
	_, tok := s.User(t)

	st := s.Do(t, "GET", "/api/account/totp", tok, nil)
	is.Equal(st.Status, 200)
	is.Equal(strings.TrimSpace(string(st.Body)), `{"enabled":false,"confirmedAt":null,"recoveryCodesLeft":0}`) // off
	is.Equal(s.Do(t, "GET", "/api/account/totp", "", nil).Status, 401)                                         // signed-in callers only
	is.Equal(s.Do(t, "POST", "/api/account/totp/enroll", "", nil).Status, 401)
	is.Equal(confirm(t, s, tok, "123456").Status, 409) // nothing pending

	r := s.Do(t, "POST", "/api/account/totp/enroll", tok, nil)
	is.Equal(r.Status, 200)
	is.Equal(r.Header.Get("Cache-Control"), "no-store") // the secret is not cached
	var first enrolment
	r.JSON(t, &first)
	is.True(regexp.MustCompile(`^[A-Z2-7]{32}$`).MatchString(first.Secret)) // base32, 160 bits
	is.True(strings.HasPrefix(first.OTPAuthURL, "otpauth://totp/Counsel:user"))
	is.True(strings.Contains(first.OTPAuthURL, "secret="+first.Secret))
	is.True(strings.Contains(first.OTPAuthURL, "issuer=Counsel"))
	png64, ok := strings.CutPrefix(first.QRCode, "data:image/png;base64,")
	is.True(ok) // a PNG data URL
	raw, err := base64.StdEncoding.DecodeString(png64)
	is.NoErr(err)
	_, err = png.Decode(bytes.NewReader(raw))
	is.NoErr(err)                                                                    // that decodes
	is.Equal(s.Do(t, "GET", "/api/account/totp", tok, nil).Map(t)["enabled"], false) // pending is not on

	// A new enrolment replaces the unconfirmed one.
	second := enrol(t, s, tok)
	is.True(second.Secret != first.Secret)
	now := s.Clock.Now()
	if appCode(t, first.Secret, now) != appCode(t, second.Secret, now) {
		r = confirm(t, s, tok, appCode(t, first.Secret, now))
		is.Equal(r.Status, 400) // the replaced secret's code does not confirm
	}

	tests := []struct {
		name string
		body any
	}{
		{"wrong code", map[string]string{"otp": appCode(t, second.Secret, now.Add(-2*time.Minute))}},
		{"not digits", map[string]string{"otp": "abcdef"}},
		{"missing otp", map[string]string{}},
		{"not JSON", "otp=123456"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			r := s.Do(t, "POST", "/api/account/totp/confirm", tok, tt.body)
			is.Equal(r.Status, 400)
			is.Equal(r.Header.Get("Content-Type"), "application/problem+json")
			is.True(r.Map(t)["detail"] != "") // says what is wrong
		})
	}

	r = confirm(t, s, tok, " "+appCode(t, second.Secret, now)+" ")
	is.Equal(r.Status, 200) // the current code turns it on
	is.Equal(r.Header.Get("Cache-Control"), "no-store")
	var rc struct{ RecoveryCodes []string }
	r.JSON(t, &rc)
	is.Equal(len(rc.RecoveryCodes), 10) // ten codes
	seen := map[string]bool{}
	for _, c := range rc.RecoveryCodes {
		is.True(regexp.MustCompile(`^[0-9a-hjkmnp-tv-z]{10}$`).MatchString(c)) // ten characters of Crockford base32
		is.True(!seen[c])                                                      // all different
		seen[c] = true
	}
	m := s.Do(t, "GET", "/api/account/totp", tok, nil).Map(t)
	is.Equal(m["enabled"], true)
	is.Equal(m["confirmedAt"], "2026-11-21T09:30:00Z")
	is.Equal(m["recoveryCodesLeft"], float64(10))

	is.Equal(s.Do(t, "POST", "/api/account/totp/enroll", tok, nil).Status, 409) // on: turn it off first
	is.Equal(confirm(t, s, tok, appCode(t, second.Secret, now)).Status, 409)    // nothing pending any more
}

func TestTOTPLogin(t *testing.T) {
	t.Parallel()
	s := apptest.New(t)
	email := "app@example.com"
	_, _, secret, recovery := totpUser(t, s, email)
	try := func(code string) int { return login(t, s, email, "password-123", code).Status }
	step := func(n int) time.Time { return s.Clock.Now().Add(time.Duration(n) * 30 * time.Second) }

	t.Run("get-otp is silent and its code is no second factor", func(t *testing.T) {
		is := is.New(t)
		m := s.Do(t, "POST", "/api/account/login/get-otp", "", map[string]string{"email": email}).Map(t)
		is.Equal(m["otp"], "")      // no code, even in response mode
		is.Equal(m["status"], true) // and no sign that anything differs
	})
	t.Run("wrong code", func(t *testing.T) {
		is := is.New(t)
		is.Equal(try(appCode(t, secret, step(-3))), 401)
		is.Equal(try("12345"), 401)
	})
	t.Run("the same 401 body as every failed sign-in", func(t *testing.T) {
		is := is.New(t)
		a := login(t, s, email, "password-123", "000000x")
		b := login(t, s, "ghost@example.com", "password-123", "123456")
		is.Equal(string(a.Body), string(b.Body))
	})
	t.Run("wrong password with a right code", func(t *testing.T) {
		is := is.New(t)
		is.Equal(login(t, s, email, "wrong-password", appCode(t, secret, step(0))).Status, 401)
	})
	t.Run("current code, then its replay within the step", func(t *testing.T) {
		is := is.New(t)
		c := appCode(t, secret, step(0))
		is.Equal(try(c), 200) // the wrong password above did not spend it
		is.Equal(try(c), 401) // replay
		s.Clock.Advance(20 * time.Second)
		is.Equal(try(c), 401) // still refused later, while inside the window
	})
	t.Run("drift of one step", func(t *testing.T) {
		is := is.New(t)
		s.Clock.Advance(90 * time.Second)
		is.Equal(try(appCode(t, secret, step(-1))), 200) // the phone is 30 s slow
		s.Clock.Advance(90 * time.Second)
		is.Equal(try(appCode(t, secret, step(1))), 200) // or 30 s fast
		is.Equal(try(appCode(t, secret, step(0))), 401) // a step before the one just used is spent too
	})
	t.Run("two steps away", func(t *testing.T) {
		is := is.New(t)
		s.Clock.Advance(5 * time.Minute)
		is.Equal(try(appCode(t, secret, step(-2))), 401)
		is.Equal(try(appCode(t, secret, step(2))), 401)
	})
	t.Run("each recovery code works once", func(t *testing.T) {
		is := is.New(t)
		is.Equal(try(recovery[0]), 200)
		is.Equal(try(recovery[0]), 401) // spent
		loose := strings.ToUpper(recovery[1][:5] + "-" + recovery[1][5:])
		is.Equal(try(loose), 200) // case and hyphens do not matter
		is.Equal(try(recovery[1]), 401)
		is.Equal(try(recovery[2]), 200) // the others still work
	})
	t.Run("status counts the recovery codes left", func(t *testing.T) {
		is := is.New(t)
		s.Clock.Advance(time.Minute)
		r := login(t, s, email, "password-123", appCode(t, secret, step(0)))
		is.Equal(r.Status, 200)
		var tok apptest.Tokens
		r.JSON(t, &tok)
		is.Equal(s.Do(t, "GET", "/api/account/totp", tok.AccessToken, nil).Map(t)["recoveryCodesLeft"], float64(7))
	})
}

// TestTOTPConcurrentReplay sends one code in several sign-ins at once:
// the step is saved in the transaction that creates the session, so
// exactly one wins.
func TestTOTPConcurrentReplay(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	s := apptest.New(t)
	email := "race@example.com"
	_, _, secret, recovery := totpUser(t, s, email)
	for _, code := range []string{appCode(t, secret, s.Clock.Now()), recovery[0]} {
		var wg sync.WaitGroup
		statuses := make([]int, 6)
		for i := range statuses {
			wg.Go(func() { statuses[i] = login(t, s, email, "password-123", code).Status })
		}
		wg.Wait()
		won := 0
		for _, st := range statuses {
			if st == 200 {
				won++
			} else {
				is.Equal(st, 401) // the others are refused
			}
		}
		is.Equal(won, 1) // exactly one sign-in per code
	}
}

func TestTOTPLockout(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	s := apptest.New(t, func(c *app.Config) { c.LockoutThreshold, c.LockoutDuration = 3, 15*time.Minute })
	email := "locked@example.com"
	_, _, secret, recovery := totpUser(t, s, email)
	for i := 0; i < 3; i++ {
		is.Equal(login(t, s, email, "password-123", appCode(t, secret, s.Clock.Now().Add(-5*time.Minute))).Status, 401) // wrong codes
	}
	is.Equal(login(t, s, email, "password-123", appCode(t, secret, s.Clock.Now())).Status, 401) // locked, though right
	is.Equal(login(t, s, email, "password-123", recovery[0]).Status, 401)                       // recovery codes too
	s.Clock.Advance(15 * time.Minute)
	is.Equal(login(t, s, email, "password-123", appCode(t, secret, s.Clock.Now())).Status, 200) // unlocked
	is.Equal(login(t, s, email, "password-123", recovery[0]).Status, 200)                       // not spent while locked
}

func TestTOTPTurnOff(t *testing.T) {
	t.Parallel()
	s := apptest.New(t)
	email := "off@example.com"
	_, first, secret, recovery := totpUser(t, s, email)
	var second apptest.Tokens
	login(t, s, email, "password-123", appCode(t, secret, s.Clock.Now())).Expect(t, 200, "second session").JSON(t, &second)
	s.Clock.Advance(30 * time.Second)

	tests := []struct {
		name   string
		body   any
		status int
	}{
		{"no password", map[string]string{"otp": appCode(t, secret, s.Clock.Now())}, 400},
		{"no code", map[string]string{"password": "password-123"}, 400},
		{"wrong password", map[string]string{"password": "wrong-password", "otp": appCode(t, secret, s.Clock.Now())}, 400},
		{"wrong code", map[string]string{"password": "password-123", "otp": appCode(t, secret, s.Clock.Now().Add(-time.Hour))}, 400},
		{"no body", nil, 400},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			r := s.Do(t, "DELETE", "/api/account/totp", second.AccessToken, tt.body)
			is.Equal(r.Status, tt.status)
			is.Equal(r.Header.Get("Content-Type"), "application/problem+json")
		})
	}
	is := is.New(t)
	is.Equal(s.Do(t, "GET", "/api/account/totp", first, nil).Map(t)["enabled"], true) // still on

	r := s.Do(t, "DELETE", "/api/account/totp", second.AccessToken, map[string]string{"password": "password-123", "otp": recovery[0]})
	is.Equal(r.Status, 204)                                                                         // password and a recovery code turn it off
	is.Equal(s.Do(t, "GET", "/api/account/totp", second.AccessToken, nil).Map(t)["enabled"], false) // this session goes on
	is.Equal(s.Do(t, "GET", "/api/account/totp", first, nil).Status, 401)                           // the other one is revoked
	is.Equal(s.Do(t, "DELETE", "/api/account/totp", second.AccessToken, map[string]string{"password": "password-123", "otp": "123456"}).Status, 409)

	code := getOTP(t, s, email)
	is.True(code != "")                                            // emailed codes again
	is.Equal(login(t, s, email, "password-123", code).Status, 200) // and they sign in
	is.Equal(login(t, s, email, "password-123", appCode(t, secret, s.Clock.Now())).Status, 401)
	enrol(t, s, second.AccessToken) // and a new enrolment may start
}

func TestTOTPTurnOffCountsTowardLockout(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	s := apptest.New(t, func(c *app.Config) { c.LockoutThreshold, c.LockoutDuration = 2, 15*time.Minute })
	email := "guess@example.com"
	_, tok, secret, _ := totpUser(t, s, email)
	for i := 0; i < 2; i++ {
		r := s.Do(t, "DELETE", "/api/account/totp", tok, map[string]string{"password": "password-123", "otp": appCode(t, secret, s.Clock.Now().Add(-time.Hour))})
		is.Equal(r.Status, 400) // wrong codes
	}
	r := s.Do(t, "DELETE", "/api/account/totp", tok, map[string]string{"password": "password-123", "otp": appCode(t, secret, s.Clock.Now())})
	is.Equal(r.Status, 400)                                                                     // locked: refused though right
	is.Equal(login(t, s, email, "password-123", appCode(t, secret, s.Clock.Now())).Status, 401) // and so is sign-in
}

func TestTOTPAdminReset(t *testing.T) {
	t.Parallel()
	s := apptest.New(t)
	admin := s.Admin(t)
	editorID, editor := s.User(t, account.UsersEdit)
	_, viewer := s.User(t, account.UsersView)
	email := "lost-phone@example.com"
	id, tok, _, _ := totpUser(t, s, email)
	path := fmt.Sprintf("/api/users/%d/totp", id)

	t.Run("permissions", func(t *testing.T) {
		is := is.New(t)
		is.Equal(s.Do(t, "DELETE", path, "", nil).Status, 401)
		is.Equal(s.Do(t, "DELETE", path, viewer, nil).Status, 403)                // UsersEdit needed
		is.Equal(s.Do(t, "DELETE", "/api/users/1/totp", editor, nil).Status, 403) // a system administrator is protected
		is.Equal(s.Do(t, "DELETE", "/api/users/99999/totp", admin, nil).Status, 404)
		is.Equal(s.Do(t, "GET", "/api/account/totp", tok, nil).Map(t)["enabled"], true) // nothing changed
	})
	t.Run("reset revokes the user's sessions", func(t *testing.T) {
		is := is.New(t)
		is.Equal(s.Do(t, "DELETE", path, editor, nil).Status, 204)
		is.Equal(s.Do(t, "GET", "/api/account/totp", tok, nil).Status, 401) // revoked
		tok = s.Login(t, email, "password-123").AccessToken                 // an emailed code signs in again
		is.Equal(s.Do(t, "GET", "/api/account/totp", tok, nil).Map(t)["enabled"], false)
		is.Equal(s.Do(t, "DELETE", path, admin, nil).Status, 204) // none enrolled: still 204
	})
	t.Run("administrators cannot reset their own app here", func(t *testing.T) {
		is := is.New(t)
		e := enrol(t, s, editor)
		is.Equal(confirm(t, s, editor, appCode(t, e.Secret, s.Clock.Now())).Status, 200)
		is.Equal(s.Do(t, "DELETE", fmt.Sprintf("/api/users/%d/totp", editorID), editor, nil).Status, 403) // the account route is for oneself
		is.Equal(s.Do(t, "GET", "/api/account/totp", editor, nil).Map(t)["enabled"], true)
	})
}

// TestTOTPGetOTPSilent checks every delivery mode: a user with an app gets
// no code, the same answer as anyone, and is throttled like any email. The
// user enrols on a response-mode server; a server in each mode then runs
// on the same database file.
func TestTOTPGetOTPSilent(t *testing.T) {
	t.Parallel()
	base := apptest.New(t)
	email := "silent@example.com"
	totpUser(t, base, email)
	for i, mode := range []string{"response", "log", "smtp"} {
		t.Run(mode, func(t *testing.T) {
			is := is.New(t)
			var logs syncBuffer
			sink := smtptest.New(t)
			s := apptest.New(t, func(c *app.Config) {
				c.DB = base.Config.DB
				c.OTPDelivery, c.SMTPAddr, c.SMTPFrom = mode, sink.Addr(), "counsel@example.com"
				c.OTPResendInterval = 30 * time.Second
				c.Logger = slog.New(slog.NewTextHandler(&logs, nil))
			})
			s.Clock.Set(base.Clock.Now().Add(time.Duration(i) * time.Minute)) // past the previous mode's throttle
			m := s.Do(t, "POST", "/api/account/login/get-otp", "", map[string]string{"email": email}).Map(t)
			is.Equal(m["otp"], "")      // no code in the answer
			is.Equal(m["status"], true) // and status true, as for everyone outside response mode
			r := s.Do(t, "POST", "/api/account/login/get-otp", "", map[string]string{"email": email})
			is.Equal(r.Status, 429) // throttled like any email
			s.App.Accounts.Wait()
			is.True(!strings.Contains(logs.String(), "otp=")) // nothing logged
			is.Equal(len(sink.Messages()), 0)                 // nothing mailed
		})
	}
}

func b32decode(s string) ([]byte, error) {
	return base32.StdEncoding.WithPadding(base32.NoPadding).DecodeString(s)
}

// TestTOTPDatabaseHoldsNoPlainSecret scans the database file and its WAL
// for the secret (raw and base32) and the recovery codes, after enrolling,
// confirming and signing in with a recovery code, and the server log too.
func TestTOTPDatabaseHoldsNoPlainSecret(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	var logs syncBuffer
	s := apptest.New(t, func(c *app.Config) {
		c.Logger = slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	})
	email := "vault@example.com"
	_, _, secret, recovery := totpUser(t, s, email)
	is.Equal(login(t, s, email, "password-123", recovery[0]).Status, 200)
	is.Equal(login(t, s, email, "password-123", appCode(t, secret, s.Clock.Now())).Status, 200)

	raw, err := b32decode(secret)
	is.NoErr(err)
	needles := [][]byte{raw, []byte(secret), []byte(strings.ToLower(secret))}
	for _, c := range recovery {
		needles = append(needles, []byte(c), []byte(strings.ToUpper(c)))
	}
	var scanned int
	if apptest.Engine() == "postgres" { // no file: the rows themselves, raw and as text
		var b []byte
		is.NoErr(s.QueryRow(context.Background(), `SELECT coalesce(string_agg(sealed_secret || recovery_hashes || convert_to(t::text, 'UTF8'), ''), '')
			FROM user_totp t`).Scan(&b))
		scanned += len(b)
		for _, n := range needles {
			is.True(!bytes.Contains(b, n)) // no plain secret or recovery code
		}
	}
	for _, suffix := range []string{"", "-wal"} {
		if apptest.Engine() == "postgres" {
			break
		}
		b, err := os.ReadFile(s.Config.DB + suffix)
		if suffix == "-wal" && os.IsNotExist(err) {
			continue
		}
		is.NoErr(err) // read the file
		scanned += len(b)
		for _, n := range needles {
			is.True(!bytes.Contains(b, n)) // no plain secret or recovery code
		}
	}
	is.True(scanned > 0)
	for _, n := range needles {
		is.True(!strings.Contains(logs.String(), string(n))) // nor in the log
	}
}
