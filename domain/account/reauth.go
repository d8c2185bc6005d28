package account

import (
	"time"

	"counsel/domain"
)

// Recent authentication (docs/security.md, "Recent authentication"): a stolen access
// token or console cookie must not be enough to change how the account
// signs in. Every use case that changes a factor (the caller's own
// password, authenticator app, passkeys, API keys) first asks
// CheckRecentAuth whether the caller's session signed in or
// re-authenticated within the window.

// DefaultReauthWindow is how long a sign-in or re-authentication lets a
// session change the account's factors.
const DefaultReauthWindow = 10 * time.Minute

// ErrReauthRequired is the refusal of a factor change from a session that
// has not authenticated recently (EREAUTH: 403 with its own problem type).
var ErrReauthRequired = &domain.Error{Code: domain.EREAUTH,
	Message: "confirm it's you: sign in again or re-authenticate (password and second factor) before changing how you sign in"}

// CheckRecentAuth refuses with ErrReauthRequired unless authenticatedAt
// (when the session last signed in or re-authenticated) lies within
// window of now. A zero authenticatedAt is never recent.
func CheckRecentAuth(authenticatedAt, now time.Time, window time.Duration) error {
	if authenticatedAt.IsZero() || now.Sub(authenticatedAt) >= window || authenticatedAt.After(now.Add(time.Minute)) {
		return ErrReauthRequired
	}
	return nil
}

// CheckNotSelf refuses an administrator's route aimed at the caller's own
// account when an account route exists for it: removing one's own second
// factor or passkeys goes through the account routes, which require the
// password, a code and recent authentication (EFORBIDDEN).
func CheckNotSelf(p Principal, targetID int64, what string) error {
	if targetID == p.UserID {
		return domain.Errorf(domain.EFORBIDDEN, "you cannot %s of your own account here; use your account's routes", what)
	}
	return nil
}

// CheckPassword decides a password-only proof of an already signed-in
// caller (a password change's current password): a wrong password, an
// inactive user or a locked account fails and counts toward the lockout
// like a failed sign-in. A success leaves the failure count alone, since
// it proved only one factor.
func CheckPassword(lock LockoutPolicy, c *Credentials, passwordOK bool, now time.Time) bool {
	if now.Before(c.LockedUntil) {
		return false
	}
	if !passwordOK || !c.Active {
		fail(lock, c, now)
		return false
	}
	return true
}

// Reauthentication is the answer to a successful re-authentication: when
// the session authenticated, and until when it may change factors.
type Reauthentication struct {
	AuthenticatedAt time.Time
	ValidUntil      time.Time
}
