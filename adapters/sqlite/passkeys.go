package sqlite

import "counsel/adapters/sqlrow"

// NewPasskeyStore returns the passkey store of db, written once in sqlrow.
func NewPasskeyStore(db *DB) sqlrow.PasskeyStore { return sqlrow.NewPasskeyStore(engine{db: db}) }
