package ports

import (
	"context"
	"encoding/json"
	"time"

	"counsel/domain/account"
)

// PasskeyCeremony runs the WebAuthn ceremonies (docs/decisions.md §20):
// the options a browser needs, and the verification of what it answers.
// Resident keys and user verification are required; attestation is
// "none". Session is the ceremony's state, kept by the caller until the
// answer comes (account.PasskeyChallenge).
type PasskeyCeremony interface {
	// BeginRegistration returns the creation options for u (u's passkeys
	// excluded) and the ceremony state.
	BeginRegistration(u account.PasskeyUser) (options json.RawMessage, session []byte, err error)
	// FinishRegistration checks an attestation answering session for u and
	// returns the new credential (CredentialID, Credential, SignCount).
	// EINVALID for a body that does not parse or does not verify (wrong
	// challenge, origin or relying party, no user verification).
	FinishRegistration(u account.PasskeyUser, session []byte, credential json.RawMessage) (account.Passkey, error)
	// BeginLogin returns request options for any discoverable credential
	// and the ceremony state.
	BeginLogin() (options json.RawMessage, session []byte, err error)
	// FinishLogin checks an assertion answering session. lookup returns the
	// passkey of a credential id and user handle (ENOTFOUND when none); the
	// assertion is verified against it. EINVALID for a body that does not
	// parse; EUNAUTHORIZED for an assertion that does not verify (the
	// passkey, when lookup found one, is returned with the error);
	// lookup's error as is.
	FinishLogin(session []byte, credential json.RawMessage, lookup func(credentialID, userHandle []byte) (account.Passkey, error)) (account.PasskeyAssertion, *account.Passkey, error)
	// UserHandle is the WebAuthn user handle of a user.
	UserHandle(userID int64) []byte
}

// PasskeyStore keeps passkeys and the challenges of unfinished ceremonies.
type PasskeyStore interface {
	// SaveChallenge stores a challenge, and removes expired ones.
	SaveChallenge(ctx context.Context, c account.PasskeyChallenge, now time.Time) error
	// TakeChallenge removes and returns the challenge id of purpose,
	// atomically: of concurrent takes of one id at most one succeeds.
	// ENOTFOUND when unknown, already taken, of another purpose or expired
	// at now.
	TakeChallenge(ctx context.Context, id, purpose string, now time.Time) (account.PasskeyChallenge, error)
	// AddPasskey stores a new passkey and returns it with its id.
	// ECONFLICT when the credential id is registered already; ENOTFOUND for
	// an unknown or deleted user.
	AddPasskey(ctx context.Context, p account.Passkey) (account.Passkey, error)
	// Passkeys returns a user's passkeys, oldest first.
	Passkeys(ctx context.Context, userID int64) ([]account.Passkey, error)
	// PasskeyByCredentialID returns the passkey of a credential id.
	// ENOTFOUND when none.
	PasskeyByCredentialID(ctx context.Context, credentialID []byte) (account.Passkey, error)
	// RenamePasskey renames one of a user's passkeys. ENOTFOUND when the
	// user has no passkey id.
	RenamePasskey(ctx context.Context, userID, id int64, name string) (account.Passkey, error)
	// RemovePasskey removes one of a user's passkeys. ENOTFOUND when the
	// user has no passkey id.
	RemovePasskey(ctx context.Context, userID, id int64) error
	// RemoveUserPasskeys removes every passkey of a user and returns how
	// many. check (nil: none) runs first in the same transaction, on the
	// roles the user holds there (account.RoleCheck); its refusal is
	// returned as is, nothing removed. ENOTFOUND for an unknown or deleted
	// user.
	RemoveUserPasskeys(ctx context.Context, userID int64, check account.RoleCheck) (int, error)
	// UsePasskey records a use: the counter becomes signCount and
	// last_used_at at, only if signCount advances on the stored counter
	// (account.SignCountAdvances), decided atomically. ECONFLICT when it
	// does not (a replayed or cloned authenticator); ENOTFOUND when the
	// passkey is gone.
	UsePasskey(ctx context.Context, id int64, signCount uint32, at time.Time) error
}

// PasskeyService is passkeys for the API and the console
// (docs/decisions.md §20). The account methods need a signed-in caller
// (EUNAUTHORIZED otherwise); adding needs recent authentication (EREAUTH).
type PasskeyService interface {
	// BeginPasskeyRegistration starts adding a passkey to the caller.
	BeginPasskeyRegistration(ctx context.Context) (account.PasskeyBegin, error)
	// FinishPasskeyRegistration adds the passkey. EINVALID for a missing
	// field, an unknown or expired challenge or an attestation that does
	// not verify; ECONFLICT for a credential registered already.
	FinishPasskeyRegistration(ctx context.Context, challengeID, name string, credential json.RawMessage) (account.Passkey, error)
	// Passkeys lists the caller's passkeys.
	Passkeys(ctx context.Context) ([]account.Passkey, error)
	// RenamePasskey renames one of the caller's. EINVALID, ENOTFOUND.
	RenamePasskey(ctx context.Context, id int64, name string) (account.Passkey, error)
	// RemovePasskey removes one of the caller's (recent authentication
	// needed). ENOTFOUND.
	RemovePasskey(ctx context.Context, id int64) error
	// BeginPasskeyLogin starts a sign-in or re-authentication (public).
	BeginPasskeyLogin(ctx context.Context) (account.PasskeyBegin, error)
	// PasskeyLogin signs in with an assertion and returns tokens.
	// EINVALID for a body that does not parse; EUNAUTHORIZED, with the
	// body of every failed sign-in, for anything else that fails.
	PasskeyLogin(ctx context.Context, challengeID string, credential json.RawMessage) (account.Tokens, error)
	// ConsolePasskeyLogin is PasskeyLogin for the console: it returns the
	// cookie value of a new console session.
	ConsolePasskeyLogin(ctx context.Context, challengeID string, credential json.RawMessage) (string, error)
	// ReauthenticatePasskey renews the caller's session with an assertion
	// of one of the caller's passkeys. EUNAUTHORIZED when it fails
	// (counted toward the lockout).
	ReauthenticatePasskey(ctx context.Context, challengeID string, credential json.RawMessage) (account.Reauthentication, error)
}

// PasskeyRemover removes every passkey of a user: the accounts service,
// for the users module (which adds its rule as check) and the command
// line. ENOTFOUND for an unknown or deleted user.
type PasskeyRemover interface {
	RemoveUserPasskeys(ctx context.Context, userID int64, check account.RoleCheck) error
}
