package accounts

import (
	"context"
	"strconv"
	"strings"
	"sync"
	"time"

	"counsel/domain"
	"counsel/domain/account"
	"counsel/domain/audit"
	"counsel/ports"
)

// API keys (docs/decisions.md §17). A key authenticates like an access
// token (Authenticate sees the cnsl_ prefix) and its principal carries
// APIKeyID; every use case that changes the account refuses such a
// principal (account.CheckNotAPIKey), as RequireRecentAuth does first.

var badKey = &domain.Error{Code: domain.EUNAUTHORIZED, Message: "the API key is invalid, expired or revoked"}

// keyRecheck bounds how long a cached key principal is trusted without
// reading the key and its creator again: a change made where no
// notification reaches this process (the command line on SQLite) counts
// within it, inside the 1 second of docs/decisions.md §17.
const keyRecheck = time.Second

// maxKeyLength refuses absurd bearer values before hashing them.
const maxKeyLength = 256

// authenticateKey is Authenticate for an API key.
func (s *Service) authenticateKey(ctx context.Context, key string) (account.Principal, error) {
	now := s.d.Clock.Now()
	gen := s.gen.Load()
	e, ok := s.cache.get(key)
	if ok && now.Before(e.expires) && e.gen == gen && now.Sub(e.checked) < min(s.cfg.SessionRecheck, keyRecheck) {
		s.keyUsed(e.p.APIKeyID, nil, now)
		return e.p, nil
	}
	if ok {
		s.cache.drop(key)
	}
	if s.d.APIKeys == nil || len(key) > maxKeyLength {
		return account.Principal{}, badKey
	}
	k, err := s.d.APIKeys.APIKeyByHash(ctx, account.HashAPIKey(key))
	if domain.ErrorCode(err) == domain.ENOTFOUND {
		return account.Principal{}, badKey
	} else if err != nil {
		return account.Principal{}, err
	}
	if !k.Usable(now) {
		return account.Principal{}, badKey
	}
	perms, admin, err := s.d.Store.UserAccess(ctx, k.UserID) // ENOTFOUND: deactivated or deleted
	if domain.ErrorCode(err) == domain.ENOTFOUND {
		return account.Principal{}, badKey
	} else if err != nil {
		return account.Principal{}, err
	}
	p := k.Principal(perms, admin)
	expires := now.Add(time.Hour)
	if k.ExpiresAt != nil && k.ExpiresAt.Before(expires) {
		expires = *k.ExpiresAt
	}
	s.cache.put(key, authEntry{p: p, expires: expires, checked: now, gen: gen})
	s.keyUsed(k.ID, k.LastUsedAt, now)
	return p, nil
}

// keyUses remembers when this process last recorded each key's use, so
// a request writes nothing unless a minute has passed; the write itself
// runs after the request, and the store's condition keeps instances to
// one a minute between them.
type keyUses struct {
	mu   sync.Mutex
	last map[int64]time.Time
}

// keyUsed records a use of key id at now, off the request's path, when
// neither this process nor the stored lastUsed (nil: not read) has one
// within account.APIKeyTouchInterval.
func (s *Service) keyUsed(id int64, lastUsed *time.Time, now time.Time) {
	u := &s.keyUses
	u.mu.Lock()
	if u.last == nil || len(u.last) >= maxCached {
		u.last = map[int64]time.Time{}
	}
	last, seen := u.last[id]
	if lastUsed != nil && (!seen || lastUsed.After(last)) {
		last, seen = *lastUsed, true
	}
	if seen && now.Sub(last) < account.APIKeyTouchInterval {
		if lastUsed != nil {
			u.last[id] = last
		}
		u.mu.Unlock()
		return
	}
	u.last[id] = now
	u.mu.Unlock()
	s.sending.Add(1)
	go func() {
		defer s.sending.Done()
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := s.d.APIKeys.TouchAPIKey(ctx, id, now); err != nil {
			s.d.Logger.Warn("an API key's last use was not recorded", "key_id", id, "err", err)
		}
	}()
}

// UserRoles finds the roles a user holds (ENOTFOUND for an unknown or
// deleted user): the role store.
type UserRoles interface {
	UserRoles(ctx context.Context, userID int64) ([]account.Role, error)
}

// APIKeys implements ports.APIKeyService over the account service (its
// clock, randomness, recent authentication and principal cache).
type APIKeys struct {
	s     *Service
	store ports.APIKeyStore
	roles UserRoles
}

var _ ports.APIKeyService = (*APIKeys)(nil)

// NewAPIKeys returns the API key use cases. s must have been made with
// Deps.APIKeys set to store.
func NewAPIKeys(s *Service, store ports.APIKeyStore, roles UserRoles) *APIKeys {
	return &APIKeys{s: s, store: store, roles: roles}
}

// CreateAPIKey implements ports.APIKeyService.
func (a *APIKeys) CreateAPIKey(ctx context.Context, in account.NewAPIKey) (account.APIKey, string, error) {
	p, err := a.s.RequireRecentAuth(ctx, "") // refuses a key first
	if err != nil {
		return account.APIKey{}, "", err
	}
	now := a.s.d.Clock.Now().UTC().Truncate(time.Millisecond)
	perms, err := in.Check(p, now)
	if err != nil {
		return account.APIKey{}, "", err
	}
	random, err := a.s.randomToken()
	if err != nil {
		return account.APIKey{}, "", err
	}
	key := account.APIKeyPrefix + random
	k := account.APIKey{UserID: p.UserID, Name: strings.TrimSpace(in.Name), Permissions: perms,
		Prefix: account.APIKeyPrefixOf(key), Hash: account.HashAPIKey(key), CreatedAt: now}
	if in.ExpiresAt != nil {
		t := in.ExpiresAt.UTC().Truncate(time.Millisecond)
		k.ExpiresAt = &t
	}
	ctx, fx := ports.WithEffects(ctx)
	fx.Add(ports.Deferred(func(id int64) (ports.Effect, error) {
		return ports.Audit(ctx, audit.APIKeyCreated, audit.TargetAPIKey, strconv.FormatInt(id, 10),
			map[string]any{"name": k.Name, "permissions": k.Permissions.Names(), "expires": k.ExpiresAt != nil}), nil
	}))
	if k.ID, err = a.store.CreateAPIKey(ctx, k, account.MaxAPIKeys); err != nil {
		return account.APIKey{}, "", err
	}
	return k, key, nil
}

// MyAPIKeys implements ports.APIKeyService.
func (a *APIKeys) MyAPIKeys(ctx context.Context) ([]account.APIKey, error) {
	p, err := caller(ctx)
	if err != nil {
		return nil, err
	}
	return a.store.APIKeys(ctx, p.UserID)
}

// RevokeMyAPIKey implements ports.APIKeyService.
func (a *APIKeys) RevokeMyAPIKey(ctx context.Context, id int64) error {
	p, err := caller(ctx)
	if err != nil {
		return err
	}
	if err := account.CheckNotAPIKey(p); err != nil {
		return err
	}
	return a.revoke(ctx, p.UserID, id)
}

func (a *APIKeys) revoke(ctx context.Context, userID, id int64) error {
	ctx, fx := ports.WithEffects(ctx)
	fx.Add(ports.Audit(ctx, audit.APIKeyRevoked, audit.TargetAPIKey, strconv.FormatInt(id, 10), map[string]any{"userId": userID}))
	if err := a.store.RevokeAPIKey(ctx, userID, id, a.s.d.Clock.Now()); err != nil {
		return err
	}
	return nil
}

// forUser checks the caller may act on userID's keys: UsersEdit, and the
// rule that protects stronger accounts (account.CheckTakeover: only a
// system administrator acts on a system administrator's).
func (a *APIKeys) forUser(ctx context.Context, userID int64) error {
	p, err := account.Require(ctx, account.UsersEdit)
	if err != nil {
		return err
	}
	roles, err := a.roles.UserRoles(ctx, userID)
	if err != nil {
		return err
	}
	return account.CheckTakeover(p, userID, roles)
}

// UserAPIKeys implements ports.APIKeyService.
func (a *APIKeys) UserAPIKeys(ctx context.Context, userID int64) ([]account.APIKey, error) {
	if err := a.forUser(ctx, userID); err != nil {
		return nil, err
	}
	return a.store.APIKeys(ctx, userID)
}

// RevokeUserAPIKey implements ports.APIKeyService.
func (a *APIKeys) RevokeUserAPIKey(ctx context.Context, userID, id int64) error {
	if err := a.forUser(ctx, userID); err != nil {
		return err
	}
	return a.revoke(ctx, userID, id)
}
