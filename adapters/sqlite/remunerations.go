package sqlite

import "counsel/adapters/sqlrow"

// NewRemunerationStore returns the remuneration store of db (written once,
// in sqlrow, for both engines).
func NewRemunerationStore(db *DB) sqlrow.RemunerationStore {
	return sqlrow.NewRemunerationStore(engine{db: db})
}
