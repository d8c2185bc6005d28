package account

import (
	"crypto/sha256"
	"strings"
	"time"
	"unicode/utf8"

	"counsel/domain"
)

// API keys (docs/decisions.md §17): a machine client's bearer credential.
// A key acts as its creator limited to the key's permissions and the
// creator's current ones; it never changes the account. Only the SHA-256
// of a key is stored; the first characters (Prefix) let people recognise
// it in lists.

// APIKeyPrefix starts every key, so a bearer credential is told apart
// from an access token (a JWT) by its first characters.
const APIKeyPrefix = "cnsl_"

// APIKeyRandomBytes is the key's randomness: 256 bits, base64url.
const APIKeyRandomBytes = 32

// apiKeyShownPrefix is how many characters of a key (APIKeyPrefix
// included) are kept in clear for recognition: 5 of 43 random
// characters, 30 bits, too few to help guessing the rest.
const apiKeyShownPrefix = len(APIKeyPrefix) + 5

// apiKeyExpirySlack forgives a client's clock running a little ahead
// when it asks for an expiry exactly one year away.
const apiKeyExpirySlack = time.Minute

// MaxAPIKeys bounds the keys a user holds at once (revoked ones do not
// count), so listing them stays one small page.
const MaxAPIKeys = 100

// MaxAPIKeyName bounds a key's name, in characters.
const MaxAPIKeyName = 100

// APIKeyTouchInterval is the least time between two writes of a key's
// last use.
const APIKeyTouchInterval = time.Minute

// APIKey is a stored key.
type APIKey struct {
	ID          int64
	UserID      int64
	Name        string
	Permissions PermissionSet
	Prefix      string // the key's first characters, for recognition
	Hash        []byte // SHA-256 of the whole key
	CreatedAt   time.Time
	ExpiresAt   *time.Time
	LastUsedAt  *time.Time
	RevokedAt   *time.Time
}

// NewAPIKey is a key as its creator asks for it.
type NewAPIKey struct {
	Name        string
	Permissions []string
	ExpiresAt   *time.Time
}

// IsAPIKey reports whether a bearer credential is an API key rather
// than an access token.
func IsAPIKey(bearer string) bool { return strings.HasPrefix(bearer, APIKeyPrefix) }

// HashAPIKey is the stored form of a key: 256 random bits need no salt
// or slow hash.
func HashAPIKey(key string) []byte {
	h := sha256.Sum256([]byte(key))
	return h[:]
}

// APIKeyPrefixOf is the part of key kept in clear.
func APIKeyPrefixOf(key string) string {
	if len(key) <= apiKeyShownPrefix {
		return key
	}
	return key[:apiKeyShownPrefix]
}

// Usable reports whether the key may authenticate at now: not revoked,
// not expired.
func (k APIKey) Usable(now time.Time) bool {
	return k.RevokedAt == nil && (k.ExpiresAt == nil || now.Before(*k.ExpiresAt))
}

// Principal is the caller a key acts as: its creator, holding the key's
// permissions that the creator still holds (creator and admin are the
// creator's current permissions and system-administrator status). A key
// counts as a system administrator's only when its creator is one and it
// holds every permission, so a narrow key of an administrator cannot
// shape or give guarded roles. It has no session, so it never passes
// CheckRecentAuth.
func (k APIKey) Principal(creator PermissionSet, admin bool) Principal {
	perms := k.Permissions & creator
	return Principal{UserID: k.UserID, APIKeyID: k.ID, Permissions: perms,
		SystemAdmin: admin && perms == AllPermissionSet}
}

// Check validates in against the caller p at now and returns the key's
// permission set: a name of 1 to 100 characters, known permission names
// (EINVALID), an expiry in the future and at most one calendar year ahead
// (EINVALID), and only permissions the caller holds (EFORBIDDEN naming
// the missing ones, the grant rule of docs/decisions.md §12).
func (in NewAPIKey) Check(p Principal, now time.Time) (PermissionSet, error) {
	f := domain.FieldErrors{}
	name := strings.TrimSpace(in.Name)
	switch n := utf8.RuneCountInString(name); {
	case n == 0:
		f.Add("name", "name is required")
	case n > MaxAPIKeyName:
		f.Add("name", "must be at most 100 characters")
	case strings.ContainsFunc(name, func(r rune) bool { return r < 0x20 || r == 0x7f }):
		f.Add("name", "must not contain control characters")
	}
	var set PermissionSet
	var unknown []string
	for _, n := range in.Permissions {
		if perm, ok := ParsePermission(strings.TrimSpace(n)); ok {
			set |= NewPermissionSet(perm)
		} else {
			unknown = append(unknown, n)
		}
	}
	if len(unknown) > 0 {
		f.Add("permissions", "unknown permissions: "+strings.Join(unknown, ", ")+"; accepted: "+strings.Join(AllPermissionSet.Names(), ", "))
	}
	if in.ExpiresAt != nil {
		switch {
		case !in.ExpiresAt.After(now):
			f.Add("expiresAt", "must be in the future")
		case in.ExpiresAt.After(now.AddDate(1, 0, 0).Add(apiKeyExpirySlack)):
			f.Add("expiresAt", "must be at most one year ahead")
		}
	}
	if err := f.Err(); err != nil {
		return 0, err
	}
	if missing := set &^ p.Permissions; missing != 0 {
		return 0, domain.Errorf(domain.EFORBIDDEN, "the key would hold permissions you do not hold: %s", strings.Join(missing.Names(), ", "))
	}
	return set, nil
}

// ErrAPIKeyAccount refuses an API key on a route that changes the
// account (password, authenticator app, passkeys, API keys, sessions,
// sign-out, re-authentication).
var ErrAPIKeyAccount = &domain.Error{Code: domain.EFORBIDDEN,
	Message: "an API key cannot change the account (password, authenticator app, passkeys, API keys, sessions, sign-out); sign in instead"}

// CheckNotAPIKey refuses a caller who authenticated with an API key
// (ErrAPIKeyAccount). Every use case that changes the caller's account
// calls it, as its route does.
func CheckNotAPIKey(p Principal) error {
	if p.ViaAPIKey() {
		return ErrAPIKeyAccount
	}
	return nil
}
