package accounts

import (
	"context"
	"fmt"
	"strings"
	"time"

	"counsel/domain"
	"counsel/domain/account"
	"counsel/domain/audit"
	"counsel/ports"
)

// Recent authentication (docs/security.md, "Recent authentication"). RequireRecentAuth
// is the one rule: every use case that changes how its caller signs in
// (password, authenticator app, passkeys, API keys) calls it before doing
// anything, so a stolen access token or console cookie cannot change a
// factor. Reauthenticate renews a session with both factors.

var _ ports.Reauthenticator = (*Service)(nil)

var reauthFailed = &domain.Error{Code: domain.EUNAUTHORIZED, Message: "the password or the second factor is wrong"}

var currentPasswordWrong = &domain.Error{Code: domain.EUNAUTHORIZED, Message: "the current password is wrong"}

// RequireRecentAuth implements ports.Reauthenticator.
func (s *Service) RequireRecentAuth(ctx context.Context, currentPassword string) (account.Principal, error) {
	p, err := caller(ctx)
	if err != nil {
		return p, err
	}
	if err := account.CheckNotAPIKey(p); err != nil {
		return p, err
	}
	if currentPassword != "" {
		return p, s.checkCurrentPassword(ctx, p, currentPassword)
	}
	now := s.d.Clock.Now()
	if account.CheckRecentAuth(p.AuthenticatedAt, now, s.cfg.ReauthWindow) == nil {
		return p, nil
	}
	// The principal may have been cached before a re-authentication made
	// through another instance: the session row decides.
	if p.SessionID == "" {
		return p, account.ErrReauthRequired
	}
	ss, err := s.d.Store.Session(ctx, p.SessionID)
	if domain.ErrorCode(err) == domain.ENOTFOUND {
		return p, badToken
	} else if err != nil {
		return p, err
	}
	if ss.UserID != p.UserID || !ss.Active(now) {
		return p, badToken
	}
	return p, account.CheckRecentAuth(ss.AuthenticatedAt, now, s.cfg.ReauthWindow)
}

// checkCurrentPassword checks the caller's password; a wrong one counts
// toward the lockout (account.CheckPassword).
func (s *Service) checkCurrentPassword(ctx context.Context, p account.Principal, password string) error {
	creds, err := s.credentials(ctx, p.UserID)
	if err != nil {
		return err
	}
	ok, err := s.d.Hasher.Verify(ctx, password, creds.PasswordHash)
	if err != nil {
		return err
	}
	now := s.d.Clock.Now()
	good := false
	err = s.d.Store.Login(ctx, p.UserID, creds.Email, func(st *account.LoginState) error {
		good = account.CheckPassword(s.cfg.Lockout, &st.Credentials, ok, now)
		return nil
	})
	if domain.ErrorCode(err) == domain.ENOTFOUND {
		return badToken
	} else if err != nil {
		return err
	}
	if !good {
		return currentPasswordWrong
	}
	return nil
}

// credentials returns the caller's sign-in data.
func (s *Service) credentials(ctx context.Context, userID int64) (account.Credentials, error) {
	if s.d.TOTPStore == nil {
		return account.Credentials{}, fmt.Errorf("re-authentication needs the account's store")
	}
	cur, err := s.d.TOTPStore.TOTPAccount(ctx, userID)
	if domain.ErrorCode(err) == domain.ENOTFOUND {
		return account.Credentials{}, badToken
	}
	return cur.Credentials, err
}

// Reauthenticate implements ports.Reauthenticator.
func (s *Service) Reauthenticate(ctx context.Context, password, otp string) (account.Reauthentication, error) {
	p, err := caller(ctx)
	if err != nil {
		return account.Reauthentication{}, err
	}
	if err := account.CheckNotAPIKey(p); err != nil {
		return account.Reauthentication{}, err
	}
	code := strings.TrimSpace(otp)
	f := domain.FieldErrors{}
	if password == "" {
		f.Add("password", "password is required")
	}
	if code == "" {
		f.Add("otp", "otp is required")
	}
	if err := f.Err(); err != nil {
		return account.Reauthentication{}, err
	}
	if p.SessionID == "" {
		return account.Reauthentication{}, domain.Errorf(domain.EFORBIDDEN, "only a signed-in session can re-authenticate")
	}
	creds, err := s.credentials(ctx, p.UserID)
	if err != nil {
		return account.Reauthentication{}, err
	}
	passwordOK, err := s.d.Hasher.Verify(ctx, password, creds.PasswordHash)
	if err != nil {
		return account.Reauthentication{}, err
	}
	now := s.d.Clock.Now()
	in := account.LoginInput{PasswordOK: passwordOK, OTPHash: s.d.Codes.Hash(creds.Email, code)}
	success := false
	ctx, fx := ports.WithEffects(ctx)
	err = s.d.Store.Login(ctx, p.UserID, creds.Email, func(st *account.LoginState) error {
		if st.TOTP.Enabled() {
			a, err := s.totpAttempt(p.UserID, st.TOTP, code)
			if err != nil {
				return err
			}
			in.TOTP = a
		}
		// The same decision as a sign-in: the emailed code, or the app's
		// code or a recovery code; failures count toward the lockout.
		wasLocked := now.Before(st.Credentials.LockedUntil)
		if success = account.Login(s.cfg.OTP, s.cfg.Lockout, st, in, now); success {
			st.Reauthenticated, st.ReauthenticatedAt = p.SessionID, now
		} else {
			fx.Add(signInEvent(ctx, audit.SignInFailed, p.UserID, map[string]any{"reauthentication": true, "reason": failReason(st, wasLocked)}))
		}
		if !wasLocked && now.Before(st.Credentials.LockedUntil) {
			fx.Add(ports.Audit(ctx, audit.AccountLocked, audit.TargetUser, userTarget(p.UserID), map[string]any{"until": st.Credentials.LockedUntil.UTC().Format(time.RFC3339)}))
		}
		return nil
	})
	if domain.ErrorCode(err) == domain.ENOTFOUND {
		return account.Reauthentication{}, badToken
	} else if err != nil {
		return account.Reauthentication{}, err
	}
	if !success {
		return account.Reauthentication{}, reauthFailed
	}
	return account.Reauthentication{AuthenticatedAt: now, ValidUntil: now.Add(s.cfg.ReauthWindow)}, nil
}
