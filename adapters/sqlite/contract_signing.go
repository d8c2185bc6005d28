package sqlite

import (
	"context"
	"database/sql"
	"errors"

	"counsel/domain/contract"
	"counsel/ports"
)

var _ ports.ContractSigningStore = (*ContractStore)(nil)

// UpdateBySubmission implements ports.ContractSigningStore. The lookup
// reads the partial index contracts_submission (its condition is repeated
// so the planner may use it); of two contracts naming one submission,
// which only a restored backup could produce, the newest wins.
func (s *ContractStore) UpdateBySubmission(ctx context.Context, submissionID, eventKey string, fn func(c *contract.Contract) ([]contract.AuditEntry, error)) (contract.Contract, bool, error) {
	var out contract.Contract
	applied := false
	err := s.db.writeTx(ctx, func(tx *sql.Tx) error {
		var id int64
		err := tx.QueryRowContext(ctx, `SELECT id FROM contracts
			WHERE digital_contract_submission_id = ? AND digital_contract_submission_id <> ''
			ORDER BY id DESC LIMIT 1`, submissionID).Scan(&id)
		if errors.Is(err, sql.ErrNoRows) {
			return notFound("contract with that signing submission")
		}
		if err != nil {
			return err
		}
		if eventKey != "" {
			res, err := tx.ExecContext(ctx, `INSERT INTO contract_signing_events (contract_id, submission_id, event_key, at)
				VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING`, id, submissionID, eventKey, ms(s.db.Now()))
			if err != nil {
				return err
			}
			if n, err := res.RowsAffected(); err != nil {
				return err
			} else if n == 0 {
				out, err = loadContract(ctx, tx, id)
				return err
			}
		}
		applied = true
		out, err = updateContract(ctx, tx, id, fn)
		return err
	})
	if err != nil {
		return contract.Contract{}, false, err
	}
	return out, applied, nil
}

// DocumentByID implements ports.ContractSigningStore.
func (s *ContractStore) DocumentByID(ctx context.Context, docID int64) (contract.Document, error) {
	d, err := scanDocument(s.db.queryRow(ctx, `SELECT `+documentColumns+` FROM contract_documents WHERE id = ?`, docID))
	if errors.Is(err, sql.ErrNoRows) {
		return d, notFound("document")
	}
	return d, err
}
