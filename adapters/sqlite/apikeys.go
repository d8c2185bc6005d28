package sqlite

import "counsel/adapters/sqlrow"

// NewAPIKeyStore returns the API key store of db, written once in sqlrow.
func NewAPIKeyStore(db *DB) sqlrow.APIKeyStore { return sqlrow.NewAPIKeyStore(engine{db: db}) }
