package sqlite

import (
	"context"
	"database/sql"

	"counsel/adapters/sqlrow"
	"counsel/domain/account"
	"counsel/ports"
)

// PasskeyStore implements ports.PasskeyStore: written once in sqlrow, with
// the role check of RemoveUserPasskeys run in this engine's transaction.
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
	err := s.db.writeTx(ctx, func(tx *sql.Tx) error {
		if err := s.db.runRoleCheck(ctx, tx, userID, check); err != nil {
			return err
		}
		var err error
		n, err = sqlrow.DeleteUserPasskeys(ctx, sq{tx}, userID)
		return err
	})
	return n, err
}
