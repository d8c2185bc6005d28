package sqlite

import "counsel/adapters/sqlrow"

// NewTOTPStore returns the authenticator-app store of db, written once in
// sqlrow.
func NewTOTPStore(db *DB) sqlrow.TOTPStore { return sqlrow.NewTOTPStore(engine{db: db}) }
