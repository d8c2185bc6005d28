// Package oidctest runs a local OpenID Connect provider for tests in other
// packages: a discovery document, a key set and a token endpoint served by
// net/http/httptest on the loopback interface, which package oidc accepts
// over plain http.
//
// The provider signs ID tokens with claims the test chooses (RS256 and
// ES256 keys are published from the start; RS384, RS512, PS256, ES384 and
// EdDSA keys can be added), rotates keys, redeems authorization codes the
// test registers, and can go down. It also builds the forgeries a verifier
// must refuse: unsigned tokens (alg none), HMAC tokens keyed with a public
// key, and tokens signed by a key that is not published.
//
// For the adapter's own tests it misbehaves on request: discovery and the
// key set can answer any status and body (ServeDiscovery, ServeJWKS), keys
// can be published without alg (OmitKeyAlg, as Microsoft Entra ID does),
// the discovery document can name another issuer, such as Microsoft's
// {tenantid} template (SetDiscoveryIssuer), or another token endpoint
// (SetTokenEndpoint), and the token endpoint can answer a code with any
// body (AnswerCode) and reports the last request it got (LastTokenRequest).
// Hits counts the requests each endpoint answered.
//
//	p := oidctest.New(t)
//	cfg.OIDCIssuer, cfg.OIDCClientID = p.Issuer(), oidctest.ClientID
//	tok := p.Mint("RS256", p.Claims(now, "subject-1", "ada@example.com"))
//
// Helpers panic on what cannot happen with correct use (an unknown
// algorithm, a failing random source), as httptest does; they need no
// *testing.T and may be called from any goroutine.
package oidctest

import (
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
	"fmt"
	"math/big"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/lestrrat-go/jwx/v2/jwa"
	"github.com/lestrrat-go/jwx/v2/jwk"
)

// The client registered at every Provider unless the test calls
// SetClient.
const (
	ClientID     = "counsel-test-client"
	ClientSecret = "counsel-test-secret"
	RedirectURI  = "https://counsel.test/auth/callback"
)

// Key is one signing key of the provider. ID is the kid tokens name; a
// test may change it before use, for instance to forge a token that names
// a published kid but is signed by another key. A copy (k2 := *k) signs
// with the same private key under another ID or Alg, for instance a token
// without kid or a PS256 token from an RS256 key.
type Key struct {
	ID     string
	Alg    string // RS256, RS384, RS512, PS256, ES256, ES384 or EdDSA
	signer crypto.Signer
}

// rsaKeys are generated once per process and handed out in order:
// RSA key generation is slow, and distinct providers need not have
// distinct keys, only each provider's keys among themselves.
var (
	rsaMu   sync.Mutex
	rsaPool []*rsa.PrivateKey
)

func rsaKey(i int) *rsa.PrivateKey {
	rsaMu.Lock()
	defer rsaMu.Unlock()
	for len(rsaPool) <= i {
		k, err := rsa.GenerateKey(rand.Reader, 2048)
		if err != nil {
			panic(fmt.Sprintf("oidctest: rsa key: %v", err))
		}
		rsaPool = append(rsaPool, k)
	}
	return rsaPool[i]
}

// newKey returns a key for alg; rsaIndex picks the RSA key from the pool.
func newKey(alg, kid string, rsaIndex int) *Key {
	k := &Key{ID: kid, Alg: alg}
	switch alg {
	case "RS256", "RS384", "RS512", "PS256":
		k.signer = rsaKey(rsaIndex)
	case "ES256", "ES384":
		curve := elliptic.P256()
		if alg == "ES384" {
			curve = elliptic.P384()
		}
		ek, err := ecdsa.GenerateKey(curve, rand.Reader)
		if err != nil {
			panic(fmt.Sprintf("oidctest: ec key: %v", err))
		}
		k.signer = ek
	case "EdDSA":
		_, ed, err := ed25519.GenerateKey(rand.Reader)
		if err != nil {
			panic(fmt.Sprintf("oidctest: ed25519 key: %v", err))
		}
		k.signer = ed
	default:
		panic("oidctest: unsupported algorithm " + alg)
	}
	return k
}

// Public returns the public key.
func (k *Key) Public() crypto.PublicKey { return k.signer.Public() }

// PublicKeyPEM returns the public key as a PEM "PUBLIC KEY" block: the
// bytes an HMAC forgery keyed with the public key uses.
func (k *Key) PublicKeyPEM() []byte {
	der, err := x509.MarshalPKIXPublicKey(k.Public())
	if err != nil {
		panic(fmt.Sprintf("oidctest: marshal public key: %v", err))
	}
	return pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der})
}

// JWK returns the public key as a JWK with kid, use "sig" and alg.
func (k *Key) JWK() jwk.Key { return k.jwk(true) }

// jwk returns the public key as a JWK with kid and use "sig", and alg
// when withAlg.
func (k *Key) jwk(withAlg bool) jwk.Key {
	j, err := jwk.FromRaw(k.Public())
	if err != nil {
		panic(fmt.Sprintf("oidctest: jwk: %v", err))
	}
	_ = j.Set(jwk.KeyIDKey, k.ID)
	_ = j.Set(jwk.KeyUsageKey, "sig")
	if withAlg {
		_ = j.Set(jwk.AlgorithmKey, jwa.SignatureAlgorithm(k.Alg))
	}
	return j
}

// Sign signs input as a JWS with k.Alg would.
func (k *Key) Sign(input []byte) []byte {
	var (
		sig []byte
		err error
	)
	switch k.Alg {
	case "RS256", "RS384", "RS512":
		h, digest := rsaHash(k.Alg, input)
		sig, err = rsa.SignPKCS1v15(rand.Reader, k.signer.(*rsa.PrivateKey), h, digest)
	case "PS256":
		h := sha256.Sum256(input)
		sig, err = rsa.SignPSS(rand.Reader, k.signer.(*rsa.PrivateKey), crypto.SHA256, h[:], nil)
	case "ES256", "ES384":
		// JWS wants r and s as fixed-size big-endian halves, not ASN.1.
		var digest []byte
		size := 32
		if k.Alg == "ES256" {
			h := sha256.Sum256(input)
			digest = h[:]
		} else {
			h := sha512.Sum384(input)
			digest, size = h[:], 48
		}
		var r, s *big.Int
		if r, s, err = ecdsa.Sign(rand.Reader, k.signer.(*ecdsa.PrivateKey), digest); err == nil {
			sig = make([]byte, 2*size)
			r.FillBytes(sig[:size])
			s.FillBytes(sig[size:])
		}
	case "EdDSA":
		sig = ed25519.Sign(k.signer.(ed25519.PrivateKey), input)
	default:
		panic("oidctest: unsupported algorithm " + k.Alg)
	}
	if err != nil {
		panic(fmt.Sprintf("oidctest: sign: %v", err))
	}
	return sig
}

func rsaHash(alg string, input []byte) (crypto.Hash, []byte) {
	switch alg {
	case "RS384":
		h := sha512.Sum384(input)
		return crypto.SHA384, h[:]
	case "RS512":
		h := sha512.Sum512(input)
		return crypto.SHA512, h[:]
	}
	h := sha256.Sum256(input)
	return crypto.SHA256, h[:]
}

// Claims are an ID token's claims. A nil value deletes a claim when
// passed to With.
type Claims map[string]any

// With returns a copy of c with name set to value, or removed when value
// is nil.
func (c Claims) With(name string, value any) Claims {
	out := make(Claims, len(c)+1)
	for k, v := range c {
		out[k] = v
	}
	if value == nil {
		delete(out, name)
	} else {
		out[name] = value
	}
	return out
}

// Compact builds a compact JWS of header and claims whose signature is
// sign(signing input). Tests use it for forgeries; Mint for real tokens.
func Compact(header map[string]any, claims Claims, sign func(input []byte) []byte) string {
	input := b64(mustJSON(header)) + "." + b64(mustJSON(claims))
	return input + "." + b64(sign([]byte(input)))
}

// MintNone returns an unsigned token (alg none), naming kid when not empty.
func MintNone(kid string, claims Claims) string {
	h := map[string]any{"alg": "none", "typ": "JWT"}
	if kid != "" {
		h["kid"] = kid
	}
	return Compact(h, claims, func([]byte) []byte { return nil })
}

// MintHMAC returns an HS256 token keyed with secret and naming kid: the
// classic forgery keys it with a provider's public key (Key.PublicKeyPEM).
func MintHMAC(secret []byte, kid string, claims Claims) string {
	return Compact(map[string]any{"alg": "HS256", "typ": "JWT", "kid": kid}, claims, func(in []byte) []byte {
		m := hmac.New(sha256.New, secret)
		m.Write(in)
		return m.Sum(nil)
	})
}

func b64(b []byte) string { return base64.RawURLEncoding.EncodeToString(b) }

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("oidctest: json: %v", err))
	}
	return b
}

// Hits counts the requests each endpoint answered.
type Hits struct {
	Discovery, JWKS, Token int
}

// answer is a canned reply: the token endpoint's to one code, or what
// discovery or the key set serve instead of their documents.
type answer struct {
	status int
	body   []byte
}

// TokenRequest is a request the token endpoint got.
type TokenRequest struct {
	ContentType string
	Form        url.Values // the posted form
}

// Client is the client registered at a Provider.
type Client struct {
	ID          string // ID tokens' aud; the token endpoint checks it
	Secret      string // the token endpoint checks it; "" accepts any
	RedirectURI string // the token endpoint checks it; "" accepts any
}

// Provider is a running local OpenID Connect provider. It is safe for
// concurrent use.
type Provider struct {
	srv *httptest.Server

	mu        sync.Mutex
	client    Client
	current   map[string]*Key // the signing key of each algorithm
	published []*Key
	omitAlg   bool
	codes     map[string]answer
	nextRSA   int
	nextKid   int

	docIssuer, tokenEndpoint string  // what discovery names; "" for the defaults
	discoveryAnswer          *answer // served instead of discovery when set
	jwksAnswer               *answer // served instead of the key set when set
	lastToken                TokenRequest

	down                       atomic.Bool
	discovery, jwksHits, token atomic.Int64
}

// New starts a provider publishing one RS256 and one ES256 key. It stops
// when tb's test ends.
func New(tb testing.TB) *Provider {
	tb.Helper()
	p := &Provider{
		client:  Client{ID: ClientID, Secret: ClientSecret, RedirectURI: RedirectURI},
		current: map[string]*Key{}, codes: map[string]answer{},
	}
	p.srv = httptest.NewServer(http.HandlerFunc(p.serve))
	tb.Cleanup(p.srv.Close)
	p.Rotate("RS256")
	p.Rotate("ES256")
	return p
}

// SetClient replaces the registered client, for instance to make the
// token endpoint refuse the secret Counsel sends.
func (p *Provider) SetClient(c Client) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.client = c
}

// Issuer is the provider's issuer: its base URL, which ID tokens carry in
// iss and under which discovery lives.
func (p *Provider) Issuer() string { return p.srv.URL }

// JWKSURL is where the key set is served.
func (p *Provider) JWKSURL() string { return p.srv.URL + "/jwks" }

// TokenURL is the token endpoint.
func (p *Provider) TokenURL() string { return p.srv.URL + "/token" }

// Claims returns a valid claim set at now for subject and email: iss, aud
// (the client id), sub, email, email_verified true, name, given_name,
// family_name, iat now and exp an hour later. Change it with With.
func (p *Provider) Claims(now time.Time, subject, email string) Claims {
	p.mu.Lock()
	aud := p.client.ID
	p.mu.Unlock()
	return Claims{
		"iss":            p.Issuer(),
		"aud":            aud,
		"sub":            subject,
		"email":          email,
		"email_verified": true,
		"name":           "Ada Lovelace",
		"given_name":     "Ada",
		"family_name":    "Lovelace",
		"iat":            now.Unix(),
		"exp":            now.Add(time.Hour).Unix(),
	}
}

// NewKey returns a new key for alg with a fresh kid, not published.
func (p *Provider) NewKey(alg string) *Key {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.newKeyLocked(alg)
}

func (p *Provider) newKeyLocked(alg string) *Key {
	p.nextKid++
	i := 0
	if alg[0] == 'R' || alg[0] == 'P' {
		i = p.nextRSA
		p.nextRSA++
	}
	return newKey(alg, alg+"-"+strconv.Itoa(p.nextKid), i)
}

// Key returns the current signing key of alg, nil if there is none.
func (p *Provider) Key(alg string) *Key {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.current[alg]
}

// Rotate makes a new key the signing key of alg and publishes it beside
// the keys already published, as providers do ahead of switching.
func (p *Provider) Rotate(alg string) *Key {
	p.mu.Lock()
	defer p.mu.Unlock()
	k := p.newKeyLocked(alg)
	p.current[alg] = k
	p.published = append(p.published, k)
	return k
}

// Publish replaces the published key set with keys.
func (p *Provider) Publish(keys ...*Key) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.published = append([]*Key(nil), keys...)
}

// Mint signs claims with the current key of alg, naming its kid.
func (p *Provider) Mint(alg string, claims Claims) string {
	k := p.Key(alg)
	if k == nil {
		panic("oidctest: no " + alg + " key; call Rotate first")
	}
	return MintWith(k, claims)
}

// MintWith signs claims with k, naming k.ID (no kid when empty).
func MintWith(k *Key, claims Claims) string {
	h := map[string]any{"alg": k.Alg, "typ": "JWT"}
	if k.ID != "" {
		h["kid"] = k.ID
	}
	return Compact(h, claims, k.Sign)
}

// AddCode registers an authorization code that the token endpoint
// redeems, once, for idToken.
func (p *Provider) AddCode(code, idToken string) {
	p.AnswerCode(code, http.StatusOK, string(mustJSON(map[string]any{
		"access_token": "provider-access-token", "token_type": "Bearer", "expires_in": 3600, "id_token": idToken,
	})))
}

// FailCode makes the token endpoint answer code with status and, for a
// 4xx or 5xx, an OAuth error body naming oauthError.
func (p *Provider) FailCode(code string, status int, oauthError string) {
	p.AnswerCode(code, status, string(mustJSON(map[string]string{"error": oauthError})))
}

// AnswerCode makes the token endpoint answer code, once, with status and
// body as they are: for answers no provider should give, such as a 200
// without an id_token or an error page that is not JSON.
func (p *Provider) AnswerCode(code string, status int, body string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.codes[code] = answer{status: status, body: []byte(body)}
}

// LastTokenRequest returns the last request the token endpoint got, zero
// before the first.
func (p *Provider) LastTokenRequest() TokenRequest {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.lastToken
}

// OmitKeyAlg makes the key set leave alg out of every key (omit true), as
// Microsoft Entra ID publishes its keys, or name it again (false).
func (p *Provider) OmitKeyAlg(omit bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.omitAlg = omit
}

// SetDiscoveryIssuer makes the discovery document name issuer instead of
// Issuer(), for instance Microsoft's template
// Issuer()+"/{tenantid}/v2.0"; "" restores the default. Discovery is
// served below any path, so an issuer with a path such as
// Issuer()+"/<tenant>/v2.0" discovers here too.
func (p *Provider) SetDiscoveryIssuer(issuer string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.docIssuer = issuer
}

// SetTokenEndpoint makes the discovery document name u as the token
// endpoint, for instance one that is down; "" restores TokenURL().
func (p *Provider) SetTokenEndpoint(u string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.tokenEndpoint = u
}

// ServeDiscovery makes the discovery endpoint answer status and body
// instead of the document; status 0 restores the document.
func (p *Provider) ServeDiscovery(status int, body string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.discoveryAnswer = cannedAnswer(status, body)
}

// ServeJWKS makes the key set endpoint answer status and body instead of
// the published keys, for instance a 500, a page that is not JSON or an
// empty set; status 0 restores the keys.
func (p *Provider) ServeJWKS(status int, body string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.jwksAnswer = cannedAnswer(status, body)
}

func cannedAnswer(status int, body string) *answer {
	if status == 0 {
		return nil
	}
	return &answer{status: status, body: []byte(body)}
}

// Down makes the provider unreachable: open connections are closed and
// every new request has its connection dropped without an answer.
func (p *Provider) Down() {
	p.down.Store(true)
	p.srv.CloseClientConnections()
}

// Up brings the provider back.
func (p *Provider) Up() { p.down.Store(false) }

// Hits returns how many requests each endpoint has answered.
func (p *Provider) Hits() Hits {
	return Hits{Discovery: int(p.discovery.Load()), JWKS: int(p.jwksHits.Load()), Token: int(p.token.Load())}
}

func (p *Provider) serve(w http.ResponseWriter, r *http.Request) {
	if p.down.Load() {
		if hj, ok := w.(http.Hijacker); ok {
			if conn, _, err := hj.Hijack(); err == nil {
				_ = conn.Close()
				return
			}
		}
		w.WriteHeader(http.StatusServiceUnavailable)
		return
	}
	switch {
	case r.Method == http.MethodGet && strings.HasSuffix(r.URL.Path, "/.well-known/openid-configuration"):
		p.discovery.Add(1)
		p.mu.Lock()
		canned, issuer, tokenURL := p.discoveryAnswer, p.docIssuer, p.tokenEndpoint
		p.mu.Unlock()
		if canned != nil {
			writeRaw(w, *canned)
			return
		}
		if issuer == "" {
			issuer = p.Issuer()
		}
		if tokenURL == "" {
			tokenURL = p.TokenURL()
		}
		writeJSON(w, http.StatusOK, map[string]any{
			"issuer":                                issuer,
			"authorization_endpoint":                p.srv.URL + "/authorize",
			"token_endpoint":                        tokenURL,
			"jwks_uri":                              p.JWKSURL(),
			"response_types_supported":              []string{"code", "id_token", "code id_token"},
			"subject_types_supported":               []string{"public"},
			"id_token_signing_alg_values_supported": []string{"RS256", "ES256"},
			"token_endpoint_auth_methods_supported": []string{"client_secret_post", "client_secret_basic"},
		})
	case r.Method == http.MethodGet && r.URL.Path == "/jwks":
		p.jwksHits.Add(1)
		p.mu.Lock()
		canned := p.jwksAnswer
		keys := make([]jwk.Key, len(p.published))
		for i, k := range p.published {
			keys[i] = k.jwk(!p.omitAlg)
		}
		p.mu.Unlock()
		if canned != nil {
			writeRaw(w, *canned)
			return
		}
		writeJSON(w, http.StatusOK, map[string]any{"keys": keys})
	case r.Method == http.MethodPost && r.URL.Path == "/token":
		p.token.Add(1)
		p.redeem(w, r)
	default:
		http.NotFound(w, r)
	}
}

// redeem answers an authorization_code grant: client authentication by
// client_secret_post or client_secret_basic, the redirect URI, and a code
// that works once.
func (p *Provider) redeem(w http.ResponseWriter, r *http.Request) {
	err := r.ParseForm()
	p.mu.Lock()
	p.lastToken = TokenRequest{ContentType: r.Header.Get("Content-Type"), Form: r.PostForm}
	client := p.client
	p.mu.Unlock()
	if err != nil {
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": "invalid_request"})
		return
	}
	id, secret, basic := r.BasicAuth()
	if !basic {
		id, secret = r.PostForm.Get("client_id"), r.PostForm.Get("client_secret")
	}
	if id != client.ID || (client.Secret != "" && secret != client.Secret) {
		writeJSON(w, http.StatusUnauthorized, map[string]string{"error": "invalid_client"})
		return
	}
	if r.PostForm.Get("grant_type") != "authorization_code" {
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": "unsupported_grant_type"})
		return
	}
	if client.RedirectURI != "" && r.PostForm.Get("redirect_uri") != client.RedirectURI {
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": "invalid_grant"})
		return
	}
	code := r.PostForm.Get("code")
	p.mu.Lock()
	a, ok := p.codes[code]
	delete(p.codes, code)
	p.mu.Unlock()
	if !ok {
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": "invalid_grant"})
		return
	}
	w.Header().Set("Cache-Control", "no-store")
	writeRaw(w, a)
}

// writeRaw writes a canned answer, labelled JSON as providers label even
// their error pages.
func writeRaw(w http.ResponseWriter, a answer) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(a.status)
	_, _ = w.Write(a.body)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(mustJSON(v))
}
