package sqlrow

import (
	"context"
	"strings"
	"time"

	"counsel/domain"
	"counsel/domain/account"
	"counsel/ports"
)

// API keys (ports.APIKeyStore): the SQL both engines accept.

const apiKeyColumns = `id, user_id, name, permissions, prefix, hash, created_at, expires_at, last_used_at, revoked_at`

func scanAPIKey(tc Times) func(Scanner) (account.APIKey, error) {
	return func(row Scanner) (account.APIKey, error) {
		var k account.APIKey
		var perms string
		err := row.Scan(&k.ID, &k.UserID, &k.Name, &perms, &k.Prefix, &k.Hash, Time(tc, &k.CreatedAt),
			NullTime(tc, &k.ExpiresAt), NullTime(tc, &k.LastUsedAt), NullTime(tc, &k.RevokedAt))
		k.Permissions = parsePermissionNames(perms)
		return k, err
	}
}

// parsePermissionNames reads the stored names; a name no longer known
// grants nothing.
func parsePermissionNames(s string) account.PermissionSet {
	var set account.PermissionSet
	for _, n := range strings.Split(s, ",") {
		if p, ok := account.ParsePermission(n); ok {
			set |= account.NewPermissionSet(p)
		}
	}
	return set
}

// CreateAPIKey implements ports.APIKeyStore.CreateAPIKey inside the
// engine's write transaction, which must keep a second creation for the
// same user from passing the count at the same time (the user's row is
// locked first: lockUser).
func CreateAPIKey(ctx context.Context, x Querier, tc Times, k account.APIKey, max int, lockUser string) (int64, error) {
	if err := Exists(ctx, x, "user", `SELECT 1 FROM users WHERE id = ? AND deleted_at IS NULL`+lockUser, k.UserID); err != nil {
		return 0, err
	}
	var n int
	if err := x.Row(ctx, `SELECT count(*) FROM api_keys WHERE user_id = ? AND revoked_at IS NULL`, k.UserID).Scan(&n); err != nil {
		return 0, err
	}
	if n >= max {
		return 0, domain.Errorf(domain.ECONFLICT, "you have %d API keys, the most one may hold; revoke one first", n)
	}
	id, err := x.Insert(ctx, `INSERT INTO api_keys (user_id, name, permissions, prefix, hash, created_at, expires_at)
		VALUES (?, ?, ?, ?, ?, ?, ?)`, k.UserID, k.Name, strings.Join(k.Permissions.Names(), ","), k.Prefix, k.Hash,
		tc.Arg(k.CreatedAt), NullArg(tc, k.ExpiresAt))
	if err == nil {
		ports.Created(ctx, id)
	}
	return id, err
}

// APIKeys implements ports.APIKeyStore.APIKeys.
func APIKeys(ctx context.Context, x Querier, tc Times, userID int64) ([]account.APIKey, error) {
	return QueryAll(ctx, x, scanAPIKey(tc), `SELECT `+apiKeyColumns+` FROM api_keys
		WHERE user_id = ? AND revoked_at IS NULL ORDER BY created_at DESC, id DESC`, userID)
}

// APIKeyByHash implements ports.APIKeyStore.APIKeyByHash.
func APIKeyByHash(ctx context.Context, x Querier, tc Times, hash []byte) (account.APIKey, error) {
	k, err := scanAPIKey(tc)(x.Row(ctx, `SELECT `+apiKeyColumns+` FROM api_keys WHERE hash = ?`, hash))
	return k, IfNoRows(err, "API key")
}

// RevokeAPIKey implements ports.APIKeyStore.RevokeAPIKey.
func RevokeAPIKey(ctx context.Context, x Querier, tc Times, userID, id int64, at time.Time) error {
	n, err := x.Exec(ctx, `UPDATE api_keys SET revoked_at = ? WHERE id = ? AND user_id = ? AND revoked_at IS NULL`, tc.Arg(at), id, userID)
	if err != nil {
		return err
	}
	if n == 0 {
		return NotFoundID("API key", id)
	}
	return nil
}

// TouchAPIKey implements ports.APIKeyStore.TouchAPIKey: the condition
// keeps several instances to one write a minute.
func TouchAPIKey(ctx context.Context, x Querier, tc Times, id int64, at time.Time) error {
	_, err := x.Exec(ctx, `UPDATE api_keys SET last_used_at = ?
		WHERE id = ? AND (last_used_at IS NULL OR last_used_at <= ?)`, tc.Arg(at), id, tc.Arg(at.Add(-account.APIKeyTouchInterval)))
	return err
}
