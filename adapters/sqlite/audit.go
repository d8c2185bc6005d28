package sqlite

import (
	"context"
	"database/sql"

	"counsel/adapters/sqlrow"
	"counsel/domain/contract"
)

// insertAudit writes entries for contract id (sqlrow.InsertAudit).
func insertAudit(ctx context.Context, tx *sql.Tx, id int64, entries []contract.AuditEntry) error {
	return sqlrow.InsertAudit(ctx, sq{tx}, dialect{}, id, entries)
}

// userName is the name the audit trail shows for a user.
func userName(ctx context.Context, q queryer, id int64) (string, error) {
	return sqlrow.UserName(ctx, sq{q}, id)
}

// History implements ports.ContractStore.
func (s *ContractStore) History(ctx context.Context, id int64, limit, offset int64) ([]contract.AuditEntry, int64, error) {
	var out []contract.AuditEntry
	var count int64
	err := s.db.readTx(ctx, func(tx *sql.Tx) (err error) {
		out, count, err = sqlrow.History(ctx, sq{tx}, dialect{}, id, limit, offset)
		return err
	})
	return out, count, err
}
