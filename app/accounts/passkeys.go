package accounts

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"time"

	"counsel/domain"
	"counsel/domain/account"
	"counsel/domain/audit"
	"counsel/ports"
)

// Passkeys (docs/decisions.md §20): registering and managing the caller's
// passkeys, and signing in or re-authenticating with one. A passkey with
// user verification is both factors; its sign-in is decided like any
// other (account.PasskeyLogin in the store's Login transaction: lockout,
// inactive users, failures counted) and its session records
// account.MethodPasskey, the seam of the security events of §18.

var _ ports.PasskeyService = (*Service)(nil)
var _ ports.PasskeyRemover = (*Service)(nil)

var errPasskeysOff = &domain.Error{Code: domain.ENOTIMPLEMENTED, Message: "passkeys are not available in this configuration"}

var badChallenge = domain.Invalid(map[string][]string{"challengeId": {"the challenge is unknown, used or expired; begin again"}})

func (s *Service) passkeysReady() error {
	if s.d.Ceremony == nil || s.d.Passkeys == nil {
		return errPasskeysOff
	}
	return nil
}

// newChallenge stores a ceremony's state under a fresh random id.
func (s *Service) newChallenge(ctx context.Context, purpose string, userID int64, options, session []byte) (account.PasskeyBegin, error) {
	id, err := s.randomToken()
	if err != nil {
		return account.PasskeyBegin{}, err
	}
	now := s.d.Clock.Now()
	c := account.PasskeyChallenge{ID: id, Purpose: purpose, UserID: userID, Session: session, ExpiresAt: now.Add(account.PasskeyChallengeTTL)}
	if err := s.d.Passkeys.SaveChallenge(ctx, c, now); err != nil {
		return account.PasskeyBegin{}, err
	}
	return account.PasskeyBegin{ChallengeID: id, Options: options}, nil
}

// passkeyUser is the caller as a registration sees them.
func (s *Service) passkeyUser(ctx context.Context, userID int64) (account.PasskeyUser, error) {
	creds, err := s.credentials(ctx, userID)
	if err != nil {
		return account.PasskeyUser{}, err
	}
	keys, err := s.d.Passkeys.Passkeys(ctx, userID)
	if err != nil {
		return account.PasskeyUser{}, err
	}
	return account.PasskeyUser{UserID: userID, Email: creds.Email, Passkeys: keys}, nil
}

// BeginPasskeyRegistration implements ports.PasskeyService.
func (s *Service) BeginPasskeyRegistration(ctx context.Context) (account.PasskeyBegin, error) {
	p, err := s.RequireRecentAuth(ctx, "")
	if err != nil {
		return account.PasskeyBegin{}, err
	}
	if err := s.passkeysReady(); err != nil {
		return account.PasskeyBegin{}, err
	}
	u, err := s.passkeyUser(ctx, p.UserID)
	if err != nil {
		return account.PasskeyBegin{}, err
	}
	options, session, err := s.d.Ceremony.BeginRegistration(u)
	if err != nil {
		return account.PasskeyBegin{}, err
	}
	return s.newChallenge(ctx, account.PasskeyRegister, p.UserID, options, session)
}

// missing reports whether a JSON value is absent.
func missing(v json.RawMessage) bool {
	v = bytes.TrimSpace(v)
	return len(v) == 0 || bytes.Equal(v, []byte("null"))
}

// FinishPasskeyRegistration implements ports.PasskeyService.
func (s *Service) FinishPasskeyRegistration(ctx context.Context, challengeID, name string, credential json.RawMessage) (account.Passkey, error) {
	p, err := s.RequireRecentAuth(ctx, "")
	if err != nil {
		return account.Passkey{}, err
	}
	if err := s.passkeysReady(); err != nil {
		return account.Passkey{}, err
	}
	f := domain.FieldErrors{}
	if challengeID == "" {
		f.Add("challengeId", "challengeId is required")
	}
	name, nameErr := account.NormalizePasskeyName(name)
	var de *domain.Error
	if errors.As(nameErr, &de) {
		for _, m := range de.Fields["name"] {
			f.Add("name", m)
		}
	}
	if missing(credential) {
		f.Add("credential", "credential is required")
	}
	if err := f.Err(); err != nil {
		return account.Passkey{}, err
	}
	now := s.d.Clock.Now()
	c, err := s.d.Passkeys.TakeChallenge(ctx, challengeID, account.PasskeyRegister, now)
	if domain.ErrorCode(err) == domain.ENOTFOUND || (err == nil && c.UserID != p.UserID) {
		return account.Passkey{}, badChallenge
	} else if err != nil {
		return account.Passkey{}, err
	}
	u, err := s.passkeyUser(ctx, p.UserID)
	if err != nil {
		return account.Passkey{}, err
	}
	key, err := s.d.Ceremony.FinishRegistration(u, c.Session, credential)
	if err != nil {
		return account.Passkey{}, err
	}
	key.Name, key.CreatedAt = name, now
	ctx, fx := ports.WithEffects(ctx)
	fx.Add(ports.Audit(ctx, audit.PasskeyAdded, audit.TargetUser, userTarget(p.UserID), map[string]any{"name": name}))
	return s.d.Passkeys.AddPasskey(ctx, key)
}

// Passkeys implements ports.PasskeyService.
func (s *Service) Passkeys(ctx context.Context) ([]account.Passkey, error) {
	p, err := caller(ctx)
	if err != nil {
		return nil, err
	}
	if err := s.passkeysReady(); err != nil {
		return nil, err
	}
	return s.d.Passkeys.Passkeys(ctx, p.UserID)
}

// RenamePasskey implements ports.PasskeyService. A name changes no
// factor, so it needs no recent authentication; it is still the
// account's, so an API key may not.
func (s *Service) RenamePasskey(ctx context.Context, id int64, name string) (account.Passkey, error) {
	p, err := caller(ctx)
	if err != nil {
		return account.Passkey{}, err
	}
	if err := account.CheckNotAPIKey(p); err != nil {
		return account.Passkey{}, err
	}
	if err := s.passkeysReady(); err != nil {
		return account.Passkey{}, err
	}
	name, err = account.NormalizePasskeyName(name)
	if err != nil {
		return account.Passkey{}, err
	}
	return s.d.Passkeys.RenamePasskey(ctx, p.UserID, id, name)
}

// RemovePasskey implements ports.PasskeyService.
func (s *Service) RemovePasskey(ctx context.Context, id int64) error {
	p, err := s.RequireRecentAuth(ctx, "")
	if err != nil {
		return err
	}
	if err := s.passkeysReady(); err != nil {
		return err
	}
	ctx, fx := ports.WithEffects(ctx)
	fx.Add(ports.Audit(ctx, audit.PasskeyRemoved, audit.TargetUser, userTarget(p.UserID), map[string]any{"passkeyId": id}))
	return s.d.Passkeys.RemovePasskey(ctx, p.UserID, id)
}

// RemoveUserPasskeys implements ports.PasskeyRemover.
func (s *Service) RemoveUserPasskeys(ctx context.Context, userID int64, check account.RoleCheck) error {
	if err := s.passkeysReady(); err != nil {
		return err
	}
	ctx, fx := ports.WithEffects(ctx)
	fx.Add(ports.Audit(ctx, audit.PasskeyRemoved, audit.TargetUser, userTarget(userID), map[string]any{"passkeys": "all"}))
	_, err := s.d.Passkeys.RemoveUserPasskeys(ctx, userID, check)
	return err
}

// BeginPasskeyLogin implements ports.PasskeyService.
func (s *Service) BeginPasskeyLogin(ctx context.Context) (account.PasskeyBegin, error) {
	if err := s.passkeysReady(); err != nil {
		return account.PasskeyBegin{}, err
	}
	options, session, err := s.d.Ceremony.BeginLogin()
	if err != nil {
		return account.PasskeyBegin{}, err
	}
	return s.newChallenge(ctx, account.PasskeyAssert, 0, options, session)
}

// PasskeyLogin implements ports.PasskeyService.
func (s *Service) PasskeyLogin(ctx context.Context, challengeID string, credential json.RawMessage) (account.Tokens, error) {
	session, refresh, now, err := s.passkeyLogin(ctx, challengeID, credential, account.SessionAPI)
	s.observeSignIn(account.MethodPasskey, err)
	if err != nil {
		return account.Tokens{}, err
	}
	return s.issue(ctx, session, refresh, now)
}

// ConsolePasskeyLogin implements ports.PasskeyService.
func (s *Service) ConsolePasskeyLogin(ctx context.Context, challengeID string, credential json.RawMessage) (string, error) {
	_, cookie, _, err := s.passkeyLogin(ctx, challengeID, credential, account.SessionConsole)
	s.observeSignIn(account.MethodPasskey, err)
	return cookie, err
}

// passkeyLogin is login for a passkey: the session of kind opened in the
// transaction that decides the sign-in, and its secret.
func (s *Service) passkeyLogin(ctx context.Context, challengeID string, credential json.RawMessage, kind string) (account.Session, string, time.Time, error) {
	if err := s.passkeysReady(); err != nil {
		return account.Session{}, "", time.Time{}, err
	}
	now := s.d.Clock.Now()
	secret, err := s.randomToken()
	if err != nil {
		return account.Session{}, "", time.Time{}, err
	}
	var session account.Session
	err = s.passkeyAssert(ctx, challengeID, credential, 0, loginFailed, now, func(userID int64, st *account.LoginState) {
		session = s.newSession(ctx, userID, account.MethodPasskey, kind, secret, now)
		st.NewSession, st.RefreshHash = &session, hashToken(secret)
	})
	if err != nil {
		return account.Session{}, "", time.Time{}, err
	}
	return session, secret, now, nil
}

// ReauthenticatePasskey implements ports.PasskeyService.
func (s *Service) ReauthenticatePasskey(ctx context.Context, challengeID string, credential json.RawMessage) (account.Reauthentication, error) {
	p, err := caller(ctx)
	if err != nil {
		return account.Reauthentication{}, err
	}
	if err := s.passkeysReady(); err != nil {
		return account.Reauthentication{}, err
	}
	if p.SessionID == "" {
		return account.Reauthentication{}, domain.Errorf(domain.EFORBIDDEN, "only a signed-in session can re-authenticate")
	}
	now := s.d.Clock.Now()
	err = s.passkeyAssert(ctx, challengeID, credential, p.UserID, reauthFailed, now, func(_ int64, st *account.LoginState) {
		st.Reauthenticated, st.ReauthenticatedAt = p.SessionID, now
	})
	if err != nil {
		return account.Reauthentication{}, err
	}
	return account.Reauthentication{AuthenticatedAt: now, ValidUntil: now.Add(s.cfg.ReauthWindow)}, nil
}

// passkeyAssert checks an assertion answering challengeID and decides it
// for the passkey's owner in the store's Login transaction; on success
// then says what it opens or renews there. only (0: anyone) is the one
// user whose passkey may answer. A body that does not parse is EINVALID;
// every other failure is failed, the one answer whatever the reason, and
// a failure of a known passkey counts toward its owner's lockout.
func (s *Service) passkeyAssert(ctx context.Context, challengeID string, credential json.RawMessage, only int64, failed error, now time.Time, then func(userID int64, st *account.LoginState)) error {
	f := domain.FieldErrors{}
	if challengeID == "" {
		f.Add("challengeId", "challengeId is required")
	}
	if missing(credential) {
		f.Add("credential", "credential is required")
	}
	if err := f.Err(); err != nil {
		return err
	}
	c, err := s.d.Passkeys.TakeChallenge(ctx, challengeID, account.PasskeyAssert, now)
	if domain.ErrorCode(err) == domain.ENOTFOUND {
		return failed
	} else if err != nil {
		return err
	}
	lookup := func(credentialID, _ []byte) (account.Passkey, error) {
		return s.d.Passkeys.PasskeyByCredentialID(ctx, credentialID)
	}
	a, key, err := s.d.Ceremony.FinishLogin(c.Session, credential, lookup)
	switch {
	case domain.ErrorCode(err) == domain.EINVALID:
		return err
	case domain.ErrorCode(err) == domain.ENOTFOUND: // unknown or removed credential
		s.record(ctx, signInEvent(ctx, audit.SignInFailed, 0, map[string]any{"method": account.MethodPasskey, "reason": audit.ReasonUnknownAccount}))
		return failed
	case domain.ErrorCode(err) == domain.EUNAUTHORIZED && key != nil:
		s.d.Logger.Info("passkey assertion refused", "user", key.UserID, "passkey", key.ID, "reason", err)
		return s.passkeyDecide(ctx, key.UserID, false, failed, now, nil)
	case err != nil && domain.ErrorCode(err) == domain.EUNAUTHORIZED:
		return failed
	case err != nil:
		return err
	}
	if only != 0 && a.UserID != only {
		return s.passkeyDecide(ctx, only, false, failed, now, nil)
	}
	// The counter only advances, decided by the store (of two replays of
	// one assertion at most one passes).
	counterOK := account.SignCountAdvances(key.SignCount, a.SignCount)
	if counterOK {
		err := s.d.Passkeys.UsePasskey(ctx, a.PasskeyID, a.SignCount, now)
		switch domain.ErrorCode(err) {
		case "":
		case domain.ECONFLICT:
			counterOK = false
		case domain.ENOTFOUND:
			return failed
		default:
			return err
		}
	}
	if !counterOK {
		// A possible cloned authenticator: a failed sign-in whose event
		// says so (docs/decisions.md §20).
		s.d.Logger.Warn("passkey signature counter did not advance; possible cloned authenticator",
			"user", a.UserID, "passkey", a.PasskeyID, "stored", key.SignCount, "got", a.SignCount)
		ctx, fx := ports.WithEffects(ctx)
		fx.Add(ports.Audit(ctx, audit.PasskeyCounterRegressed, audit.TargetUser, userTarget(a.UserID),
			map[string]any{"passkeyId": a.PasskeyID}))
		return s.passkeyDecide(ctx, a.UserID, false, failed, now, nil)
	}
	return s.passkeyDecide(ctx, a.UserID, true, failed, now, then)
}

// passkeyDecide runs account.PasskeyLogin for userID in the store's Login
// transaction (then, on success, in it too) and answers failed unless it
// succeeded. An unknown or deleted user is failed.
func (s *Service) passkeyDecide(ctx context.Context, userID int64, assertionOK bool, failed error, now time.Time, then func(int64, *account.LoginState)) error {
	creds, err := s.credentials(ctx, userID)
	if domain.ErrorCode(err) == domain.EUNAUTHORIZED {
		return failed
	} else if err != nil {
		return err
	}
	success, locked := false, false
	ctx, fx := ports.WithEffects(ctx)
	devices, err := s.deviceEffects(ctx, userID, creds.Email, now)
	if err != nil {
		return err
	}
	err = s.d.Store.Login(ctx, userID, creds.Email, func(st *account.LoginState) error {
		wasLocked := now.Before(st.Credentials.LockedUntil)
		if success = account.PasskeyLogin(s.cfg.Lockout, st, assertionOK, now); success && then != nil {
			then(userID, st)
		}
		switch {
		case success && st.NewSession != nil:
			fx.Add(signInEvent(ctx, audit.SignIn, userID, map[string]any{"method": account.MethodPasskey, "sessionKind": st.NewSession.Kind}))
			fx.Add(devices(account.MethodPasskey)...)
		case !success:
			fx.Add(signInEvent(ctx, audit.SignInFailed, userID, map[string]any{"method": account.MethodPasskey, "reason": failReason(st, wasLocked)}))
		}
		locked = !wasLocked && now.Before(st.Credentials.LockedUntil)
		if locked {
			fx.Add(ports.Audit(ctx, audit.AccountLocked, audit.TargetUser, userTarget(userID), map[string]any{"until": st.Credentials.LockedUntil.UTC().Format(time.RFC3339)}))
		}
		return nil
	})
	if err == nil && locked {
		s.d.Observer.Lockout()
	}
	if domain.ErrorCode(err) == domain.ENOTFOUND {
		return failed
	} else if err != nil {
		return err
	}
	if !success {
		return failed
	}
	return nil
}
