package ports

import (
	"context"
	"time"

	"counsel/domain/account"
)

// APIKeyStore keeps API keys (docs/decisions.md §17): only their SHA-256
// hashes. A revoked key's row stays, so that its hash is still refused.
type APIKeyStore interface {
	// CreateAPIKey stores k (its ID is ignored) and returns its id.
	// ENOTFOUND for an unknown or deleted user; ECONFLICT when the user
	// already has max keys that are not revoked.
	CreateAPIKey(ctx context.Context, k account.APIKey, max int) (int64, error)
	// APIKeys lists a user's keys that are not revoked (expired ones
	// included), newest first. An empty list for an unknown user.
	APIKeys(ctx context.Context, userID int64) ([]account.APIKey, error)
	// APIKeyByHash returns the key of a hash, revoked or not. ENOTFOUND
	// when none has it.
	APIKeyByHash(ctx context.Context, hash []byte) (account.APIKey, error)
	// RevokeAPIKey revokes key id of userID at at. ENOTFOUND when the user
	// has no such key, or it is revoked already. On an engine shared by
	// several instances the commit tells them all (their cached principals
	// are checked again).
	RevokeAPIKey(ctx context.Context, userID, id int64, at time.Time) error
	// TouchAPIKey records a use of key id at at, unless one was recorded
	// within account.APIKeyTouchInterval before (by any instance). No
	// error for an unknown key.
	TouchAPIKey(ctx context.Context, id int64, at time.Time) error
}

// APIKeyService is API keys as their callers see them. Every method
// needs a caller signed in with a session (EUNAUTHORIZED without one;
// EFORBIDDEN, account.ErrAPIKeyAccount, for a caller using a key where
// the account changes).
type APIKeyService interface {
	// CreateAPIKey makes a key for the caller and returns it with the key
	// itself, shown this once. EINVALID for a bad name, permission name or
	// expiry; EFORBIDDEN naming the permissions the caller lacks, or for a
	// key; EREAUTH without recent authentication; ECONFLICT beyond
	// account.MaxAPIKeys keys.
	CreateAPIKey(ctx context.Context, in account.NewAPIKey) (account.APIKey, string, error)
	// MyAPIKeys lists the caller's keys.
	MyAPIKeys(ctx context.Context) ([]account.APIKey, error)
	// RevokeMyAPIKey revokes one of the caller's keys. ENOTFOUND when the
	// caller has no such key; EFORBIDDEN for a key.
	RevokeMyAPIKey(ctx context.Context, id int64) error
	// UserAPIKeys lists another user's keys: UsersEdit, and only a system
	// administrator for a system administrator's (EFORBIDDEN); ENOTFOUND
	// for an unknown user.
	UserAPIKeys(ctx context.Context, userID int64) ([]account.APIKey, error)
	// RevokeUserAPIKey revokes a user's key, with the rules of
	// UserAPIKeys; ENOTFOUND when the user has no such key.
	RevokeUserAPIKey(ctx context.Context, userID, id int64) error
}
