package sqlite

import (
	"context"
	"database/sql"
	"io"

	"counsel/ports"

	"counsel/adapters/sqlrow"
	"counsel/domain/contract"
)

func loadDocuments(ctx context.Context, q queryer, contractID int64) ([]contract.Document, error) {
	return sqlrow.Documents(ctx, sq{q}, dialect{}, contractID)
}

func loadDocument(ctx context.Context, q queryer, contractID, docID int64) (contract.Document, error) {
	return sqlrow.Document(ctx, sq{q}, dialect{}, contractID, docID, "")
}

// insertDocument inserts d's row and returns its id.
func insertDocument(ctx context.Context, tx *sql.Tx, d contract.Document) (int64, error) {
	return sqlrow.InsertDocument(ctx, sq{tx}, dialect{}, d)
}

// AddDocument implements ports.ContractStore: the bytes, the row and the
// audit entries in one transaction.
func (s *ContractStore) AddDocument(ctx context.Context, d ports.NewDocument, audit []contract.AuditEntry, check func(int) error) (contract.Document, error) {
	var out contract.Document
	err := s.db.writeTx(ctx, func(tx *sql.Tx) error {
		write := func(key string) error {
			return writeDocumentBytes(ctx, tx, d.Document, key, io.NewSectionReader(d.Body, 0, d.Size), ms(s.db.Now()))
		}
		var err error
		out, err = sqlrow.AddDocument(ctx, sq{tx}, dialect{}, d.Document, write, audit, check, "")
		return err
	})
	return out, err
}

// Documents implements ports.ContractStore.
func (s *ContractStore) Documents(ctx context.Context, contractID int64) ([]contract.Document, error) {
	var out []contract.Document
	err := s.db.readTx(ctx, func(tx *sql.Tx) (err error) {
		out, err = sqlrow.ContractDocuments(ctx, sq{tx}, dialect{}, contractID)
		return err
	})
	return out, err
}

// Document implements ports.ContractStore.
func (s *ContractStore) Document(ctx context.Context, contractID, docID int64) (contract.Document, error) {
	return loadDocument(ctx, reader{s.db}, contractID, docID)
}

// RemoveDocument implements ports.ContractStore. The single writer holds
// the contract still from the status read to the delete.
func (s *ContractStore) RemoveDocument(ctx context.Context, contractID, docID int64, fn func(status contract.Status, d contract.Document) ([]contract.AuditEntry, error)) (contract.Document, error) {
	var d contract.Document
	err := s.db.writeTx(ctx, func(tx *sql.Tx) (err error) {
		d, err = sqlrow.RemoveDocument(ctx, sq{tx}, dialect{}, contractID, docID, fn, sqlrow.Locks{})
		return err
	})
	return d, err
}
