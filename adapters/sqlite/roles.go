package sqlite

import "counsel/adapters/sqlrow"

// RoleStore implements ports.RoleStore, written once in sqlrow.
type RoleStore = sqlrow.RoleStore

// NewRoleStore returns the role store of db.
func NewRoleStore(db *DB) *RoleStore {
	s := sqlrow.NewRoleStore(engine{db: db})
	return &s
}
