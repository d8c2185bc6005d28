package sqlite

import (
	"context"
	"database/sql"
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

// TOTPKey implements ports.TOTPStore.
func (s *TOTPStore) TOTPKey(ctx context.Context, create func() ([]byte, error)) ([]byte, error) {
	var key []byte
	err := s.db.writeTx(ctx, func(tx *sql.Tx) error {
		var err error
		key, err = sqlrow.TOTPKey(ctx, sq{tx}, dialect{}, create, s.db.Now())
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
	err := s.db.readTx(ctx, func(tx *sql.Tx) (err error) {
		st, err = sqlrow.LoadTOTPAccount(ctx, sq{tx}, dialect{}, userID, "")
		return err
	})
	return st, err
}

// UpdateTOTP implements ports.TOTPStore.
func (s *TOTPStore) UpdateTOTP(ctx context.Context, userID int64, check account.RoleCheck, fn func(*account.TOTPAccount) error) error {
	return s.db.writeTx(ctx, func(tx *sql.Tx) error {
		if err := s.db.runRoleCheck(ctx, tx, userID, check); err != nil {
			return err
		}
		st, err := sqlrow.LoadTOTPAccount(ctx, sq{tx}, dialect{}, userID, "")
		if err != nil {
			return err
		}
		if err := fn(&st); err != nil {
			return err
		}
		if err := saveCounters(ctx, tx, userID, st.Credentials); err != nil {
			return err
		}
		_, err = sqlrow.SaveTOTPAccount(ctx, sq{tx}, dialect{}, userID, st, s.db.Now())
		return err
	})
}
