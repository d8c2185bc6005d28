package console_test

import (
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/matryer/is"
	"github.com/pquerna/otp/totp"

	"counsel/app/apptest"
)

var keyRe = regexp.MustCompile(`<code class="key">([A-Z2-7]+)</code>`)
var recoveryRe = regexp.MustCompile(`<li><code>([^<]+)</code></li>`)

// appCode is what an authenticator app shows at the server's clock.
func appCode(t *testing.T, s *apptest.Server, key string) string {
	t.Helper()
	c, err := totp.GenerateCode(key, s.Clock.Now())
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// signInWithApp signs in with an app code: the sign-in page shows no
// emailed code for a TOTP user.
func signInWithApp(t *testing.T, s *apptest.Server, email, password, code string) resp {
	t.Helper()
	b := newBrowser(t, s)
	b.get("/console/login")
	r := b.post("/console/login", url.Values{"email": {email}})
	if devOTPRe.MatchString(r.Body) {
		t.Fatalf("an emailed code was shown to a TOTP user")
	}
	return b.post("/console/login/verify", url.Values{"email": {email}, "password": {password}, "otp": {code}})
}

func TestTOTPFlow(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	s := newServer(t)
	b, id, email := signedInUser(t, s)
	r := b.get("/console/account")
	is.True(strings.Contains(r.Body, "Set up an authenticator app"))

	r = b.post("/console/account/totp/enrol", nil)
	is.Equal(r.Status, 200)
	is.True(strings.Contains(r.Body, `src="data:image/png;base64,`)) // the QR code
	key := keyRe.FindStringSubmatch(r.Body)[1]

	r = b.post("/console/account/totp/confirm", url.Values{"otp": {"000000"}, "secret": {key}, "qr": {"iVBORw0KGgo="}})
	is.Equal(r.Status, http.StatusBadRequest)
	is.True(strings.Contains(r.Body, `id="e-otp"`))             // the message next to the field
	is.True(strings.Contains(r.Body, `<code class="key">`+key)) // the same key to try again

	r = b.post("/console/account/totp/confirm", url.Values{"otp": {appCode(t, s, key)}})
	is.Equal(r.Status, 200)
	codes := recoveryRe.FindAllStringSubmatch(r.Body, -1)
	is.Equal(len(codes), 10) // recovery codes, shown once
	r = b.get("/console/account")
	is.True(strings.Contains(r.Body, "10 recovery codes left"))
	is.True(!strings.Contains(r.Body, codes[0][1])) // not shown again

	s.Clock.Advance(30 * time.Second) // the confirming code's step is spent
	r = signInWithApp(t, s, email, "password-123", "123456")
	is.Equal(r.Status, http.StatusUnauthorized)
	r = signInWithApp(t, s, email, "password-123", appCode(t, s, key))
	is.Equal(r.Status, http.StatusSeeOther) // the app's code signs in
	r = signInWithApp(t, s, email, "password-123", codes[1][1])
	is.Equal(r.Status, http.StatusSeeOther) // and so does a recovery code

	// Turning it off needs the password and a code.
	r = b.post("/console/account/totp/disable", url.Values{"password": {"wrong-password"}, "otp": {codes[2][1]}})
	is.Equal(r.Status, http.StatusBadRequest)
	r = b.post("/console/account/totp/disable", url.Values{"password": {"password-123"}, "otp": {codes[2][1]}})
	is.Equal(r.Status, http.StatusSeeOther)
	is.True(strings.Contains(b.get("/console/account").Body, "Set up an authenticator app"))
	newBrowser(t, s).signIn(email, "password-123") // emailed codes again

	// An administrator resets a lost app from the user page.
	b.post("/console/account/totp/enrol", nil)
	r = b.post("/console/account/totp/enrol", nil)
	key = keyRe.FindStringSubmatch(r.Body)[1]
	is.Equal(b.post("/console/account/totp/confirm", url.Values{"otp": {appCode(t, s, key)}}).Status, 200)
	a := newBrowser(t, s)
	a.signIn(apptest.AdminEmail, apptest.AdminPassword)
	r = a.get("/console/users/" + itoa(id))
	is.True(strings.Contains(r.Body, "Reset authenticator app"))
	r = a.post("/console/users/"+itoa(id)+"/totp", nil)
	is.Equal(r.Status, http.StatusSeeOther)
	is.Equal(b.get("/console").Status, http.StatusSeeOther) // their sessions ended
	newBrowser(t, s).signIn(email, "password-123")          // emailed codes again
}
