package oidc

import (
	"context"
	"errors"
	"fmt"

	"github.com/lestrrat-go/jwx/v2/jwa"
	"github.com/lestrrat-go/jwx/v2/jwk"
	"github.com/lestrrat-go/jwx/v2/jws"
)

// allowedAlgs are the signature algorithms accepted in an ID token's
// header. Never none, never HMAC: an HMAC "signed" with a public key's
// bytes must not verify.
var allowedAlgs = map[jwa.SignatureAlgorithm]bool{
	jwa.RS256: true,
	jwa.RS384: true,
	jwa.RS512: true,
	jwa.ES256: true,
	jwa.ES384: true,
	jwa.EdDSA: true,
}

// register hands the key-set URL to the cache. Keys are fetched through
// cacheClient (timeout and size limit); a fetched set without keys is
// refused so that the last good set stays in use.
func (p *Provider) register(u string) error {
	err := p.cache.Register(u,
		jwk.WithHTTPClient(cacheClient{p: p}),
		jwk.WithMinRefreshInterval(backgroundRefresh),
		// One key of a type jwx cannot read must not sink the whole set.
		jwk.WithIgnoreParseError(true),
		jwk.WithPostFetcher(jwk.PostFetchFunc(func(_ string, set jwk.Set) (jwk.Set, error) {
			if set.Len() == 0 {
				return nil, errors.New("key set has no usable keys")
			}
			return set, nil
		})),
	)
	if err != nil {
		return fmt.Errorf("oidc: register key set: %w", err)
	}
	p.mu.Lock()
	p.jwksURL = u
	p.mu.Unlock()
	return nil
}

// keySet returns the cached key set, fetching it on first use (and again
// on later calls until one fetch succeeds).
func (p *Provider) keySet(ctx context.Context) (jwk.Set, string, error) {
	p.mu.Lock()
	u, loaded := p.jwksURL, p.loaded
	p.mu.Unlock()
	if u == "" {
		if _, err := p.discover(ctx); err != nil {
			return nil, "", err
		}
		p.mu.Lock()
		u, loaded = p.jwksURL, p.loaded
		p.mu.Unlock()
	}
	if loaded {
		set, err := p.cached(ctx, u)
		return set, u, err
	}

	if err := acquire(ctx, p.loadSem); err != nil {
		return nil, "", upstream(fmt.Errorf("wait for key set: %w", err))
	}
	defer func() { <-p.loadSem }()
	p.mu.Lock()
	loaded = p.loaded
	p.mu.Unlock()
	if loaded {
		set, err := p.cached(ctx, u) // another caller loaded it while we waited
		return set, u, err
	}
	set, err := p.refresh(ctx, u)
	if err != nil {
		return nil, "", err
	}
	p.mu.Lock()
	p.loaded = true
	p.mu.Unlock()
	return set, u, nil
}

// cached returns the last good key set. The cache's Get does not fetch
// once the URL has been fetched, and failed refreshes leave the set in
// place; it does wait for a refresh another caller has under way.
func (p *Provider) cached(ctx context.Context, u string) (jwk.Set, error) {
	set, err := p.cache.Get(ctx, u)
	if err != nil {
		return nil, upstream(fmt.Errorf("cached key set: %w", err))
	}
	return set, nil
}

// refresh fetches the key set anew. On failure the cache keeps the last
// good set.
func (p *Provider) refresh(ctx context.Context, u string) (jwk.Set, error) {
	ctx, cancel := context.WithTimeout(ctx, p.timeout)
	defer cancel()
	set, err := p.cache.Refresh(ctx, u)
	if err != nil {
		return nil, upstream(fmt.Errorf("fetch key set: %w", err))
	}
	return set, nil
}

// mayRefetch reserves the once-a-minute refetch for an unknown kid. The
// decision uses the injected clock so tests need not sleep.
func (p *Provider) mayRefetch() bool {
	now := p.now()
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.lastRefetch.IsZero() && now.Sub(p.lastRefetch) < refetchInterval {
		return false
	}
	p.lastRefetch = now
	return true
}

// keysFor returns the provider keys that may verify a token whose header
// names alg and kid. A kid missing from the set (a key rotation) causes
// one refetch, at most once a minute.
func (p *Provider) keysFor(ctx context.Context, alg jwa.SignatureAlgorithm, kid string) ([]jwk.Key, error) {
	set, u, err := p.keySet(ctx)
	if err != nil {
		return nil, err
	}
	keys, known := candidates(set, alg, kid)
	if len(keys) > 0 {
		return keys, nil
	}
	if known {
		return nil, unauthorized(fmt.Errorf("key %q does not fit algorithm %s", kid, alg))
	}
	if p.mayRefetch() {
		if set, err = p.refresh(ctx, u); err != nil {
			return nil, err
		}
	} else if set, err = p.cached(ctx, u); err != nil {
		return nil, err
	}
	keys, known = candidates(set, alg, kid)
	if len(keys) > 0 {
		return keys, nil
	}
	if known {
		return nil, unauthorized(fmt.Errorf("key %q does not fit algorithm %s", kid, alg))
	}
	return nil, unauthorized(fmt.Errorf("no key with id %q for algorithm %s", kid, alg))
}

// candidates picks the keys of set that can check a signature made with
// alg: the key named kid (every key when the token names none), meant for
// signing, whose own alg, if it has one, is alg, and whose type and curve
// fit alg. Keys without alg, as Microsoft publishes them, are picked by
// kid and type. known reports whether kid names any key in the set at all.
func candidates(set jwk.Set, alg jwa.SignatureAlgorithm, kid string) (keys []jwk.Key, known bool) {
	for i := range set.Len() {
		key, ok := set.Key(i)
		if !ok {
			continue
		}
		if kid != "" {
			if key.KeyID() != kid {
				continue
			}
			known = true
		}
		if use := key.KeyUsage(); use != "" && use != string(jwk.ForSignature) {
			continue
		}
		if ka := key.Algorithm(); ka != nil && ka.String() != "" && ka.String() != alg.String() {
			continue
		}
		if !fits(key, alg) {
			continue
		}
		keys = append(keys, key)
	}
	if kid == "" {
		known = len(keys) > 0
	}
	return keys, known
}

// fits reports whether key's type (and curve) is the one alg signs with.
func fits(key jwk.Key, alg jwa.SignatureAlgorithm) bool {
	type curved interface {
		Crv() jwa.EllipticCurveAlgorithm
	}
	crv := func() jwa.EllipticCurveAlgorithm {
		if c, ok := key.(curved); ok {
			return c.Crv()
		}
		return ""
	}
	switch alg {
	case jwa.RS256, jwa.RS384, jwa.RS512:
		return key.KeyType() == jwa.RSA
	case jwa.ES256:
		return key.KeyType() == jwa.EC && crv() == jwa.P256
	case jwa.ES384:
		return key.KeyType() == jwa.EC && crv() == jwa.P384
	case jwa.EdDSA:
		return key.KeyType() == jwa.OKP && crv() == jwa.Ed25519
	}
	return false
}

// keyProvider feeds jws verification with the provider's keys for one
// token. It refuses disallowed algorithms before any key is looked up,
// and remembers the *domain.Error it failed with so Verify can tell an
// unreachable provider (EUPSTREAM) from a bad token.
type keyProvider struct {
	p   *Provider
	ctx context.Context
	err error
}

// FetchKeys implements jws.KeyProvider.
func (kp *keyProvider) FetchKeys(_ context.Context, sink jws.KeySink, sig *jws.Signature, _ *jws.Message) error {
	h := sig.ProtectedHeaders()
	alg := h.Algorithm()
	if !allowedAlgs[alg] {
		kp.err = unauthorized(fmt.Errorf("algorithm %q is not allowed", alg))
		return kp.err
	}
	if len(h.Critical()) > 0 {
		kp.err = unauthorized(fmt.Errorf("critical header parameters %q are not supported", h.Critical()))
		return kp.err
	}
	keys, err := kp.p.keysFor(kp.ctx, alg, h.KeyID())
	if err != nil {
		kp.err = err
		return err
	}
	for _, key := range keys {
		sink.Key(alg, key)
	}
	return nil
}
