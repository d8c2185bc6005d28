package oidc

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
)

// discovery is the part of the provider's metadata that Counsel uses.
type discovery struct {
	Issuer        string `json:"issuer"`
	JWKSURI       string `json:"jwks_uri"`
	TokenEndpoint string `json:"token_endpoint"`
	// AuthorizationEndpoint is where the console's redirect flow starts.
	AuthorizationEndpoint string `json:"authorization_endpoint"`
}

// tenantPlaceholder stands for the tenant in the issuer of Microsoft's
// multi-tenant discovery documents.
const tenantPlaceholder = "{tenantid}"

// discover returns the provider metadata, fetching it on first use. A
// failed fetch is not remembered, so the next call tries again.
func (p *Provider) discover(ctx context.Context) (*discovery, error) {
	p.mu.Lock()
	d := p.disc
	p.mu.Unlock()
	if d != nil {
		return d, nil
	}
	if err := acquire(ctx, p.discSem); err != nil {
		return nil, upstream(fmt.Errorf("wait for discovery: %w", err))
	}
	defer func() { <-p.discSem }()
	p.mu.Lock()
	d = p.disc
	p.mu.Unlock()
	if d != nil {
		return d, nil // another caller discovered while we waited
	}

	where := strings.TrimSuffix(p.issuer, "/") + "/.well-known/openid-configuration"
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, where, nil)
	if err != nil {
		return nil, upstream(fmt.Errorf("discovery request: %w", err))
	}
	req.Header.Set("Accept", "application/json")
	res, err := p.do(req)
	if err != nil {
		return nil, upstream(fmt.Errorf("discovery: %w", err))
	}
	if res.status != http.StatusOK {
		return nil, upstream(fmt.Errorf("discovery: status %d", res.status))
	}
	d = &discovery{}
	if err := json.Unmarshal(res.body, d); err != nil {
		return nil, upstream(fmt.Errorf("discovery: decode: %w", err))
	}
	if !issuerMatches(d.Issuer, p.issuer) {
		return nil, upstream(fmt.Errorf("discovery: document issuer %q does not match the configured issuer %q", d.Issuer, p.issuer))
	}
	if d.JWKSURI != "" {
		if err := checkURL(d.JWKSURI); err != nil {
			return nil, upstream(fmt.Errorf("discovery: jwks_uri: %w", err))
		}
	}
	if d.TokenEndpoint != "" {
		if err := checkURL(d.TokenEndpoint); err != nil {
			return nil, upstream(fmt.Errorf("discovery: token_endpoint: %w", err))
		}
	}
	p.mu.Lock()
	needKeys := p.jwksURL == ""
	p.mu.Unlock()
	if needKeys {
		if d.JWKSURI == "" {
			return nil, upstream(errors.New("discovery: no jwks_uri"))
		}
		if err := p.register(d.JWKSURI); err != nil {
			return nil, err
		}
	}
	p.mu.Lock()
	p.disc = d
	p.mu.Unlock()
	return d, nil
}

// issuerMatches reports whether a discovery document's issuer fits the
// configured one. OpenID Connect Discovery wants them equal; Microsoft's
// multi-tenant documents carry the template
// https://login.microsoftonline.com/{tenantid}/v2.0, which fits a
// configured issuer that names one tenant in its place.
func issuerMatches(doc, configured string) bool {
	if doc == configured {
		return true
	}
	prefix, suffix, ok := strings.Cut(doc, tenantPlaceholder)
	if !ok || strings.Contains(suffix, tenantPlaceholder) {
		return false
	}
	if !strings.HasPrefix(configured, prefix) || !strings.HasSuffix(configured, suffix) ||
		len(configured) <= len(prefix)+len(suffix) {
		return false
	}
	tenant := configured[len(prefix) : len(configured)-len(suffix)]
	return !strings.ContainsAny(tenant, "/?#{}")
}

// response is a bounded, fully read HTTP response.
type response struct {
	status     int
	statusText string
	header     http.Header
	body       []byte
}

// do sends req with the configured timeout and reads at most
// maxResponseBytes of the answer, so a slow or huge response cannot hold
// a request or exhaust memory.
func (p *Provider) do(req *http.Request) (*response, error) {
	ctx, cancel := context.WithTimeout(req.Context(), p.timeout)
	defer cancel()
	res, err := p.client.Do(req.WithContext(ctx))
	if err != nil {
		return nil, err
	}
	defer res.Body.Close()
	body, err := io.ReadAll(io.LimitReader(res.Body, maxResponseBytes+1))
	if err != nil {
		return nil, fmt.Errorf("read response: %w", err)
	}
	if len(body) > maxResponseBytes {
		return nil, fmt.Errorf("response larger than %d bytes", maxResponseBytes)
	}
	return &response{status: res.StatusCode, statusText: res.Status, header: res.Header, body: body}, nil
}

// acquire takes a one-slot semaphore unless ctx ends first.
func acquire(ctx context.Context, sem chan struct{}) error {
	select {
	case sem <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// cacheClient lets jwk.Cache fetch through Provider.do, so key fetches get
// the same timeout and size limit as every other call. The cache's
// interface has no context; the Provider's lifetime context stands in.
type cacheClient struct{ p *Provider }

// Get fetches u and hands the cache a response whose body is already read.
func (c cacheClient) Get(u string) (*http.Response, error) {
	req, err := http.NewRequestWithContext(c.p.ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "application/json")
	res, err := c.p.do(req)
	if err != nil {
		return nil, err
	}
	return &http.Response{
		StatusCode:    res.status,
		Status:        res.statusText,
		Header:        res.header,
		Body:          io.NopCloser(bytes.NewReader(res.body)),
		ContentLength: int64(len(res.body)),
		Request:       req,
	}, nil
}
