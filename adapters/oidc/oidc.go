package oidc

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/lestrrat-go/jwx/v2/jwk"

	"counsel/domain"
	"counsel/domain/account"
	"counsel/ports"
)

var _ ports.IdentityProvider = (*Provider)(nil)

const (
	// DefaultTimeout bounds every outbound call (discovery, keys, code
	// exchange) when Config.Timeout is zero.
	DefaultTimeout = 10 * time.Second

	// skew is the clock difference tolerated on exp, nbf and iat.
	skew = 60 * time.Second
	// refetchInterval is the least time between two key-set refetches
	// caused by tokens naming an unknown kid, so that forged kids cannot
	// make us hammer the provider.
	refetchInterval = time.Minute
	// backgroundRefresh is the least time between the cache's own
	// periodic refreshes (longer when the provider's Cache-Control says so).
	backgroundRefresh = 15 * time.Minute

	maxResponseBytes = 1 << 20  // discovery, JWKS and token responses
	maxTokenBytes    = 64 << 10 // an ID token; Entra tokens with group claims run to a few KiB
	maxCodeBytes     = 4 << 10  // an authorization code

	// The messages clients see: one per code, the same for every cause,
	// so that a caller cannot probe which check failed.
	msgUnauthorized = "the identity token is not valid"
	msgUpstream     = "the identity provider could not be reached"
)

// Config configures a Provider. Issuer and ClientID are required.
type Config struct {
	// Issuer is the provider's issuer URL exactly as its ID tokens carry it
	// in iss, e.g. https://accounts.google.com or
	// https://login.microsoftonline.com/{tenant-id}/v2.0.
	// Discovery reads {Issuer}/.well-known/openid-configuration.
	Issuer string
	// ClientID is this application's client id at the provider; ID tokens
	// must name it in aud.
	ClientID string
	// ClientSecret turns on the code exchange: with it, a non-empty code
	// passed to Verify is redeemed at the token endpoint. Without it, code
	// is ignored.
	ClientSecret string
	// RedirectURI is sent with the code exchange; it must equal the
	// redirect URI of the authorization request that produced the code.
	RedirectURI string
	// JWKSURL, when set, is where the signing keys are fetched, and
	// discovery is only needed for the code exchange's token endpoint.
	JWKSURL string
	// HTTPClient makes every outbound call. Nil means a client with
	// Timeout as its timeout.
	HTTPClient *http.Client
	// Timeout bounds each outbound call; zero means DefaultTimeout.
	Timeout time.Duration
	// Now is the clock for token times and the refetch rate limit; nil
	// means time.Now.
	Now func() time.Time
}

// Provider verifies ID tokens of one OpenID Connect provider. It is safe
// for concurrent use. Close it to stop the key cache's background refresh.
type Provider struct {
	issuer       string
	clientID     string
	clientSecret string
	redirectURI  string
	client       *http.Client
	timeout      time.Duration
	now          func() time.Time

	ctx    context.Context // lives until Close; runs the key cache
	cancel context.CancelFunc
	cache  *jwk.Cache

	// discSem and loadSem let one caller at a time fetch the discovery
	// document or the first key set, while the others wait (or give up
	// when their context ends) and then reuse the result.
	discSem chan struct{}
	loadSem chan struct{}

	mu          sync.Mutex
	disc        *discovery // nil until discovery succeeded
	jwksURL     string     // "" until known (configured or discovered)
	loaded      bool       // a key set has been fetched at least once
	lastRefetch time.Time  // by now(): the last refetch for an unknown kid
}

// New returns a Provider for cfg. It makes no network call: discovery and
// the first key fetch happen on the first Verify, and are tried again on
// a later call when they fail, so the server can start while the provider
// is down. ctx supplies values only; the background key refresh runs until
// Close.
func New(ctx context.Context, cfg Config) (*Provider, error) {
	if cfg.Issuer == "" {
		return nil, errors.New("oidc: issuer is required")
	}
	if err := checkURL(cfg.Issuer); err != nil {
		return nil, fmt.Errorf("oidc: issuer: %w", err)
	}
	if cfg.ClientID == "" {
		return nil, errors.New("oidc: client id is required")
	}
	if cfg.JWKSURL != "" {
		if err := checkURL(cfg.JWKSURL); err != nil {
			return nil, fmt.Errorf("oidc: jwks url: %w", err)
		}
	}
	p := &Provider{
		issuer:       cfg.Issuer,
		clientID:     cfg.ClientID,
		clientSecret: cfg.ClientSecret,
		redirectURI:  cfg.RedirectURI,
		client:       cfg.HTTPClient,
		timeout:      cfg.Timeout,
		now:          cfg.Now,
		discSem:      make(chan struct{}, 1),
		loadSem:      make(chan struct{}, 1),
	}
	if p.timeout <= 0 {
		p.timeout = DefaultTimeout
	}
	if p.client == nil {
		p.client = &http.Client{Timeout: p.timeout}
	}
	if p.now == nil {
		p.now = time.Now
	}
	// The cache must not die with a request- or start-up-scoped ctx.
	p.ctx, p.cancel = context.WithCancel(context.WithoutCancel(ctx))
	p.cache = jwk.NewCache(p.ctx)
	if cfg.JWKSURL != "" {
		if err := p.register(cfg.JWKSURL); err != nil {
			p.cancel()
			return nil, err
		}
	}
	return p, nil
}

// Close stops the key cache's background refresh. Verify fails with
// EUPSTREAM afterwards.
func (p *Provider) Close() error {
	p.cancel()
	return nil
}

// Verify checks idToken and, when a client secret is configured and code
// is not empty, redeems code at the token endpoint and checks that the ID
// token it returns verifies and names the same subject. The identity then
// comes from the exchanged token, which arrived straight from the provider.
//
// Every token failure is an EUNAUTHORIZED *domain.Error with the same
// Message; its Err says why, for the log. A provider that cannot be reached
// for discovery, keys or the exchange gives EUPSTREAM. Neither error ever
// contains the token or the code.
func (p *Provider) Verify(ctx context.Context, idToken, code string) (account.ExternalIdentity, error) {
	if p.ctx.Err() != nil {
		return account.ExternalIdentity{}, upstream(errors.New("provider is closed"))
	}
	id, err := p.verifyToken(ctx, idToken)
	if err != nil {
		return account.ExternalIdentity{}, err
	}
	if p.clientSecret == "" || code == "" {
		return id, nil
	}
	if len(code) > maxCodeBytes {
		return account.ExternalIdentity{}, unauthorized(fmt.Errorf("authorization code longer than %d bytes", maxCodeBytes))
	}
	exchanged, err := p.exchange(ctx, code, "", "")
	if err != nil {
		return account.ExternalIdentity{}, err
	}
	id2, err := p.verifyToken(ctx, exchanged)
	if err != nil {
		var de *domain.Error
		if errors.As(err, &de) && de.Code == domain.EUNAUTHORIZED {
			return account.ExternalIdentity{}, unauthorized(fmt.Errorf("exchanged id token: %w", de.Err))
		}
		return account.ExternalIdentity{}, err
	}
	if id2.Subject != id.Subject {
		return account.ExternalIdentity{}, unauthorized(errors.New("exchanged id token names another subject"))
	}
	return id2, nil
}

// AuthorizationURL implements ports.IdentityProvider: the authorization
// endpoint from discovery with a code request for the console.
func (p *Provider) AuthorizationURL(ctx context.Context, state, nonce, challenge, redirectURI string) (string, error) {
	d, err := p.discover(ctx)
	if err != nil {
		return "", err
	}
	if d.AuthorizationEndpoint == "" {
		return "", upstream(errors.New("discovery: no authorization_endpoint"))
	}
	u, err := url.Parse(d.AuthorizationEndpoint)
	if err != nil {
		return "", upstream(fmt.Errorf("discovery: authorization_endpoint: %w", err))
	}
	q := u.Query()
	q.Set("response_type", "code")
	q.Set("client_id", p.clientID)
	q.Set("redirect_uri", redirectURI)
	q.Set("scope", "openid email profile")
	q.Set("state", state)
	q.Set("nonce", nonce)
	q.Set("code_challenge", challenge)
	q.Set("code_challenge_method", "S256")
	u.RawQuery = q.Encode()
	return u.String(), nil
}

// ExchangeCode implements ports.IdentityProvider: it redeems code with
// the PKCE verifier and verifies the returned ID token.
func (p *Provider) ExchangeCode(ctx context.Context, code, verifier, redirectURI string) (account.ExternalIdentity, error) {
	if p.ctx.Err() != nil {
		return account.ExternalIdentity{}, upstream(errors.New("provider is closed"))
	}
	if p.clientSecret == "" {
		return account.ExternalIdentity{}, unauthorized(errors.New("no client secret: the code cannot be exchanged"))
	}
	if code == "" || len(code) > maxCodeBytes {
		return account.ExternalIdentity{}, unauthorized(fmt.Errorf("authorization code empty or longer than %d bytes", maxCodeBytes))
	}
	tok, err := p.exchange(ctx, code, verifier, redirectURI)
	if err != nil {
		return account.ExternalIdentity{}, err
	}
	return p.verifyToken(ctx, tok)
}

// unauthorized wraps the reason a token was refused.
func unauthorized(reason error) error {
	return &domain.Error{Code: domain.EUNAUTHORIZED, Message: msgUnauthorized, Err: reason}
}

// upstream wraps the reason the provider could not be used.
func upstream(reason error) error {
	return &domain.Error{Code: domain.EUPSTREAM, Message: msgUpstream, Err: reason}
}

// checkURL accepts absolute https URLs, and http ones on a loopback host
// for local test providers: keys fetched over plain http elsewhere could
// be swapped by anyone on the path.
func checkURL(raw string) error {
	u, err := url.Parse(raw)
	if err != nil {
		return err
	}
	if u.Host == "" {
		return fmt.Errorf("%q is not an absolute URL", raw)
	}
	if u.RawQuery != "" || u.Fragment != "" {
		return fmt.Errorf("%q has a query or fragment", raw)
	}
	switch u.Scheme {
	case "https":
		return nil
	case "http":
		if isLoopback(u.Hostname()) {
			return nil
		}
	}
	return fmt.Errorf("%q must use https", raw)
}

func isLoopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
