package sqlite

import (
	"context"
	"database/sql"
	"errors"

	"counsel/domain/contract"
)

const documentColumns = `id, contract_id, file_name, content_type, size, sha256, storage_key, uploaded_at, uploaded_by, kind`

func scanDocument(s rowScanner) (contract.Document, error) {
	var d contract.Document
	var at int64
	err := s.Scan(&d.ID, &d.ContractID, &d.FileName, &d.ContentType, &d.Size, &d.SHA256, &d.StorageKey, &at, &d.UploadedBy, &d.Kind)
	d.UploadedAt = fromMs(at)
	return d, err
}

// contractExists returns ENOTFOUND unless contract id exists.
func contractExists(ctx context.Context, q queryer, id int64) error {
	var one int
	err := q.QueryRowContext(ctx, `SELECT 1 FROM contracts WHERE id = ?`, id).Scan(&one)
	if errors.Is(err, sql.ErrNoRows) {
		return notFound("contract")
	}
	return err
}

// contractStatus returns contract id's status; ENOTFOUND if it does not
// exist.
func contractStatus(ctx context.Context, q queryer, id int64) (contract.Status, error) {
	var st contract.Status
	err := q.QueryRowContext(ctx, `SELECT status FROM contracts WHERE id = ?`, id).Scan(&st)
	if errors.Is(err, sql.ErrNoRows) {
		return st, notFound("contract")
	}
	return st, err
}

func loadDocuments(ctx context.Context, q queryer, contractID int64) ([]contract.Document, error) {
	rows, err := q.QueryContext(ctx, `SELECT `+documentColumns+` FROM contract_documents WHERE contract_id = ? ORDER BY id`, contractID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []contract.Document{}
	for rows.Next() {
		d, err := scanDocument(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, d)
	}
	return out, rows.Err()
}

func loadDocument(ctx context.Context, q queryer, contractID, docID int64) (contract.Document, error) {
	d, err := scanDocument(q.QueryRowContext(ctx, `SELECT `+documentColumns+` FROM contract_documents WHERE id = ? AND contract_id = ?`, docID, contractID))
	if errors.Is(err, sql.ErrNoRows) {
		if err := contractExists(ctx, q, contractID); err != nil {
			return d, err
		}
		return d, notFound("document")
	}
	return d, err
}

// AddDocument implements ports.ContractStore.
func (s *ContractStore) AddDocument(ctx context.Context, d contract.Document, audit []contract.AuditEntry, check func(int) error) (contract.Document, error) {
	var out contract.Document
	err := s.db.writeTx(ctx, func(tx *sql.Tx) error {
		if err := contractExists(ctx, tx, d.ContractID); err != nil {
			return err
		}
		if check != nil {
			var n int
			if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM contract_documents WHERE contract_id = ?`, d.ContractID).Scan(&n); err != nil {
				return err
			}
			if err := check(n); err != nil {
				return err
			}
		}
		id, err := insertDocument(ctx, tx, d)
		if err != nil {
			return err
		}
		if err := insertAudit(ctx, tx, d.ContractID, audit); err != nil {
			return err
		}
		out, err = loadDocument(ctx, tx, d.ContractID, id)
		return err
	})
	return out, err
}

// Documents implements ports.ContractStore.
func (s *ContractStore) Documents(ctx context.Context, contractID int64) ([]contract.Document, error) {
	tx, err := s.db.read.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()
	if err := contractExists(ctx, tx, contractID); err != nil {
		return nil, err
	}
	return loadDocuments(ctx, tx, contractID)
}

// Document implements ports.ContractStore.
func (s *ContractStore) Document(ctx context.Context, contractID, docID int64) (contract.Document, error) {
	return loadDocument(ctx, reader{s.db}, contractID, docID)
}

// RemoveDocument implements ports.ContractStore.
// The single writer holds the contract still from the status read to the
// delete.
func (s *ContractStore) RemoveDocument(ctx context.Context, contractID, docID int64, fn func(status contract.Status, d contract.Document) ([]contract.AuditEntry, error)) (contract.Document, error) {
	var d contract.Document
	err := s.db.writeTx(ctx, func(tx *sql.Tx) error {
		status, err := contractStatus(ctx, tx, contractID)
		if err != nil {
			return err
		}
		if d, err = loadDocument(ctx, tx, contractID, docID); err != nil {
			return err
		}
		entries, err := fn(status, d)
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM contract_documents WHERE id = ?`, docID); err != nil {
			return err
		}
		return insertAudit(ctx, tx, contractID, entries)
	})
	return d, err
}

// insertDocument inserts d's row and returns its id.
func insertDocument(ctx context.Context, tx *sql.Tx, d contract.Document) (int64, error) {
	kind := d.Kind
	if kind == "" {
		kind = contract.KindOriginal
	}
	res, err := tx.ExecContext(ctx, `INSERT INTO contract_documents (contract_id, file_name, content_type, size, sha256,
		storage_key, uploaded_at, uploaded_by, kind) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		d.ContractID, d.FileName, d.ContentType, d.Size, d.SHA256, d.StorageKey, ms(d.UploadedAt), d.UploadedBy, kind)
	if err != nil {
		return 0, err
	}
	return res.LastInsertId()
}
