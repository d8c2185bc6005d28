package console_test

import (
	"crypto/sha256"
	"encoding/base64"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/matryer/is"

	"counsel/adapters/oidc/oidctest"
	"counsel/app"
)

// TestIdentityProviderSignIn runs the authorization-code flow against a
// local provider: the redirect carries state, nonce and a PKCE S256
// challenge; the callback checks the state, the exchange sends the
// verifier, the nonce must match, and the user is found as
// /api/account/login/idp finds them.
func TestIdentityProviderSignIn(t *testing.T) {
	t.Parallel()
	p := oidctest.New(t)
	s := newServer(t, func(c *app.Config) {
		c.OIDCIssuer, c.OIDCClientID, c.OIDCClientSecret = p.Issuer(), oidctest.ClientID, "client-secret"
		c.OIDCName = "Example SSO"
	})
	p.SetClient(oidctest.Client{ID: oidctest.ClientID, Secret: "client-secret", RedirectURI: s.URL + "/console/login/idp/callback"})
	_, email := userWith(t, s)

	// start returns the authorization request's parameters.
	start := func(t *testing.T, b *browser) url.Values {
		r := b.get("/console/login/idp")
		if r.Status != http.StatusSeeOther {
			t.Fatalf("start: %d %s", r.Status, r.Body)
		}
		u, _ := url.Parse(r.Header.Get("Location"))
		return u.Query()
	}
	t.Run("button and request", func(t *testing.T) {
		is := is.New(t)
		b := newBrowser(t, s)
		is.True(strings.Contains(b.get("/console/login").Body, "Sign in with Example SSO"))
		q := start(t, b)
		is.Equal(q.Get("response_type"), "code")
		is.Equal(q.Get("code_challenge_method"), "S256")
		is.Equal(q.Get("redirect_uri"), s.URL+"/console/login/idp/callback")
		is.True(len(q.Get("state")) >= 43 && len(q.Get("nonce")) >= 43 && len(q.Get("code_challenge")) == 43)
	})
	t.Run("signs in", func(t *testing.T) {
		is := is.New(t)
		b := newBrowser(t, s)
		q := start(t, b)
		p.AddCode("code-1", p.Mint("RS256", p.Claims(s.Clock.Now(), "sub-1", email).With("nonce", q.Get("nonce"))))
		r := b.get("/console/login/idp/callback?" + url.Values{"state": {q.Get("state")}, "code": {"code-1"}}.Encode())
		is.Equal(r.Status, http.StatusSeeOther)
		is.Equal(r.Header.Get("Location"), "/console")
		is.Equal(b.get("/console").Status, 200)
		form := p.LastTokenRequest().Form
		sum := sha256.Sum256([]byte(form.Get("code_verifier")))
		is.Equal(base64.RawURLEncoding.EncodeToString(sum[:]), q.Get("code_challenge")) // the verifier of the challenge
	})
	refusals := []struct {
		name  string
		state func(q url.Values) string
		nonce func(q url.Values) string
	}{
		{"wrong state", func(url.Values) string { return "forged" }, func(q url.Values) string { return q.Get("nonce") }},
		{"wrong nonce", func(q url.Values) string { return q.Get("state") }, func(url.Values) string { return "replayed" }},
	}
	for _, tt := range refusals {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			b := newBrowser(t, s)
			q := start(t, b)
			p.AddCode("code-2", p.Mint("RS256", p.Claims(s.Clock.Now(), "sub-1", email).With("nonce", tt.nonce(q))))
			r := b.get("/console/login/idp/callback?" + url.Values{"state": {tt.state(q)}, "code": {"code-2"}}.Encode())
			is.Equal(r.Status, http.StatusUnauthorized)
			is.True(b.cookie("counsel_session") == "")
		})
	}
	t.Run("callback without the flow's cookie", func(t *testing.T) {
		is := is.New(t)
		r := newBrowser(t, s).get("/console/login/idp/callback?state=x&code=y")
		is.Equal(r.Status, http.StatusUnauthorized)
	})
}

func TestNoIdentityProviderButtonWithoutSecret(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	p := oidctest.New(t)
	s := newServer(t, func(c *app.Config) { c.OIDCIssuer, c.OIDCClientID = p.Issuer(), oidctest.ClientID })
	b := newBrowser(t, s)
	is.True(!strings.Contains(b.get("/console/login").Body, `href="/console/login/idp"`)) // no provider button (the passkey one may be there)
	is.Equal(b.get("/console/login/idp").Status, http.StatusNotFound)
}
