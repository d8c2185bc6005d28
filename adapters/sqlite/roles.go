package sqlite

import (
	"context"
	"database/sql"

	"counsel/adapters/sqlrow"
	"counsel/domain/account"
)

// RoleStore implements ports.RoleStore, written once in sqlrow.
type RoleStore = sqlrow.RoleStore

// NewRoleStore returns the role store of db.
func NewRoleStore(db *DB) *RoleStore {
	s := sqlrow.NewRoleStore(engine{db: db})
	return &s
}

// loadRoles reads the roles join and where select, by name.
func loadRoles(ctx context.Context, q queryer, where string, args ...any) ([]account.Role, error) {
	return sqlrow.Roles(ctx, sq{q}, where, sqlrow.RoleOrder(dialect{}), args...)
}

func loadRole(ctx context.Context, q queryer, id int64) (account.Role, error) {
	return sqlrow.Role(ctx, sq{q}, sqlrow.RoleOrder(dialect{}), id)
}

// runRoleCheck is sqlrow.RunRoleCheck in tx.
func (db *DB) runRoleCheck(ctx context.Context, tx *sql.Tx, userID int64, check account.RoleCheck) error {
	return sqlrow.RunRoleCheck(ctx, engine{db: db}, sq{tx}, userID, check)
}

// guardLastAdmin is sqlrow.GuardLastAdmin in tx.
func (db *DB) guardLastAdmin(ctx context.Context, tx *sql.Tx, keep account.AdminRule, change func() error) error {
	return sqlrow.GuardLastAdmin(ctx, engine{db: db}, sq{tx}, keep, change)
}
