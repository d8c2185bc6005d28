package accounts

import (
	"context"
	"fmt"
	"io"
	"strings"

	"counsel/domain"
	"counsel/domain/account"
	"counsel/domain/audit"
	"counsel/ports"
)

// The authenticator-app use cases (docs/decisions.md §9): the caller's own
// enrolment, and the reset that the users module (with its protection of
// system administrators) and the command line call.

var _ ports.TOTPService = (*Service)(nil)
var _ ports.TOTPResetter = (*Service)(nil)

var errTOTPOff = &domain.Error{Code: domain.ENOTIMPLEMENTED, Message: "authenticator apps are not available in this configuration"}

func (s *Service) totpReady() error {
	if s.d.TOTP == nil || s.d.Vault == nil || s.d.TOTPStore == nil {
		return errTOTPOff
	}
	return nil
}

// totpAttempt prepares a submitted code for the domain's check: the app
// codes of the user's secret, and the hash of the input read as a
// recovery code.
func (s *Service) totpAttempt(userID int64, t *account.TOTP, code string) (account.TOTPAttempt, error) {
	if err := s.totpReady(); err != nil {
		return account.TOTPAttempt{}, err
	}
	secret, err := s.d.Vault.Open(userID, t.SealedSecret)
	if err != nil {
		return account.TOTPAttempt{}, fmt.Errorf("user %d: %w", userID, err)
	}
	a := account.TOTPAttempt{Code: code, CodeAt: func(step int64) string { return s.d.TOTP.Code(secret, step) }}
	if rc, ok := account.NormalizeRecoveryCode(code); ok {
		a.RecoveryHash = s.d.Vault.HashRecovery(userID, rc)
	}
	return a, nil
}

func caller(ctx context.Context) (account.Principal, error) {
	p, ok := account.FromContext(ctx)
	if !ok {
		return p, &domain.Error{Code: domain.EUNAUTHORIZED, Message: "authentication required"}
	}
	return p, nil
}

// TOTPStatus implements ports.TOTPService.
func (s *Service) TOTPStatus(ctx context.Context) (account.TOTPStatus, error) {
	p, err := caller(ctx)
	if err != nil {
		return account.TOTPStatus{}, err
	}
	if err := s.totpReady(); err != nil {
		return account.TOTPStatus{}, err
	}
	st, err := s.d.TOTPStore.TOTPAccount(ctx, p.UserID)
	if err != nil {
		return account.TOTPStatus{}, err
	}
	return st.TOTP.Status(), nil
}

// EnrollTOTP implements ports.TOTPService. Like every change of a
// factor, it needs recent authentication (RequireRecentAuth).
func (s *Service) EnrollTOTP(ctx context.Context) (account.TOTPEnrolment, error) {
	p, err := s.RequireRecentAuth(ctx, "")
	if err != nil {
		return account.TOTPEnrolment{}, err
	}
	if err := s.totpReady(); err != nil {
		return account.TOTPEnrolment{}, err
	}
	secret, err := s.d.TOTP.NewSecret()
	if err != nil {
		return account.TOTPEnrolment{}, err
	}
	sealed, err := s.d.Vault.Seal(p.UserID, secret)
	if err != nil {
		return account.TOTPEnrolment{}, err
	}
	var email string
	err = s.d.TOTPStore.UpdateTOTP(ctx, p.UserID, nil, func(st *account.TOTPAccount) error {
		if st.TOTP.Enabled() {
			return domain.Errorf(domain.ECONFLICT, "an authenticator app is already on; turn it off before enrolling again")
		}
		email = st.Credentials.Email
		st.TOTP = &account.TOTP{SealedSecret: sealed, CreatedAt: s.d.Clock.Now()}
		return nil
	})
	if err != nil {
		return account.TOTPEnrolment{}, err
	}
	return s.d.TOTP.Enrolment(secret, email)
}

// ConfirmTOTP implements ports.TOTPService.
func (s *Service) ConfirmTOTP(ctx context.Context, code string) ([]string, error) {
	p, err := s.RequireRecentAuth(ctx, "")
	if err != nil {
		return nil, err
	}
	code = strings.TrimSpace(code)
	if code == "" {
		return nil, domain.Invalid(map[string][]string{"otp": {"otp is required"}})
	}
	if err := s.totpReady(); err != nil {
		return nil, err
	}
	codes := make([]string, account.RecoveryCodeCount)
	hashes := make([][]byte, account.RecoveryCodeCount)
	random := make([]byte, account.RecoveryCodeLength)
	for i := range codes {
		if _, err := io.ReadFull(s.d.Rand, random); err != nil {
			return nil, fmt.Errorf("random: %w", err)
		}
		codes[i] = account.NewRecoveryCode(random)
		hashes[i] = s.d.Vault.HashRecovery(p.UserID, codes[i])
	}
	now := s.d.Clock.Now()
	ctx, fx := ports.WithEffects(ctx)
	fx.Add(ports.Audit(ctx, audit.TOTPEnabled, audit.TargetUser, userTarget(p.UserID), nil))
	err = s.d.TOTPStore.UpdateTOTP(ctx, p.UserID, nil, func(st *account.TOTPAccount) error {
		if st.TOTP == nil || st.TOTP.Enabled() {
			return domain.Errorf(domain.ECONFLICT, "there is no pending enrolment to confirm; enroll first")
		}
		a, err := s.totpAttempt(p.UserID, st.TOTP, code)
		if err != nil {
			return err
		}
		if !st.TOTP.Confirm(a, hashes, now) {
			return domain.Invalid(map[string][]string{"otp": {"the code is not the app's current code"}})
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return codes, nil
}

// DisableTOTP implements ports.TOTPService.
func (s *Service) DisableTOTP(ctx context.Context, password, code string) error {
	p, err := s.RequireRecentAuth(ctx, "")
	if err != nil {
		return err
	}
	code = strings.TrimSpace(code)
	f := domain.FieldErrors{}
	if password == "" {
		f.Add("password", "password is required")
	}
	if code == "" {
		f.Add("otp", "otp is required")
	}
	if err := f.Err(); err != nil {
		return err
	}
	if err := s.totpReady(); err != nil {
		return err
	}
	cur, err := s.d.TOTPStore.TOTPAccount(ctx, p.UserID)
	if err != nil {
		return err
	}
	if !cur.TOTP.Enabled() {
		return domain.Errorf(domain.ECONFLICT, "no authenticator app is on")
	}
	// The slow hash runs outside the transaction, as sign-in's does.
	passwordOK, err := s.d.Hasher.Verify(ctx, password, cur.Credentials.PasswordHash)
	if err != nil {
		return err
	}
	now := s.d.Clock.Now()
	ok := false
	ctx, fx := ports.WithEffects(ctx)
	err = s.d.TOTPStore.UpdateTOTP(ctx, p.UserID, nil, func(st *account.TOTPAccount) error {
		var a account.TOTPAttempt
		if st.TOTP.Enabled() {
			if a, err = s.totpAttempt(p.UserID, st.TOTP, code); err != nil {
				return err
			}
		}
		ok = account.Disable(s.cfg.Lockout, st, passwordOK, a, p.SessionID, now)
		if ok {
			fx.Add(ports.Audit(ctx, audit.TOTPDisabled, audit.TargetUser, userTarget(p.UserID), nil))
		}
		return nil
	})
	if err != nil {
		return err
	}
	if !ok {
		return domain.Invalid(map[string][]string{"otp": {"the password or the code is wrong"}})
	}
	return nil
}

// ResetTOTP implements ports.TOTPResetter: the enrolment goes and the
// user's sessions are revoked (all but keepSession, the caller's own when
// administrators reset themselves). The caller says who may do it: check,
// run by the store in the transaction that removes the enrolment.
func (s *Service) ResetTOTP(ctx context.Context, userID int64, keepSession string, check account.RoleCheck) error {
	if err := s.totpReady(); err != nil {
		return err
	}
	ctx, fx := ports.WithEffects(ctx)
	fx.Add(ports.Audit(ctx, audit.TOTPReset, audit.TargetUser, userTarget(userID), nil))
	err := s.d.TOTPStore.UpdateTOTP(ctx, userID, check, func(st *account.TOTPAccount) error {
		st.TOTP = nil
		st.RevokeSessions, st.KeepSession = true, keepSession
		return nil
	})
	if err != nil {
		return err
	}
	return nil
}
