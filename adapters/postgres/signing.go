package postgres

import "counsel/adapters/sqlrow"

// SigningStore implements ports.SigningStore, written once in sqlrow.
type SigningStore = sqlrow.SigningStore

// NewSigningStore returns the signing store of db.
func NewSigningStore(db *DB) *SigningStore {
	s := sqlrow.NewSigningStore(engine{db: db})
	return &s
}
