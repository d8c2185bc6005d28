package postgres

import "counsel/adapters/sqlrow"

// NewKeyDateStore returns the key-date announcements store of db, written
// once for both engines (sqlrow.KeyDateStore).
func NewKeyDateStore(db *DB) sqlrow.KeyDateStore {
	return sqlrow.NewKeyDateStore(engine{db: db})
}
