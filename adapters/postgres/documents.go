package postgres

import (
	"context"
	"io"

	"counsel/ports"

	"counsel/adapters/sqlrow"
	"counsel/domain/contract"
)

// pgLocks lock what a write decides on.
var pgLocks = sqlrow.Locks{Update: " FOR UPDATE", Share: " FOR SHARE"}

func contractExists(ctx context.Context, x q, id int64, lock string) error {
	return sqlrow.ContractExists(ctx, x, id, lock)
}

func loadDocuments(ctx context.Context, x q, contractID int64) ([]contract.Document, error) {
	return sqlrow.Documents(ctx, x, dialect{}, contractID)
}

// insertDocument inserts d's row and returns its id.
func insertDocument(ctx context.Context, x q, d contract.Document) (int64, error) {
	return sqlrow.InsertDocument(ctx, x, dialect{}, d)
}

// AddDocument implements ports.ContractStore: the bytes, the row and the
// audit entries in one transaction. The contract's row is locked, so
// instances adding documents at once count them one by one.
func (s *ContractStore) AddDocument(ctx context.Context, d ports.NewDocument, audit []contract.AuditEntry, check func(int) error) (contract.Document, error) {
	var out contract.Document
	err := s.db.tx(ctx, func(x q) (err error) {
		write := func(key string) error {
			return writeDocumentBytes(ctx, x, d.Document, key, io.NewSectionReader(d.Body, 0, d.Size), s.db.Now())
		}
		out, err = sqlrow.AddDocument(ctx, x, dialect{}, d.Document, write, audit, check, pgLocks.Update)
		return err
	})
	return out, err
}

// Documents implements ports.ContractStore.
func (s *ContractStore) Documents(ctx context.Context, contractID int64) ([]contract.Document, error) {
	var out []contract.Document
	err := s.db.readTx(ctx, func(x q) (err error) {
		out, err = sqlrow.ContractDocuments(ctx, x, dialect{}, contractID)
		return err
	})
	return out, err
}

// Document implements ports.ContractStore.
func (s *ContractStore) Document(ctx context.Context, contractID, docID int64) (contract.Document, error) {
	return sqlrow.Document(ctx, s.db.read(), dialect{}, contractID, docID, "")
}

// DocumentByID implements ports.ContractSigningStore.
func (s *ContractStore) DocumentByID(ctx context.Context, docID int64) (contract.Document, error) {
	return sqlrow.DocumentByID(ctx, s.db.read(), dialect{}, docID)
}

// RemoveDocument implements ports.ContractStore. The contract's row is
// share-locked before its status is read, so a status change (which
// locks it for update) waits for the removal to commit, or the removal
// for the change.
func (s *ContractStore) RemoveDocument(ctx context.Context, contractID, docID int64, fn func(status contract.Status, d contract.Document) ([]contract.AuditEntry, error)) (contract.Document, error) {
	var d contract.Document
	err := s.db.tx(ctx, func(x q) (err error) {
		d, err = sqlrow.RemoveDocument(ctx, x, dialect{}, contractID, docID, fn, pgLocks)
		return err
	})
	return d, err
}

// insertAudit writes entries for contract id (sqlrow.InsertAudit).
func insertAudit(ctx context.Context, x q, id int64, entries []contract.AuditEntry) error {
	return sqlrow.InsertAudit(ctx, x, dialect{}, id, entries)
}

// userName is the name the audit trail shows for a user.
func userName(ctx context.Context, x q, id int64) (string, error) { return sqlrow.UserName(ctx, x, id) }

// History implements ports.ContractStore.
func (s *ContractStore) History(ctx context.Context, id int64, limit, offset int64) ([]contract.AuditEntry, int64, error) {
	var out []contract.AuditEntry
	var count int64
	err := s.db.readTx(ctx, func(x q) (err error) {
		out, count, err = sqlrow.History(ctx, x, dialect{}, id, limit, offset)
		return err
	})
	return out, count, err
}
