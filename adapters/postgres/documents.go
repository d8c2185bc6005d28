package postgres

import (
	"context"
	"fmt"
	"strings"

	"counsel/domain/contract"
)

const documentColumns = `id, contract_id, file_name, content_type, size, sha256, storage_key, uploaded_at, uploaded_by, kind`

func scanDocument(s scanner) (contract.Document, error) {
	var d contract.Document
	err := s.Scan(&d.ID, &d.ContractID, &d.FileName, &d.ContentType, &d.Size, &d.SHA256, &d.StorageKey, &d.UploadedAt, &d.UploadedBy, &d.Kind)
	d.UploadedAt = utc(d.UploadedAt)
	return d, err
}

func contractExists(ctx context.Context, x q, id int64, lock string) error {
	var one int
	err := x.row(ctx, `SELECT 1 FROM contracts WHERE id = ?`+lock, id).Scan(&one)
	if noRows(err) {
		return notFound("contract")
	}
	return err
}

func loadDocuments(ctx context.Context, x q, contractID int64) ([]contract.Document, error) {
	rows, err := x.query(ctx, `SELECT `+documentColumns+` FROM contract_documents WHERE contract_id = ? ORDER BY id`, contractID)
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

func loadDocument(ctx context.Context, x q, contractID, docID int64, lock string) (contract.Document, error) {
	d, err := scanDocument(x.row(ctx, `SELECT `+documentColumns+` FROM contract_documents WHERE id = ? AND contract_id = ?`+lock, docID, contractID))
	if noRows(err) {
		if err := contractExists(ctx, x, contractID, ""); err != nil {
			return d, err
		}
		return d, notFound("document")
	}
	return d, err
}

// AddDocument implements ports.ContractStore. The contract's row is
// locked, so instances adding documents at once count them one by one.
func (s *ContractStore) AddDocument(ctx context.Context, d contract.Document, audit []contract.AuditEntry, check func(int) error) (contract.Document, error) {
	var out contract.Document
	err := s.db.tx(ctx, func(x q) error {
		if err := contractExists(ctx, x, d.ContractID, " FOR UPDATE"); err != nil {
			return err
		}
		if check != nil {
			var n int
			if err := x.row(ctx, `SELECT count(*) FROM contract_documents WHERE contract_id = ?`, d.ContractID).Scan(&n); err != nil {
				return err
			}
			if err := check(n); err != nil {
				return err
			}
		}
		id, err := insertDocument(ctx, x, d)
		if err != nil {
			return err
		}
		if err := insertAudit(ctx, x, d.ContractID, audit); err != nil {
			return err
		}
		out, err = loadDocument(ctx, x, d.ContractID, id, "")
		return err
	})
	return out, err
}

// insertDocument inserts d's row and returns its id.
func insertDocument(ctx context.Context, x q, d contract.Document) (int64, error) {
	kind := d.Kind
	if kind == "" {
		kind = contract.KindOriginal
	}
	var id int64
	err := x.row(ctx, `INSERT INTO contract_documents (contract_id, file_name, content_type, size, sha256,
		storage_key, uploaded_at, uploaded_by, kind) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`,
		d.ContractID, d.FileName, d.ContentType, d.Size, d.SHA256, d.StorageKey, d.UploadedAt, d.UploadedBy, kind).Scan(&id)
	return id, err
}

// Documents implements ports.ContractStore.
func (s *ContractStore) Documents(ctx context.Context, contractID int64) ([]contract.Document, error) {
	var out []contract.Document
	err := s.db.readTx(ctx, func(x q) error {
		if err := contractExists(ctx, x, contractID, ""); err != nil {
			return err
		}
		var err error
		out, err = loadDocuments(ctx, x, contractID)
		return err
	})
	return out, err
}

// Document implements ports.ContractStore.
func (s *ContractStore) Document(ctx context.Context, contractID, docID int64) (contract.Document, error) {
	return loadDocument(ctx, s.db.read(), contractID, docID, "")
}

// DocumentByID implements ports.ContractSigningStore.
func (s *ContractStore) DocumentByID(ctx context.Context, docID int64) (contract.Document, error) {
	d, err := scanDocument(s.db.read().row(ctx, `SELECT `+documentColumns+` FROM contract_documents WHERE id = ?`, docID))
	if noRows(err) {
		return d, notFound("document")
	}
	return d, err
}

// RemoveDocument implements ports.ContractStore. The contract's row is
// share-locked before its status is read, so a status change (which
// locks it for update) waits for the removal to commit, or the removal
// for the change.
func (s *ContractStore) RemoveDocument(ctx context.Context, contractID, docID int64, fn func(status contract.Status, d contract.Document) ([]contract.AuditEntry, error)) (contract.Document, error) {
	var d contract.Document
	err := s.db.tx(ctx, func(x q) error {
		var status contract.Status
		err := x.row(ctx, `SELECT status FROM contracts WHERE id = ? FOR SHARE`, contractID).Scan(&status)
		if noRows(err) {
			return notFound("contract")
		} else if err != nil {
			return err
		}
		if d, err = loadDocument(ctx, x, contractID, docID, " FOR UPDATE"); err != nil {
			return err
		}
		entries, err := fn(status, d)
		if err != nil {
			return err
		}
		if _, err := x.exec(ctx, `DELETE FROM contract_documents WHERE id = ?`, docID); err != nil {
			return err
		}
		return insertAudit(ctx, x, contractID, entries)
	})
	return d, err
}

// insertAudit writes entries for contract id, with each actor's name as
// it is now.
func insertAudit(ctx context.Context, x q, id int64, entries []contract.AuditEntry) error {
	names := map[int64]string{}
	for _, e := range entries {
		name := e.Actor.String()
		var userID any
		if e.Actor == contract.ActorUser {
			userID = e.ActorUserID
			n, ok := names[e.ActorUserID]
			if !ok {
				var err error
				if n, err = userName(ctx, x, e.ActorUserID); err != nil {
					return err
				}
				names[e.ActorUserID] = n
			}
			name = n
		}
		if _, err := x.exec(ctx, `INSERT INTO contract_audit (contract_id, action, from_status, to_status,
			actor_kind, actor_user_id, actor_name, at, details) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			id, string(e.Action), nullStatus(e.From), nullStatus(e.To), int16(e.Actor), userID, name, e.At, e.Details); err != nil {
			return err
		}
	}
	return nil
}

// userName is the name the audit trail shows for a user.
func userName(ctx context.Context, x q, id int64) (string, error) {
	var first, last, email string
	err := x.row(ctx, `SELECT first_name, last_name, email FROM users WHERE id = ?`, id).Scan(&first, &last, &email)
	if noRows(err) {
		return fmt.Sprintf("user %d", id), nil
	}
	if err != nil {
		return "", err
	}
	if n := strings.TrimSpace(first + " " + last); n != "" {
		return n, nil
	}
	return email, nil
}

func nullStatus(s contract.Status) any {
	if s == 0 {
		return nil
	}
	return int16(s)
}

// History implements ports.ContractStore.
func (s *ContractStore) History(ctx context.Context, id int64, limit, offset int64) ([]contract.AuditEntry, int64, error) {
	var count int64
	out := []contract.AuditEntry{}
	err := s.db.readTx(ctx, func(x q) error {
		if err := x.row(ctx, `SELECT count(*) FROM contract_audit WHERE contract_id = ?`, id).Scan(&count); err != nil {
			return err
		}
		if count == 0 {
			return notFound("contract")
		}
		if limit == 0 || offset >= count {
			return nil
		}
		rows, err := x.query(ctx, `SELECT id, contract_id, action, from_status, to_status, actor_kind, actor_user_id,
			actor_name, at, details FROM contract_audit WHERE contract_id = ? ORDER BY id DESC LIMIT ? OFFSET ?`, id, limit, offset)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var e contract.AuditEntry
			var from, to *int16
			var user *int64
			var action string
			var actor int16
			if err := rows.Scan(&e.ID, &e.ContractID, &action, &from, &to, &actor, &user, &e.ActorName, &e.At, &e.Details); err != nil {
				return err
			}
			e.Action, e.Actor, e.At = contract.Action(action), contract.Actor(actor), utc(e.At)
			if from != nil {
				e.From = contract.Status(*from)
			}
			if to != nil {
				e.To = contract.Status(*to)
			}
			if user != nil {
				e.ActorUserID = *user
			}
			out = append(out, e)
		}
		return rows.Err()
	})
	if err != nil {
		return nil, 0, err
	}
	return out, count, nil
}
