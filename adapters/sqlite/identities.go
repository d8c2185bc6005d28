package sqlite

import "counsel/adapters/sqlrow"

// NewIdentityStore returns the identity store of db, written once in
// sqlrow.
func NewIdentityStore(db *DB) sqlrow.IdentityStore { return sqlrow.NewIdentityStore(engine{db: db}) }
