package postgres

import (
	"context"

	"counsel/adapters/sqlrow"
	"counsel/domain/account"
	"counsel/ports"
)

// PasskeyStore implements ports.PasskeyStore: written once in sqlrow, with
// the role check of RemoveUserPasskeys run in this engine's transaction
// (the user's row locked by runRoleCheck).
type PasskeyStore struct {
	sqlrow.PasskeyStore
	db *DB
}

var _ ports.PasskeyStore = (*PasskeyStore)(nil)

// NewPasskeyStore returns the passkey store of db.
func NewPasskeyStore(db *DB) *PasskeyStore {
	return &PasskeyStore{PasskeyStore: sqlrow.NewPasskeyStore(engine{db: db}), db: db}
}

// RemoveUserPasskeys implements ports.PasskeyStore.
func (s *PasskeyStore) RemoveUserPasskeys(ctx context.Context, userID int64, check account.RoleCheck) (int, error) {
	var n int
	err := s.db.tx(ctx, func(x q) error {
		if err := s.db.runRoleCheck(ctx, x, userID, check); err != nil {
			return err
		}
		var err error
		n, err = sqlrow.DeleteUserPasskeys(ctx, x, userID)
		return err
	})
	return n, err
}
