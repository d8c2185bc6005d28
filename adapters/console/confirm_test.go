package console_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/matryer/is"

	"counsel/domain/account"
)

// TestConfirmItsYou: a factor change from a console session that signed in
// more than COUNSEL_REAUTH_WINDOW ago goes to "Confirm it's you" (password
// and second factor), which returns to the page the user was on.
func TestConfirmItsYou(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	s := newServer(t)
	b, _, _ := signedInUser(t, s, account.ContractView)
	r := b.post("/console/account/totp/enrol", nil)
	is.Equal(r.Status, http.StatusOK) // just signed in: allowed
	s.Clock.Advance(account.DefaultReauthWindow + time.Second)

	for _, path := range []string{"/console/account/totp/enrol", "/console/account/password"} {
		b.get("/console/account")
		r = b.post(path, url.Values{"newPassword": {"new-password-1"}, "confirm": {"new-password-1"}})
		is.Equal(r.Status, http.StatusSeeOther)                                          // sent to confirm
		is.Equal(r.Header.Get("Location"), "/console/confirm?next=%2Fconsole%2Faccount") // and back
		is.Equal(len(r.Header.Values("Set-Cookie")), 0)                                  // still signed in
	}
	r = b.get("/console/confirm?next=%2Fconsole%2Faccount")
	is.Equal(r.Status, http.StatusOK)
	is.True(strings.Contains(r.Body, "Confirm it&#39;s you"))
	r = b.post("/console/confirm/code", url.Values{"next": {"/console/account"}})
	m := devOTPRe.FindStringSubmatch(r.Body)
	is.True(m != nil) // the emailed code, shown in development mode
	r = b.post("/console/confirm", url.Values{"next": {"/console/account"}, "password": {"wrong-password"}, "otp": {m[1]}})
	is.Equal(r.Status, http.StatusUnauthorized) // wrong: said on the form
	is.True(strings.Contains(r.Body, "wrong"))
	is.True(b.cookie("counsel_session") != "") // and the session goes on
	r = b.post("/console/confirm", url.Values{"next": {"/console/account"}, "password": {"password-123"}, "otp": {m[1]}})
	is.Equal(r.Status, http.StatusSeeOther)
	is.Equal(r.Header.Get("Location"), "/console/account") // back where the user was
	b.get("/console/account")
	r = b.post("/console/account/totp/enrol", nil)
	is.Equal(r.Status, http.StatusOK) // now allowed
	is.True(strings.Contains(r.Body, `class="qr"`))

	// The return address stays on the console.
	for _, next := range []string{"https://evil.example/", "//evil.example/console", "/api/users", "/console/confirm?next=x", `/\evil.example`} {
		r = b.get("/console/confirm?next=" + url.QueryEscape(next))
		is.True(strings.Contains(r.Body, `name="next" value="/console/account"`)) // refused: the account page instead
	}
}

// TestCrossSitePostKeepsCookie: a post without the session cookie (a
// cross-site form under SameSite=Lax) goes to the sign-in page without
// clearing a cookie it did not carry; a stale cookie is still cleared.
func TestCrossSitePostKeepsCookie(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	s := newServer(t)
	anon := newBrowser(t, s)
	anon.origin = "http://evil.example"
	r := anon.post("/console/users/1/active", url.Values{"active": {"false"}})
	is.Equal(r.Status, http.StatusSeeOther)
	for _, c := range r.Header.Values("Set-Cookie") {
		is.True(!strings.HasPrefix(c, "counsel_session=")) // no cookie sent, none cleared
	}
	req, _ := http.NewRequest("GET", s.URL+"/console/account", nil)
	req.AddCookie(&http.Cookie{Name: "counsel_session", Value: "stale"})
	r = anon.do(req)
	is.Equal(r.Status, http.StatusSeeOther)
	is.True(strings.Contains(strings.Join(r.Header.Values("Set-Cookie"), "\n"), "counsel_session=;")) // a dead cookie is cleared
}
