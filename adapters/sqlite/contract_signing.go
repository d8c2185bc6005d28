package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"

	"counsel/adapters/sqlrow"
	"counsel/domain/contract"
	"counsel/ports"
)

var (
	_ ports.ContractSigningStore = (*ContractStore)(nil)
	_ ports.EvidenceStore        = (*ContractStore)(nil)
)

// evidenceKey records in contract_signing_events that a submission's
// evidence is stored, so it is stored once.
const evidenceKey = "evidence.stored"

// contractBySubmission finds the contract of a submission through the
// partial index contracts_submission (its condition is repeated so the
// planner may use it); of two contracts naming one submission, which only
// a restored backup could produce, the newest wins.
func contractBySubmission(ctx context.Context, q queryer, submissionID string) (int64, error) {
	var id int64
	err := q.QueryRowContext(ctx, `SELECT id FROM contracts
		WHERE digital_contract_submission_id = ? AND digital_contract_submission_id <> ''
		ORDER BY id DESC LIMIT 1`, submissionID).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, sqlrow.NotFound("contract with that signing submission")
	}
	return id, err
}

// ContractBySubmission implements ports.EvidenceStore.
func (s *ContractStore) ContractBySubmission(ctx context.Context, submissionID string) (contract.Contract, error) {
	id, err := contractBySubmission(ctx, reader{s.db}, submissionID)
	if err != nil {
		return contract.Contract{}, err
	}
	return loadContract(ctx, reader{s.db}, id)
}

// AddEvidence implements ports.EvidenceStore.
func (s *ContractStore) AddEvidence(ctx context.Context, submissionID string, docs []ports.NewDocument, audit []contract.AuditEntry, onStored func([]contract.Document)) ([]contract.Document, bool, error) {
	var out []contract.Document
	applied := false
	err := s.db.writeTx(ctx, func(tx *sql.Tx) error {
		id, err := contractBySubmission(ctx, tx, submissionID)
		if err != nil {
			return err
		}
		res, err := tx.ExecContext(ctx, `INSERT INTO contract_signing_events (contract_id, submission_id, event_key, at)
			VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING`, id, submissionID, evidenceKey, ms(s.db.Now()))
		if err != nil {
			return err
		}
		n, err := res.RowsAffected()
		if err != nil {
			return err
		}
		if n == 0 {
			all, err := loadDocuments(ctx, tx, id)
			for _, d := range all {
				if d.Kind == contract.KindSigned || d.Kind == contract.KindAudit {
					out = append(out, d)
				}
			}
			return err
		}
		applied = true
		for _, nd := range docs {
			d := nd.Document
			d.ContractID = id
			if d.StorageKey, err = sqlrow.NewStorageKey(); err != nil {
				return err
			}
			if err := writeDocumentBytes(ctx, tx, d, d.StorageKey, io.NewSectionReader(nd.Body, 0, d.Size), ms(s.db.Now())); err != nil {
				return fmt.Errorf("store the bytes of %q: %w", d.FileName, err)
			}
			if d.ID, err = insertDocument(ctx, tx, d); err != nil {
				return err
			}
			out = append(out, d)
		}
		if onStored != nil {
			onStored(out)
		}
		return insertAudit(ctx, tx, id, audit)
	})
	if err != nil {
		return nil, false, err
	}
	return out, applied, nil
}

// SignedDocumentBySHA256 implements ports.EvidenceStore, through the
// partial index contract_documents_signed_sha256.
func (s *ContractStore) SignedDocumentBySHA256(ctx context.Context, sha string) (bool, error) {
	var one int
	err := s.db.queryRow(ctx, `SELECT 1 FROM contract_documents WHERE sha256 = ? AND kind = 'signed' LIMIT 1`, sha).Scan(&one)
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil
	}
	if err != nil {
		return err == nil, fmt.Errorf("find a signed document by its SHA-256: %w", err)
	}
	return err == nil, nil
}

// UpdateBySubmission implements ports.ContractSigningStore; the contract
// is found as contractBySubmission finds it.
func (s *ContractStore) UpdateBySubmission(ctx context.Context, submissionID, eventKey string, fn func(c *contract.Contract) ([]contract.AuditEntry, error)) (contract.Contract, bool, error) {
	var out contract.Contract
	applied := false
	err := s.db.writeTx(ctx, func(tx *sql.Tx) error {
		id, err := contractBySubmission(ctx, tx, submissionID)
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
		out, err = updateContract(ctx, s.db, tx, id, fn)
		return err
	})
	if err != nil {
		return contract.Contract{}, false, err
	}
	return out, applied, nil
}

// DocumentByID implements ports.ContractSigningStore.
func (s *ContractStore) DocumentByID(ctx context.Context, docID int64) (contract.Document, error) {
	return sqlrow.DocumentByID(ctx, sq{reader{s.db}}, dialect{}, docID)
}
