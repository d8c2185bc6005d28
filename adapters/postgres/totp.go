package postgres

import (
	"context"
	"fmt"

	"counsel/adapters/sqlrow"
	"counsel/domain/account"
	"counsel/ports"
)

// TOTPStore implements ports.TOTPStore.
type TOTPStore struct{ db *DB }

var _ ports.TOTPStore = (*TOTPStore)(nil)

// NewTOTPStore returns the authenticator-app store of db.
func NewTOTPStore(db *DB) *TOTPStore { return &TOTPStore{db: db} }

// TOTPKey implements ports.TOTPStore. Instances starting together agree:
// the first key wins, under a transaction-level advisory lock.
func (s *TOTPStore) TOTPKey(ctx context.Context, create func() ([]byte, error)) ([]byte, error) {
	var key []byte
	err := s.db.tx(ctx, func(x q) error {
		if _, err := x.exec(ctx, `SELECT pg_advisory_xact_lock(?)`, lockKey("totp-key")); err != nil {
			return err
		}
		var err error
		key, err = sqlrow.TOTPKey(ctx, x, dialect{}, create, s.db.Now())
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("authenticator key: %w", err)
	}
	return key, nil
}

// TOTPAccount implements ports.TOTPStore.
func (s *TOTPStore) TOTPAccount(ctx context.Context, userID int64) (account.TOTPAccount, error) {
	var st account.TOTPAccount
	err := s.db.readTx(ctx, func(x q) (err error) {
		st, err = sqlrow.LoadTOTPAccount(ctx, x, dialect{}, userID, "")
		return err
	})
	return st, err
}

// UpdateTOTP implements ports.TOTPStore. The user's row is locked: the
// step used and the recovery codes spent are decided on it.
func (s *TOTPStore) UpdateTOTP(ctx context.Context, userID int64, check account.RoleCheck, fn func(*account.TOTPAccount) error) error {
	return s.db.tx(ctx, func(x q) error {
		if err := s.db.runRoleCheck(ctx, x, userID, check); err != nil {
			return err
		}
		st, err := sqlrow.LoadTOTPAccount(ctx, x, dialect{}, userID, " FOR UPDATE")
		if err != nil {
			return err
		}
		if err := fn(&st); err != nil {
			return err
		}
		if err := saveCounters(ctx, x, userID, st.Credentials); err != nil {
			return err
		}
		revoked, err := sqlrow.SaveTOTPAccount(ctx, x, dialect{}, userID, st, s.db.Now())
		if err != nil || !revoked {
			return err
		}
		return notify(ctx, x, changedPrincipals)
	})
}

// saveCounters writes a user's sign-in failure count and lock.
func saveCounters(ctx context.Context, x q, userID int64, c account.Credentials) error {
	_, err := x.exec(ctx, `UPDATE users SET failed_logins = ?, locked_until = ? WHERE id = ?`, c.FailedLogins, nullTime(&c.LockedUntil), userID)
	return err
}
