package postgres

import (
	"context"

	"counsel/adapters/sqlrow"
)

// RoleStore implements ports.RoleStore, written once in sqlrow.
type RoleStore = sqlrow.RoleStore

// NewRoleStore returns the role store of db.
func NewRoleStore(db *DB) *RoleStore {
	s := sqlrow.NewRoleStore(engine{db: db})
	return &s
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
