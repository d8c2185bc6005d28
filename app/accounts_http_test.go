package app_test

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"log/slog"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"counsel/adapters/smtp/smtptest"
	"counsel/app"
	"counsel/app/apptest"

	"github.com/matryer/is"
)

func getOTP(t *testing.T, s *apptest.Server, email string) string {
	t.Helper()
	r := s.Do(t, "POST", "/api/account/login/get-otp", "", map[string]string{"email": email}).Expect(t, 200, "get-otp")
	return r.Map(t)["otp"].(string)
}

func login(t *testing.T, s *apptest.Server, email, password, otp string) *apptest.Response {
	t.Helper()
	return s.Do(t, "POST", "/api/account/login", "", map[string]string{"email": email, "password": password, "otp": otp})
}

func TestGetOTP(t *testing.T) {
	t.Parallel()
	s := apptest.New(t)
	tests := []struct {
		name   string
		body   string
		status int
		field  string // expected key of errors, if any
	}{
		{"known email", `{"email":"admin@example.com"}`, 200, ""},
		{"field names match case-insensitively", `{"EMAIL":"Admin@Example.com"}`, 200, ""},
		{"unknown fields are ignored", `{"email":"admin@example.com","extra":1}`, 200, ""},
		{"missing email", `{}`, 400, "email"},
		{"blank email", `{"email":"  "}`, 400, "email"},
		{"not an email", `{"email":"nobody"}`, 400, "email"},
		{"wrong type", `{"email":42}`, 400, "email"},
		{"malformed JSON", `{"email":`, 400, ""},
		{"not an object", `["admin@example.com"]`, 400, ""},
		{"empty body", ``, 400, ""},
		{"trailing data", `{"email":"admin@example.com"} {}`, 400, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			r := s.Do(t, "POST", "/api/account/login/get-otp", "", tt.body)
			is.Equal(r.Status, tt.status) // status
			if tt.status != 200 {
				is.Equal(r.Header.Get("Content-Type"), "application/problem+json")
				m := r.Map(t)
				is.Equal(m["type"], "/problems/validation")
				is.True(m["detail"] != "") // says what is wrong
				if tt.field != "" {
					errs, _ := m["errors"].(map[string]any)
					is.True(errs[tt.field] != nil) // names the field
				}
				return
			}
			m := r.Map(t)
			is.Equal(m["email"], "admin@example.com")
			is.Equal(m["status"], true)
			is.True(regexp.MustCompile(`^[0-9]{6}$`).MatchString(m["otp"].(string))) // six digits
		})
	}
	t.Run("unknown email in response mode", func(t *testing.T) {
		is := is.New(t)
		m := s.Do(t, "POST", "/api/account/login/get-otp", "", `{"email":"ghost@example.com"}`).Map(t)
		is.Equal(m["status"], false)
		is.Equal(m["otp"], "")
	})
	t.Run("oversized body", func(t *testing.T) {
		is := is.New(t)
		big := `{"email":"` + strings.Repeat("a", 2<<20) + `"}`
		r := s.Do(t, "POST", "/api/account/login/get-otp", "", big)
		is.Equal(r.Status, 413)
		is.Equal(r.Map(t)["type"], "/problems/payload-too-large")
	})
}

func TestLoginFailuresLookAlike(t *testing.T) {
	t.Parallel()
	s := apptest.New(t)
	email, pw := apptest.AdminEmail, apptest.AdminPassword
	used := getOTP(t, s, email)
	if r := login(t, s, email, pw, used); r.Status != 200 {
		t.Fatalf("first login: %d %s", r.Status, r.Body)
	}
	var first []byte
	tests := []struct {
		name            string
		email, pw, code func() string
	}{
		{"unknown email", fn("ghost@example.com"), fn(pw), func() string { return getOTP(t, s, email) }},
		{"wrong password", fn(email), fn("wrong-password"), func() string { return getOTP(t, s, email) }},
		{"wrong otp", fn(email), fn(pw), func() string { getOTP(t, s, email); return "000000x" }},
		{"used otp", fn(email), fn(pw), fn(used)},
		{"expired otp", fn(email), fn(pw), func() string { c := getOTP(t, s, email); s.Clock.Advance(5*time.Minute + time.Second); return c }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			r := login(t, s, tt.email(), tt.pw(), tt.code())
			is.Equal(r.Status, 401)
			is.Equal(r.Header.Get("WWW-Authenticate"), "Bearer")
			if first == nil {
				first = r.Body
			}
			is.Equal(string(r.Body), string(first)) // one and the same body for every failure
		})
	}
	t.Run("missing fields are 400", func(t *testing.T) {
		for _, f := range []string{"email", "password", "otp"} {
			is := is.New(t)
			body := map[string]string{"email": email, "password": pw, "otp": "123456"}
			delete(body, f)
			r := s.Do(t, "POST", "/api/account/login", "", body)
			is.Equal(r.Status, 400)
			is.True(r.Map(t)["errors"].(map[string]any)[f] != nil) // names the missing field
		}
	})
}

func fn(s string) func() string { return func() string { return s } }

func TestOTPRules(t *testing.T) {
	t.Parallel()
	email, pw := apptest.AdminEmail, apptest.AdminPassword
	t.Run("a newer code replaces the older", func(t *testing.T) {
		is := is.New(t)
		s := apptest.New(t)
		a := getOTP(t, s, email)
		b := getOTP(t, s, email)
		if a != b {
			is.Equal(login(t, s, email, pw, a).Status, 401) // the older code is gone
		}
		is.Equal(login(t, s, email, pw, b).Status, 200)
	})
	t.Run("five wrong tries void the code", func(t *testing.T) {
		is := is.New(t)
		s := apptest.New(t)
		code := getOTP(t, s, email)
		for i := 0; i < 5; i++ {
			is.Equal(login(t, s, email, pw, "999999x").Status, 401)
		}
		is.Equal(login(t, s, email, pw, code).Status, 401) // voided
	})
	t.Run("single use", func(t *testing.T) {
		is := is.New(t)
		s := apptest.New(t)
		code := getOTP(t, s, email)
		is.Equal(login(t, s, email, pw, code).Status, 200)
		is.Equal(login(t, s, email, pw, code).Status, 401)
	})
	t.Run("a wrong password keeps the code", func(t *testing.T) {
		is := is.New(t)
		s := apptest.New(t)
		code := getOTP(t, s, email)
		is.Equal(login(t, s, email, "typo-password", code).Status, 401)
		is.Equal(login(t, s, email, pw, code).Status, 200)
	})
	t.Run("valid for five minutes", func(t *testing.T) {
		is := is.New(t)
		s := apptest.New(t)
		code := getOTP(t, s, email)
		s.Clock.Advance(5*time.Minute - time.Second)
		is.Equal(login(t, s, email, pw, code).Status, 200)
	})
	t.Run("throttled per email", func(t *testing.T) {
		is := is.New(t)
		s := apptest.New(t, func(c *app.Config) { c.OTPResendInterval, c.OTPHourlyLimit = 30*time.Second, 3 })
		getOTP(t, s, email)
		r := s.Do(t, "POST", "/api/account/login/get-otp", "", map[string]string{"email": email})
		is.Equal(r.Status, 429)
		is.Equal(r.Header.Get("Retry-After"), "30")
		is.Equal(r.Map(t)["type"], "/problems/rate-limited")
		s.Clock.Advance(30 * time.Second)
		getOTP(t, s, email)
		s.Clock.Advance(30 * time.Second)
		getOTP(t, s, email)
		s.Clock.Advance(30 * time.Second)
		r = s.Do(t, "POST", "/api/account/login/get-otp", "", map[string]string{"email": email})
		is.Equal(r.Status, 429)                       // the hourly limit
		is.Equal(r.Header.Get("Retry-After"), "3510") // an hour after the first of the three
		other := s.Do(t, "POST", "/api/account/login/get-otp", "", map[string]string{"email": "other@example.com"})
		is.Equal(other.Status, 200) // per email
	})
}

func TestLockout(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	s := apptest.New(t, func(c *app.Config) { c.LockoutThreshold, c.LockoutDuration = 3, 15*time.Minute })
	email, pw := apptest.AdminEmail, apptest.AdminPassword
	// A success resets the count.
	for i := 0; i < 2; i++ {
		is.Equal(login(t, s, email, "wrong-password", getOTP(t, s, email)).Status, 401)
	}
	is.Equal(login(t, s, email, pw, getOTP(t, s, email)).Status, 200)
	for i := 0; i < 3; i++ {
		is.Equal(login(t, s, email, "wrong-password", getOTP(t, s, email)).Status, 401)
	}
	locked := login(t, s, email, pw, getOTP(t, s, email))
	is.Equal(locked.Status, 401) // locked, with the same answer
	s.Clock.Advance(15 * time.Minute)
	is.Equal(login(t, s, email, pw, getOTP(t, s, email)).Status, 200) // unlocked after 15 minutes
}

func TestAuthRateLimitPerAddress(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	s := apptest.New(t, func(c *app.Config) { c.AuthRateLimit = 3 })
	for i := 0; i < 3; i++ {
		is.Equal(s.Do(t, "POST", "/api/account/login/get-otp", "", `{"email":"x@example.com"}`).Status, 200)
	}
	r := s.Do(t, "POST", "/api/account/login", "", `{}`)
	is.Equal(r.Status, 429)
	is.True(r.Header.Get("Retry-After") != "")                // says when to come back
	is.Equal(s.Do(t, "GET", "/healthz", "", nil).Status, 200) // other routes are not limited
	s.Clock.Advance(time.Minute)
	is.Equal(s.Do(t, "POST", "/api/account/login/get-otp", "", `{"email":"x@example.com"}`).Status, 200)
}

func TestRefreshAndLogout(t *testing.T) {
	t.Parallel()
	s := apptest.New(t)
	refresh := func(access, rt string) *apptest.Response {
		return s.Do(t, "POST", "/api/account/refresh-token", "", map[string]string{"accessToken": access, "refreshToken": rt})
	}
	t.Run("rotation and reuse detection", func(t *testing.T) {
		is := is.New(t)
		tok := s.Login(t, apptest.AdminEmail, apptest.AdminPassword)
		s.Clock.Advance(20 * time.Minute) // the access token has expired
		is.Equal(s.Do(t, "GET", "/api/permissions/me", tok.AccessToken, nil).Status, 401)
		r := refresh(tok.AccessToken, tok.RefreshToken)
		is.Equal(r.Status, 200) // an expired access token may be refreshed
		is.Equal(r.Header.Get("Cache-Control"), "no-store")
		var next apptest.Tokens
		r.JSON(t, &next)
		is.Equal(next.UserID, "1")
		is.True(next.RefreshToken != tok.RefreshToken) // rotated
		is.Equal(s.Do(t, "GET", "/api/permissions/me", next.AccessToken, nil).Status, 200)
		is.Equal(refresh(next.AccessToken, tok.RefreshToken).Status, 401)                  // the old one is reused...
		is.Equal(refresh(next.AccessToken, next.RefreshToken).Status, 401)                 // ...which revoked the session
		is.Equal(s.Do(t, "GET", "/api/permissions/me", next.AccessToken, nil).Status, 401) // at once
	})
	t.Run("both tokens must match", func(t *testing.T) {
		is := is.New(t)
		a := s.Login(t, apptest.AdminEmail, apptest.AdminPassword)
		b := s.Login(t, apptest.AdminEmail, apptest.AdminPassword)
		is.Equal(refresh(a.AccessToken, b.RefreshToken).Status, 401) // another session's refresh token
		is.Equal(refresh("garbage", a.RefreshToken).Status, 401)
		is.Equal(refresh(a.AccessToken, "garbage").Status, 401)
		is.Equal(refresh("", a.RefreshToken).Status, 400)
		is.Equal(refresh(a.AccessToken, "").Status, 400)
		is.Equal(s.Do(t, "POST", "/api/account/refresh-token", "", `{"accessToken":1}`).Status, 400)
		is.Equal(refresh(a.AccessToken, a.RefreshToken).Status, 200) // the failures above did not spoil it
	})
	t.Run("sessions end 30 days after sign-in", func(t *testing.T) {
		is := is.New(t)
		tok := s.Login(t, apptest.AdminEmail, apptest.AdminPassword)
		s.Clock.Advance(30*24*time.Hour + time.Second)
		is.Equal(refresh(tok.AccessToken, tok.RefreshToken).Status, 401)
	})
	t.Run("logout", func(t *testing.T) {
		is := is.New(t)
		mine := s.Login(t, apptest.AdminEmail, apptest.AdminPassword)
		_, other := s.User(t)
		r := s.Do(t, "POST", "/api/account/logout", other, map[string]string{"refreshToken": mine.RefreshToken})
		is.Equal(r.Status, 401) // not the caller's refresh token
		is.Equal(s.Do(t, "POST", "/api/account/logout", mine.AccessToken, `{}`).Status, 400)
		is.Equal(s.Do(t, "POST", "/api/account/logout", "", map[string]string{"refreshToken": mine.RefreshToken}).Status, 401)
		r = s.Do(t, "POST", "/api/account/logout", mine.AccessToken, map[string]string{"refreshToken": mine.RefreshToken})
		is.Equal(r.Status, 200)
		is.Equal(s.Do(t, "GET", "/api/permissions/me", mine.AccessToken, nil).Status, 401) // refused at once
		is.Equal(refresh(mine.AccessToken, mine.RefreshToken).Status, 401)
	})
}

func TestConcurrentRefreshExactlyOneWins(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	s := apptest.New(t)
	tok := s.Login(t, apptest.AdminEmail, apptest.AdminPassword)
	const n = 12
	var wg sync.WaitGroup
	codes := make(chan int, n)
	body, _ := json.Marshal(map[string]string{"accessToken": tok.AccessToken, "refreshToken": tok.RefreshToken})
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res, err := http.Post(s.URL+"/api/account/refresh-token", "application/json", bytes.NewReader(body))
			if err != nil {
				codes <- 0
				return
			}
			res.Body.Close()
			codes <- res.StatusCode
		}()
	}
	wg.Wait()
	close(codes)
	ok := 0
	for c := range codes {
		if c == 200 {
			ok++
		} else {
			is.Equal(c, 401) // the others are refused
		}
	}
	is.Equal(ok, 1) // exactly one refresh succeeds
}

func b64(v any) string {
	b, _ := json.Marshal(v)
	return base64.RawURLEncoding.EncodeToString(b)
}

func TestForgedAccessTokensAreRefused(t *testing.T) {
	t.Parallel()
	s := apptest.New(t)
	real := s.Admin(t)
	var jwks struct {
		Keys []struct{ Kid, X string }
	}
	s.Do(t, "GET", "/.well-known/jwks.json", "", nil).JSON(t, &jwks)
	if len(jwks.Keys) != 1 {
		t.Fatalf("want one key, got %d", len(jwks.Keys))
	}
	kid := jwks.Keys[0].Kid
	now := apptest.Start.Unix()
	claims := map[string]any{"iss": "http://" + s.Config.Addr, "sub": "1", "sid": "x", "iat": now, "exp": now + 600, "jti": "j"}
	parts := strings.Split(real, ".")
	pub, _ := base64.RawURLEncoding.DecodeString(jwks.Keys[0].X)
	hs := func(hdr map[string]any) string {
		in := b64(hdr) + "." + b64(claims)
		m := hmac.New(sha256.New, pub)
		m.Write([]byte(in))
		return in + "." + base64.RawURLEncoding.EncodeToString(m.Sum(nil))
	}
	tests := []struct{ name, token string }{
		{"alg none", b64(map[string]any{"alg": "none", "typ": "at+jwt", "kid": kid}) + "." + b64(claims) + "."},
		{"HS256 with the public key", hs(map[string]any{"alg": "HS256", "typ": "at+jwt", "kid": kid})},
		{"unknown kid", b64(map[string]any{"alg": "EdDSA", "typ": "at+jwt", "kid": "other"}) + "." + parts[1] + "." + parts[2]},
		{"ID-token-like typ", b64(map[string]any{"alg": "EdDSA", "typ": "JWT", "kid": kid}) + "." + parts[1] + "." + parts[2]},
		{"payload swapped", parts[0] + "." + b64(claims) + "." + parts[2]},
		{"truncated", parts[0] + "." + parts[1]},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			r := s.Do(t, "GET", "/api/permissions/me", tt.token, nil)
			is.Equal(r.Status, 401)
			is.Equal(r.Header.Get("WWW-Authenticate"), `Bearer error="invalid_token"`)
		})
	}
	is.New(t).Equal(s.Do(t, "GET", "/api/permissions/me", real, nil).Status, 200) // the real one works
}

func TestCommonHeaders(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	s := apptest.New(t)
	for _, p := range []string{"/healthz", "/readyz", "/nope", "/.well-known/jwks.json", "/docs"} {
		r := s.Do(t, "GET", p, "", nil)
		is.Equal(r.Header.Get("X-Content-Type-Options"), "nosniff") // every response
		is.True(r.Header.Get("X-Request-Id") != "")
	}
	r := s.Do(t, "GET", "/nope", "", nil)
	is.Equal(r.Status, 404)
	is.Equal(r.Header.Get("Content-Type"), "application/problem+json")
	r = s.Do(t, "DELETE", "/healthz", "", nil)
	is.Equal(r.Status, 405)
	is.Equal(r.Header.Get("Content-Type"), "application/problem+json")
}

func TestCORS(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	s := apptest.New(t, func(c *app.Config) { c.CORSOrigins = []string{"https://app.example.com"} })
	req, _ := http.NewRequest("OPTIONS", s.URL+"/api/permissions/me", nil)
	req.Header.Set("Origin", "https://app.example.com")
	req.Header.Set("Access-Control-Request-Method", "GET")
	r := s.Send(t, req)
	is.Equal(r.Status, 204)
	is.Equal(r.Header.Get("Access-Control-Allow-Origin"), "https://app.example.com")
	is.True(strings.Contains(r.Header.Get("Access-Control-Allow-Headers"), "Authorization"))
	req.Header.Set("Origin", "https://evil.example.com")
	r = s.Send(t, req)
	is.Equal(r.Header.Get("Access-Control-Allow-Origin"), "") // other origins get nothing
	plain := apptest.New(t)
	req, _ = http.NewRequest("GET", plain.URL+"/healthz", nil)
	req.Header.Set("Origin", "https://app.example.com")
	is.Equal(plain.Send(t, req).Header.Get("Access-Control-Allow-Origin"), "") // none configured: no headers
}

// syncBuffer is a log sink safe for concurrent writes.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func TestOTPDeliveryLog(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	var logs syncBuffer
	s := apptest.New(t, func(c *app.Config) {
		c.OTPDelivery = "log"
		c.Logger = slog.New(slog.NewTextHandler(&logs, nil))
	})
	m := s.Do(t, "POST", "/api/account/login/get-otp", "", map[string]string{"email": apptest.AdminEmail}).Map(t)
	is.Equal(m["otp"], "") // not in the response
	is.Equal(m["status"], true)
	m = s.Do(t, "POST", "/api/account/login/get-otp", "", map[string]string{"email": "ghost@example.com"}).Map(t)
	is.Equal(m["status"], true) // unknown emails look the same
	s.App.Accounts.Wait()
	code := regexp.MustCompile(`otp=([0-9]{6})`).FindStringSubmatch(logs.String())
	is.True(code != nil) // the code is in the server log
	is.Equal(login(t, s, apptest.AdminEmail, apptest.AdminPassword, code[1]).Status, 200)
	is.Equal(strings.Count(logs.String(), "otp="), 1)                // only the known email got a code
	is.True(!strings.Contains(logs.String(), apptest.AdminPassword)) // no password in the log
}

func TestOTPDeliverySMTP(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	sink := smtptest.New(t)
	s := apptest.New(t, func(c *app.Config) {
		c.OTPDelivery, c.SMTPAddr, c.SMTPFrom = "smtp", sink.Addr(), "counsel@example.com"
	})
	m := s.Do(t, "POST", "/api/account/login/get-otp", "", map[string]string{"email": apptest.AdminEmail}).Map(t)
	is.Equal(m["otp"], "")
	is.Equal(m["status"], true)
	select {
	case <-sink.Got():
	case <-time.After(10 * time.Second):
		t.Fatal("no email arrived")
	}
	msg := sink.Messages()[0].Data
	is.True(strings.Contains(msg, "To: "+apptest.AdminEmail))
	code := regexp.MustCompile(`[0-9]{6}`).FindString(msg)
	is.Equal(login(t, s, apptest.AdminEmail, apptest.AdminPassword, code).Status, 200) // the emailed code signs in
	s.Do(t, "POST", "/api/account/login/get-otp", "", map[string]string{"email": "ghost@example.com"})
	s.App.Accounts.Wait()
	is.Equal(len(sink.Messages()), 1) // nothing is sent to unknown emails
}
