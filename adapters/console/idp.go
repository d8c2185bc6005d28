package console

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"net/http"
	"strings"

	"counsel/domain"
)

// idpCookieAge bounds the time between leaving for the provider and
// coming back, in seconds.
const idpCookieAge = 600

// redirectURI is the callback the provider sends the browser back to.
func (c *console) redirectURI(r *http.Request) string {
	if c.origin != "" {
		return strings.TrimRight(c.opts.PublicURL, "/") + "/console/login/idp/callback"
	}
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	return scheme + "://" + r.Host + "/console/login/idp/callback"
}

// idpStart sends the browser to the provider with a fresh state, nonce and
// PKCE (S256) challenge; the three are kept in a signed, short-lived
// cookie for the callback.
func (c *console) idpStart(w http.ResponseWriter, r *http.Request, p *page) {
	if c.svc.IdP == nil {
		c.errorPage(w, r, http.StatusNotFound, "Not available", "Sign-in through an identity provider is not configured.")
		return
	}
	state, nonce, verifier := randomString(), randomString(), randomString()
	sum := sha256.Sum256([]byte(verifier))
	challenge := base64.RawURLEncoding.EncodeToString(sum[:])
	u, err := c.svc.IdP.AuthorizationURL(r.Context(), state, nonce, challenge, c.redirectURI(r))
	if err != nil {
		c.fail(w, r, p, err)
		return
	}
	v := state + "." + nonce + "." + verifier
	c.setCookie(w, idpCookie, v+"."+c.mac("idp", v), idpCookieAge)
	http.Redirect(w, r, u, http.StatusSeeOther)
}

// idpCallback checks the state, then lets the accounts use case exchange
// the code (with the PKCE verifier), check the nonce and sign the user in.
func (c *console) idpCallback(w http.ResponseWriter, r *http.Request, p *page) {
	refuse := func(msg string) {
		c.loginPage(p, 1)
		p.Error = msg
		c.render(w, r, http.StatusUnauthorized, "login", p)
	}
	if c.svc.IdP == nil {
		c.errorPage(w, r, http.StatusNotFound, "Not available", "Sign-in through an identity provider is not configured.")
		return
	}
	ck, err := r.Cookie(idpCookie)
	c.clearCookie(w, idpCookie)
	q := r.URL.Query()
	if err != nil {
		refuse("The sign-in took too long or was started elsewhere. Try again.")
		return
	}
	parts := strings.Split(ck.Value, ".")
	if len(parts) != 4 || !hmac.Equal([]byte(parts[3]), []byte(c.mac("idp", strings.Join(parts[:3], ".")))) ||
		!hmac.Equal([]byte(parts[0]), []byte(q.Get("state"))) {
		refuse("The sign-in could not be matched to this browser. Try again.")
		return
	}
	if q.Get("error") != "" || q.Get("code") == "" {
		refuse("The identity provider did not sign you in.")
		return
	}
	cookie, err := c.svc.IdP.ConsoleLoginIdP(r.Context(), q.Get("code"), parts[2], parts[1], c.redirectURI(r))
	if err != nil {
		switch domain.ErrorCode(err) {
		case domain.EUNAUTHORIZED:
			refuse("Your account at the identity provider may not sign in here.")
		case domain.EUPSTREAM:
			refuse("The identity provider could not be reached. Try again later.")
		default:
			c.fail(w, r, p, err)
		}
		return
	}
	c.signedIn(w, r, cookie)
}
