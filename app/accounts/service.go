// Package accounts is the sign-in use case: one-time passwords, password
// and identity-provider login, token refresh with rotation and reuse
// detection, logout, and turning a bearer token into a principal on every
// request. Roles and permissions (role.go) live here too, since they decide
// what a principal may do.
package accounts

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"counsel/domain"
	"counsel/domain/account"
	"counsel/domain/audit"
	"counsel/ports"
)

// OTP delivery modes.
const (
	DeliverResponse = "response"
	DeliverLog      = "log"
	DeliverSMTP     = "smtp"
)

// Config holds the account rules.
type Config struct {
	AccessTTL  time.Duration
	RefreshTTL time.Duration
	OTP        account.OTPPolicy
	Lockout    account.LockoutPolicy
	Delivery   string // DeliverResponse, DeliverLog or DeliverSMTP
	// SessionRecheck bounds how long a cached principal is trusted before
	// its session and permissions are read again. Revocations made by this
	// process take effect at once; this only bounds the delay for changes
	// made by another process (the command line) on the same file.
	SessionRecheck time.Duration
	// ConsoleIdle ends a console session unused for this long; 0 never.
	ConsoleIdle time.Duration
	// ReauthWindow is how long a sign-in or re-authentication lets a
	// session change the account's factors (RequireRecentAuth); 0 means
	// account.DefaultReauthWindow.
	ReauthWindow time.Duration
	// PublicURL is the console's base URL for links in emails.
	PublicURL string
}

// Store is the part of ports.AccountStore sign-in uses (the contracts
// are the port's); the adapters' account stores implement it.
type Store interface {
	CredentialsByEmail(ctx context.Context, email string) (account.Credentials, error)
	UpdateOTP(ctx context.Context, email string, fn func(*account.OTPState) error) error
	Login(ctx context.Context, userID int64, email string, fn func(*account.LoginState) error) error
	CreateSession(ctx context.Context, s account.Session, refreshHash []byte) error
	Refresh(ctx context.Context, r account.Rotation, fn func(*account.RefreshState) error) error
	SessionByRefreshHash(ctx context.Context, tokenHash []byte) (account.Session, error)
	Session(ctx context.Context, id string) (account.Session, error)
	ConsoleSession(ctx context.Context, tokenHash []byte) (account.Session, error)
	TouchSession(ctx context.Context, id string, at time.Time) error
	RevokeSession(ctx context.Context, id string, at time.Time) error
	RevokeUserSessions(ctx context.Context, userID int64, at time.Time) error
	UserSessions(ctx context.Context, userID int64, now time.Time) ([]account.Session, error)
	RevokeUserSession(ctx context.Context, userID int64, id string, at time.Time) error
	RevokeOtherSessions(ctx context.Context, userID int64, keep string, at time.Time) (int64, error)
	SeeSessions(ctx context.Context, seen []account.SessionSeen, every time.Duration) error
	KnownDevice(ctx context.Context, userID int64, d account.Device, since time.Time) (agent, network, any bool, err error)
	UserAccess(ctx context.Context, userID int64) (account.PermissionSet, bool, error)
	SetPassword(ctx context.Context, userID int64, hash string, at time.Time, check account.RoleCheck) error
}

// TOTPState is the part of ports.TOTPStore sign-in uses.
type TOTPState interface {
	TOTPAccount(ctx context.Context, userID int64) (account.TOTPAccount, error)
	UpdateTOTP(ctx context.Context, userID int64, check account.RoleCheck, fn func(*account.TOTPAccount) error) error
}

// Deps are the ports the service uses.
type Deps struct {
	Store  Store
	Hasher ports.PasswordHasher
	Tokens ports.TokenIssuer
	Codes  ports.OTPCodes
	Sender ports.OTPSender        // nil in response mode
	IdP    ports.IdentityProvider // nil when not configured
	Users  IdentityLinker         // for identity-provider sign-in; nil when not configured
	Clock  ports.Clock
	Rand   io.Reader     // nil: crypto/rand
	NewID  func() string // session and token ids
	Logger *slog.Logger

	// TOTP, Vault and TOTPStore are authenticator apps (totp.go).
	TOTP      ports.TOTP
	TOTPStore TOTPState
	Vault     ports.TOTPVault

	// APIKeys finds the API keys Authenticate accepts; nil: none is.
	APIKeys ports.APIKeyStore
	// Ceremony and Passkeys are passkeys (passkeys.go); nil: not offered.
	Ceremony ports.PasskeyCeremony
	Passkeys ports.PasskeyStore

	// Observer hears sign-ins, refreshes and lockouts (metrics); nil:
	// nothing is heard.
	Observer ports.AccountObserver

	// Events writes the security events that have no change of their own
	// (events.go); nil: those are not recorded.
	Events EffectRecorder
}

// IdentityLinker finds or provisions the local user of an external identity.
// It returns EUNAUTHORIZED when the identity may not sign in.
type IdentityLinker interface {
	ResolveIdentity(ctx context.Context, id account.ExternalIdentity) (int64, error)
}

// Service implements ports.AccountService.
type Service struct {
	cfg   Config
	d     Deps
	cache authCache
	// gen counts revocations and permission changes made by this process;
	// a cached principal from an older generation is checked again.
	gen     atomic.Uint64
	sending sync.WaitGroup // OTP deliveries and API key uses being written
	keyUses keyUses
	// seenUses writes when sessions were last used (sessions.go).
	seenUses seenTracker
}

var _ ports.AccountService = (*Service)(nil)

// New returns the account service.
func New(cfg Config, d Deps) *Service {
	if d.Rand == nil {
		d.Rand = rand.Reader
	}
	if d.Logger == nil {
		d.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.ReauthWindow <= 0 {
		cfg.ReauthWindow = account.DefaultReauthWindow
	}
	if d.Observer == nil {
		d.Observer = unobserved{}
	}
	if cfg.SessionRecheck <= 0 {
		cfg.SessionRecheck = 2 * time.Second
	}
	s := &Service{cfg: cfg, d: d}
	s.cache.entries = map[string]authEntry{}
	return s
}

// Invalidate makes every cached principal be checked again. The engines
// call it (Stores.OnChange, and Listen for other instances) after each
// commit that revoked sessions or changed roles, permissions or users; the
// use cases never do.
func (s *Service) Invalidate() { s.gen.Add(1) }

// Wait blocks until background OTP deliveries have finished and writes
// the queued last-seen times of sessions.
func (s *Service) Wait() {
	s.sending.Wait()
	s.FlushSeen()
}

// loginFailed is the one answer to every failed sign-in.
var loginFailed = &domain.Error{Code: domain.EUNAUTHORIZED, Message: "the email, password or one-time password is wrong"}

// refreshFailed is the one answer to every failed refresh.
var refreshFailed = &domain.Error{Code: domain.EUNAUTHORIZED, Message: "the tokens are invalid or expired; sign in again"}

func (s *Service) randomToken() (string, error) {
	b := make([]byte, 32)
	if _, err := io.ReadFull(s.d.Rand, b); err != nil {
		return "", fmt.Errorf("random: %w", err)
	}
	return base64.RawURLEncoding.EncodeToString(b), nil
}

// hashToken is the stored form of a refresh token: 256 random bits need
// no salt or slow hash.
func hashToken(t string) []byte {
	h := sha256.Sum256([]byte(t))
	return h[:]
}

// RequestOTP implements ports.AccountService.
func (s *Service) RequestOTP(ctx context.Context, email string) (account.OTPResult, error) {
	email = account.NormalizeEmail(email)
	if email == "" {
		return account.OTPResult{}, domain.Invalid(map[string][]string{"email": {"email is required"}})
	} else if !account.ValidEmail(email) {
		return account.OTPResult{}, domain.Invalid(map[string][]string{"email": {"email is not a valid address"}})
	}
	creds, err := s.d.Store.CredentialsByEmail(ctx, email)
	if err != nil && domain.ErrorCode(err) != domain.ENOTFOUND {
		return account.OTPResult{}, err
	}
	eligible := err == nil && creds.Active
	res := account.OTPResult{Email: email, Status: true}
	if s.cfg.Delivery == DeliverResponse && !eligible {
		res.Status = false
		return res, nil
	}
	// A user whose second factor is an app gets no code in any mode, so
	// the app is the only second factor (docs/decisions.md §9).
	if creds.TOTPEnabled {
		eligible = false
	}
	// Outside response mode unknown emails are throttled like known ones,
	// so a 429 does not tell whether an account exists; they get no code.
	// App users are throttled the same way.
	var code string
	var hash []byte
	if eligible {
		if code, err = s.d.Codes.Generate(); err != nil {
			return account.OTPResult{}, err
		}
		hash = s.d.Codes.Hash(email, code)
	}
	now := s.d.Clock.Now()
	if err := s.d.Store.UpdateOTP(ctx, email, func(st *account.OTPState) error {
		return s.cfg.OTP.Issue(st, hash, now)
	}); err != nil {
		return account.OTPResult{}, err
	}
	if !eligible {
		return res, nil
	}
	if s.cfg.Delivery == DeliverResponse {
		res.OTP = code
		return res, nil
	}
	// Deliver in the background so the answer takes the same time whether
	// or not the email exists.
	s.sending.Add(1)
	go func() {
		defer s.sending.Done()
		ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
		defer cancel()
		if err := s.d.Sender.SendOTP(ctx, email, code); err != nil {
			s.d.Logger.Error("one-time password not delivered", "email", email, "err", err)
		}
	}()
	return res, nil
}

// Login implements ports.AccountService.
func (s *Service) Login(ctx context.Context, email, password, otp string) (account.Tokens, error) {
	session, refresh, now, err := s.login(ctx, email, password, otp, account.SessionAPI)
	s.observeSignIn(account.MethodPassword, err)
	if err != nil {
		return account.Tokens{}, err
	}
	return s.issue(ctx, session, refresh, now)
}

// login checks a sign-in and, when it succeeds, opens a session of kind
// in the same transaction; it returns the session and its secret (the
// refresh token, or the console cookie).
func (s *Service) login(ctx context.Context, email, password, otp, kind string) (account.Session, string, time.Time, error) {
	f := domain.FieldErrors{}
	if strings.TrimSpace(email) == "" {
		f.Add("email", "email is required")
	}
	if password == "" {
		f.Add("password", "password is required")
	}
	if strings.TrimSpace(otp) == "" {
		f.Add("otp", "otp is required")
	}
	if err := f.Err(); err != nil {
		return account.Session{}, "", time.Time{}, err
	}
	email = account.NormalizeEmail(email)
	creds, err := s.d.Store.CredentialsByEmail(ctx, email)
	known := err == nil
	if err != nil && domain.ErrorCode(err) != domain.ENOTFOUND {
		return account.Session{}, "", time.Time{}, err
	}
	// Always hash: an unknown email costs what a known one does.
	passwordOK, err := s.d.Hasher.Verify(ctx, password, creds.PasswordHash)
	if err != nil {
		if domain.ErrorCode(err) == domain.ERATELIMITED {
			return account.Session{}, "", time.Time{}, err
		}
		s.d.Logger.Warn("password check failed", "user", creds.UserID, "err", err)
		passwordOK = false
	}
	if !known {
		s.record(ctx, signInEvent(ctx, audit.SignInFailed, 0, map[string]any{"reason": audit.ReasonUnknownAccount}))
		return account.Session{}, "", time.Time{}, loginFailed
	}
	ctx, fx := ports.WithEffects(ctx)
	now := s.d.Clock.Now()
	refresh, err := s.randomToken()
	if err != nil {
		return account.Session{}, "", time.Time{}, err
	}
	session := s.newSession(ctx, creds.UserID, account.MethodPassword, kind, refresh, now)
	devices, err := s.deviceEffects(ctx, creds.UserID, creds.Email, now)
	if err != nil {
		return account.Session{}, "", time.Time{}, err
	}
	code := strings.TrimSpace(otp)
	in := account.LoginInput{PasswordOK: passwordOK, OTPHash: s.d.Codes.Hash(email, code)}
	success, locked := false, false
	err = s.d.Store.Login(ctx, creds.UserID, email, func(st *account.LoginState) error {
		session.Method = account.MethodPassword
		recovery := 0
		if st.TOTP.Enabled() {
			session.Method, recovery = account.MethodAuthenticator, len(st.TOTP.Recovery)
			a, err := s.totpAttempt(creds.UserID, st.TOTP, code)
			if err != nil {
				return err
			}
			in.TOTP = a
		}
		wasLocked := now.Before(st.Credentials.LockedUntil)
		if success = account.Login(s.cfg.OTP, s.cfg.Lockout, st, in, now); success {
			if st.TOTP.Enabled() && len(st.TOTP.Recovery) < recovery {
				session.Method = account.MethodRecoveryCode
			}
			st.NewSession, st.RefreshHash = &session, hashToken(refresh)
			fx.Add(signInEvent(ctx, audit.SignIn, creds.UserID, map[string]any{"method": session.Method, "sessionKind": kind}))
			fx.Add(devices(session.Method)...)
		} else {
			fx.Add(signInEvent(ctx, audit.SignInFailed, creds.UserID, map[string]any{"method": session.Method, "reason": failReason(st, wasLocked)}))
		}
		if locked = !wasLocked && now.Before(st.Credentials.LockedUntil); locked {
			fx.Add(ports.Audit(ctx, audit.AccountLocked, audit.TargetUser, userTarget(creds.UserID), map[string]any{"until": st.Credentials.LockedUntil.UTC().Format(time.RFC3339)}))
		}
		return nil
	})
	if err == nil && locked {
		s.d.Observer.Lockout()
	}
	if domain.ErrorCode(err) == domain.ENOTFOUND {
		return account.Session{}, "", time.Time{}, loginFailed
	} else if err != nil {
		return account.Session{}, "", time.Time{}, err
	}
	if !success {
		return account.Session{}, "", time.Time{}, loginFailed
	}
	return session, refresh, now, nil
}

func (s *Service) newSession(ctx context.Context, userID int64, method, kind, secret string, now time.Time) account.Session {
	req := ports.RequestOf(ctx)
	ss := account.Session{ID: s.d.NewID(), UserID: userID, Method: method, CreatedAt: now, ExpiresAt: now.Add(s.cfg.RefreshTTL), Kind: kind,
		AuthenticatedAt: now, LastSeen: now, IP: req.IP, UserAgent: account.CutUserAgent(req.UserAgent)}
	if kind == account.SessionConsole {
		ss.TokenHash, ss.LastSeen = hashToken(secret), now
	}
	return ss
}

func (s *Service) issue(ctx context.Context, ss account.Session, refresh string, now time.Time) (account.Tokens, error) {
	access, err := s.d.Tokens.Issue(ctx, account.AccessClaims{
		UserID: ss.UserID, SessionID: ss.ID, ID: s.d.NewID(), IssuedAt: now, ExpiresAt: now.Add(s.cfg.AccessTTL),
	})
	if err != nil {
		return account.Tokens{}, err
	}
	return account.Tokens{UserID: ss.UserID, AccessToken: access, RefreshToken: refresh}, nil
}

// LoginIdP implements ports.AccountService.
func (s *Service) LoginIdP(ctx context.Context, idToken, code string) (account.Tokens, error) {
	t, err := s.loginIdP(ctx, idToken, code)
	s.observeSignIn(account.MethodIdP, err)
	return t, err
}

func (s *Service) loginIdP(ctx context.Context, idToken, code string) (account.Tokens, error) {
	if strings.TrimSpace(idToken) == "" {
		return account.Tokens{}, domain.Invalid(map[string][]string{"idToken": {"idToken is required"}})
	}
	if s.d.IdP == nil || s.d.Users == nil {
		return account.Tokens{}, &domain.Error{Code: domain.EUNAUTHORIZED, Message: "sign-in through an identity provider is not configured"}
	}
	id, err := s.d.IdP.Verify(ctx, idToken, code)
	if err != nil {
		if domain.ErrorCode(err) == domain.EUNAUTHORIZED {
			s.d.Logger.Info("identity provider sign-in refused", "reason", err)
			s.record(ctx, signInEvent(ctx, audit.SignInFailed, 0, map[string]any{"method": account.MethodIdP, "reason": audit.ReasonIdentity}))
		}
		return account.Tokens{}, err
	}
	userID, err := s.d.Users.ResolveIdentity(ctx, id)
	if err != nil {
		if domain.ErrorCode(err) == domain.EUNAUTHORIZED {
			s.record(ctx, signInEvent(ctx, audit.SignInFailed, 0, map[string]any{"method": account.MethodIdP, "reason": audit.ReasonIdentity}))
		}
		return account.Tokens{}, err
	}
	now := s.d.Clock.Now()
	refresh, err := s.randomToken()
	if err != nil {
		return account.Tokens{}, err
	}
	session := s.newSession(ctx, userID, account.MethodIdP, account.SessionAPI, refresh, now)
	ctx, fx := ports.WithEffects(ctx)
	fx.Add(signInEvent(ctx, audit.SignIn, userID, map[string]any{"method": account.MethodIdP, "sessionKind": account.SessionAPI}))
	if err := s.signInDevice(ctx, fx, userID, account.MethodIdP, now); err != nil {
		return account.Tokens{}, err
	}
	if err := s.d.Store.CreateSession(ctx, session, hashToken(refresh)); err != nil {
		return account.Tokens{}, err
	}
	return s.issue(ctx, session, refresh, now)
}

// Refresh implements ports.AccountService.
func (s *Service) Refresh(ctx context.Context, accessToken, refreshToken string) (account.Tokens, error) {
	t, reused, err := s.refresh(ctx, accessToken, refreshToken)
	s.observeRefresh(err, reused)
	return t, err
}

// refresh rotates the refresh token; reused is true when the token had
// been rotated already and its session is now revoked.
func (s *Service) refresh(ctx context.Context, accessToken, refreshToken string) (_ account.Tokens, reused bool, _ error) {
	f := domain.FieldErrors{}
	if accessToken == "" {
		f.Add("accessToken", "accessToken is required")
	}
	if refreshToken == "" {
		f.Add("refreshToken", "refreshToken is required")
	}
	if err := f.Err(); err != nil {
		return account.Tokens{}, false, err
	}
	now := s.d.Clock.Now()
	claims, err := s.d.Tokens.Verify(accessToken, now, true)
	if err != nil {
		return account.Tokens{}, false, refreshFailed
	}
	next, err := s.randomToken()
	if err != nil {
		return account.Tokens{}, false, err
	}
	var ok, revoked bool
	var session account.Session
	rot := account.Rotation{TokenHash: hashToken(refreshToken), NewTokenHash: hashToken(next),
		UserID: claims.UserID, SessionID: claims.SessionID, Now: now}
	err = s.d.Store.Refresh(ctx, rot, func(st *account.RefreshState) error {
		ok = account.Refresh(st, rot)
		revoked, session = st.Revoke, st.Session
		return nil
	})
	if revoked {
		reused = true
		s.d.Logger.Warn("refresh token reused; session revoked", "session", session.ID, "user", session.UserID)
		// Its own write: PostgreSQL batches the rotations of many
		// requests into one transaction (refresh_batch.go), which carries
		// no request's effects.
		s.record(ctx, signInEvent(ctx, audit.RefreshTokenReused, session.UserID, map[string]any{"sessionId": session.ID}))
	}
	if domain.ErrorCode(err) == domain.ENOTFOUND {
		return account.Tokens{}, reused, refreshFailed
	} else if err != nil {
		return account.Tokens{}, false, err
	}
	if !ok {
		return account.Tokens{}, reused, refreshFailed
	}
	s.seenSession(session.ID, now)
	t, err := s.issue(ctx, session, next, now)
	return t, false, err
}

// Logout implements ports.AccountService.
func (s *Service) Logout(ctx context.Context, refreshToken string) error {
	p, ok := account.FromContext(ctx)
	if !ok {
		return &domain.Error{Code: domain.EUNAUTHORIZED, Message: "authentication required"}
	}
	if err := account.CheckNotAPIKey(p); err != nil {
		return err
	}
	if refreshToken == "" {
		return domain.Invalid(map[string][]string{"refreshToken": {"refreshToken is required"}})
	}
	ss, err := s.d.Store.SessionByRefreshHash(ctx, hashToken(refreshToken))
	if domain.ErrorCode(err) == domain.ENOTFOUND || (err == nil && ss.UserID != p.UserID) {
		return &domain.Error{Code: domain.EUNAUTHORIZED, Message: "the refresh token is not valid for this user"}
	} else if err != nil {
		return err
	}
	return s.revoke(ctx, ss)
}

// revoke signs session ss out now and drops the cached principals, so
// the session's access tokens stop working at once.
func (s *Service) revoke(ctx context.Context, ss account.Session) error {
	ctx, fx := ports.WithEffects(ctx)
	e := ports.Audit(ctx, audit.SignOut, audit.TargetUser, userTarget(ss.UserID), map[string]any{"sessionId": ss.ID})
	if _, signedIn := account.FromContext(ctx); !signedIn { // a console cookie: its own user signs out
		e.Actor = audit.Actor{Kind: audit.ActorUser, UserID: ss.UserID}
	}
	fx.Add(e)
	if err := s.d.Store.RevokeSession(ctx, ss.ID, s.d.Clock.Now()); err != nil {
		return err
	}
	return nil
}

// JWKS implements ports.AccountService.
func (s *Service) JWKS() []byte { return s.d.Tokens.JWKS() }

// SetPassword replaces a user's password (policy checked here) and revokes
// the user's sessions. Used by the command line and the users module;
// check (nil: none) is run by the store in the transaction that writes.
func (s *Service) SetPassword(ctx context.Context, userID int64, password string, check account.RoleCheck) error {
	if err := account.ValidatePassword("password", password); err != nil {
		return err
	}
	hash, err := s.d.Hasher.Hash(ctx, password)
	if err != nil {
		return err
	}
	ctx, fx := ports.WithEffects(ctx)
	fx.Add(ports.Audit(ctx, audit.PasswordChanged, audit.TargetUser, userTarget(userID), nil))
	if err := s.d.Store.SetPassword(ctx, userID, hash, s.d.Clock.Now(), check); err != nil {
		return err
	}
	return nil
}

// NewID returns a random 128-bit identifier in hex, the default for
// Deps.NewID.
func NewID() string {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic(err) // crypto/rand does not fail on supported platforms
	}
	return hex.EncodeToString(b[:])
}
