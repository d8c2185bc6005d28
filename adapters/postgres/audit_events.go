package postgres

import "counsel/adapters/sqlrow"

// NewAuditStore returns the security event store of db (written once,
// in sqlrow).
func NewAuditStore(db *DB) sqlrow.AuditStore { return sqlrow.AuditStore{E: engine{db: db}} }
