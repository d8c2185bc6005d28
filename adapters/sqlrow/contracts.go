package sqlrow

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"fmt"
	"strings"

	"counsel/domain/contract"
)

// ContractExists returns ENOTFOUND unless contract id exists; lock is
// appended to the query (an engine's row lock, or "").
func ContractExists(ctx context.Context, x Querier, id int64, lock string) error {
	return Exists(ctx, x, "contract", `SELECT 1 FROM contracts WHERE id = ?`+lock, id)
}

// ContractStatus returns contract id's status; ENOTFOUND if it does not
// exist. lock is appended to the query.
func ContractStatus(ctx context.Context, x Querier, id int64, lock string) (contract.Status, error) {
	var st contract.Status
	err := x.Row(ctx, `SELECT status FROM contracts WHERE id = ?`+lock, id).Scan(&st)
	return st, IfNoRows(err, "contract")
}

// DocumentCols are the columns ScanDocument reads.
const DocumentCols = `id, contract_id, file_name, content_type, size, sha256, storage_key, uploaded_at, uploaded_by, kind`

// ScanDocument reads DocumentCols.
func ScanDocument(tc Times, s Scanner) (contract.Document, error) {
	var d contract.Document
	err := s.Scan(&d.ID, &d.ContractID, &d.FileName, &d.ContentType, &d.Size, &d.SHA256, &d.StorageKey, Time(tc, &d.UploadedAt), &d.UploadedBy, &d.Kind)
	return d, err
}

// Documents lists a contract's documents, oldest first.
func Documents(ctx context.Context, x Querier, tc Times, contractID int64) ([]contract.Document, error) {
	docs, err := QueryAll(ctx, x, func(s Scanner) (contract.Document, error) { return ScanDocument(tc, s) },
		`SELECT `+DocumentCols+` FROM contract_documents WHERE contract_id = ? ORDER BY id`, contractID)
	if err != nil {
		return nil, fmt.Errorf("list documents of contract %d: %w", contractID, err)
	}
	return docs, nil
}

// Document reads one document of a contract; lock is appended to the
// query. ENOTFOUND names the contract when it is unknown, else the
// document.
func Document(ctx context.Context, x Querier, tc Times, contractID, docID int64, lock string) (contract.Document, error) {
	d, err := ScanDocument(tc, x.Row(ctx, `SELECT `+DocumentCols+` FROM contract_documents WHERE id = ? AND contract_id = ?`+lock, docID, contractID))
	if NoRows(err) {
		if err := ContractExists(ctx, x, contractID, ""); err != nil {
			return d, err
		}
		return d, NotFound("document")
	}
	if err != nil {
		return d, fmt.Errorf("load document %d of contract %d: %w", docID, contractID, err)
	}
	return d, nil
}

// DocumentByID reads a document by its id alone.
func DocumentByID(ctx context.Context, x Querier, tc Times, docID int64) (contract.Document, error) {
	d, err := ScanDocument(tc, x.Row(ctx, `SELECT `+DocumentCols+` FROM contract_documents WHERE id = ?`, docID))
	if err != nil {
		return d, fmt.Errorf("load document %d: %w", docID, IfNoRows(err, "document"))
	}
	return d, nil
}

// InsertDocument inserts d's row and returns its id.
func InsertDocument(ctx context.Context, x Querier, tc Times, d contract.Document) (int64, error) {
	kind := d.Kind
	if kind == "" {
		kind = contract.KindOriginal
	}
	id, err := x.Insert(ctx, `INSERT INTO contract_documents (contract_id, file_name, content_type, size, sha256,
		storage_key, uploaded_at, uploaded_by, kind) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		d.ContractID, d.FileName, d.ContentType, d.Size, d.SHA256, d.StorageKey, tc.Arg(d.UploadedAt), d.UploadedBy, kind)
	if err != nil {
		return 0, fmt.Errorf("insert document of contract %d: %w", d.ContractID, err)
	}
	return id, nil
}

// CountDocuments counts a contract's documents.
func CountDocuments(ctx context.Context, x Querier, contractID int64) (int, error) {
	var n int
	err := x.Row(ctx, `SELECT count(*) FROM contract_documents WHERE contract_id = ?`, contractID).Scan(&n)
	return n, err
}

// InsertAudit writes entries for contract id, with each actor's name as
// it is now: a user's full name (or email when they have none), else the
// actor's own name.
func InsertAudit(ctx context.Context, x Querier, tc Times, id int64, entries []contract.AuditEntry) error {
	names := map[int64]string{}
	for _, e := range entries {
		name := e.Actor.String()
		var userID any
		if e.Actor == contract.ActorUser {
			userID = e.ActorUserID
			n, ok := names[e.ActorUserID]
			if !ok {
				var err error
				if n, err = UserName(ctx, x, e.ActorUserID); err != nil {
					return err
				}
				names[e.ActorUserID] = n
			}
			name = n
		}
		if _, err := x.Exec(ctx, `INSERT INTO contract_audit (contract_id, action, from_status, to_status,
			actor_kind, actor_user_id, actor_name, at, details) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			id, string(e.Action), nullStatus(e.From), nullStatus(e.To), int64(e.Actor), userID, name, tc.Arg(e.At), e.Details); err != nil {
			return fmt.Errorf("insert audit entry of contract %d: %w", id, err)
		}
	}
	return nil
}

func nullStatus(s contract.Status) any {
	if s == 0 {
		return nil
	}
	return int64(s)
}

// UserName is the name the audit trail shows for a user.
func UserName(ctx context.Context, x Querier, id int64) (string, error) {
	var first, last, email string
	err := x.Row(ctx, `SELECT first_name, last_name, email FROM users WHERE id = ?`, id).Scan(&first, &last, &email)
	if NoRows(err) {
		return fmt.Sprintf("user %d", id), nil
	}
	if err != nil {
		return "", fmt.Errorf("load the name of user %d: %w", id, err)
	}
	if n := strings.TrimSpace(first + " " + last); n != "" {
		return n, nil
	}
	return email, nil
}

// History returns a page of contract id's audit trail, newest first, and
// its length. Every contract has at least its created entry, so an empty
// trail means the id never existed: ENOTFOUND.
func History(ctx context.Context, x Querier, tc Times, id, limit, offset int64) ([]contract.AuditEntry, int64, error) {
	var count int64
	if err := x.Row(ctx, `SELECT count(*) FROM contract_audit WHERE contract_id = ?`, id).Scan(&count); err != nil {
		return nil, 0, fmt.Errorf("count the audit trail of contract %d: %w", id, err)
	}
	if count == 0 {
		return nil, 0, NotFound("contract")
	}
	if limit == 0 || offset >= count {
		return []contract.AuditEntry{}, count, nil
	}
	out, err := QueryAll(ctx, x, func(s Scanner) (contract.AuditEntry, error) { return scanAudit(tc, s) },
		`SELECT id, contract_id, action, from_status, to_status, actor_kind, actor_user_id,
		actor_name, at, details FROM contract_audit WHERE contract_id = ? ORDER BY id DESC LIMIT ? OFFSET ?`, id, limit, offset)
	if err != nil {
		return nil, 0, fmt.Errorf("read the audit trail of contract %d: %w", id, err)
	}
	return out, count, nil
}

func scanAudit(tc Times, s Scanner) (contract.AuditEntry, error) {
	var e contract.AuditEntry
	var from, to, user sql.NullInt64
	var action string
	var actor int64
	if err := s.Scan(&e.ID, &e.ContractID, &action, &from, &to, &actor, &user, &e.ActorName, Time(tc, &e.At), &e.Details); err != nil {
		return e, err
	}
	e.Action, e.Actor = contract.Action(action), contract.Actor(actor)
	e.From, e.To, e.ActorUserID = contract.Status(from.Int64), contract.Status(to.Int64), user.Int64
	return e, nil
}

// Locks are the row locks an engine appends to the reads a write decides
// on (PostgreSQL's FOR UPDATE and FOR SHARE; SQLite's single writer
// needs none).
type Locks struct{ Update, Share string }

// AddDocument records d with the entries of audit after check (nil: none)
// has accepted the number of documents the contract holds; lock is
// appended to the contract's read, so that concurrent additions count one
// after the other. write stores the document's bytes under the new
// storage key it is given, in the same transaction, before the row is
// inserted.
func AddDocument(ctx context.Context, x Querier, tc Times, d contract.Document, write func(key string) error, audit []contract.AuditEntry, check func(int) error, lock string) (contract.Document, error) {
	if err := ContractExists(ctx, x, d.ContractID, lock); err != nil {
		return contract.Document{}, err
	}
	if check != nil {
		n, err := CountDocuments(ctx, x, d.ContractID)
		if err != nil {
			return contract.Document{}, fmt.Errorf("count documents of contract %d: %w", d.ContractID, err)
		}
		if err := check(n); err != nil {
			return contract.Document{}, err
		}
	}
	key, err := NewStorageKey()
	if err != nil {
		return contract.Document{}, err
	}
	if err := write(key); err != nil {
		return contract.Document{}, fmt.Errorf("store the bytes of a document of contract %d: %w", d.ContractID, err)
	}
	d.StorageKey = key
	id, err := InsertDocument(ctx, x, tc, d)
	if err != nil {
		return contract.Document{}, err
	}
	if err := InsertAudit(ctx, x, tc, d.ContractID, audit); err != nil {
		return contract.Document{}, err
	}
	return Document(ctx, x, tc, d.ContractID, id, "")
}

// NewStorageKey returns a new key for a document's bytes: 32 random hex
// digits.
func NewStorageKey() (string, error) {
	var k [16]byte
	if _, err := rand.Read(k[:]); err != nil {
		return "", fmt.Errorf("storage key: %w", err)
	}
	return hex.EncodeToString(k[:]), nil
}

// CheckBytes returns an error unless the bytes a store wrote (size,
// SHA-256 in lower-case hex) are the ones document d states.
func CheckBytes(d contract.Document, size int64, sum string) error {
	if size != d.Size || sum != d.SHA256 {
		return fmt.Errorf("the bytes of %q (%d bytes, sha256 %s) are not the %d bytes with sha256 %s its row states", d.FileName, size, sum, d.Size, d.SHA256)
	}
	return nil
}

// ContractDocuments lists a known contract's documents; ENOTFOUND for an
// unknown contract.
func ContractDocuments(ctx context.Context, x Querier, tc Times, contractID int64) ([]contract.Document, error) {
	if err := ContractExists(ctx, x, contractID, ""); err != nil {
		return nil, err
	}
	return Documents(ctx, x, tc, contractID)
}

// RemoveDocument deletes a document's row with the entries fn returns,
// fn deciding on the contract's status as this transaction reads it (the
// contract's row share-locked, the document's locked for update).
func RemoveDocument(ctx context.Context, x Querier, tc Times, contractID, docID int64,
	fn func(contract.Status, contract.Document) ([]contract.AuditEntry, error), l Locks) (contract.Document, error) {
	status, err := ContractStatus(ctx, x, contractID, l.Share)
	if err != nil {
		return contract.Document{}, err
	}
	d, err := Document(ctx, x, tc, contractID, docID, l.Update)
	if err != nil {
		return d, err
	}
	entries, err := fn(status, d)
	if err != nil {
		return d, err
	}
	if _, err := x.Exec(ctx, `DELETE FROM contract_documents WHERE id = ?`, docID); err != nil {
		return d, fmt.Errorf("delete document %d: %w", docID, err)
	}
	return d, InsertAudit(ctx, x, tc, contractID, entries)
}
