package console_test

import (
	"context"
	"crypto/sha256"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/matryer/is"

	"counsel/app"
	"counsel/app/apptest"
)

func TestHeadersAndRedirects(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	b := newBrowser(t, s)
	tests := []struct {
		path, location string
		status         int
	}{
		{"/", "/console", http.StatusFound},
		{"/console", "/console/login", http.StatusSeeOther},
		{"/console/users", "/console/login", http.StatusSeeOther},
		{"/console/login", "", http.StatusOK},
		{"/console/nowhere", "", http.StatusNotFound},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			is := is.New(t)
			r := b.get(tt.path)
			is.Equal(r.Status, tt.status)                   // status
			is.Equal(r.Header.Get("Location"), tt.location) // redirect
			if tt.path == "/" {
				return
			}
			csp := r.Header.Get("Content-Security-Policy")
			is.True(strings.Contains(csp, "frame-ancestors 'none'")) // no framing
			is.True(strings.Contains(csp, "script-src 'self'"))      // scripts from the site only
			is.True(!strings.Contains(csp, "unsafe-inline"))         // no inline script or style
			is.Equal(r.Header.Get("X-Frame-Options"), "DENY")
			is.Equal(r.Header.Get("Referrer-Policy"), "same-origin")
			is.Equal(r.Header.Get("X-Content-Type-Options"), "nosniff")
			is.Equal(r.Header.Get("Cache-Control"), "no-store")
		})
	}
	t.Run("assets", func(t *testing.T) {
		is := is.New(t)
		r := b.get("/console/static/console.css")
		is.Equal(r.Status, 200)
		is.True(strings.HasPrefix(r.Header.Get("Content-Type"), "text/css"))
		r = b.get("/console/static/htmx-2.0.11.min.js")
		is.Equal(r.Status, 200)
		is.True(strings.Contains(r.Body, "htmx"))
		is.Equal(b.get("/console/static/").Status, 404) // no listing
	})
}

func TestSignInAndOut(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	s := newServer(t)
	b := newBrowser(t, s)
	r := b.get("/console/login")
	is.True(strings.Contains(r.Body, `<label for="f-email">Email</label>`)) // labelled input
	is.True(b.cookie("counsel_pre") != "")                                  // the sign-in form's CSRF is bound to a cookie

	r = b.post("/console/login", url.Values{"email": {apptest.AdminEmail}})
	is.Equal(r.Status, 200)
	is.True(strings.Contains(r.Body, "Development mode")) // the code under a warning
	code := devOTPRe.FindStringSubmatch(r.Body)[1]

	r = b.post("/console/login/verify", url.Values{"email": {apptest.AdminEmail}, "password": {apptest.AdminPassword}, "otp": {code}})
	is.Equal(r.Status, http.StatusSeeOther)
	is.Equal(r.Header.Get("Location"), "/console")
	var set *http.Cookie
	for _, c := range (&http.Response{Header: r.Header}).Cookies() {
		if c.Name == "counsel_session" {
			set = c
		}
	}
	is.True(set != nil)
	is.True(set.HttpOnly)                        // not readable by scripts
	is.Equal(set.SameSite, http.SameSiteLaxMode) // not sent on cross-site posts
	is.Equal(set.Path, "/")                      // whole site
	is.True(!set.Secure)                         // http public URL
	is.True(len(set.Value) >= 43)                // 256 bits
	n, hashes := sessionRows(t, s)               // the database holds only the hash
	is.Equal(n, 1)
	sum := sha256.Sum256([]byte(set.Value))
	is.Equal(hashes[0], sum[:])

	r = b.get("/console")
	is.Equal(r.Status, 200)
	is.True(strings.Contains(r.Body, "Welcome, Admin"))
	is.True(strings.Contains(r.Body, `href="/console/users"`)) // an administrator sees every section
	is.True(strings.Contains(r.Body, `href="/console/roles"`))
	is.Equal(b.get("/console/login").Status, http.StatusSeeOther) // signed in: the sign-in page goes home

	r = b.post("/console/logout", nil)
	is.Equal(r.Status, http.StatusSeeOther)
	is.Equal(r.Header.Get("Location"), "/console/login")
	r = b.get("/console")
	is.Equal(r.Status, http.StatusSeeOther) // the session is revoked
	var revoked int
	is.NoErr(s.QueryRow(context.Background(), `SELECT count(*) FROM sessions WHERE kind = 'console' AND revoked_at IS NOT NULL`).Scan(&revoked))
	is.Equal(revoked, 1)
}

func TestSecureCookieWithHTTPSPublicURL(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	s := newServer(t, func(c *app.Config) { c.PublicURL = "https://counsel.example" })
	b := newBrowser(t, s)
	b.origin = "https://counsel.example"
	r := b.get("/console/login")
	is.True(strings.Contains(r.Header.Get("Set-Cookie"), "; Secure"))
	b.origin = s.URL
	r = b.post("/console/login", url.Values{"email": {apptest.AdminEmail}})
	is.Equal(r.Status, http.StatusForbidden) // Origin must be the public URL's
}

func TestSignInErrors(t *testing.T) {
	t.Parallel()
	s := newServer(t, func(c *app.Config) { c.LockoutThreshold = 3 })
	t.Run("field error", func(t *testing.T) {
		is := is.New(t)
		b := newBrowser(t, s)
		b.get("/console/login")
		r := b.post("/console/login", url.Values{"email": {"not an email"}})
		is.Equal(r.Status, http.StatusBadRequest)
		is.True(strings.Contains(r.Body, `id="e-email"`))                 // the message next to the field
		is.True(strings.Contains(r.Body, `aria-describedby="e-email"`))   // tied to it
		is.True(strings.Contains(r.Body, `value="not an email"`))         // refilled
		is.True(strings.Contains(r.Body, "email is not a valid address")) // the use case's words
	})
	t.Run("wrong password, then lockout", func(t *testing.T) {
		is := is.New(t)
		b := newBrowser(t, s)
		b.get("/console/login")
		for i := 0; i < 3; i++ {
			r := b.post("/console/login/verify", url.Values{"email": {apptest.AdminEmail}, "password": {"wrong-password"}, "otp": {"000000"}})
			is.Equal(r.Status, http.StatusUnauthorized)
			is.True(strings.Contains(r.Body, "the email, password or one-time password is wrong"))
			is.True(strings.Contains(r.Body, `value="admin@example.com"`)) // email kept
			is.True(!strings.Contains(r.Body, "wrong-password"))           // password not echoed
		}
		// Locked: even the right password and code fail now.
		r := b.post("/console/login", url.Values{"email": {apptest.AdminEmail}})
		code := devOTPRe.FindStringSubmatch(r.Body)[1]
		r = b.post("/console/login/verify", url.Values{"email": {apptest.AdminEmail}, "password": {apptest.AdminPassword}, "otp": {code}})
		is.Equal(r.Status, http.StatusUnauthorized)
		s.Clock.Advance(16 * time.Minute)
		b.signIn(apptest.AdminEmail, apptest.AdminPassword)
	})
}

func TestSignInRateLimit(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	s := newServer(t, func(c *app.Config) { c.AuthRateLimit = 2 })
	b := newBrowser(t, s)
	b.get("/console/login")
	is.Equal(b.post("/console/login", url.Values{"email": {apptest.AdminEmail}}).Status, 200)
	is.Equal(b.post("/console/login", url.Values{"email": {apptest.AdminEmail}}).Status, 200)
	r := b.post("/console/login", url.Values{"email": {apptest.AdminEmail}})
	is.Equal(r.Status, http.StatusTooManyRequests)
	is.True(r.Header.Get("Retry-After") != "")
	is.True(strings.Contains(r.Body, "Too many sign-in attempts"))
	is.True(strings.HasPrefix(r.Header.Get("Content-Type"), "text/html"))
}

func TestOTPRateLimitShown(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	s := newServer(t, func(c *app.Config) { c.OTPResendInterval = time.Minute })
	b := newBrowser(t, s)
	b.get("/console/login")
	is.Equal(b.post("/console/login", url.Values{"email": {apptest.AdminEmail}}).Status, 200)
	r := b.post("/console/login", url.Values{"email": {apptest.AdminEmail}})
	is.Equal(r.Status, http.StatusTooManyRequests)
	is.True(strings.Contains(r.Body, "too many one-time passwords requested"))
	is.True(r.Header.Get("Retry-After") != "")
}

func TestCSRFAndOrigin(t *testing.T) {
	t.Parallel()
	s, signedIn := adminBrowser(t)
	other := newBrowser(t, s)
	other.get("/console/login")
	tests := []struct {
		name   string
		b      *browser
		path   string
		form   url.Values
		origin string
	}{
		{"no token", signedIn, "/console/offices", url.Values{"csrf": {""}, "name": {"X"}}, s.URL},
		{"wrong token", signedIn, "/console/offices", url.Values{"csrf": {"forged"}, "name": {"X"}}, s.URL},
		{"pre-sign-in token on a session form", signedIn, "/console/offices", url.Values{"csrf": {other.csrf}, "name": {"X"}}, s.URL},
		{"other site", signedIn, "/console/offices", url.Values{"name": {"X"}}, "https://evil.example"},
		{"no Origin", signedIn, "/console/offices", url.Values{"name": {"X"}}, ""},
		{"sign-in without token", other, "/console/login", url.Values{"csrf": {""}, "email": {apptest.AdminEmail}}, s.URL},
		{"sign-in from another site", other, "/console/login", url.Values{"email": {apptest.AdminEmail}}, "https://evil.example"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			tt.b.origin = tt.origin
			r := tt.b.post(tt.path, tt.form)
			is.Equal(r.Status, http.StatusForbidden)
		})
	}
	is := is.New(t)
	offices := s.Do(t, "GET", "/api/offices", s.Admin(t), nil)
	is.Equal(strings.TrimSpace(string(offices.Body)), "[]") // nothing was created
}

func TestIdleTimeout(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	s, b := adminBrowser(t, func(c *app.Config) { c.ConsoleIdle = time.Hour })
	for i := 0; i < 3; i++ { // use keeps it alive past the idle time
		s.Clock.Advance(50 * time.Minute)
		is.Equal(b.get("/console").Status, 200)
	}
	s.Clock.Advance(61 * time.Minute)
	r := b.get("/console")
	is.Equal(r.Status, http.StatusSeeOther)
	is.Equal(r.Header.Get("Location"), "/console/login")
}

func TestAbsoluteLifetime(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	s, b := adminBrowser(t, func(c *app.Config) { c.ConsoleIdle = 0; c.RefreshTTL = 2 * time.Hour })
	s.Clock.Advance(time.Hour)
	is.Equal(b.get("/console").Status, 200)
	s.Clock.Advance(time.Hour)
	is.Equal(b.get("/console").Status, http.StatusSeeOther) // same absolute lifetime as API sessions
}

func TestRevokedThroughTheAPI(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	tests := []struct {
		name string
		act  func(t *testing.T, id int64, admin string)
	}{
		{"password set by an administrator", func(t *testing.T, id int64, admin string) {
			s.Do(t, "POST", "/api/users/changepassword", admin, map[string]any{"id": id, "password": "another-password"}).Expect(t, 200, "change password")
		}},
		{"deactivated", func(t *testing.T, id int64, admin string) {
			s.Do(t, "PUT", "/api/users/"+itoa(id), admin, map[string]any{"active": false}).Expect(t, 200, "deactivate")
		}},
		{"deleted", func(t *testing.T, id int64, admin string) {
			s.Do(t, "DELETE", "/api/users/"+itoa(id), admin, nil).Expect(t, 204, "delete")
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			b, id, _ := signedInUser(t, s)
			tt.act(t, id, s.Admin(t))
			is.Equal(b.get("/console").Status, http.StatusSeeOther)
		})
	}
}

func TestInternalErrorPage(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	s, b := adminBrowser(t)
	s.Exec(t, `ALTER TABLE offices RENAME TO offices_gone`) // every users query now fails
	r := b.get("/console/users")
	is.Equal(r.Status, http.StatusInternalServerError)
	id := r.Header.Get("X-Request-Id")
	is.True(id != "")
	is.True(strings.Contains(r.Body, id))          // the request id, to find it in the log
	is.True(!strings.Contains(r.Body, "sql"))      // nothing internal
	is.True(!strings.Contains(r.Body, "database")) // nothing internal
}
