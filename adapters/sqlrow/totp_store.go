package sqlrow

import (
	"context"
	"fmt"

	"counsel/domain/account"
	"counsel/ports"
)

// TOTPStore implements ports.TOTPStore on any Engine.
type TOTPStore struct{ e Engine }

var _ ports.TOTPStore = TOTPStore{}

// NewTOTPStore returns the authenticator-app store of e.
func NewTOTPStore(e Engine) TOTPStore { return TOTPStore{e: e} }

// TOTPKey implements ports.TOTPStore. Instances starting together agree:
// the first key wins (Serialize).
func (s TOTPStore) TOTPKey(ctx context.Context, create func() ([]byte, error)) ([]byte, error) {
	var key []byte
	err := s.e.WriteTx(ctx, func(x Querier) error {
		if err := s.e.Serialize(ctx, x, "totp-key"); err != nil {
			return err
		}
		var err error
		key, err = TOTPKey(ctx, x, s.e, create, s.e.Now())
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("authenticator key: %w", err)
	}
	return key, nil
}

// TOTPAccount implements ports.TOTPStore.
func (s TOTPStore) TOTPAccount(ctx context.Context, userID int64) (account.TOTPAccount, error) {
	var st account.TOTPAccount
	err := s.e.ReadTx(ctx, func(x Querier) (err error) {
		st, err = LoadTOTPAccount(ctx, x, s.e, userID, "")
		return err
	})
	return st, err
}

// UpdateTOTP implements ports.TOTPStore. The user's row is locked
// (LockRow): the step used and the recovery codes spent are decided on
// it. Enrolling, resetting or turning the app off may end sessions, so
// cached principals are checked again after it (AccessTx).
func (s TOTPStore) UpdateTOTP(ctx context.Context, userID int64, check account.RoleCheck, fn func(*account.TOTPAccount) error) error {
	return s.e.AccessTx(ctx, func(x Querier) error {
		if err := RunRoleCheck(ctx, s.e, x, userID, check); err != nil {
			return err
		}
		st, err := LoadTOTPAccount(ctx, x, s.e, userID, s.e.LockRow())
		if err != nil {
			return err
		}
		if err := fn(&st); err != nil {
			return err
		}
		if err := SaveCounters(ctx, x, s.e, userID, st.Credentials); err != nil {
			return err
		}
		_, err = SaveTOTPAccount(ctx, x, s.e, userID, st, s.e.Now())
		return err
	})
}
