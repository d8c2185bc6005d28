package accounts

import (
	"context"
	"crypto/subtle"
	"time"

	"counsel/domain"
	"counsel/domain/account"
	"counsel/domain/audit"
	"counsel/ports"
)

// touchEvery bounds how often a console session's last_seen is written:
// once a minute is precise enough for an idle timeout of hours and spares
// a write per page.
const touchEvery = time.Minute

var consoleSignedOut = &domain.Error{Code: domain.EUNAUTHORIZED, Message: "your session has ended; sign in again"}

// ConsoleLogin signs in exactly as Login does (same checks, lockout and
// one-time password) but opens a console session, whose secret is the
// returned cookie value.
func (s *Service) ConsoleLogin(ctx context.Context, email, password, otp string) (string, error) {
	_, cookie, _, err := s.login(ctx, email, password, otp, account.SessionConsole)
	s.observeSignIn(account.MethodPassword, err)
	return cookie, err
}

// ConsoleAuthenticate turns a console cookie into the caller: the session
// must be a live console session, used within the idle timeout, of an
// active user. EUNAUTHORIZED otherwise.
func (s *Service) ConsoleAuthenticate(ctx context.Context, cookie string) (account.Principal, error) {
	if cookie == "" {
		return account.Principal{}, consoleSignedOut
	}
	ss, err := s.d.Store.ConsoleSession(ctx, hashToken(cookie))
	if domain.ErrorCode(err) == domain.ENOTFOUND {
		return account.Principal{}, consoleSignedOut
	} else if err != nil {
		return account.Principal{}, err
	}
	now := s.d.Clock.Now()
	if !ss.ConsoleActive(now, s.cfg.ConsoleIdle) {
		return account.Principal{}, consoleSignedOut
	}
	perms, admin, err := s.d.Store.UserAccess(ctx, ss.UserID)
	if domain.ErrorCode(err) == domain.ENOTFOUND {
		return account.Principal{}, consoleSignedOut
	} else if err != nil {
		return account.Principal{}, err
	}
	if now.Sub(ss.LastSeen) >= touchEvery {
		if err := s.d.Store.TouchSession(ctx, ss.ID, now); err != nil {
			return account.Principal{}, err
		}
	}
	return account.Principal{UserID: ss.UserID, SessionID: ss.ID, Permissions: perms, SystemAdmin: admin, AuthenticatedAt: ss.AuthenticatedAt}, nil
}

// ConsoleLogout revokes the console session of cookie (no error when it
// has already ended).
func (s *Service) ConsoleLogout(ctx context.Context, cookie string) error {
	if cookie == "" {
		return nil
	}
	ss, err := s.d.Store.ConsoleSession(ctx, hashToken(cookie))
	if domain.ErrorCode(err) == domain.ENOTFOUND {
		return nil
	} else if err != nil {
		return err
	}
	return s.revoke(ctx, ss)
}

// AuthorizationURL starts the console's identity-provider sign-in: the
// provider's authorization endpoint with state, nonce and the PKCE
// challenge. EUNAUTHORIZED when no provider is configured.
func (s *Service) AuthorizationURL(ctx context.Context, state, nonce, challenge, redirectURI string) (string, error) {
	if s.d.IdP == nil || s.d.Users == nil {
		return "", &domain.Error{Code: domain.EUNAUTHORIZED, Message: "sign-in through an identity provider is not configured"}
	}
	return s.d.IdP.AuthorizationURL(ctx, state, nonce, challenge, redirectURI)
}

// ConsoleLoginIdP ends the console's authorization-code flow: it
// exchanges code with the PKCE verifier, requires the ID token's nonce to
// be the one the flow sent, finds, links or provisions the user exactly as
// LoginIdP does, and opens a console session whose cookie value it
// returns. EUNAUTHORIZED, EUPSTREAM.
func (s *Service) ConsoleLoginIdP(ctx context.Context, code, verifier, nonce, redirectURI string) (string, error) {
	cookie, err := s.consoleLoginIdP(ctx, code, verifier, nonce, redirectURI)
	s.observeSignIn(account.MethodIdP, err)
	return cookie, err
}

func (s *Service) consoleLoginIdP(ctx context.Context, code, verifier, nonce, redirectURI string) (string, error) {
	if s.d.IdP == nil || s.d.Users == nil {
		return "", &domain.Error{Code: domain.EUNAUTHORIZED, Message: "sign-in through an identity provider is not configured"}
	}
	id, err := s.d.IdP.ExchangeCode(ctx, code, verifier, redirectURI)
	if err != nil {
		if domain.ErrorCode(err) == domain.EUNAUTHORIZED {
			s.d.Logger.Info("identity provider sign-in refused", "reason", err)
		}
		return "", err
	}
	if nonce == "" || subtle.ConstantTimeCompare([]byte(id.Nonce), []byte(nonce)) != 1 {
		s.d.Logger.Info("identity provider sign-in refused", "issuer", id.Issuer, "subject", id.Subject, "reason", "nonce does not match")
		return "", &domain.Error{Code: domain.EUNAUTHORIZED, Message: "the identity token is not valid"}
	}
	userID, err := s.d.Users.ResolveIdentity(ctx, id)
	if err != nil {
		if domain.ErrorCode(err) == domain.EUNAUTHORIZED {
			s.record(ctx, signInEvent(ctx, audit.SignInFailed, 0, map[string]any{"method": account.MethodIdP, "reason": audit.ReasonIdentity}))
		}
		return "", err
	}
	now := s.d.Clock.Now()
	cookie, err := s.randomToken()
	if err != nil {
		return "", err
	}
	session := s.newSession(ctx, userID, account.MethodIdP, account.SessionConsole, cookie, now)
	ctx, fx := ports.WithEffects(ctx)
	fx.Add(signInEvent(ctx, audit.SignIn, userID, map[string]any{"method": account.MethodIdP, "sessionKind": account.SessionConsole}))
	if err := s.signInDevice(ctx, fx, userID, account.MethodIdP, now); err != nil {
		return "", err
	}
	if err := s.d.Store.CreateSession(ctx, session, nil); err != nil {
		return "", err
	}
	return cookie, nil
}
