package account

import (
	"crypto/subtle"
	"strings"
	"time"
	"unicode/utf8"

	"counsel/domain"
)

// Password length bounds (docs/decisions.md §2).
const (
	MinPasswordLength = 8
	MaxPasswordLength = 128
)

// ValidatePassword checks the password policy. The field name is used in
// the EINVALID error.
func ValidatePassword(field, pw string) error {
	n := utf8.RuneCountInString(pw)
	switch {
	case pw == "":
		return domain.Invalid(map[string][]string{field: {field + " is required"}})
	case n < MinPasswordLength || n > MaxPasswordLength:
		return domain.Invalid(map[string][]string{field: {"must be 8 to 128 characters"}})
	}
	return nil
}

// NormalizeEmail trims and lower-cases an email address so lookups do not
// depend on how a user typed it.
func NormalizeEmail(email string) string { return strings.ToLower(strings.TrimSpace(email)) }

// ValidEmail is a deliberately loose check: one @ with text on both sides
// and no spaces. Real validation is a delivered message.
func ValidEmail(email string) bool {
	at := strings.IndexByte(email, '@')
	return at > 0 && at < len(email)-1 && strings.Count(email, "@") == 1 &&
		!strings.ContainsAny(email, " \t\r\n") && len(email) <= 254
}

// Credentials is what sign-in needs to know about a user.
type Credentials struct {
	UserID       int64
	Email        string
	PasswordHash string
	Active       bool
	FailedLogins int
	LockedUntil  time.Time
	// TOTPEnabled is true when the user's second factor is an
	// authenticator app rather than an emailed code.
	TOTPEnabled bool
}

// OTPPolicy holds the one-time-password limits. A zero limit is off.
type OTPPolicy struct {
	TTL            time.Duration // how long a code is valid
	ResendInterval time.Duration // least time between two codes for one email
	HourlyLimit    int           // most codes per email per hour
	MaxAttempts    int           // wrong tries that void a code
}

// OTPState is the stored state of an email's one-time password. The code
// itself is never kept: only a keyed hash of it.
type OTPState struct {
	CodeHash  []byte
	ExpiresAt time.Time
	Attempts  int
	// Sends are the times codes were issued within the last hour.
	Sends []time.Time
}

// Issue replaces the state's code with codeHash, or refuses with
// ERATELIMITED (and RetryAfter) when the email asked too often.
func (p OTPPolicy) Issue(st *OTPState, codeHash []byte, now time.Time) error {
	recent := st.Sends[:0:0]
	for _, t := range st.Sends {
		if now.Sub(t) < time.Hour {
			recent = append(recent, t)
		}
	}
	st.Sends = recent
	if n := len(recent); n > 0 && p.ResendInterval > 0 {
		if wait := recent[n-1].Add(p.ResendInterval).Sub(now); wait > 0 {
			return rateLimited(wait)
		}
	}
	if p.HourlyLimit > 0 && len(recent) >= p.HourlyLimit {
		oldest := recent[len(recent)-p.HourlyLimit]
		return rateLimited(oldest.Add(time.Hour).Sub(now))
	}
	st.CodeHash = codeHash
	st.ExpiresAt = now.Add(p.TTL)
	st.Attempts = 0
	st.Sends = append(st.Sends, now)
	return nil
}

func rateLimited(wait time.Duration) error {
	if wait < time.Second {
		wait = time.Second
	}
	return &domain.Error{Code: domain.ERATELIMITED, Message: "too many one-time passwords requested; try again later", RetryAfter: wait}
}

// Check compares codeHash with the current code in constant time. A wrong
// code counts a try and voids the code after MaxAttempts; a right one is
// left in place for the caller to consume once the whole sign-in succeeds.
func (p OTPPolicy) Check(st *OTPState, codeHash []byte, now time.Time) bool {
	if len(st.CodeHash) == 0 || !now.Before(st.ExpiresAt) {
		return false
	}
	if subtle.ConstantTimeCompare(st.CodeHash, codeHash) == 1 {
		return true
	}
	st.Attempts++
	if p.MaxAttempts > 0 && st.Attempts >= p.MaxAttempts {
		st.CodeHash = nil
	}
	return false
}

// Consume makes the current code unusable.
func (st *OTPState) Consume() { st.CodeHash = nil; st.Attempts = 0 }

// LockoutPolicy locks an account after consecutive failed sign-ins.
// A zero Threshold turns it off.
type LockoutPolicy struct {
	Threshold int
	Duration  time.Duration
}

// LoginState is what one sign-in attempt reads and changes, in one
// transaction: the user's failure counters and the email's OTP.
type LoginState struct {
	Credentials Credentials
	OTP         OTPState
	// TOTP is the user's confirmed enrolment, nil when the second factor
	// is the emailed code.
	TOTP *TOTP
	// NewSession and RefreshHash are set by the caller after Login
	// succeeds; the store creates the session in the same transaction.
	NewSession  *Session
	RefreshHash []byte
	// Reauthenticated, set by the caller after Login succeeds for a
	// re-authentication, is the session whose AuthenticatedAt the store
	// sets to ReauthenticatedAt in the same transaction.
	Reauthenticated   string
	ReauthenticatedAt time.Time
}

// LoginInput is the part of a sign-in attempt checked outside the
// transaction: the password hash comparison and the submitted code's hash.
type LoginInput struct {
	PasswordOK bool
	OTPHash    []byte
	// TOTP is the submitted code read as an app code or recovery code; the
	// caller fills it in when st.TOTP is set.
	TOTP TOTPAttempt
}

// Login decides a sign-in attempt. The second factor is the emailed code,
// or, when st.TOTP is set, an app code or recovery code (docs/decisions.md §9).
// On failure it updates the counters (and locks the account at the
// threshold) and returns false; the caller answers the same 401 whatever
// the reason. On success it consumes the code (the OTP, the app code's
// step or the recovery code), resets the counters and returns true; the
// caller then sets st.NewSession.
func Login(otp OTPPolicy, lock LockoutPolicy, st *LoginState, in LoginInput, now time.Time) bool {
	c := &st.Credentials
	if now.Before(c.LockedUntil) {
		return false
	}
	var codeOK bool
	var m TOTPMatch
	if st.TOTP.Enabled() {
		m, codeOK = st.TOTP.Match(in.TOTP, now)
	} else {
		codeOK = otp.Check(&st.OTP, in.OTPHash, now)
	}
	if !codeOK || !in.PasswordOK || !c.Active {
		fail(lock, c, now)
		return false
	}
	if st.TOTP.Enabled() {
		st.TOTP.Use(m)
	} else {
		st.OTP.Consume()
	}
	c.FailedLogins = 0
	c.LockedUntil = time.Time{}
	return true
}

// Sign-in methods recorded on a session and in security events
// (docs/decisions.md §18); the values are part of the API.
const (
	// MethodPassword is a password and an emailed one-time code.
	MethodPassword = "password"
	// MethodAuthenticator is a password and an authenticator app's code.
	MethodAuthenticator = "authenticator"
	// MethodRecoveryCode is a password and an authenticator recovery code.
	MethodRecoveryCode = "recoveryCode"
	// MethodIdP is the firm's identity provider.
	MethodIdP = "idp"
	// MethodPasskey is a passkey (WebAuthn) with user verification.
	MethodPasskey = "passkey"
)

// Session kinds: an API session is carried by access and refresh tokens, a
// console session by a browser cookie.
const (
	SessionAPI     = "api"
	SessionConsole = "console"
)

// Session is one sign-in: the access tokens of a session stop working the
// moment it is revoked, and its refresh token rotates on every use. A
// console session has no tokens; its cookie's hash is TokenHash and it
// also ends when idle (LastSeen).
type Session struct {
	ID        string
	UserID    int64
	Method    string
	CreatedAt time.Time
	ExpiresAt time.Time // absolute end, from sign-in
	RevokedAt *time.Time
	Kind      string // SessionAPI ("" counts as API) or SessionConsole
	TokenHash []byte // console only: SHA-256 of the cookie value
	LastSeen  time.Time
	// AuthenticatedAt is when the session last proved both factors: its
	// sign-in, or the latest re-authentication.
	AuthenticatedAt time.Time
	// IP and UserAgent are the client's at sign-in (empty outside a
	// request).
	IP        string
	UserAgent string
}

// Active reports whether the session may still be used at now.
func (s Session) Active(now time.Time) bool {
	return s.RevokedAt == nil && now.Before(s.ExpiresAt)
}

// ConsoleActive reports whether a console session may still be used at
// now: active, of the console kind, and seen within idle (0: no idle
// timeout).
func (s Session) ConsoleActive(now time.Time, idle time.Duration) bool {
	return s.Kind == SessionConsole && s.Active(now) && (idle <= 0 || now.Sub(s.LastSeen) < idle)
}

// RefreshState is what one refresh reads and changes in one transaction.
type RefreshState struct {
	Session Session
	// Used is true when the presented refresh token was already rotated.
	Used bool
	// UserActive is false when the user was deactivated or deleted.
	UserActive bool
	// Set by Refresh: the replacement token's hash, or Revoke on reuse.
	NewTokenHash []byte
	Revoke       bool
}

// AccessClaims are the claims of an access token that Counsel relies on.
type AccessClaims struct {
	UserID    int64
	SessionID string
	ID        string // jti
	IssuedAt  time.Time
	ExpiresAt time.Time
}

// Rotation is a refresh as presented: the refresh token, the subject and
// session of the access token presented with it, the replacement token
// and the time.
type Rotation struct {
	TokenHash    []byte
	NewTokenHash []byte
	UserID       int64
	SessionID    string
	Now          time.Time
}

// Rotates reports whether a refresh in state st replaces its token: the
// token is current, its session active, its user active, and session and
// user are the access token's. Refresh rotates in exactly these states
// and writes nothing else when it rotates, so a store may first try the
// rotation as one write conditional on them (and call Refresh after).
func (r Rotation) Rotates(st *RefreshState) bool {
	return !st.Used && st.UserActive && st.Session.Active(r.Now) &&
		st.Session.UserID == r.UserID && st.Session.ID == r.SessionID
}

// Refresh decides refresh r in state st: the presented token must be
// current, its session active, and the access token's subject and session
// must match. Reuse of a rotated token revokes the whole session. It
// returns false when the answer is 401.
func Refresh(st *RefreshState, r Rotation) bool {
	if st.Used && st.Session.RevokedAt == nil {
		st.Revoke = true
	}
	if !r.Rotates(st) {
		return false
	}
	st.NewTokenHash = r.NewTokenHash
	return true
}

// Tokens is the result of a sign-in or a refresh.
type Tokens struct {
	UserID       int64
	AccessToken  string
	RefreshToken string
}

// OTPResult is the answer to a one-time-password request. OTP is empty
// unless the delivery mode returns codes in the response.
type OTPResult struct {
	Email  string
	OTP    string
	Status bool
}

// NewUser is a user created by the bootstrap or the command line.
type NewUser struct {
	Email        string
	FirstName    string
	LastName     string
	PasswordHash string
	Roles        []string // role names; empty gives the default roles
}

// SigningKey is a key the token issuer signs access tokens with. Retired
// keys stay published until the tokens they signed have expired.
type SigningKey struct {
	ID         string // kid
	PrivateKey []byte // Ed25519 seed
	CreatedAt  time.Time
	RetiredAt  *time.Time
}

// RoleInput is a role to create or the new values of one.
type RoleInput struct {
	Name          string
	IsSystemAdmin bool
	IsDefaultRole bool
}

// RolePatch is a change to a role: nil fields keep their value.
type RolePatch struct {
	Name          *string
	IsSystemAdmin *bool
	IsDefaultRole *bool
}

// Apply returns r's input with the patch applied.
func (p RolePatch) Apply(r Role) RoleInput {
	in := RoleInput{Name: r.Name, IsSystemAdmin: r.IsSystemAdmin, IsDefaultRole: r.IsDefaultRole}
	if p.Name != nil {
		in.Name = *p.Name
	}
	if p.IsSystemAdmin != nil {
		in.IsSystemAdmin = *p.IsSystemAdmin
	}
	if p.IsDefaultRole != nil {
		in.IsDefaultRole = *p.IsDefaultRole
	}
	return in
}

// Validate checks a role's fields.
func (r RoleInput) Validate() error {
	f := domain.FieldErrors{}
	if n := strings.TrimSpace(r.Name); n == "" {
		f.Add("name", "name is required")
	} else if utf8.RuneCountInString(n) > 100 {
		f.Add("name", "name must be at most 100 characters")
	}
	return f.Err()
}

// SessionSeen is a session's use at At, for its last-seen time.
type SessionSeen struct {
	ID string
	At time.Time
}

// MaxUserAgent is the most of a user agent a session or an event keeps.
const MaxUserAgent = 512

// CutUserAgent keeps at most MaxUserAgent bytes of a user agent, valid
// UTF-8 without control characters (it is shown in pages and exports).
func CutUserAgent(ua string) string {
	ua = strings.ToValidUTF8(ua, "")
	ua = strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) {
			return -1
		}
		return r
	}, ua)
	if len(ua) > MaxUserAgent {
		ua = ua[:MaxUserAgent]
		for !utf8.ValidString(ua) {
			ua = ua[:len(ua)-1]
		}
	}
	return ua
}
