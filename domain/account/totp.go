package account

import (
	"crypto/subtle"
	"strings"
	"time"
)

// Authenticator-app parameters (docs/decisions.md §9): RFC 6238 with SHA1,
// six digits and 30-second steps, the defaults every common app assumes.
const (
	TOTPPeriod         = 30 * time.Second
	TOTPDigits         = 6
	TOTPSkew           = 1 // steps of drift accepted either way
	RecoveryCodeCount  = 10
	RecoveryCodeLength = 10
)

// TOTP is a user's authenticator-app enrolment as stored. The secret is
// sealed by the vault; recovery codes are kept as keyed hashes, and a used
// one is removed.
type TOTP struct {
	SealedSecret []byte
	CreatedAt    time.Time
	ConfirmedAt  *time.Time // nil: enrolled but not confirmed yet
	// LastStep is the time step of the last accepted app code; codes of
	// that step or an earlier one are refused (replay).
	LastStep int64
	// Recovery holds the hashes of the unused recovery codes.
	Recovery [][]byte
}

// Enabled reports whether the enrolment was confirmed, so the app is the
// user's second factor.
func (t *TOTP) Enabled() bool { return t != nil && t.ConfirmedAt != nil }

// TOTPStep returns the RFC 6238 time step of now.
func TOTPStep(now time.Time) int64 { return now.Unix() / int64(TOTPPeriod/time.Second) }

// TOTPAttempt is a submitted second factor, prepared by the caller: the
// domain does no cryptography, so it gets the app code of any step and the
// keyed hash of the input read as a recovery code.
type TOTPAttempt struct {
	Code string
	// CodeAt returns the app's code for a time step.
	CodeAt func(step int64) string
	// RecoveryHash is the keyed hash of the input normalized as a recovery
	// code; nil when the input cannot be one.
	RecoveryHash []byte
}

// TOTPMatch is what an accepted second factor used: an app code's step, or
// the index of a recovery code in TOTP.Recovery.
type TOTPMatch struct {
	Step     int64
	Recovery bool
	Index    int
}

// Match decides whether a is a valid second factor at now: an app code of
// a step within TOTPSkew of now's step and after LastStep, or an unused
// recovery code. It changes nothing; Use records the match once the whole
// request succeeds.
func (t *TOTP) Match(a TOTPAttempt, now time.Time) (TOTPMatch, bool) {
	if t == nil {
		return TOTPMatch{}, false
	}
	if IsAppCode(a.Code) && a.CodeAt != nil {
		cur := TOTPStep(now)
		// Every step of the window is computed and compared, so the time
		// taken does not tell which step (if any) matched.
		found, step := 0, int64(0)
		for s := cur - TOTPSkew; s <= cur+TOTPSkew; s++ {
			if subtle.ConstantTimeCompare([]byte(a.CodeAt(s)), []byte(a.Code)) == 1 && s > t.LastStep && found == 0 {
				found, step = 1, s
			}
		}
		if found == 1 {
			return TOTPMatch{Step: step}, true
		}
		return TOTPMatch{}, false
	}
	if len(a.RecoveryHash) == 0 {
		return TOTPMatch{}, false
	}
	idx := -1
	for i, h := range t.Recovery {
		if subtle.ConstantTimeCompare(h, a.RecoveryHash) == 1 && idx < 0 {
			idx = i
		}
	}
	if idx < 0 {
		return TOTPMatch{}, false
	}
	return TOTPMatch{Recovery: true, Index: idx}, true
}

// Use records an accepted match: the step becomes the last used one, or
// the recovery code is spent.
func (t *TOTP) Use(m TOTPMatch) {
	if m.Recovery {
		if m.Index >= 0 && m.Index < len(t.Recovery) {
			t.Recovery = append(t.Recovery[:m.Index:m.Index], t.Recovery[m.Index+1:]...)
		}
		return
	}
	if m.Step > t.LastStep {
		t.LastStep = m.Step
	}
}

// Confirm turns a pending enrolment on when a is an app code of the
// pending secret (a recovery code cannot confirm: there are none yet). The
// confirming code's step counts as used. recovery are the hashes of the
// new recovery codes.
func (t *TOTP) Confirm(a TOTPAttempt, recovery [][]byte, now time.Time) bool {
	if t == nil || t.ConfirmedAt != nil {
		return false
	}
	a.RecoveryHash = nil
	m, ok := t.Match(a, now)
	if !ok {
		return false
	}
	t.Use(m)
	at := now
	t.ConfirmedAt = &at
	t.Recovery = recovery
	return true
}

// IsAppCode reports whether s has the shape of an app code: six ASCII
// digits.
func IsAppCode(s string) bool {
	if len(s) != TOTPDigits {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// recoveryAlphabet is lower-case Crockford base32: no i, l, o or u, so a
// code read aloud or copied by hand is not misread.
const recoveryAlphabet = "0123456789abcdefghjkmnpqrstvwxyz"

// NewRecoveryCode turns RecoveryCodeLength random bytes into a code of
// RecoveryCodeLength characters (5 bits each: 50 bits).
func NewRecoveryCode(random []byte) string {
	b := make([]byte, RecoveryCodeLength)
	for i := range b {
		b[i] = recoveryAlphabet[random[i]&31]
	}
	return string(b)
}

// NormalizeRecoveryCode reads s as a recovery code: case, spaces and
// hyphens are ignored, and the letters Crockford base32 leaves out are
// read as the digits they look like (i and l as 1, o as 0). It reports
// false when s cannot be a recovery code.
func NormalizeRecoveryCode(s string) (string, bool) {
	if len(s) > 4*RecoveryCodeLength {
		return "", false
	}
	var b strings.Builder
	for _, c := range strings.ToLower(s) {
		switch {
		case c == ' ' || c == '-' || c == '\t':
			continue
		case c == 'i' || c == 'l':
			c = '1'
		case c == 'o':
			c = '0'
		}
		if c > 127 || !strings.ContainsRune(recoveryAlphabet, c) {
			return "", false
		}
		b.WriteRune(c)
	}
	if b.Len() != RecoveryCodeLength {
		return "", false
	}
	return b.String(), true
}

// TOTPStatus is what a user sees of their enrolment.
type TOTPStatus struct {
	Enabled           bool
	ConfirmedAt       *time.Time
	RecoveryCodesLeft int
}

// Status returns the visible state of t (nil: not enrolled).
func (t *TOTP) Status() TOTPStatus {
	if !t.Enabled() {
		return TOTPStatus{}
	}
	return TOTPStatus{Enabled: true, ConfirmedAt: t.ConfirmedAt, RecoveryCodesLeft: len(t.Recovery)}
}

// TOTPEnrolment is a new pending enrolment as shown once to its user.
type TOTPEnrolment struct {
	Secret     string // base32, for typing into the app
	OTPAuthURL string
	QRCodePNG  []byte
}

// TOTPAccount is a user's sign-in data (for the password, activity and
// lockout) and enrolment (nil when none), as one change reads and changes
// them in one transaction; setting TOTP to nil removes the enrolment.
type TOTPAccount struct {
	Credentials Credentials
	TOTP        *TOTP
	// RevokeSessions revokes every session of the user except KeepSession.
	RevokeSessions bool
	KeepSession    string
}

// Disable decides turning TOTP off: the password and a current app code
// or unused recovery code are both needed, the account must not be locked,
// and a failure counts toward the lockout like a failed sign-in. On
// success the enrolment is removed and the user's other sessions are
// revoked.
func Disable(lock LockoutPolicy, st *TOTPAccount, passwordOK bool, a TOTPAttempt, keepSession string, now time.Time) bool {
	c := &st.Credentials
	if now.Before(c.LockedUntil) {
		return false
	}
	_, codeOK := st.TOTP.Match(a, now)
	if !codeOK || !passwordOK || !st.TOTP.Enabled() {
		fail(lock, c, now)
		return false
	}
	c.FailedLogins = 0
	c.LockedUntil = time.Time{}
	st.TOTP = nil
	st.RevokeSessions, st.KeepSession = true, keepSession
	return true
}

// fail counts a failed attempt and locks the account at the threshold.
func fail(lock LockoutPolicy, c *Credentials, now time.Time) {
	c.FailedLogins++
	if lock.Threshold > 0 && c.FailedLogins >= lock.Threshold {
		c.LockedUntil = now.Add(lock.Duration)
		c.FailedLogins = 0
	}
}
