package ports

import (
	"context"

	"counsel/domain/account"
)

// TOTP makes authenticator-app secrets and codes (RFC 6238, SHA1, six
// digits, 30-second steps) and what an app needs to enrol.
type TOTP interface {
	// NewSecret returns a fresh random secret (160 bits).
	NewSecret() ([]byte, error)
	// Code returns the six-digit code of secret at a time step.
	Code(secret []byte, step int64) string
	// Enrolment returns the base32 secret, the otpauth URL (issuer, and
	// account as the label) and a PNG QR code of that URL.
	Enrolment(secret []byte, accountName string) (account.TOTPEnrolment, error)
}

// TOTPVault keeps authenticator secrets and recovery codes unreadable in
// the database: secrets are sealed (authenticated encryption bound to the
// user) under a key kept apart from them, recovery codes are keyed hashes.
type TOTPVault interface {
	// Seal encrypts a user's secret.
	Seal(userID int64, secret []byte) ([]byte, error)
	// Open decrypts what Seal made for the same user; an error for anything
	// else (another user's secret, altered bytes, another key).
	Open(userID int64, sealed []byte) ([]byte, error)
	// HashRecovery returns the keyed hash of a user's normalized recovery
	// code; equal inputs give equal hashes.
	HashRecovery(userID int64, code string) []byte
}

// TOTPStore keeps authenticator-app enrolments. UpdateTOTP loads the
// state, calls fn, and saves what fn left, in one transaction; an error
// from fn rolls back and is returned as is.
type TOTPStore interface {
	// TOTPKey returns the vault's master key, kept in a table of its own,
	// creating it with create the first time (atomically, so concurrent
	// starts agree).
	TOTPKey(ctx context.Context, create func() ([]byte, error)) ([]byte, error)
	// TOTPAccount returns a user's sign-in data and enrolment (TOTP nil
	// when there is none). ENOTFOUND for an unknown or deleted user.
	TOTPAccount(ctx context.Context, userID int64) (account.TOTPAccount, error)
	// UpdateTOTP changes a user's enrolment (nil removes it) and failure
	// counters, and revokes the user's sessions when fn asks. ENOTFOUND
	// for an unknown or deleted user. check (nil: none) runs before fn in
	// the same transaction, on the roles the user holds there
	// (account.RoleCheck); its refusal is returned as is, nothing written.
	UpdateTOTP(ctx context.Context, userID int64, check account.RoleCheck, fn func(*account.TOTPAccount) error) error
}

// TOTPResetter removes a user's enrolment and revokes the user's sessions
// but keepSession: the accounts service. ENOTFOUND for an unknown or
// deleted user; removing when there is no enrolment is no error. check
// (nil: none) is the caller's rule, run by the store in the transaction
// that removes the enrolment (TOTPStore.UpdateTOTP).
type TOTPResetter interface {
	ResetTOTP(ctx context.Context, userID int64, keepSession string, check account.RoleCheck) error
}

// TOTPService is the caller's own authenticator-app enrolment
// (docs/decisions.md §9). Every method needs a signed-in caller
// (EUNAUTHORIZED otherwise).
type TOTPService interface {
	// TOTPStatus returns the caller's enrolment state.
	TOTPStatus(ctx context.Context) (account.TOTPStatus, error)
	// EnrollTOTP starts an enrolment with a new secret, replacing an
	// unconfirmed one. ECONFLICT while one is confirmed.
	EnrollTOTP(ctx context.Context) (account.TOTPEnrolment, error)
	// ConfirmTOTP turns the pending enrolment on with a current app code
	// and returns the recovery codes, shown this once. EINVALID for a
	// wrong code, ECONFLICT when nothing is pending.
	ConfirmTOTP(ctx context.Context, code string) ([]string, error)
	// DisableTOTP turns the app off with the password and an app or
	// recovery code, and revokes the caller's other sessions. EINVALID
	// for a missing field or a wrong password or code, ECONFLICT when it
	// is not on.
	DisableTOTP(ctx context.Context, password, code string) error
}
