package postgres

import (
	"context"

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
func loadRoles(ctx context.Context, x q, where string, args ...any) ([]account.Role, error) {
	return sqlrow.Roles(ctx, x, where, sqlrow.RoleOrder(dialect{}), args...)
}

// accessTx is tx for writes that change what a user may do: the commit
// tells every instance to check its cached principals again.
func (db *DB) accessTx(ctx context.Context, fn func(q) error) error {
	return db.tx(ctx, func(x q) error {
		if err := fn(x); err != nil {
			return err
		}
		return notify(ctx, x, changedPrincipals)
	})
}

// runRoleCheck is sqlrow.RunRoleCheck in x.
func (db *DB) runRoleCheck(ctx context.Context, x q, userID int64, check account.RoleCheck) error {
	return sqlrow.RunRoleCheck(ctx, engine{db: db}, x, userID, check)
}

// guardLastAdmin is sqlrow.GuardLastAdmin in x.
func (db *DB) guardLastAdmin(ctx context.Context, x q, keep account.AdminRule, change func() error) error {
	return sqlrow.GuardLastAdmin(ctx, engine{db: db}, x, keep, change)
}
