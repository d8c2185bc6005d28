package account

import (
	"strings"
	"time"
	"unicode/utf8"

	"counsel/domain"
)

// Passkeys (docs/decisions.md §20): a discoverable WebAuthn credential with
// user verification proves both factors in one gesture.

// PasskeyChallengeTTL is how long a ceremony's challenge may be answered.
const PasskeyChallengeTTL = 5 * time.Minute

// MaxPasskeyName is the longest name a passkey may have, in characters.
const MaxPasskeyName = 100

// Ceremony purposes of a stored challenge: a challenge answers only the
// ceremony it was begun for.
const (
	PasskeyRegister = "register" // adding a passkey to UserID
	PasskeyAssert   = "assert"   // signing in or re-authenticating
)

// PasskeyChallenge is a ceremony begun and not yet finished. It is kept
// server-side (so any instance may finish it) and taken exactly once.
type PasskeyChallenge struct {
	ID        string // the random challengeId handed to the client
	Purpose   string // PasskeyRegister or PasskeyAssert
	UserID    int64  // registration: whose; 0 for an assertion
	Session   []byte // the WebAuthn adapter's ceremony state (the challenge itself)
	ExpiresAt time.Time
}

// Passkey is a registered credential.
type Passkey struct {
	ID           int64
	UserID       int64
	CredentialID []byte
	Name         string
	// Credential is the WebAuthn adapter's record (public key, flags,
	// transports), opaque to the rules.
	Credential []byte
	SignCount  uint32
	CreatedAt  time.Time
	LastUsedAt *time.Time
}

// PasskeyUser is the account a ceremony is for.
type PasskeyUser struct {
	UserID   int64
	Email    string
	Passkeys []Passkey // registered ones, excluded from a new registration
}

// PasskeyAssertion is what a verified assertion proved: which credential
// signed, and the signature counter it reported.
type PasskeyAssertion struct {
	PasskeyID int64
	UserID    int64
	SignCount uint32
}

// NormalizePasskeyName trims a passkey's name and checks it: required, at
// most MaxPasskeyName characters, no control characters.
func NormalizePasskeyName(name string) (string, error) {
	name = strings.TrimSpace(name)
	switch n := utf8.RuneCountInString(name); {
	case n == 0:
		return "", domain.Invalid(map[string][]string{"name": {"name is required"}})
	case n > MaxPasskeyName:
		return "", domain.Invalid(map[string][]string{"name": {"name must be at most 100 characters"}})
	case !utf8.ValidString(name) || strings.IndexFunc(name, func(r rune) bool { return r < 0x20 || r == 0x7f }) >= 0:
		return "", domain.Invalid(map[string][]string{"name": {"name must be one line of text"}})
	}
	return name, nil
}

// SignCountAdvances is the signature-counter rule (WebAuthn §7.2 step 21):
// a counter must grow, unless the authenticator keeps none (both zero). A
// counter that does not grow means the credential may have been cloned.
func SignCountAdvances(stored, got uint32) bool {
	return got > stored || (got == 0 && stored == 0)
}

// PasskeyLogin decides a sign-in (or re-authentication) by passkey once
// the assertion was checked: a locked account fails; a failed assertion
// or an inactive user fails and counts toward the lockout like a wrong
// password; a success resets the counters. The caller then sets
// st.NewSession (or st.Reauthenticated); the emailed code is untouched.
func PasskeyLogin(lock LockoutPolicy, st *LoginState, assertionOK bool, now time.Time) bool {
	c := &st.Credentials
	if now.Before(c.LockedUntil) {
		return false
	}
	if !assertionOK || !c.Active {
		fail(lock, c, now)
		return false
	}
	c.FailedLogins = 0
	c.LockedUntil = time.Time{}
	return true
}

// PasskeyBegin is a ceremony begun: the id to answer it with and the
// options for the browser's navigator.credentials call (JSON).
type PasskeyBegin struct {
	ChallengeID string
	Options     []byte
}
