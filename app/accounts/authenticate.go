package accounts

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"counsel/domain"
	"counsel/domain/account"
)

// The principal cache spares every authenticated request a signature
// check and two queries. An entry is trusted until the token expires, but
// its session and permissions are read again when this process has revoked
// anything since (generation) or after Config.SessionRecheck.
type authEntry struct {
	p       account.Principal
	expires time.Time
	checked time.Time
	gen     uint64
	// seen is the session's last-seen clock (sessions.go), shared by its
	// tokens.
	seen *atomic.Int64
}

type authCache struct {
	mu      sync.RWMutex
	entries map[string]authEntry
}

// maxCached bounds the cache; when full it starts over, which costs one
// verification per live token.
const maxCached = 50_000

func (c *authCache) get(tok string) (authEntry, bool) {
	c.mu.RLock()
	e, ok := c.entries[tok]
	c.mu.RUnlock()
	return e, ok
}

func (c *authCache) put(tok string, e authEntry) {
	c.mu.Lock()
	if len(c.entries) >= maxCached {
		clear(c.entries)
	}
	c.entries[tok] = e
	c.mu.Unlock()
}

func (c *authCache) drop(tok string) {
	c.mu.Lock()
	delete(c.entries, tok)
	c.mu.Unlock()
}

var badToken = &domain.Error{Code: domain.EUNAUTHORIZED, Message: "the access token is invalid, expired or revoked"}

// Authenticate implements ports.AccountService.
func (s *Service) Authenticate(ctx context.Context, tok string) (account.Principal, error) {
	if account.IsAPIKey(tok) {
		return s.authenticateKey(ctx, tok)
	}
	now := s.d.Clock.Now()
	gen := s.gen.Load()
	e, ok := s.cache.get(tok)
	if ok && now.Before(e.expires) && e.gen == gen && now.Sub(e.checked) < s.cfg.SessionRecheck {
		s.seen(e.p.SessionID, e.seen, now)
		return e.p, nil
	}
	var claims account.AccessClaims
	if ok && now.Before(e.expires) {
		// The signature was checked before; only the session may have changed.
		claims = account.AccessClaims{UserID: e.p.UserID, SessionID: e.p.SessionID, ExpiresAt: e.expires}
	} else {
		if ok {
			s.cache.drop(tok)
		}
		var err error
		if claims, err = s.d.Tokens.Verify(tok, now, false); err != nil {
			return account.Principal{}, err
		}
	}
	p, err := s.principal(ctx, claims, now)
	if err != nil {
		if ok {
			s.cache.drop(tok)
		}
		return account.Principal{}, err
	}
	seen := e.seen
	if seen == nil {
		// A token is issued when its session is used (sign-in, refresh).
		seen = s.seenUses.clock(p.SessionID, claims.IssuedAt)
	}
	s.seen(p.SessionID, seen, now)
	s.cache.put(tok, authEntry{p: p, expires: claims.ExpiresAt, checked: now, gen: gen, seen: seen})
	return p, nil
}

// principal checks the session and loads the user's permissions.
func (s *Service) principal(ctx context.Context, c account.AccessClaims, now time.Time) (account.Principal, error) {
	ss, err := s.d.Store.Session(ctx, c.SessionID)
	if domain.ErrorCode(err) == domain.ENOTFOUND {
		return account.Principal{}, badToken
	} else if err != nil {
		return account.Principal{}, err
	}
	if !ss.Active(now) || ss.UserID != c.UserID {
		return account.Principal{}, badToken
	}
	perms, admin, err := s.d.Store.UserAccess(ctx, c.UserID)
	if domain.ErrorCode(err) == domain.ENOTFOUND {
		return account.Principal{}, badToken
	} else if err != nil {
		return account.Principal{}, err
	}
	return account.Principal{UserID: c.UserID, SessionID: c.SessionID, Permissions: perms, SystemAdmin: admin, AuthenticatedAt: ss.AuthenticatedAt}, nil
}
