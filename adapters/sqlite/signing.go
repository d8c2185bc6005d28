package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"counsel/adapters/sqlrow"
	"counsel/ports"
)

// SigningStore implements ports.SigningStore: the embedded signer's
// templates, submissions and submitters.
type SigningStore struct{ db *DB }

var _ ports.SigningStore = (*SigningStore)(nil)

// NewSigningStore returns the signing store of db.
func NewSigningStore(db *DB) *SigningStore { return &SigningStore{db: db} }

// signingRead runs fn in a read transaction on the read pool, so the several
// queries that build one record see one snapshot.
func (db *DB) signingRead(ctx context.Context, fn func(*sql.Tx) error) error {
	tx, err := db.read.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if err := fn(tx); err != nil {
		return formatError(err)
	}
	return tx.Commit()
}

// CreateTemplate implements ports.SigningStore.
func (s *SigningStore) CreateTemplate(ctx context.Context, t ports.SigningTemplateRecord) (ports.SigningTemplateRecord, error) {
	roles, err := json.Marshal(signingRolesOrEmpty(t.Roles))
	if err != nil {
		return t, err
	}
	var out ports.SigningTemplateRecord
	err = s.db.writeTx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `INSERT INTO signing_templates (name, slug, external_id, roles, created_at, updated_at)
			VALUES (?, ?, ?, ?, ?, ?)`, t.Name, t.Slug, t.ExternalID, string(roles), ms(t.CreatedAt), ms(t.UpdatedAt))
		if err != nil {
			return err
		}
		id, err := res.LastInsertId()
		if err != nil {
			return err
		}
		for i, d := range t.Documents {
			if _, err := tx.ExecContext(ctx, `INSERT INTO signing_template_documents (template_id, position, document_id, file_name, content_type)
				VALUES (?, ?, ?, ?, ?)`, id, i, d.DocumentID, d.FileName, d.ContentType); err != nil {
				return err
			}
		}
		out, err = loadSigningTemplate(ctx, tx, "t.id = ?", id)
		return err
	})
	if err != nil {
		return out, fmt.Errorf("create signing template %q: %w", t.Slug, err)
	}
	return out, nil
}

// Template implements ports.SigningStore.
func (s *SigningStore) Template(ctx context.Context, id int64) (ports.SigningTemplateRecord, error) {
	var out ports.SigningTemplateRecord
	err := s.db.signingRead(ctx, func(tx *sql.Tx) (err error) {
		out, err = loadSigningTemplate(ctx, tx, "t.id = ?", id)
		return err
	})
	if err != nil {
		return out, fmt.Errorf("load signing template %d: %w", id, err)
	}
	return out, nil
}

// TemplateBySlug implements ports.SigningStore.
func (s *SigningStore) TemplateBySlug(ctx context.Context, slug string) (ports.SigningTemplateRecord, error) {
	var out ports.SigningTemplateRecord
	err := s.db.signingRead(ctx, func(tx *sql.Tx) (err error) {
		out, err = loadSigningTemplate(ctx, tx, "t.slug = ?", slug)
		return err
	})
	if err != nil {
		return out, fmt.Errorf("load signing template %q: %w", slug, err)
	}
	return out, nil
}

// loadSigningTemplate reads one template and its documents.
func loadSigningTemplate(ctx context.Context, q queryer, where string, arg any) (ports.SigningTemplateRecord, error) {
	var t ports.SigningTemplateRecord
	var roles string
	var created, updated int64
	err := q.QueryRowContext(ctx, `SELECT t.id, t.name, t.slug, t.external_id, t.roles, t.created_at, t.updated_at
		FROM signing_templates t WHERE `+where, arg).Scan(&t.ID, &t.Name, &t.Slug, &t.ExternalID, &roles, &created, &updated)
	if err == sql.ErrNoRows {
		return t, notFound("signing template")
	}
	if err != nil {
		return t, err
	}
	t.CreatedAt, t.UpdatedAt = fromMs(created), fromMs(updated)
	if err := json.Unmarshal([]byte(roles), &t.Roles); err != nil {
		return t, fmt.Errorf("signing template %d roles: %w", t.ID, err)
	}
	rows, err := q.QueryContext(ctx, `SELECT document_id, file_name, content_type FROM signing_template_documents
		WHERE template_id = ? ORDER BY position`, t.ID)
	if err != nil {
		return t, err
	}
	defer rows.Close()
	t.Documents = []ports.SigningDocumentRecord{}
	for rows.Next() {
		var d ports.SigningDocumentRecord
		if err := rows.Scan(&d.DocumentID, &d.FileName, &d.ContentType); err != nil {
			return t, err
		}
		t.Documents = append(t.Documents, d)
	}
	return t, rows.Err()
}

// CreateSubmission implements ports.SigningStore.
func (s *SigningStore) CreateSubmission(ctx context.Context, sub ports.SigningSubmissionRecord) (ports.SigningSubmissionRecord, error) {
	var out ports.SigningSubmissionRecord
	err := s.db.writeTx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `INSERT INTO signing_submissions (template_id, name, signing_order, status, send_email,
			message_subject, message_body, expire_at, created_at, updated_at, completed_at, declined_at, expired_at)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			sub.TemplateID, sub.Name, sub.Order, sub.Status, sub.SendEmail, sub.Message.Subject, sub.Message.Body,
			nullMs(sub.ExpireAt), ms(sub.CreatedAt), ms(sub.UpdatedAt), nullMs(sub.CompletedAt), nullMs(sub.DeclinedAt), nullMs(sub.ExpiredAt))
		if err != nil {
			return err
		}
		id, err := res.LastInsertId()
		if err != nil {
			return err
		}
		for i, p := range sub.Submitters {
			if _, err := tx.ExecContext(ctx, `INSERT INTO signing_submitters (submission_id, position, slug, name, email, phone, role,
				status, sent_at, opened_at, completed_at, declined_at, decline_reason, signed_name, signer_addr, signer_agent)
				VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
				id, i, p.Slug, p.Name, p.Email, p.Phone, p.Role, p.Status, nullMs(p.SentAt), nullMs(p.OpenedAt),
				nullMs(p.CompletedAt), nullMs(p.DeclinedAt), p.DeclineReason, p.SignedName, p.SignerAddr, p.SignerAgent); err != nil {
				return err
			}
		}
		out, err = loadSigningSubmission(ctx, tx, id)
		return err
	})
	if err != nil {
		return out, fmt.Errorf("create signing submission of template %d: %w", sub.TemplateID, err)
	}
	return out, nil
}

// Submission implements ports.SigningStore.
func (s *SigningStore) Submission(ctx context.Context, id int64) (ports.SigningSubmissionRecord, error) {
	var out ports.SigningSubmissionRecord
	err := s.db.signingRead(ctx, func(tx *sql.Tx) (err error) {
		out, err = loadSigningSubmission(ctx, tx, id)
		return err
	})
	if err != nil {
		return out, fmt.Errorf("load signing submission %d: %w", id, err)
	}
	return out, nil
}

// SubmissionBySlug implements ports.SigningStore.
func (s *SigningStore) SubmissionBySlug(ctx context.Context, slug string) (ports.SigningSubmissionRecord, int, error) {
	var out ports.SigningSubmissionRecord
	idx := -1
	err := s.db.signingRead(ctx, func(tx *sql.Tx) error {
		var id int64
		var pos int
		err := tx.QueryRowContext(ctx, `SELECT submission_id, position FROM signing_submitters WHERE slug = ?`, slug).Scan(&id, &pos)
		if err == sql.ErrNoRows {
			return notFound("signing submitter")
		}
		if err != nil {
			return err
		}
		if out, err = loadSigningSubmission(ctx, tx, id); err != nil {
			return err
		}
		for i, p := range out.Submitters {
			if p.Slug == slug {
				idx = i
			}
		}
		return nil
	})
	if err == nil && idx < 0 {
		err = notFound("signing submitter")
	}
	if err != nil {
		return out, idx, fmt.Errorf("load signing submission of submitter %q: %w", slug, err)
	}
	return out, idx, nil
}

// SubmissionsByTemplate implements ports.SigningStore.
func (s *SigningStore) SubmissionsByTemplate(ctx context.Context, templateID int64, limit int) ([]ports.SigningSubmissionRecord, error) {
	var out []ports.SigningSubmissionRecord
	err := s.db.signingRead(ctx, func(tx *sql.Tx) (err error) {
		out, err = loadSigningSubmissions(ctx, tx, "s.template_id = ? ORDER BY s.id DESC LIMIT ?", templateID, limit)
		return err
	})
	if err != nil {
		return out, fmt.Errorf("list signing submissions of template %d: %w", templateID, err)
	}
	return out, nil
}

// UpdateSubmission implements ports.SigningStore.
func (s *SigningStore) UpdateSubmission(ctx context.Context, id int64, fn func(*ports.SigningSubmissionRecord) error) (ports.SigningSubmissionRecord, error) {
	var out ports.SigningSubmissionRecord
	err := s.db.writeTx(ctx, func(tx *sql.Tx) error {
		cur, err := loadSigningSubmission(ctx, tx, id)
		if err != nil {
			return err
		}
		before := cloneSigningSubmitters(cur.Submitters)
		if err := fn(&cur); err != nil {
			return err
		}
		if len(cur.Submitters) != len(before) {
			return fmt.Errorf("update signing submission %d: submitters cannot be added or removed", id)
		}
		if _, err := tx.ExecContext(ctx, `UPDATE signing_submissions SET status = ?, send_email = ?, expire_at = ?, updated_at = ?,
			completed_at = ?, declined_at = ?, expired_at = ?, evidence_pending = ? WHERE id = ?`,
			cur.Status, cur.SendEmail, nullMs(cur.ExpireAt), ms(cur.UpdatedAt), nullMs(cur.CompletedAt), nullMs(cur.DeclinedAt),
			nullMs(cur.ExpiredAt), cur.EvidencePending, id); err != nil {
			return err
		}
		// Only the submitters fn changed are written.
		for i, p := range cur.Submitters {
			if signingSubmitterEqual(p, before[i]) {
				continue
			}
			if _, err := tx.ExecContext(ctx, `UPDATE signing_submitters SET status = ?, sent_at = ?, opened_at = ?, completed_at = ?,
				declined_at = ?, decline_reason = ?, signed_name = ?, signer_addr = ?, signer_agent = ? WHERE id = ? AND submission_id = ?`,
				p.Status, nullMs(p.SentAt), nullMs(p.OpenedAt), nullMs(p.CompletedAt), nullMs(p.DeclinedAt), p.DeclineReason,
				p.SignedName, p.SignerAddr, p.SignerAgent, before[i].ID, id); err != nil {
				return err
			}
		}
		out, err = loadSigningSubmission(ctx, tx, id)
		return err
	})
	if err != nil {
		return out, fmt.Errorf("update signing submission %d: %w", id, err)
	}
	return out, nil
}

// DueSubmissions implements ports.SigningStore. The partial index
// signing_submissions_due holds exactly the rows it reads.
func (s *SigningStore) DueSubmissions(ctx context.Context, now time.Time, limit int) ([]int64, error) {
	ids, err := sqlrow.QueryAll(ctx, sq{reader{s.db}}, sqlrow.ID, `SELECT id FROM signing_submissions
		WHERE status = 'pending' AND expire_at IS NOT NULL AND expire_at <= ? ORDER BY expire_at, id LIMIT ?`, ms(now), limit)
	if err != nil {
		return nil, fmt.Errorf("list due signing submissions: %w", err)
	}
	return ids, nil
}

// EvidencePending implements ports.SigningStore, through the partial
// index signing_submissions_evidence_pending.
func (s *SigningStore) EvidencePending(ctx context.Context, limit int) ([]int64, error) {
	ids, err := sqlrow.QueryAll(ctx, sq{reader{s.db}}, sqlrow.ID, `SELECT id FROM signing_submissions WHERE evidence_pending = 1 ORDER BY id LIMIT ?`, limit)
	if err != nil {
		return nil, fmt.Errorf("list signing submissions pending evidence: %w", err)
	}
	return ids, nil
}

// SetEvidence implements ports.SigningStore.
func (s *SigningStore) SetEvidence(ctx context.Context, id int64, combinedDocumentID, auditDocumentID string) error {
	err := s.db.writeTx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE signing_submissions SET evidence_pending = 0, combined_document_id = ?,
			audit_document_id = ? WHERE id = ?`, combinedDocumentID, auditDocumentID, id)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil {
			return err
		} else if n == 0 {
			return notFound("signing submission")
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("set the evidence of signing submission %d: %w", id, err)
	}
	return nil
}

func loadSigningSubmission(ctx context.Context, q queryer, id int64) (ports.SigningSubmissionRecord, error) {
	subs, err := loadSigningSubmissions(ctx, q, "s.id = ?", id)
	if err != nil {
		return ports.SigningSubmissionRecord{}, err
	}
	if len(subs) == 0 {
		return ports.SigningSubmissionRecord{}, notFound("signing submission")
	}
	return subs[0], nil
}

// loadSigningSubmissions reads the submissions that match tail (a WHERE clause
// with any ORDER BY and LIMIT) and their submitters in two queries, not
// one per submission.
func loadSigningSubmissions(ctx context.Context, q queryer, tail string, args ...any) ([]ports.SigningSubmissionRecord, error) {
	rows, err := q.QueryContext(ctx, `SELECT s.id, s.template_id, s.name, s.signing_order, s.status, s.send_email,
		s.message_subject, s.message_body, s.expire_at, s.created_at, s.updated_at, s.completed_at, s.declined_at, s.expired_at,
		s.evidence_pending, s.combined_document_id, s.audit_document_id
		FROM signing_submissions s WHERE `+tail, args...)
	if err != nil {
		return nil, err
	}
	out := []ports.SigningSubmissionRecord{}
	index := map[int64]int{}
	for rows.Next() {
		var s ports.SigningSubmissionRecord
		var expire, completed, declined, expired sql.NullInt64
		var created, updated int64
		if err := rows.Scan(&s.ID, &s.TemplateID, &s.Name, &s.Order, &s.Status, &s.SendEmail, &s.Message.Subject, &s.Message.Body,
			&expire, &created, &updated, &completed, &declined, &expired,
			&s.EvidencePending, &s.CombinedDocumentID, &s.AuditDocumentID); err != nil {
			rows.Close()
			return nil, err
		}
		s.ExpireAt, s.CompletedAt, s.DeclinedAt, s.ExpiredAt = fromNullMs(expire), fromNullMs(completed), fromNullMs(declined), fromNullMs(expired)
		s.CreatedAt, s.UpdatedAt = fromMs(created), fromMs(updated)
		index[s.ID] = len(out)
		out = append(out, s)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	if len(out) == 0 {
		return out, nil
	}
	ids := make([]any, len(out))
	for i, s := range out {
		ids[i] = s.ID
	}
	srows, err := q.QueryContext(ctx, `SELECT submission_id, id, slug, name, email, phone, role, status, sent_at, opened_at,
		completed_at, declined_at, decline_reason, signed_name, signer_addr, signer_agent
		FROM signing_submitters WHERE submission_id IN (?`+strings.Repeat(", ?", len(ids)-1)+`) ORDER BY submission_id, position`, ids...)
	if err != nil {
		return nil, err
	}
	defer srows.Close()
	for srows.Next() {
		var sid int64
		var p ports.SigningSubmitterRecord
		var sent, opened, completed, declined sql.NullInt64
		if err := srows.Scan(&sid, &p.ID, &p.Slug, &p.Name, &p.Email, &p.Phone, &p.Role, &p.Status, &sent, &opened,
			&completed, &declined, &p.DeclineReason, &p.SignedName, &p.SignerAddr, &p.SignerAgent); err != nil {
			return nil, err
		}
		p.SentAt, p.OpenedAt, p.CompletedAt, p.DeclinedAt = fromNullMs(sent), fromNullMs(opened), fromNullMs(completed), fromNullMs(declined)
		i := index[sid]
		out[i].Submitters = append(out[i].Submitters, p)
	}
	return out, srows.Err()
}

func cloneSigningSubmitters(ps []ports.SigningSubmitterRecord) []ports.SigningSubmitterRecord {
	out := make([]ports.SigningSubmitterRecord, len(ps))
	for i, p := range ps {
		out[i] = p
		out[i].SentAt, out[i].OpenedAt = cloneSigningTime(p.SentAt), cloneSigningTime(p.OpenedAt)
		out[i].CompletedAt, out[i].DeclinedAt = cloneSigningTime(p.CompletedAt), cloneSigningTime(p.DeclinedAt)
	}
	return out
}

func cloneSigningTime(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	c := *t
	return &c
}

// signingSubmitterEqual compares the fields UpdateSubmission saves.
func signingSubmitterEqual(a, b ports.SigningSubmitterRecord) bool {
	return a.Status == b.Status && signingTimeEqual(a.SentAt, b.SentAt) && signingTimeEqual(a.OpenedAt, b.OpenedAt) &&
		signingTimeEqual(a.CompletedAt, b.CompletedAt) && signingTimeEqual(a.DeclinedAt, b.DeclinedAt) &&
		a.DeclineReason == b.DeclineReason && a.SignedName == b.SignedName && a.SignerAddr == b.SignerAddr &&
		a.SignerAgent == b.SignerAgent
}

func signingTimeEqual(a, b *time.Time) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.UnixMilli() == b.UnixMilli()
}

func signingRolesOrEmpty(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
