package accounts

import (
	"context"
	"time"

	"counsel/domain"
	"counsel/domain/account"
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
	return account.Principal{UserID: ss.UserID, SessionID: ss.ID, Permissions: perms, SystemAdmin: admin}, nil
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
	if err := s.d.Store.RevokeSession(ctx, ss.ID, s.d.Clock.Now()); err != nil {
		return err
	}
	s.Invalidate()
	return nil
}
