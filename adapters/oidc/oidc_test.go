package oidc_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lestrrat-go/jwx/v2/jwk"
	"github.com/matryer/is"

	"counsel/adapters/oidc"
	"counsel/adapters/oidc/oidctest"
	"counsel/domain"
	"counsel/domain/account"
	"counsel/ports/porttest"
)

// start is the fake clock's first reading; whole seconds, as NumericDate
// claims are.
var start = time.Date(2026, 11, 21, 9, 30, 0, 0, time.UTC)

// keys are the provider keys the tests sign with.
type keys struct {
	rsaA, ecA, ec384A, edA *oidctest.Key // published from the start
	rsaB                   *oidctest.Key // not published until a test rotates it in
	rsaC                   *oidctest.Key // not published until a test rotates it in
	rsaOther               *oidctest.Key // rsaC's private key under rsaA's kid
}

// newKeys gives idp the ES384 and EdDSA keys beside its RS256 and ES256
// ones and makes the unpublished keys.
func newKeys(idp *oidctest.Provider) keys {
	k := keys{
		rsaA: idp.Key("RS256"), ecA: idp.Key("ES256"), ec384A: idp.Rotate("ES384"), edA: idp.Rotate("EdDSA"),
		rsaB: idp.NewKey("RS256"), rsaC: idp.NewKey("RS256"),
	}
	other := *k.rsaC
	other.ID = k.rsaA.ID // same kid, wrong key
	k.rsaOther = &other
	return k
}

// env is a local provider, its keys, and a Provider for it on a fake
// clock.
type env struct {
	keys
	idp *oidctest.Provider
	p   *oidc.Provider
	clk *porttest.Clock
}

// setup starts a local provider publishing rsaA, ecA, ec384A and edA and a
// Provider for it; mod may change the Config, whose Issuer is the local
// provider's.
func setup(t *testing.T, mod func(*oidc.Config)) *env {
	t.Helper()
	idp := oidctest.New(t)
	e := &env{keys: newKeys(idp), idp: idp, clk: porttest.NewClock(start)}
	cfg := oidc.Config{Issuer: idp.Issuer(), ClientID: oidctest.ClientID, Now: e.clk.Now, Timeout: 2 * time.Second}
	if mod != nil {
		mod(&cfg)
	}
	p, err := oidc.New(context.Background(), cfg)
	if err != nil {
		t.Fatalf("new: %v", err)
	}
	t.Cleanup(func() { _ = p.Close() })
	e.p = p
	return e
}

// claims returns a valid claim set of idp at now for user-1, changed by
// edits; a nil value in edits deletes the claim.
func claims(idp *oidctest.Provider, now time.Time, edits map[string]any) oidctest.Claims {
	c := idp.Claims(now, "user-1", "ada@example.com")
	for name, v := range edits {
		c = c.With(name, v)
	}
	return c
}

// mint signs claims at the clock's time, changed by edits, with k.
func (e *env) mint(k *oidctest.Key, edits map[string]any) string {
	return oidctest.MintWith(k, claims(e.idp, e.clk.Now(), edits))
}

// bareJWKJSON returns k's public key as a JWK in JSON with no kid, use or
// alg: the bytes a key-confusion forgery keys HMAC with.
func bareJWKJSON(t *testing.T, k *oidctest.Key) []byte {
	t.Helper()
	j, err := jwk.FromRaw(k.Public())
	if err != nil {
		t.Fatalf("jwk from raw: %v", err)
	}
	return mustJSON(t, j)
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatalf("json: %v", err)
	}
	return b
}

func code(err error) string { return domain.ErrorCode(err) }

func wantIdentity(issuer string) account.ExternalIdentity {
	return account.ExternalIdentity{
		Issuer: issuer, Subject: "user-1", Email: "ada@example.com", EmailVerified: true,
		Name: "Ada Lovelace", GivenName: "Ada", FamilyName: "Lovelace",
	}
}

func TestVerifyAcceptsValidTokens(t *testing.T) {
	t.Parallel()
	e := setup(t, nil)
	now := e.clk.Now()
	noKid := *e.ecA
	noKid.ID = ""
	tests := []struct {
		name  string
		key   *oidctest.Key
		edits map[string]any
	}{
		{name: "RS256", key: e.rsaA},
		{name: "ES256", key: e.ecA},
		{name: "ES384", key: e.ec384A},
		{name: "EdDSA", key: e.edA},
		{name: "no kid: every key of the type is tried", key: &noKid},
		{name: "email_verified missing", key: e.rsaA, edits: map[string]any{"email_verified": nil}},
		{name: "email_verified as string", key: e.rsaA, edits: map[string]any{"email_verified": "true"}},
		{name: "several audiences with azp", key: e.rsaA, edits: map[string]any{"aud": []string{oidctest.ClientID, "other"}, "azp": oidctest.ClientID}},
		{name: "one audience, azp of another client", key: e.rsaA, edits: map[string]any{"azp": "android-client"}},
		{name: "expired within skew", key: e.rsaA, edits: map[string]any{"exp": now.Add(-50 * time.Second).Unix()}},
		{name: "iat ahead within skew", key: e.rsaA, edits: map[string]any{"iat": now.Add(50 * time.Second).Unix()}},
		{name: "nbf ahead within skew", key: e.rsaA, edits: map[string]any{"nbf": now.Add(50 * time.Second).Unix()}},
		{name: "name from given and family", key: e.rsaA, edits: map[string]any{"name": nil}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			got, err := e.p.Verify(context.Background(), e.mint(tt.key, tt.edits), "")
			is.NoErr(err)                               // valid token
			is.Equal(got, wantIdentity(e.idp.Issuer())) // identity from the claims
			is.Equal(e.idp.Hits().Discovery, 1)         // discovery fetched once
			is.Equal(e.idp.Hits().JWKS, 1)              // keys fetched once
		})
	}
}

func TestVerifyKeysWithoutAlg(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	e := setup(t, nil)
	e.idp.OmitKeyAlg(true)
	e.idp.Publish(e.rsaA, e.ecA)
	for _, k := range []*oidctest.Key{e.rsaA, e.ecA} {
		_, err := e.p.Verify(context.Background(), e.mint(k, nil), "")
		is.NoErr(err) // keys without alg are picked by kid and type
	}
	// A kid without alg still refuses an algorithm of another key type.
	forged := oidctest.Compact(map[string]any{"alg": "ES256", "kid": e.rsaA.ID}, claims(e.idp, e.clk.Now(), nil), e.ecA.Sign)
	_, err := e.p.Verify(context.Background(), forged, "")
	is.Equal(code(err), domain.EUNAUTHORIZED) // ES256 does not fit an RSA key
}

func TestVerifyGoogleBareIssuer(t *testing.T) {
	t.Parallel()
	// Google's issuer, with the keys from the local provider.
	e := setup(t, func(c *oidc.Config) { c.JWKSURL, c.Issuer = c.Issuer+"/jwks", "https://accounts.google.com" })
	e.idp.Publish(e.rsaA)
	for _, iss := range []string{"https://accounts.google.com", "accounts.google.com"} {
		t.Run(iss, func(t *testing.T) {
			is := is.New(t)
			got, err := e.p.Verify(context.Background(), e.mint(e.rsaA, map[string]any{"iss": iss}), "")
			is.NoErr(err)                                       // Google's two spellings
			is.Equal(got.Issuer, "https://accounts.google.com") // normalised to the configured issuer
			is.Equal(e.idp.Hits().Discovery, 0)                 // JWKSURL set: no discovery
		})
	}
	is := is.New(t)
	_, err := e.p.Verify(context.Background(), e.mint(e.rsaA, map[string]any{"iss": "https://evil.example"}), "")
	is.Equal(code(err), domain.EUNAUTHORIZED) // another issuer
}

func TestVerifyRefusesInvalidTokens(t *testing.T) {
	t.Parallel()
	e := setup(t, nil)
	iss := e.idp.Issuer()
	now := e.clk.Now()
	valid := claims(e.idp, now, nil)
	parts := strings.Split(oidctest.MintWith(e.rsaA, valid), ".")
	ps256 := *e.rsaA
	ps256.Alg = "PS256"
	// signedBy signs a valid claim set under header with k.
	signedBy := func(header map[string]any, k *oidctest.Key) string { return oidctest.Compact(header, valid, k.Sign) }
	tests := []struct {
		name  string
		token string
	}{
		{"empty", ""},
		{"garbage", "not-a-token"},
		{"JSON serialization", `{"payload":"` + parts[1] + `","signatures":[]}`},
		{"bad signature", e.mint(e.rsaOther, nil)},
		{"tampered payload", parts[0] + "." + base64.RawURLEncoding.EncodeToString(mustJSON(t, valid.With("sub", "admin"))) + "." + parts[2]},
		{"wrong issuer", e.mint(e.rsaA, map[string]any{"iss": "https://evil.example"})},
		{"issuer with trailing slash", e.mint(e.rsaA, map[string]any{"iss": iss + "/"})},
		{"wrong audience", e.mint(e.rsaA, map[string]any{"aud": "another-client"})},
		{"several audiences, wrong azp", e.mint(e.rsaA, map[string]any{"aud": []string{oidctest.ClientID, "x"}, "azp": "x"})},
		{"several audiences, no azp", e.mint(e.rsaA, map[string]any{"aud": []string{oidctest.ClientID, "x"}})},
		{"expired", e.mint(e.rsaA, map[string]any{"exp": now.Add(-61 * time.Second).Unix()})},
		{"missing exp", e.mint(e.rsaA, map[string]any{"exp": nil})},
		{"exp zero", e.mint(e.rsaA, map[string]any{"exp": 0})},
		{"iat in the future", e.mint(e.rsaA, map[string]any{"iat": now.Add(2 * time.Minute).Unix()})},
		{"nbf in the future", e.mint(e.rsaA, map[string]any{"nbf": now.Add(2 * time.Minute).Unix()})},
		{"missing sub", e.mint(e.rsaA, map[string]any{"sub": nil})},
		{"alg none", oidctest.MintNone("", valid)},
		{"alg none with kid", oidctest.MintNone(e.rsaA.ID, valid)},
		{"HS256 keyed with the public key PEM", oidctest.MintHMAC(e.rsaA.PublicKeyPEM(), e.rsaA.ID, valid)},
		{"HS256 keyed with the public JWK", oidctest.MintHMAC(bareJWKJSON(t, e.rsaA), e.rsaA.ID, valid)},
		{"PS256 is not allowed", oidctest.MintWith(&ps256, valid)},
		{"ES256 header on an RSA key", signedBy(map[string]any{"alg": "ES256", "kid": e.rsaA.ID}, e.ecA)},
		{"key alg differs from header alg", signedBy(map[string]any{"alg": "RS384", "kid": e.rsaA.ID}, e.rsaA)},
		{"crit header", signedBy(map[string]any{"alg": "RS256", "kid": e.rsaA.ID, "crit": []string{"exp"}, "exp": 1}, e.rsaA)},
		{"email not verified", e.mint(e.rsaA, map[string]any{"email_verified": false})},
		{"email not verified as string", e.mint(e.rsaA, map[string]any{"email_verified": "false"})},
		{"email_verified neither bool nor string", e.mint(e.rsaA, map[string]any{"email_verified": 0})},
		{"missing email", e.mint(e.rsaA, map[string]any{"email": nil})},
		{"empty email", e.mint(e.rsaA, map[string]any{"email": " "})},
		{"unknown kid", e.mint(e.rsaB, nil)},
	}
	var message string
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			_, err := e.p.Verify(context.Background(), tt.token, "")
			var de *domain.Error
			is.True(errors.As(err, &de))            // a *domain.Error
			is.Equal(de.Code, domain.EUNAUTHORIZED) // refused
			is.True(de.Err != nil)                  // a reason for the log
			if message == "" {
				message = de.Message
			}
			is.Equal(de.Message, message) // one message for every failure
			if tt.token != "" {
				is.True(!strings.Contains(err.Error(), tt.token)) // the token stays out of the error
			}
			t.Logf("reason: %v", de.Err)
		})
	}
}

func TestKeyRotationAndRefetchLimit(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	e := setup(t, nil)
	ctx := context.Background()

	_, err := e.p.Verify(ctx, e.mint(e.rsaA, nil), "")
	is.NoErr(err)                  // first key set
	is.Equal(e.idp.Hits().JWKS, 1) // fetched once

	e.idp.Publish(e.rsaA, e.rsaB) // the provider rotates in rsaB
	e.clk.Advance(5 * time.Second)
	_, err = e.p.Verify(ctx, e.mint(e.rsaB, nil), "")
	is.NoErr(err)                  // unknown kid: refetched and accepted
	is.Equal(e.idp.Hits().JWKS, 2) // one refetch

	_, err = e.p.Verify(ctx, e.mint(e.rsaB, nil), "")
	is.NoErr(err)                  // now known
	is.Equal(e.idp.Hits().JWKS, 2) // from the cache

	e.clk.Advance(30 * time.Second)
	_, err = e.p.Verify(ctx, e.mint(e.rsaC, nil), "")
	is.Equal(code(err), domain.EUNAUTHORIZED) // still unknown
	is.Equal(e.idp.Hits().JWKS, 2)            // within a minute of the last refetch: none

	e.idp.Publish(e.rsaB, e.rsaC)
	e.clk.Advance(31 * time.Second)
	_, err = e.p.Verify(ctx, e.mint(e.rsaC, nil), "")
	is.NoErr(err)                  // a minute later the refetch is allowed
	is.Equal(e.idp.Hits().JWKS, 3) // one more fetch

	_, err = e.p.Verify(ctx, e.mint(e.rsaA, nil), "")
	is.Equal(code(err), domain.EUNAUTHORIZED) // rotated out, and no refetch yet
	is.Equal(e.idp.Hits().JWKS, 3)            // rate limited
}

func TestJWKSFailureKeepsLastGoodSet(t *testing.T) {
	t.Parallel()
	e := setup(t, nil)
	ctx := context.Background()
	is := is.New(t)
	_, err := e.p.Verify(ctx, e.mint(e.rsaA, nil), "")
	is.NoErr(err) // first key set

	tests := []struct {
		name    string
		breakIt func(idp *oidctest.Provider)
	}{
		{"server error", func(idp *oidctest.Provider) { idp.ServeJWKS(http.StatusInternalServerError, "") }},
		{"not JSON", func(idp *oidctest.Provider) { idp.ServeJWKS(http.StatusOK, "<html>") }},
		{"empty set", func(idp *oidctest.Provider) { idp.ServeJWKS(http.StatusOK, `{"keys":[]}`) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			tt.breakIt(e.idp)
			e.clk.Advance(2 * time.Minute)
			hits := e.idp.Hits().JWKS
			_, err := e.p.Verify(ctx, e.mint(e.rsaB, nil), "")
			is.Equal(code(err), domain.EUPSTREAM) // unknown kid and no keys to be had
			is.Equal(e.idp.Hits().JWKS, hits+1)   // the refetch was tried
			_, err = e.p.Verify(ctx, e.mint(e.ecA, nil), "")
			is.NoErr(err) // the last good set still verifies
		})
	}
}

func TestProviderDown(t *testing.T) {
	idp := oidctest.New(t) // signs the tokens; the providers below are elsewhere
	down := httptest.NewServer(http.NotFoundHandler())
	downURL := down.URL
	down.Close()
	hang := make(chan struct{})
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { <-hang }))
	t.Cleanup(func() { close(hang); slow.Close() })

	tests := []struct {
		name string
		cfg  oidc.Config
	}{
		{"discovery refused", oidc.Config{Issuer: downURL}},
		{"jwks refused", oidc.Config{Issuer: "https://idp.example", JWKSURL: downURL + "/jwks"}},
		{"discovery times out", oidc.Config{Issuer: slow.URL, Timeout: 100 * time.Millisecond}},
		{"jwks times out", oidc.Config{Issuer: "https://idp.example", JWKSURL: slow.URL + "/jwks", Timeout: 100 * time.Millisecond}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			tt.cfg.ClientID = oidctest.ClientID
			p, err := oidc.New(context.Background(), tt.cfg)
			is.NoErr(err) // construction needs no provider
			defer p.Close()
			tok := oidctest.MintWith(idp.Key("RS256"), claims(idp, time.Now(), map[string]any{"iss": tt.cfg.Issuer}))
			began := time.Now()
			_, err = p.Verify(context.Background(), tok, "")
			is.Equal(code(err), domain.EUPSTREAM)        // provider unreachable
			is.True(time.Since(began) < 5*time.Second)   // bounded by the timeout
			is.True(!strings.Contains(err.Error(), tok)) // the token stays out of the error
			_, err = p.Verify(context.Background(), tok, "")
			is.Equal(code(err), domain.EUPSTREAM) // tried again, still down
		})
	}
}

func TestDiscoveryRetriedAfterFailure(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	e := setup(t, nil)
	e.idp.ServeDiscovery(http.StatusServiceUnavailable, "")
	tok := e.mint(e.rsaA, nil)
	_, err := e.p.Verify(context.Background(), tok, "")
	is.Equal(code(err), domain.EUPSTREAM) // discovery failed

	e.idp.ServeDiscovery(0, "")
	_, err = e.p.Verify(context.Background(), tok, "")
	is.NoErr(err)                       // the next call discovers again
	is.Equal(e.idp.Hits().Discovery, 2) // once failed, once good

	e.idp.ServeJWKS(http.StatusBadGateway, "")
	_, err = e.p.Verify(context.Background(), tok, "")
	is.NoErr(err)                       // discovery and keys are cached
	is.Equal(e.idp.Hits().Discovery, 2) // no more discovery
}

func TestFirstKeyFetchRetried(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	e := setup(t, nil)
	e.idp.ServeJWKS(http.StatusInternalServerError, "")
	tok := e.mint(e.rsaA, nil)
	_, err := e.p.Verify(context.Background(), tok, "")
	is.Equal(code(err), domain.EUPSTREAM) // no keys yet
	e.idp.ServeJWKS(0, "")
	_, err = e.p.Verify(context.Background(), tok, "")
	is.NoErr(err)                  // the first fetch is retried at once
	is.Equal(e.idp.Hits().JWKS, 2) // failed, then good
}

func TestOversizedResponses(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	e := setup(t, nil)
	e.idp.ServeJWKS(http.StatusOK, `{"keys":[],"pad":"`+strings.Repeat("x", 2<<20)+`"}`)
	_, err := e.p.Verify(context.Background(), e.mint(e.rsaA, nil), "")
	is.Equal(code(err), domain.EUPSTREAM) // a huge key set is refused

	huge := e.mint(e.rsaA, map[string]any{"pad": strings.Repeat("x", 100<<10)})
	_, err = e.p.Verify(context.Background(), huge, "")
	is.Equal(code(err), domain.EUNAUTHORIZED) // a huge token is refused before parsing
}

func TestMicrosoftTenantDiscovery(t *testing.T) {
	t.Parallel()
	tenant := "9188040d-6c67-4c5b-b112-36a304b66dad"
	e := setup(t, func(c *oidc.Config) { c.Issuer += "/" + tenant + "/v2.0" })
	base := e.idp.Issuer()
	issuer := base + "/" + tenant + "/v2.0"
	e.idp.OmitKeyAlg(true) // Entra publishes keys without alg
	e.idp.Publish(e.rsaA)
	e.idp.SetDiscoveryIssuer(base + "/{tenantid}/v2.0")

	tests := []struct {
		name string
		iss  string
		want string
	}{
		{"token of the configured tenant", issuer, ""},
		{"token of another tenant", base + "/11111111-2222-3333-4444-555555555555/v2.0", domain.EUNAUTHORIZED},
		{"token with the template issuer", base + "/{tenantid}/v2.0", domain.EUNAUTHORIZED},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			_, err := e.p.Verify(context.Background(), e.mint(e.rsaA, map[string]any{"iss": tt.iss}), "")
			is.Equal(code(err), tt.want) // iss must equal the configured issuer
		})
	}

	t.Run("document of another host", func(t *testing.T) {
		is := is.New(t)
		e.idp.SetDiscoveryIssuer("https://login.example/{tenantid}/v2.0")
		p2, err := oidc.New(context.Background(), oidc.Config{Issuer: issuer, ClientID: oidctest.ClientID, Now: e.clk.Now})
		is.NoErr(err) // lazy
		defer p2.Close()
		_, err = p2.Verify(context.Background(), e.mint(e.rsaA, map[string]any{"iss": issuer}), "")
		is.Equal(code(err), domain.EUPSTREAM) // the document does not belong to the issuer
	})
}

func TestCodeExchange(t *testing.T) {
	t.Parallel()
	e := setup(t, func(c *oidc.Config) { c.ClientSecret = oidctest.ClientSecret; c.RedirectURI = oidctest.RedirectURI })
	idToken := e.mint(e.rsaA, nil)
	e.idp.AddCode("good", e.mint(e.ecA, map[string]any{"name": "Ada King"}))
	e.idp.AddCode("other-sub", e.mint(e.ecA, map[string]any{"sub": "user-2"}))
	e.idp.AddCode("bad-token", e.mint(e.rsaOther, nil))
	e.idp.FailCode("unauthorized-client", http.StatusUnauthorized, "invalid_client")
	e.idp.AnswerCode("provider-error", http.StatusInternalServerError, `oops`)
	e.idp.AnswerCode("no-id-token", http.StatusOK, `{"access_token":"at"}`)
	tests := []struct {
		name     string
		code     string
		wantCode string
		wantName string
	}{
		{"exchanged", "good", "", "Ada King"},
		{"no code: nothing to exchange", "", "", "Ada Lovelace"},
		{"refused code", "used-code", domain.EUNAUTHORIZED, ""},
		{"refused client", "unauthorized-client", domain.EUNAUTHORIZED, ""},
		{"subject mismatch", "other-sub", domain.EUNAUTHORIZED, ""},
		{"exchanged token does not verify", "bad-token", domain.EUNAUTHORIZED, ""},
		{"provider error", "provider-error", domain.EUPSTREAM, ""},
		{"answer without id_token", "no-id-token", domain.EUPSTREAM, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			hits := e.idp.Hits().Token
			id, err := e.p.Verify(context.Background(), idToken, tt.code)
			is.Equal(code(err), tt.wantCode) // outcome
			if tt.code == "" {
				is.Equal(e.idp.Hits().Token, hits) // nothing sent
			} else {
				is.Equal(e.idp.Hits().Token, hits+1) // one exchange
				req := e.idp.LastTokenRequest()
				is.Equal(req.ContentType, "application/x-www-form-urlencoded") // form post
				is.Equal(req.Form.Get("grant_type"), "authorization_code")
				is.Equal(req.Form.Get("code"), tt.code)
				is.Equal(req.Form.Get("redirect_uri"), oidctest.RedirectURI)
				is.Equal(req.Form.Get("client_id"), oidctest.ClientID)
				is.Equal(req.Form.Get("client_secret"), oidctest.ClientSecret)
			}
			if err != nil {
				is.True(!strings.Contains(err.Error(), idToken)) // no token in the error
				if tt.code != "" {
					is.True(!strings.Contains(err.Error(), tt.code)) // no code in the error
				}
				return
			}
			is.Equal(id.Subject, "user-1") // same subject
			is.Equal(id.Name, tt.wantName) // identity from the exchanged token when there is one
		})
	}

	t.Run("token endpoint unreachable", func(t *testing.T) {
		is := is.New(t)
		down := httptest.NewServer(http.NotFoundHandler())
		down.Close()
		e2 := setup(t, func(c *oidc.Config) { c.ClientSecret = oidctest.ClientSecret })
		e2.idp.SetTokenEndpoint(down.URL + "/token")
		_, err := e2.p.Verify(context.Background(), e2.mint(e2.rsaA, nil), "some-code")
		is.Equal(code(err), domain.EUPSTREAM) // connection refused
	})
}

func TestCodeIgnoredWithoutSecret(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	e := setup(t, nil)
	_, err := e.p.Verify(context.Background(), e.mint(e.rsaA, nil), "whatever")
	is.NoErr(err)                   // code ignored
	is.Equal(e.idp.Hits().Token, 0) // no exchange
}

func TestExchangeWithConfiguredJWKSURLStillDiscoversTokenEndpoint(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	e := setup(t, func(c *oidc.Config) { c.ClientSecret = oidctest.ClientSecret })
	_ = e.p.Close()
	p, err := oidc.New(context.Background(), oidc.Config{
		Issuer: e.idp.Issuer(), ClientID: oidctest.ClientID, ClientSecret: oidctest.ClientSecret, JWKSURL: e.idp.JWKSURL(), Now: e.clk.Now,
	})
	is.NoErr(err) // new
	defer p.Close()
	idToken := e.mint(e.rsaA, nil)
	_, err = p.Verify(context.Background(), idToken, "")
	is.NoErr(err)                       // keys from JWKSURL
	is.Equal(e.idp.Hits().Discovery, 0) // no discovery without an exchange
	// This Provider sends no redirect URI, so the client registers none.
	e.idp.SetClient(oidctest.Client{ID: oidctest.ClientID, Secret: oidctest.ClientSecret})
	e.idp.AnswerCode("c1", http.StatusOK, string(mustJSON(t, map[string]any{"id_token": idToken})))
	_, err = p.Verify(context.Background(), idToken, "c1")
	is.NoErr(err)                       // exchanged
	is.Equal(e.idp.Hits().Discovery, 1) // discovery for the token endpoint
}

func TestCloseStopsVerify(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	e := setup(t, nil)
	_ = e.p.Close()
	_, err := e.p.Verify(context.Background(), e.mint(e.rsaA, nil), "")
	is.Equal(code(err), domain.EUPSTREAM) // closed
}

func TestNewRejectsBadConfig(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		cfg  oidc.Config
	}{
		{"no issuer", oidc.Config{ClientID: oidctest.ClientID}},
		{"no client id", oidc.Config{Issuer: "https://accounts.google.com"}},
		{"relative issuer", oidc.Config{Issuer: "accounts.google.com", ClientID: oidctest.ClientID}},
		{"plain http issuer", oidc.Config{Issuer: "http://idp.example", ClientID: oidctest.ClientID}},
		{"plain http jwks", oidc.Config{Issuer: "https://idp.example", ClientID: oidctest.ClientID, JWKSURL: "http://idp.example/jwks"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			_, err := oidc.New(context.Background(), tt.cfg)
			is.True(err != nil) // refused at start
		})
	}
}

func TestConcurrentVerify(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	e := setup(t, nil)
	tok := e.mint(e.ecA, nil)
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := e.p.Verify(context.Background(), tok, "")
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		is.NoErr(err) // every concurrent call verifies
	}
	is.Equal(e.idp.Hits().Discovery, 1) // discovered once
	is.Equal(e.idp.Hits().JWKS, 1)      // fetched once
}
