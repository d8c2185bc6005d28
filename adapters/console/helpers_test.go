package console_test

import (
	"context"
	"fmt"
	"html"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"counsel/app"
	"counsel/app/apptest"
	"counsel/domain/account"
)

// browser is a cookie-keeping client that behaves like a browser posting
// the console's forms: it sends the last page's CSRF token and the site's
// Origin, and does not follow redirects so tests see them.
type browser struct {
	t      testing.TB
	s      *apptest.Server
	c      *http.Client
	csrf   string
	origin string
}

type resp struct {
	Status int
	Header http.Header
	Body   string
}

func newBrowser(t testing.TB, s *apptest.Server) *browser {
	jar, _ := cookiejar.New(nil)
	return &browser{t: t, s: s, origin: s.URL, c: &http.Client{Jar: jar,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
}

var csrfRe = regexp.MustCompile(`name="csrf" value="([^"]+)"`)

func (b *browser) do(req *http.Request) resp {
	b.t.Helper()
	res, err := b.c.Do(req)
	if err != nil {
		b.t.Fatalf("%s %s: %v", req.Method, req.URL, err)
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	r := resp{Status: res.StatusCode, Header: res.Header, Body: string(body)}
	if m := csrfRe.FindStringSubmatch(r.Body); m != nil {
		b.csrf = m[1]
	}
	return r
}

func (b *browser) get(path string) resp {
	b.t.Helper()
	req, _ := http.NewRequest("GET", b.s.URL+path, nil)
	return b.do(req)
}

// post sends a form with the current CSRF token (unless the form has its
// own "csrf") and the site's Origin (unless b.origin is "").
func (b *browser) post(path string, form url.Values) resp {
	b.t.Helper()
	if form == nil {
		form = url.Values{}
	}
	if _, ok := form["csrf"]; !ok {
		form.Set("csrf", b.csrf)
	}
	req, _ := http.NewRequest("POST", b.s.URL+path, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	if b.origin != "" {
		req.Header.Set("Origin", b.origin)
	}
	return b.do(req)
}

// devOTP is the code the sign-in page shows in response delivery mode.
var devOTPRe = regexp.MustCompile(`<p class="code">([0-9]{6})</p>`)

// signIn goes through both sign-in steps and fails unless they end at home.
func (b *browser) signIn(email, password string) {
	b.t.Helper()
	b.get("/console/login")
	r := b.post("/console/login", url.Values{"email": {email}})
	m := devOTPRe.FindStringSubmatch(r.Body)
	if r.Status != 200 || m == nil {
		b.t.Fatalf("sign-in step 1 for %s: %d %s", email, r.Status, r.Body)
	}
	r = b.post("/console/login/verify", url.Values{"email": {email}, "password": {password}, "otp": {m[1]}})
	if r.Status != http.StatusSeeOther || r.Header.Get("Location") != "/console" {
		b.t.Fatalf("sign-in step 2 for %s: %d %s", email, r.Status, r.Body)
	}
	b.get("/console") // a page with the session's CSRF token
}

// cookie returns the browser's cookie of that name for the site.
func (b *browser) cookie(name string) string {
	u, _ := url.Parse(b.s.URL)
	for _, c := range b.c.Jar.Cookies(u) {
		if c.Name == name {
			return c.Value
		}
	}
	return ""
}

func newServer(t *testing.T, change ...func(*app.Config)) *apptest.Server {
	return apptest.New(t, change...)
}

// userWith creates a user holding exactly perms and returns its id and
// email; the password is "password-123".
func userWith(t *testing.T, s *apptest.Server, perms ...account.Permission) (int64, string) {
	t.Helper()
	id, _ := s.User(t, perms...)
	r := s.Do(t, "GET", fmt.Sprintf("/api/users/%d", id), s.Admin(t), nil)
	var u struct{ Email string }
	r.JSON(t, &u)
	return id, u.Email
}

// contains reports whether the page holds s (HTML-escaped as a template
// would write it).
func contains(body, s string) bool { return strings.Contains(body, html.EscapeString(s)) }

// sessionRows reads the console session rows of the database (either
// engine).
func sessionRows(t *testing.T, s *apptest.Server) (n int, hashes [][]byte) {
	t.Helper()
	ctx := context.Background()
	if err := s.QueryRow(ctx, `SELECT count(*) FROM sessions WHERE kind = 'console'`).Scan(&n); err != nil {
		t.Fatalf("query sessions: %v", err)
	}
	for i := range n {
		var h []byte
		if err := s.QueryRow(ctx, `SELECT token_hash FROM sessions WHERE kind = 'console' ORDER BY id LIMIT 1 OFFSET ?`, i).Scan(&h); err != nil {
			t.Fatal(err)
		}
		hashes = append(hashes, h)
	}
	return n, hashes
}

func itoa(n int64) string { return fmt.Sprint(n) }

// adminBrowser starts a server and a browser signed in as its
// administrator.
func adminBrowser(t *testing.T, change ...func(*app.Config)) (*apptest.Server, *browser) {
	t.Helper()
	s := newServer(t, change...)
	b := newBrowser(t, s)
	b.signIn(apptest.AdminEmail, apptest.AdminPassword)
	return s, b
}

// signedInUser creates a user holding exactly perms (see userWith) and a
// browser signed in as them.
func signedInUser(t *testing.T, s *apptest.Server, perms ...account.Permission) (b *browser, id int64, email string) {
	t.Helper()
	id, email = userWith(t, s, perms...)
	b = newBrowser(t, s)
	b.signIn(email, "password-123")
	return b, id, email
}
