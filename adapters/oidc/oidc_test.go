package oidc_test

import (
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/hmac"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/sha512"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"errors"
	"math/big"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/lestrrat-go/jwx/v2/jwa"
	"github.com/lestrrat-go/jwx/v2/jwk"
	"github.com/matryer/is"

	"counsel/adapters/oidc"
	"counsel/domain"
	"counsel/domain/account"
)

const (
	clientID     = "counsel-client"
	clientSecret = "s3cret"
	redirectURI  = "https://counsel.example/auth/callback"
)

// start is the fake clock's first reading; whole seconds, as NumericDate
// claims are.
var start = time.Date(2026, 11, 21, 9, 30, 0, 0, time.UTC)

// fakeClock is Config.Now for tests: time moves only when told.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) Add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// signer signs tokens as one provider key would.
type signer struct {
	alg string
	kid string
	key crypto.Signer
}

func (s signer) sign(t *testing.T, input []byte) []byte {
	t.Helper()
	var (
		sig []byte
		err error
	)
	switch s.alg {
	case "RS256":
		h := sha256.Sum256(input)
		sig, err = rsa.SignPKCS1v15(rand.Reader, s.key.(*rsa.PrivateKey), crypto.SHA256, h[:])
	case "PS256":
		h := sha256.Sum256(input)
		sig, err = rsa.SignPSS(rand.Reader, s.key.(*rsa.PrivateKey), crypto.SHA256, h[:], nil)
	case "ES256", "ES384":
		var digest []byte
		size := 32
		if s.alg == "ES256" {
			h := sha256.Sum256(input)
			digest = h[:]
		} else {
			h := sha512.Sum384(input)
			digest, size = h[:], 48
		}
		var r, ss *big.Int
		r, ss, err = ecdsa.Sign(rand.Reader, s.key.(*ecdsa.PrivateKey), digest)
		if err == nil {
			sig = make([]byte, 2*size)
			r.FillBytes(sig[:size])
			ss.FillBytes(sig[size:])
		}
	case "EdDSA":
		sig = ed25519.Sign(s.key.(ed25519.PrivateKey), input)
	default:
		t.Fatalf("signer: unknown alg %s", s.alg)
	}
	if err != nil {
		t.Fatalf("sign: %v", err)
	}
	return sig
}

// publicJWK returns s's public key as a JWK; without alg when noAlg, as
// Microsoft publishes its keys.
func (s signer) publicJWK(t *testing.T, noAlg bool) jwk.Key {
	t.Helper()
	k, err := jwk.FromRaw(s.key.Public())
	if err != nil {
		t.Fatalf("jwk from raw: %v", err)
	}
	_ = k.Set(jwk.KeyIDKey, s.kid)
	_ = k.Set(jwk.KeyUsageKey, "sig")
	if !noAlg {
		_ = k.Set(jwk.AlgorithmKey, jwa.SignatureAlgorithm(s.alg))
	}
	return k
}

func b64(b []byte) string { return base64.RawURLEncoding.EncodeToString(b) }

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatalf("json: %v", err)
	}
	return b
}

// compact builds header.payload and signs it with sign.
func compact(t *testing.T, header, claims map[string]any, sign func([]byte) []byte) string {
	t.Helper()
	input := b64(mustJSON(t, header)) + "." + b64(mustJSON(t, claims))
	return input + "." + b64(sign([]byte(input)))
}

// mint signs claims with s, naming s.kid.
func mint(t *testing.T, s signer, claims map[string]any) string {
	t.Helper()
	header := map[string]any{"alg": s.alg, "typ": "JWT"}
	if s.kid != "" {
		header["kid"] = s.kid
	}
	return compact(t, header, claims, func(in []byte) []byte { return s.sign(t, in) })
}

// tokenAnswer is what the fake token endpoint answers for one code.
type tokenAnswer struct {
	status int
	body   string
}

// fakeIdP is a local OpenID Connect provider: discovery, JWKS and token
// endpoint, with hit counters and switches to make it misbehave.
type fakeIdP struct {
	t   *testing.T
	srv *httptest.Server

	mu              sync.Mutex
	docIssuer       string // discovery's issuer; defaults to the server URL
	tokenEndpoint   string // defaults to {server}/token
	keys            []jwk.Key
	jwksStatus      int // 0 means 200
	discoveryStatus int
	jwksBody        string // when set, served instead of the keys
	answers         map[string]tokenAnswer
	lastForm        url.Values
	lastContentType string

	discoveryHits, jwksHits, tokenHits atomic.Int32
}

func newFakeIdP(t *testing.T) *fakeIdP {
	f := &fakeIdP{t: t, answers: map[string]tokenAnswer{}}
	f.srv = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fakeIdP) serve(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	switch {
	case strings.HasSuffix(r.URL.Path, "/.well-known/openid-configuration"):
		f.discoveryHits.Add(1)
		if f.discoveryStatus != 0 {
			w.WriteHeader(f.discoveryStatus)
			return
		}
		iss := f.docIssuer
		if iss == "" {
			iss = f.srv.URL
		}
		te := f.tokenEndpoint
		if te == "" {
			te = f.srv.URL + "/token"
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(mustJSON(f.t, map[string]any{
			"issuer": iss, "jwks_uri": f.srv.URL + "/jwks", "token_endpoint": te,
			"id_token_signing_alg_values_supported": []string{"RS256", "ES256"},
		}))
	case r.URL.Path == "/jwks":
		f.jwksHits.Add(1)
		if f.jwksStatus != 0 {
			w.WriteHeader(f.jwksStatus)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		if f.jwksBody != "" {
			_, _ = w.Write([]byte(f.jwksBody))
			return
		}
		_, _ = w.Write(mustJSON(f.t, map[string]any{"keys": f.keys}))
	case r.URL.Path == "/token" && r.Method == http.MethodPost:
		f.tokenHits.Add(1)
		f.lastContentType = r.Header.Get("Content-Type")
		_ = r.ParseForm()
		f.lastForm = r.PostForm
		a, ok := f.answers[r.PostForm.Get("code")]
		if !ok {
			a = tokenAnswer{status: http.StatusBadRequest, body: `{"error":"invalid_grant"}`}
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(a.status)
		_, _ = w.Write([]byte(a.body))
	default:
		http.NotFound(w, r)
	}
}

// publish replaces the served key set.
func (f *fakeIdP) publish(t *testing.T, noAlg bool, ss ...signer) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.keys = nil
	for _, s := range ss {
		f.keys = append(f.keys, s.publicJWK(t, noAlg))
	}
}

func (f *fakeIdP) set(fn func(f *fakeIdP)) {
	f.mu.Lock()
	defer f.mu.Unlock()
	fn(f)
}

// keys shared by the tests; generating RSA keys is slow.
var (
	keysOnce                         sync.Once
	rsaA, rsaB, rsaOther, ecA, edA   signer
	ec384A                           signer
	rsaAPublicPEM, rsaAPublicJWKJSON []byte
)

func testKeys(t *testing.T) {
	t.Helper()
	keysOnce.Do(func() {
		rk := func() *rsa.PrivateKey {
			k, err := rsa.GenerateKey(rand.Reader, 2048)
			if err != nil {
				panic(err)
			}
			return k
		}
		ek := func(c elliptic.Curve) *ecdsa.PrivateKey {
			k, err := ecdsa.GenerateKey(c, rand.Reader)
			if err != nil {
				panic(err)
			}
			return k
		}
		_, ed, err := ed25519.GenerateKey(rand.Reader)
		if err != nil {
			panic(err)
		}
		rsaA = signer{alg: "RS256", kid: "rsa-a", key: rk()}
		rsaB = signer{alg: "RS256", kid: "rsa-b", key: rk()}
		rsaOther = signer{alg: "RS256", kid: "rsa-a", key: rk()} // same kid, wrong key
		ecA = signer{alg: "ES256", kid: "ec-a", key: ek(elliptic.P256())}
		ec384A = signer{alg: "ES384", kid: "ec384-a", key: ek(elliptic.P384())}
		edA = signer{alg: "EdDSA", kid: "ed-a", key: ed}
		der, err := x509.MarshalPKIXPublicKey(rsaA.key.Public())
		if err != nil {
			panic(err)
		}
		rsaAPublicPEM = pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der})
		k, err := jwk.FromRaw(rsaA.key.Public())
		if err != nil {
			panic(err)
		}
		rsaAPublicJWKJSON, err = json.Marshal(k)
		if err != nil {
			panic(err)
		}
	})
}

// claims returns a valid claim set for issuer at now, changed by edits;
// a nil value in edits deletes the claim.
func claims(issuer string, now time.Time, edits map[string]any) map[string]any {
	c := map[string]any{
		"iss":            issuer,
		"aud":            clientID,
		"sub":            "user-1",
		"email":          "ada@example.com",
		"email_verified": true,
		"name":           "Ada Lovelace",
		"given_name":     "Ada",
		"family_name":    "Lovelace",
		"iat":            now.Unix(),
		"exp":            now.Add(time.Hour).Unix(),
	}
	for k, v := range edits {
		if v == nil {
			delete(c, k)
			continue
		}
		c[k] = v
	}
	return c
}

// setup starts a fake provider publishing rsaA, ecA, ec384A and edA and a
// Provider for it.
func setup(t *testing.T, mod func(*oidc.Config)) (*fakeIdP, *oidc.Provider, *fakeClock) {
	t.Helper()
	testKeys(t)
	f := newFakeIdP(t)
	f.publish(t, false, rsaA, ecA, ec384A, edA)
	clk := &fakeClock{t: start}
	cfg := oidc.Config{Issuer: f.srv.URL, ClientID: clientID, Now: clk.Now, Timeout: 2 * time.Second}
	if mod != nil {
		mod(&cfg)
	}
	p, err := oidc.New(context.Background(), cfg)
	if err != nil {
		t.Fatalf("new: %v", err)
	}
	t.Cleanup(func() { _ = p.Close() })
	return f, p, clk
}

func code(err error) string { return domain.ErrorCode(err) }

func wantIdentity(issuer string) account.ExternalIdentity {
	return account.ExternalIdentity{
		Issuer: issuer, Subject: "user-1", Email: "ada@example.com", EmailVerified: true,
		Name: "Ada Lovelace", GivenName: "Ada", FamilyName: "Lovelace",
	}
}

func TestVerifyAcceptsValidTokens(t *testing.T) {
	f, p, clk := setup(t, nil)
	iss := f.srv.URL
	now := clk.Now()
	tests := []struct {
		name   string
		signer signer
		edits  map[string]any
	}{
		{name: "RS256", signer: rsaA},
		{name: "ES256", signer: ecA},
		{name: "ES384", signer: ec384A},
		{name: "EdDSA", signer: edA},
		{name: "no kid: every key of the type is tried", signer: signer{alg: "ES256", key: ecA.key}},
		{name: "email_verified missing", signer: rsaA, edits: map[string]any{"email_verified": nil}},
		{name: "email_verified as string", signer: rsaA, edits: map[string]any{"email_verified": "true"}},
		{name: "several audiences with azp", signer: rsaA, edits: map[string]any{"aud": []string{clientID, "other"}, "azp": clientID}},
		{name: "one audience, azp of another client", signer: rsaA, edits: map[string]any{"azp": "android-client"}},
		{name: "expired within skew", signer: rsaA, edits: map[string]any{"exp": now.Add(-50 * time.Second).Unix()}},
		{name: "iat ahead within skew", signer: rsaA, edits: map[string]any{"iat": now.Add(50 * time.Second).Unix()}},
		{name: "nbf ahead within skew", signer: rsaA, edits: map[string]any{"nbf": now.Add(50 * time.Second).Unix()}},
		{name: "name from given and family", signer: rsaA, edits: map[string]any{"name": nil}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			got, err := p.Verify(context.Background(), mint(t, tt.signer, claims(iss, now, tt.edits)), "")
			is.NoErr(err)                              // valid token
			is.Equal(got, wantIdentity(iss))           // identity from the claims
			is.Equal(f.discoveryHits.Load(), int32(1)) // discovery fetched once
			is.Equal(f.jwksHits.Load(), int32(1))      // keys fetched once
		})
	}
}

func TestVerifyKeysWithoutAlg(t *testing.T) {
	is := is.New(t)
	f, p, clk := setup(t, nil)
	f.publish(t, true, rsaA, ecA)
	for _, s := range []signer{rsaA, ecA} {
		_, err := p.Verify(context.Background(), mint(t, s, claims(f.srv.URL, clk.Now(), nil)), "")
		is.NoErr(err) // keys without alg are picked by kid and type
	}
	// A kid without alg still refuses an algorithm of another key type.
	forged := compact(t, map[string]any{"alg": "ES256", "kid": rsaA.kid}, claims(f.srv.URL, clk.Now(), nil),
		func(in []byte) []byte { return ecA.sign(t, in) })
	_, err := p.Verify(context.Background(), forged, "")
	is.Equal(code(err), domain.EUNAUTHORIZED) // ES256 does not fit an RSA key
}

func TestVerifyGoogleBareIssuer(t *testing.T) {
	testKeys(t)
	f := newFakeIdP(t)
	f.publish(t, false, rsaA)
	clk := &fakeClock{t: start}
	p, err := oidc.New(context.Background(), oidc.Config{
		Issuer: "https://accounts.google.com", ClientID: clientID, JWKSURL: f.srv.URL + "/jwks", Now: clk.Now,
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = p.Close() })
	for _, iss := range []string{"https://accounts.google.com", "accounts.google.com"} {
		t.Run(iss, func(t *testing.T) {
			is := is.New(t)
			got, err := p.Verify(context.Background(), mint(t, rsaA, claims(iss, clk.Now(), nil)), "")
			is.NoErr(err)                                       // Google's two spellings
			is.Equal(got.Issuer, "https://accounts.google.com") // normalised to the configured issuer
			is.Equal(f.discoveryHits.Load(), int32(0))          // JWKSURL set: no discovery
		})
	}
	is := is.New(t)
	_, err = p.Verify(context.Background(), mint(t, rsaA, claims("https://evil.example", clk.Now(), nil)), "")
	is.Equal(code(err), domain.EUNAUTHORIZED) // another issuer
}

func TestVerifyRefusesInvalidTokens(t *testing.T) {
	f, p, clk := setup(t, nil)
	iss := f.srv.URL
	now := clk.Now()
	valid := mint(t, rsaA, claims(iss, now, nil))
	parts := strings.Split(valid, ".")
	hs256 := func(key []byte) string {
		return compact(t, map[string]any{"alg": "HS256", "kid": rsaA.kid}, claims(iss, now, nil), func(in []byte) []byte {
			m := hmac.New(sha256.New, key)
			m.Write(in)
			return m.Sum(nil)
		})
	}
	tests := []struct {
		name  string
		token string
	}{
		{"empty", ""},
		{"garbage", "not-a-token"},
		{"JSON serialization", `{"payload":"` + parts[1] + `","signatures":[]}`},
		{"bad signature", mint(t, rsaOther, claims(iss, now, nil))},
		{"tampered payload", parts[0] + "." + b64(mustJSON(t, claims(iss, now, map[string]any{"sub": "admin"}))) + "." + parts[2]},
		{"wrong issuer", mint(t, rsaA, claims("https://evil.example", now, nil))},
		{"issuer with trailing slash", mint(t, rsaA, claims(iss+"/", now, nil))},
		{"wrong audience", mint(t, rsaA, claims(iss, now, map[string]any{"aud": "another-client"}))},
		{"several audiences, wrong azp", mint(t, rsaA, claims(iss, now, map[string]any{"aud": []string{clientID, "x"}, "azp": "x"}))},
		{"several audiences, no azp", mint(t, rsaA, claims(iss, now, map[string]any{"aud": []string{clientID, "x"}}))},
		{"expired", mint(t, rsaA, claims(iss, now, map[string]any{"exp": now.Add(-61 * time.Second).Unix()}))},
		{"missing exp", mint(t, rsaA, claims(iss, now, map[string]any{"exp": nil}))},
		{"exp zero", mint(t, rsaA, claims(iss, now, map[string]any{"exp": 0}))},
		{"iat in the future", mint(t, rsaA, claims(iss, now, map[string]any{"iat": now.Add(2 * time.Minute).Unix()}))},
		{"nbf in the future", mint(t, rsaA, claims(iss, now, map[string]any{"nbf": now.Add(2 * time.Minute).Unix()}))},
		{"missing sub", mint(t, rsaA, claims(iss, now, map[string]any{"sub": nil}))},
		{"alg none", compact(t, map[string]any{"alg": "none"}, claims(iss, now, nil), func([]byte) []byte { return nil })},
		{"alg none with kid", compact(t, map[string]any{"alg": "none", "kid": rsaA.kid}, claims(iss, now, nil), func([]byte) []byte { return nil })},
		{"HS256 keyed with the public key PEM", hs256(rsaAPublicPEM)},
		{"HS256 keyed with the public JWK", hs256(rsaAPublicJWKJSON)},
		{"PS256 is not allowed", mint(t, signer{alg: "PS256", kid: rsaA.kid, key: rsaA.key}, claims(iss, now, nil))},
		{"ES256 header on an RSA key", compact(t, map[string]any{"alg": "ES256", "kid": rsaA.kid}, claims(iss, now, nil), func(in []byte) []byte { return ecA.sign(t, in) })},
		{"key alg differs from header alg", compact(t, map[string]any{"alg": "RS384", "kid": rsaA.kid}, claims(iss, now, nil), func(in []byte) []byte { return rsaA.sign(t, in) })},
		{"crit header", compact(t, map[string]any{"alg": "RS256", "kid": rsaA.kid, "crit": []string{"exp"}, "exp": 1}, claims(iss, now, nil), func(in []byte) []byte { return rsaA.sign(t, in) })},
		{"email not verified", mint(t, rsaA, claims(iss, now, map[string]any{"email_verified": false}))},
		{"email not verified as string", mint(t, rsaA, claims(iss, now, map[string]any{"email_verified": "false"}))},
		{"email_verified neither bool nor string", mint(t, rsaA, claims(iss, now, map[string]any{"email_verified": 0}))},
		{"missing email", mint(t, rsaA, claims(iss, now, map[string]any{"email": nil}))},
		{"empty email", mint(t, rsaA, claims(iss, now, map[string]any{"email": " "}))},
		{"unknown kid", mint(t, rsaB, claims(iss, now, nil))},
	}
	var message string
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			_, err := p.Verify(context.Background(), tt.token, "")
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
	is := is.New(t)
	f, p, clk := setup(t, nil)
	ctx := context.Background()
	iss := f.srv.URL

	_, err := p.Verify(ctx, mint(t, rsaA, claims(iss, clk.Now(), nil)), "")
	is.NoErr(err)                         // first key set
	is.Equal(f.jwksHits.Load(), int32(1)) // fetched once

	f.publish(t, false, rsaA, rsaB) // the provider rotates in rsaB
	clk.Add(5 * time.Second)
	_, err = p.Verify(ctx, mint(t, rsaB, claims(iss, clk.Now(), nil)), "")
	is.NoErr(err)                         // unknown kid: refetched and accepted
	is.Equal(f.jwksHits.Load(), int32(2)) // one refetch

	_, err = p.Verify(ctx, mint(t, rsaB, claims(iss, clk.Now(), nil)), "")
	is.NoErr(err)                         // now known
	is.Equal(f.jwksHits.Load(), int32(2)) // from the cache

	unknown := signer{alg: "RS256", kid: "rsa-c", key: rsaOther.key}
	clk.Add(30 * time.Second)
	_, err = p.Verify(ctx, mint(t, unknown, claims(iss, clk.Now(), nil)), "")
	is.Equal(code(err), domain.EUNAUTHORIZED) // still unknown
	is.Equal(f.jwksHits.Load(), int32(2))     // within a minute of the last refetch: none

	f.publish(t, false, rsaB, unknown)
	clk.Add(31 * time.Second)
	_, err = p.Verify(ctx, mint(t, unknown, claims(iss, clk.Now(), nil)), "")
	is.NoErr(err)                         // a minute later the refetch is allowed
	is.Equal(f.jwksHits.Load(), int32(3)) // one more fetch

	_, err = p.Verify(ctx, mint(t, rsaA, claims(iss, clk.Now(), nil)), "")
	is.Equal(code(err), domain.EUNAUTHORIZED) // rotated out, and no refetch yet
	is.Equal(f.jwksHits.Load(), int32(3))     // rate limited
}

func TestJWKSFailureKeepsLastGoodSet(t *testing.T) {
	f, p, clk := setup(t, nil)
	ctx := context.Background()
	iss := f.srv.URL
	is := is.New(t)
	_, err := p.Verify(ctx, mint(t, rsaA, claims(iss, clk.Now(), nil)), "")
	is.NoErr(err) // first key set

	tests := []struct {
		name    string
		breakIt func(f *fakeIdP)
	}{
		{"server error", func(f *fakeIdP) { f.jwksStatus = http.StatusInternalServerError }},
		{"not JSON", func(f *fakeIdP) { f.jwksStatus = 0; f.jwksBody = "<html>" }},
		{"empty set", func(f *fakeIdP) { f.jwksBody = `{"keys":[]}` }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			f.set(tt.breakIt)
			clk.Add(2 * time.Minute)
			hits := f.jwksHits.Load()
			_, err := p.Verify(ctx, mint(t, rsaB, claims(iss, clk.Now(), nil)), "")
			is.Equal(code(err), domain.EUPSTREAM) // unknown kid and no keys to be had
			is.Equal(f.jwksHits.Load(), hits+1)   // the refetch was tried
			_, err = p.Verify(ctx, mint(t, ecA, claims(iss, clk.Now(), nil)), "")
			is.NoErr(err) // the last good set still verifies
		})
	}
}

func TestProviderDown(t *testing.T) {
	testKeys(t)
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
			tt.cfg.ClientID = clientID
			p, err := oidc.New(context.Background(), tt.cfg)
			is.NoErr(err) // construction needs no provider
			defer p.Close()
			tok := mint(t, rsaA, claims(tt.cfg.Issuer, time.Now(), nil))
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
	is := is.New(t)
	f, p, clk := setup(t, nil)
	f.set(func(f *fakeIdP) { f.discoveryStatus = http.StatusServiceUnavailable })
	tok := mint(t, rsaA, claims(f.srv.URL, clk.Now(), nil))
	_, err := p.Verify(context.Background(), tok, "")
	is.Equal(code(err), domain.EUPSTREAM) // discovery failed

	f.set(func(f *fakeIdP) { f.discoveryStatus = 0 })
	_, err = p.Verify(context.Background(), tok, "")
	is.NoErr(err)                              // the next call discovers again
	is.Equal(f.discoveryHits.Load(), int32(2)) // once failed, once good

	f.set(func(f *fakeIdP) { f.jwksStatus = http.StatusBadGateway })
	_, err = p.Verify(context.Background(), tok, "")
	is.NoErr(err)                              // discovery and keys are cached
	is.Equal(f.discoveryHits.Load(), int32(2)) // no more discovery
}

func TestFirstKeyFetchRetried(t *testing.T) {
	is := is.New(t)
	f, p, clk := setup(t, nil)
	f.set(func(f *fakeIdP) { f.jwksStatus = http.StatusInternalServerError })
	tok := mint(t, rsaA, claims(f.srv.URL, clk.Now(), nil))
	_, err := p.Verify(context.Background(), tok, "")
	is.Equal(code(err), domain.EUPSTREAM) // no keys yet
	f.set(func(f *fakeIdP) { f.jwksStatus = 0 })
	_, err = p.Verify(context.Background(), tok, "")
	is.NoErr(err)                         // the first fetch is retried at once
	is.Equal(f.jwksHits.Load(), int32(2)) // failed, then good
}

func TestOversizedResponses(t *testing.T) {
	is := is.New(t)
	f, p, clk := setup(t, nil)
	f.set(func(f *fakeIdP) { f.jwksBody = `{"keys":[],"pad":"` + strings.Repeat("x", 2<<20) + `"}` })
	_, err := p.Verify(context.Background(), mint(t, rsaA, claims(f.srv.URL, clk.Now(), nil)), "")
	is.Equal(code(err), domain.EUPSTREAM) // a huge key set is refused

	huge := mint(t, rsaA, claims(f.srv.URL, clk.Now(), map[string]any{"pad": strings.Repeat("x", 100<<10)}))
	_, err = p.Verify(context.Background(), huge, "")
	is.Equal(code(err), domain.EUNAUTHORIZED) // a huge token is refused before parsing
}

func TestMicrosoftTenantDiscovery(t *testing.T) {
	testKeys(t)
	f := newFakeIdP(t)
	f.publish(t, true, rsaA) // Entra publishes keys without alg
	f.set(func(f *fakeIdP) { f.docIssuer = f.srv.URL + "/{tenantid}/v2.0" })
	tenant := "9188040d-6c67-4c5b-b112-36a304b66dad"
	issuer := f.srv.URL + "/" + tenant + "/v2.0"
	clk := &fakeClock{t: start}

	p, err := oidc.New(context.Background(), oidc.Config{Issuer: issuer, ClientID: clientID, Now: clk.Now})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = p.Close() })

	tests := []struct {
		name string
		iss  string
		want string
	}{
		{"token of the configured tenant", issuer, ""},
		{"token of another tenant", f.srv.URL + "/11111111-2222-3333-4444-555555555555/v2.0", domain.EUNAUTHORIZED},
		{"token with the template issuer", f.srv.URL + "/{tenantid}/v2.0", domain.EUNAUTHORIZED},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			_, err := p.Verify(context.Background(), mint(t, rsaA, claims(tt.iss, clk.Now(), nil)), "")
			is.Equal(code(err), tt.want) // iss must equal the configured issuer
		})
	}

	t.Run("document of another host", func(t *testing.T) {
		is := is.New(t)
		f.set(func(f *fakeIdP) { f.docIssuer = "https://login.example/{tenantid}/v2.0" })
		p2, err := oidc.New(context.Background(), oidc.Config{Issuer: issuer, ClientID: clientID, Now: clk.Now})
		is.NoErr(err) // lazy
		defer p2.Close()
		_, err = p2.Verify(context.Background(), mint(t, rsaA, claims(issuer, clk.Now(), nil)), "")
		is.Equal(code(err), domain.EUPSTREAM) // the document does not belong to the issuer
	})
}

func TestCodeExchange(t *testing.T) {
	f, p, clk := setup(t, func(c *oidc.Config) { c.ClientSecret = clientSecret; c.RedirectURI = redirectURI })
	iss := f.srv.URL
	now := clk.Now()
	idToken := mint(t, rsaA, claims(iss, now, nil))
	answer := func(tok string) tokenAnswer {
		return tokenAnswer{status: http.StatusOK, body: string(mustJSON(t, map[string]any{"access_token": "at", "token_type": "Bearer", "id_token": tok}))}
	}
	f.set(func(f *fakeIdP) {
		f.answers["good"] = answer(mint(t, ecA, claims(iss, now, map[string]any{"name": "Ada King"})))
		f.answers["other-sub"] = answer(mint(t, ecA, claims(iss, now, map[string]any{"sub": "user-2"})))
		f.answers["bad-token"] = answer(mint(t, rsaOther, claims(iss, now, nil)))
		f.answers["unauthorized-client"] = tokenAnswer{status: http.StatusUnauthorized, body: `{"error":"invalid_client"}`}
		f.answers["provider-error"] = tokenAnswer{status: http.StatusInternalServerError, body: `oops`}
		f.answers["no-id-token"] = tokenAnswer{status: http.StatusOK, body: `{"access_token":"at"}`}
	})
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
			hits := f.tokenHits.Load()
			id, err := p.Verify(context.Background(), idToken, tt.code)
			is.Equal(code(err), tt.wantCode) // outcome
			if tt.code == "" {
				is.Equal(f.tokenHits.Load(), hits) // nothing sent
			} else {
				is.Equal(f.tokenHits.Load(), hits+1) // one exchange
				f.mu.Lock()
				form, ct := f.lastForm, f.lastContentType
				f.mu.Unlock()
				is.Equal(ct, "application/x-www-form-urlencoded") // form post
				is.Equal(form.Get("grant_type"), "authorization_code")
				is.Equal(form.Get("code"), tt.code)
				is.Equal(form.Get("redirect_uri"), redirectURI)
				is.Equal(form.Get("client_id"), clientID)
				is.Equal(form.Get("client_secret"), clientSecret)
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
		f2, p2, clk2 := setup(t, func(c *oidc.Config) { c.ClientSecret = clientSecret })
		f2.set(func(f *fakeIdP) { f.tokenEndpoint = down.URL + "/token" })
		_, err := p2.Verify(context.Background(), mint(t, rsaA, claims(f2.srv.URL, clk2.Now(), nil)), "some-code")
		is.Equal(code(err), domain.EUPSTREAM) // connection refused
	})
}

func TestCodeIgnoredWithoutSecret(t *testing.T) {
	is := is.New(t)
	f, p, clk := setup(t, nil)
	_, err := p.Verify(context.Background(), mint(t, rsaA, claims(f.srv.URL, clk.Now(), nil)), "whatever")
	is.NoErr(err)                          // code ignored
	is.Equal(f.tokenHits.Load(), int32(0)) // no exchange
}

func TestExchangeWithConfiguredJWKSURLStillDiscoversTokenEndpoint(t *testing.T) {
	is := is.New(t)
	f, p, clk := setup(t, func(c *oidc.Config) { c.ClientSecret = clientSecret })
	_ = p.Close()
	p, err := oidc.New(context.Background(), oidc.Config{
		Issuer: f.srv.URL, ClientID: clientID, ClientSecret: clientSecret, JWKSURL: f.srv.URL + "/jwks", Now: clk.Now,
	})
	is.NoErr(err) // new
	defer p.Close()
	idToken := mint(t, rsaA, claims(f.srv.URL, clk.Now(), nil))
	_, err = p.Verify(context.Background(), idToken, "")
	is.NoErr(err)                              // keys from JWKSURL
	is.Equal(f.discoveryHits.Load(), int32(0)) // no discovery without an exchange
	f.set(func(f *fakeIdP) {
		f.answers["c1"] = tokenAnswer{status: 200, body: string(mustJSON(t, map[string]any{"id_token": idToken}))}
	})
	_, err = p.Verify(context.Background(), idToken, "c1")
	is.NoErr(err)                              // exchanged
	is.Equal(f.discoveryHits.Load(), int32(1)) // discovery for the token endpoint
}

func TestCloseStopsVerify(t *testing.T) {
	is := is.New(t)
	f, p, clk := setup(t, nil)
	_ = p.Close()
	_, err := p.Verify(context.Background(), mint(t, rsaA, claims(f.srv.URL, clk.Now(), nil)), "")
	is.Equal(code(err), domain.EUPSTREAM) // closed
}

func TestNewRejectsBadConfig(t *testing.T) {
	tests := []struct {
		name string
		cfg  oidc.Config
	}{
		{"no issuer", oidc.Config{ClientID: clientID}},
		{"no client id", oidc.Config{Issuer: "https://accounts.google.com"}},
		{"relative issuer", oidc.Config{Issuer: "accounts.google.com", ClientID: clientID}},
		{"plain http issuer", oidc.Config{Issuer: "http://idp.example", ClientID: clientID}},
		{"plain http jwks", oidc.Config{Issuer: "https://idp.example", ClientID: clientID, JWKSURL: "http://idp.example/jwks"}},
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
	is := is.New(t)
	f, p, clk := setup(t, nil)
	tok := mint(t, ecA, claims(f.srv.URL, clk.Now(), nil))
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := p.Verify(context.Background(), tok, "")
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		is.NoErr(err) // every concurrent call verifies
	}
	is.Equal(f.discoveryHits.Load(), int32(1)) // discovered once
	is.Equal(f.jwksHits.Load(), int32(1))      // fetched once
}
