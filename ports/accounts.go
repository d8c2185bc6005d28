package ports

import (
	"context"
	"time"

	"counsel/domain/account"
)

// Clock tells the time. Tests use a fake one.
type Clock interface {
	Now() time.Time
}

// PasswordHasher hashes and checks passwords with a memory-hard function.
type PasswordHasher interface {
	// Hash returns an encoded hash (PHC string). ERATELIMITED when too many
	// hashes are already waiting.
	Hash(ctx context.Context, password string) (string, error)
	// Verify reports whether password matches encoded. An empty encoded
	// value burns the same time and returns false, so unknown accounts
	// cannot be told apart by timing. ERATELIMITED as for Hash.
	Verify(ctx context.Context, password, encoded string) (bool, error)
}

// TokenIssuer signs and verifies access tokens.
type TokenIssuer interface {
	// Issue signs an access token for c with the current key.
	Issue(ctx context.Context, c account.AccessClaims) (string, error)
	// Verify checks signature, type, issuer and, unless ignoreExpiry, the
	// expiry at now. EUNAUTHORIZED for any token that does not verify.
	Verify(token string, now time.Time, ignoreExpiry bool) (account.AccessClaims, error)
	// JWKS returns the public key set as JSON.
	JWKS() []byte
}

// OTPCodes makes one-time passwords and their keyed hashes.
type OTPCodes interface {
	// Generate returns a fresh 6-digit code.
	Generate() (string, error)
	// Hash returns a keyed hash of code for email; equal inputs give
	// equal hashes, so stored hashes can be compared.
	Hash(email, code string) []byte
}

// OTPSender delivers a one-time password to its owner (log or email).
type OTPSender interface {
	SendOTP(ctx context.Context, email, code string) error
}

// Mailer sends a plain-text email.
type Mailer interface {
	Send(ctx context.Context, to, subject, body string) error
}

// AccountStore keeps credentials, one-time passwords, sessions and keys.
// Methods taking fn load the state, call fn, and save what fn left, all in
// one transaction; an error from fn rolls back and is returned as is.
type AccountStore interface {
	// CredentialsByEmail returns sign-in data. ENOTFOUND if no user has the
	// email or the user is deleted.
	CredentialsByEmail(ctx context.Context, email string) (account.Credentials, error)
	// UpdateOTP changes the one-time-password state of email.
	UpdateOTP(ctx context.Context, email string, fn func(*account.OTPState) error) error
	// Login changes the user's failure counters and the email's OTP and,
	// when fn sets NewSession, creates that session with RefreshHash.
	// ENOTFOUND if the user vanished.
	Login(ctx context.Context, userID int64, email string, fn func(*account.LoginState) error) error
	// CreateSession records a session and its first refresh-token hash.
	CreateSession(ctx context.Context, s account.Session, refreshHash []byte) error
	// Refresh loads the session of the refresh-token hash r.TokenHash;
	// when fn sets NewTokenHash the token is marked used and the new one
	// stored; when fn sets Revoke the session is revoked. ENOTFOUND for an
	// unknown hash. When r.NewTokenHash is set, fn is account.Refresh of r
	// (with whatever the caller records), so a store may first write the
	// rotation conditional on r.Rotates, then call fn on the state it read,
	// and undo the write if fn fails or decides otherwise (a refresh of the
	// same token in between then sees it used). fn may be called more than
	// once: the last call's decision counts.
	Refresh(ctx context.Context, r account.Rotation, fn func(*account.RefreshState) error) error
	// SessionByRefreshHash returns the session a refresh token (current or
	// used) belongs to. ENOTFOUND for an unknown hash.
	SessionByRefreshHash(ctx context.Context, tokenHash []byte) (account.Session, error)
	// Session returns a session by id. ENOTFOUND if unknown.
	Session(ctx context.Context, id string) (account.Session, error)
	// ConsoleSession returns the console session whose cookie hashes to
	// tokenHash. ENOTFOUND if unknown.
	ConsoleSession(ctx context.Context, tokenHash []byte) (account.Session, error)
	// TouchSession records that a session was used at at.
	TouchSession(ctx context.Context, id string, at time.Time) error
	// RevokeSession revokes one session (no error if already revoked).
	RevokeSession(ctx context.Context, id string, at time.Time) error
	// RevokeUserSessions revokes every session of a user.
	RevokeUserSessions(ctx context.Context, userID int64, at time.Time) error
	// UserSessions returns the live (unrevoked, unexpired at now)
	// sessions of a user of every kind, newest first, with LastSeen (the
	// creation time until a use was recorded).
	UserSessions(ctx context.Context, userID int64, now time.Time) ([]account.Session, error)
	// RevokeUserSession revokes session id of userID. ENOTFOUND when it is
	// not a live session of that user.
	RevokeUserSession(ctx context.Context, userID int64, id string, at time.Time) error
	// RevokeOtherSessions revokes every session of userID but keep and
	// returns how many it revoked.
	RevokeOtherSessions(ctx context.Context, userID int64, keep string, at time.Time) (int64, error)
	// KnownDevice reports whether the user signed in from d's agent family
	// and from d's network at or after since, and whether any device is
	// recorded for the user at all (DeviceSeen effects write them).
	KnownDevice(ctx context.Context, userID int64, d account.Device, since time.Time) (agent, network, any bool, err error)
	// SeeSessions records when sessions were used, in one transaction: a
	// session's last-seen time moves only when the stored one is older
	// than every before the new one (so several instances write a session
	// at most once per every), and never for a revoked session.
	SeeSessions(ctx context.Context, seen []account.SessionSeen, every time.Duration) error
	// UserAccess returns what an active, undeleted user may do:
	// account.Access of their roles (the permissions, and whether one is a
	// system-admin role). ENOTFOUND if the user is unknown, deleted or
	// inactive.
	UserAccess(ctx context.Context, userID int64) (account.PermissionSet, bool, error)
	// SigningKeys returns every signing key, newest first.
	SigningKeys(ctx context.Context) ([]account.SigningKey, error)
	// AddSigningKey stores a new key.
	AddSigningKey(ctx context.Context, k account.SigningKey) error
	// EnsureSigningKey stores k only when there is no signing key yet,
	// atomically: of several instances starting together on an empty
	// database, exactly one stores its key and every other then reads it.
	EnsureSigningKey(ctx context.Context, k account.SigningKey) error
	// Secret returns the named server secret, creating it with create the
	// first time (atomically, so concurrent starts agree).
	Secret(ctx context.Context, name string, create func() ([]byte, error)) ([]byte, error)
	// HasUsers reports whether any user exists (deleted ones included).
	HasUsers(ctx context.Context) (bool, error)
	// Bootstrap creates the built-in roles (account.BuiltinRoles) when no
	// role exists and admin, with the Administrator role, when no user
	// exists. It reports whether it created
	// the administrator.
	Bootstrap(ctx context.Context, admin account.NewUser) (bool, error)
	// SetPassword replaces a user's password hash and revokes the user's
	// sessions. ENOTFOUND if unknown or deleted. check (nil: none) runs
	// first in the same transaction, on the roles the user holds there
	// (account.RoleCheck); its refusal is returned as is, nothing written.
	SetPassword(ctx context.Context, userID int64, hash string, at time.Time, check account.RoleCheck) error
}

// RoleStore keeps roles, their permissions and the users holding them.
// The methods that change who holds what take the use case's rules and
// run them inside their transaction, on the state read there: check (or
// fn) sees the role as it is before the change, and keep sees the number
// of active system administrators before and after it
// (account.KeepAnAdmin). An error from either rolls the change back and
// is returned as is; a nil check or keep checks nothing.
type RoleStore interface {
	// Roles returns every role ordered by name.
	Roles(ctx context.Context) ([]account.Role, error)
	// Role returns a role. ENOTFOUND if unknown.
	Role(ctx context.Context, id int64) (account.Role, error)
	// CreateRole adds a role. ECONFLICT for a taken name.
	CreateRole(ctx context.Context, in account.RoleInput) (account.Role, error)
	// UpdateRole loads a role, saves what fn makes of it, and runs keep.
	// ENOTFOUND; ECONFLICT for a taken name.
	UpdateRole(ctx context.Context, id int64, fn func(cur account.Role) (account.RoleInput, error), keep account.AdminRule) (account.Role, error)
	// DeleteRole loads a role, runs check on it, removes it and runs keep.
	// ENOTFOUND.
	DeleteRole(ctx context.Context, id int64, check func(cur account.Role) error, keep account.AdminRule) error
	// SetRolePermissions loads a role and replaces its permissions with
	// those fn returns. ENOTFOUND.
	SetRolePermissions(ctx context.Context, id int64, fn func(cur account.Role) (account.PermissionSet, error)) (account.Role, error)
	// UserRoles returns a user's roles. ENOTFOUND for an unknown or deleted user.
	UserRoles(ctx context.Context, userID int64) ([]account.Role, error)
	// AddUserRole loads a role, runs check on it and gives it to a user
	// (no error if held). ENOTFOUND for an unknown role, then for an
	// unknown user.
	AddUserRole(ctx context.Context, userID, roleID int64, check func(account.Role) error) error
	// RemoveUserRole loads a role, runs check on it, takes it away from a
	// user and runs keep. ENOTFOUND for an unknown role, then user.
	RemoveUserRole(ctx context.Context, userID, roleID int64, check func(account.Role) error, keep account.AdminRule) error
}

// AccountService is the sign-in use case the HTTP adapter calls.
type AccountService interface {
	// RequestOTP issues a one-time password. EINVALID for a malformed
	// email, ERATELIMITED when asked too often.
	RequestOTP(ctx context.Context, email string) (account.OTPResult, error)
	// Login signs in with email, password and OTP. EINVALID for missing
	// fields, EUNAUTHORIZED for every failure alike.
	Login(ctx context.Context, email, password, otp string) (account.Tokens, error)
	// LoginIdP signs in with an identity provider's ID token (and code).
	LoginIdP(ctx context.Context, idToken, code string) (account.Tokens, error)
	// Refresh rotates a refresh token and issues a new access token.
	// EUNAUTHORIZED for anything that does not check out.
	Refresh(ctx context.Context, accessToken, refreshToken string) (account.Tokens, error)
	// Logout revokes the session of refreshToken, which must belong to the
	// caller in ctx. EUNAUTHORIZED otherwise.
	Logout(ctx context.Context, refreshToken string) error
	// Authenticate turns a bearer token into the caller. EUNAUTHORIZED for
	// a bad, expired or revoked token.
	Authenticate(ctx context.Context, accessToken string) (account.Principal, error)
	// JWKS returns the public keys of access tokens as JSON.
	JWKS() []byte
}

// RoleService manages roles and permissions (docs/decisions.md §3). Every
// method checks the caller's permission itself.
type RoleService interface {
	Permissions(ctx context.Context) ([]string, error)
	MyPermissions(ctx context.Context) ([]string, error)
	Roles(ctx context.Context) ([]account.Role, error)
	Role(ctx context.Context, id int64) (account.Role, error)
	CreateRole(ctx context.Context, in account.RoleInput) (account.Role, error)
	UpdateRole(ctx context.Context, id int64, p account.RolePatch) (account.Role, error)
	DeleteRole(ctx context.Context, id int64) error
	RolePermissions(ctx context.Context, id int64) ([]string, error)
	SetRolePermissions(ctx context.Context, id int64, names []string) ([]string, error)
	UserRoles(ctx context.Context, userID int64) ([]account.Role, error)
	AddUserRole(ctx context.Context, userID, roleID int64) error
	RemoveUserRole(ctx context.Context, userID, roleID int64) error
}

// RateLimiter counts requests per key (a client address) with a token
// bucket of perMin tokens refilled over a minute. A shared one (in the
// database) makes several instances allow no more than one.
type RateLimiter interface {
	// Allow takes a token for key at now, or says how long until one is
	// free. An error means the count could not be made.
	Allow(ctx context.Context, key string, perMin int, now time.Time) (ok bool, wait time.Duration, err error)
}

// ConsoleAccounts is sign-in for the browser console: the same checks,
// lockout and one-time passwords as AccountService, with a server session
// carried by a cookie instead of tokens.
type ConsoleAccounts interface {
	// RequestOTP is AccountService.RequestOTP.
	RequestOTP(ctx context.Context, email string) (account.OTPResult, error)
	// ConsoleLogin signs in as AccountService.Login does and returns the
	// cookie value of a new console session. EINVALID, EUNAUTHORIZED,
	// ERATELIMITED as for Login.
	ConsoleLogin(ctx context.Context, email, password, otp string) (string, error)
	// ConsoleAuthenticate turns a cookie value into the caller.
	// EUNAUTHORIZED for an unknown, revoked, expired or idle session.
	ConsoleAuthenticate(ctx context.Context, cookie string) (account.Principal, error)
	// ConsoleLogout revokes the session of a cookie value.
	ConsoleLogout(ctx context.Context, cookie string) error
}

// Reauthenticator is recent authentication (docs/security.md, "Recent
// authentication"): the accounts service. Every use case that changes how
// its caller signs in (the caller's own password, authenticator app,
// passkeys, API keys) calls RequireRecentAuth first.
type Reauthenticator interface {
	// RequireRecentAuth returns the caller when their session signed in or
	// re-authenticated within the window (COUNSEL_REAUTH_WINDOW), else
	// EREAUTH. A non-empty currentPassword (a password change's) is
	// checked instead: EUNAUTHORIZED when wrong (it counts toward the
	// lockout). EUNAUTHORIZED without a caller.
	RequireRecentAuth(ctx context.Context, currentPassword string) (account.Principal, error)
	// Reauthenticate renews the caller's session with the password and
	// the second factor (an emailed code, an app code or a recovery code),
	// as a sign-in checks them. EINVALID for a missing field,
	// EUNAUTHORIZED for wrong credentials (counted toward the lockout).
	Reauthenticate(ctx context.Context, password, otp string) (account.Reauthentication, error)
}
