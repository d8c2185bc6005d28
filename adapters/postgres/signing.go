package postgres

import (
	"context"
	"encoding/json"
	"fmt"
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

// CreateTemplate implements ports.SigningStore.
func (s *SigningStore) CreateTemplate(ctx context.Context, t ports.SigningTemplateRecord) (ports.SigningTemplateRecord, error) {
	roles := t.Roles
	if roles == nil {
		roles = []string{}
	}
	rj, err := json.Marshal(roles)
	if err != nil {
		return t, err
	}
	var out ports.SigningTemplateRecord
	err = s.db.tx(ctx, func(x q) error {
		var id int64
		if err := x.row(ctx, `INSERT INTO signing_templates (name, slug, external_id, roles, created_at, updated_at)
			VALUES (?, ?, ?, ?, ?, ?) RETURNING id`, t.Name, t.Slug, t.ExternalID, string(rj), t.CreatedAt, t.UpdatedAt).Scan(&id); err != nil {
			return err
		}
		for i, d := range t.Documents {
			if _, err := x.exec(ctx, `INSERT INTO signing_template_documents (template_id, position, document_id, file_name, content_type)
				VALUES (?, ?, ?, ?, ?)`, id, i, d.DocumentID, d.FileName, d.ContentType); err != nil {
				return err
			}
		}
		var err error
		out, err = loadSigningTemplate(ctx, x, "t.id = ?", id)
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
	err := s.db.readTx(ctx, func(x q) (err error) {
		out, err = loadSigningTemplate(ctx, x, "t.id = ?", id)
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
	err := s.db.readTx(ctx, func(x q) (err error) {
		out, err = loadSigningTemplate(ctx, x, "t.slug = ?", slug)
		return err
	})
	if err != nil {
		return out, fmt.Errorf("load signing template %q: %w", slug, err)
	}
	return out, nil
}

func loadSigningTemplate(ctx context.Context, x q, where string, arg any) (ports.SigningTemplateRecord, error) {
	var t ports.SigningTemplateRecord
	var roles []byte
	err := x.row(ctx, `SELECT t.id, t.name, t.slug, t.external_id, t.roles::text, t.created_at, t.updated_at
		FROM signing_templates t WHERE `+where, arg).Scan(&t.ID, &t.Name, &t.Slug, &t.ExternalID, &roles, &t.CreatedAt, &t.UpdatedAt)
	if noRows(err) {
		return t, notFound("signing template")
	}
	if err != nil {
		return t, err
	}
	t.CreatedAt, t.UpdatedAt = utc(t.CreatedAt), utc(t.UpdatedAt)
	if err := json.Unmarshal(roles, &t.Roles); err != nil {
		return t, fmt.Errorf("signing template %d roles: %w", t.ID, err)
	}
	rows, err := x.query(ctx, `SELECT document_id, file_name, content_type FROM signing_template_documents
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
	err := s.db.tx(ctx, func(x q) error {
		var id int64
		if err := x.row(ctx, `INSERT INTO signing_submissions (template_id, name, signing_order, status, send_email,
			message_subject, message_body, expire_at, created_at, updated_at, completed_at, declined_at, expired_at)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`,
			sub.TemplateID, sub.Name, sub.Order, sub.Status, sub.SendEmail, sub.Message.Subject, sub.Message.Body,
			nullTime(sub.ExpireAt), sub.CreatedAt, sub.UpdatedAt, nullTime(sub.CompletedAt), nullTime(sub.DeclinedAt), nullTime(sub.ExpiredAt)).Scan(&id); err != nil {
			return err
		}
		for i, p := range sub.Submitters {
			if _, err := x.exec(ctx, `INSERT INTO signing_submitters (submission_id, position, slug, name, email, phone, role,
				status, sent_at, opened_at, completed_at, declined_at, decline_reason, signed_name, signer_addr, signer_agent)
				VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
				id, i, p.Slug, p.Name, p.Email, p.Phone, p.Role, p.Status, nullTime(p.SentAt), nullTime(p.OpenedAt),
				nullTime(p.CompletedAt), nullTime(p.DeclinedAt), p.DeclineReason, p.SignedName, p.SignerAddr, p.SignerAgent); err != nil {
				return err
			}
		}
		var err error
		out, err = loadSigningSubmission(ctx, x, id, "")
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
	err := s.db.readTx(ctx, func(x q) (err error) {
		out, err = loadSigningSubmission(ctx, x, id, "")
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
	err := s.db.readTx(ctx, func(x q) error {
		var id int64
		var pos int
		err := x.row(ctx, `SELECT submission_id, position FROM signing_submitters WHERE slug = ?`, slug).Scan(&id, &pos)
		if noRows(err) {
			return notFound("signing submitter")
		}
		if err != nil {
			return err
		}
		if out, err = loadSigningSubmission(ctx, x, id, ""); err != nil {
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
	err := s.db.readTx(ctx, func(x q) (err error) {
		out, err = loadSigningSubmissions(ctx, x, "s.template_id = ? ORDER BY s.id DESC LIMIT ?", templateID, limit)
		return err
	})
	if err != nil {
		return out, fmt.Errorf("list signing submissions of template %d: %w", templateID, err)
	}
	return out, nil
}

// UpdateSubmission implements ports.SigningStore. The submission's row is
// locked while fn decides, so two signers (or a signer and the expiry
// sweep) on different instances are applied one after the other.
func (s *SigningStore) UpdateSubmission(ctx context.Context, id int64, fn func(*ports.SigningSubmissionRecord) error) (ports.SigningSubmissionRecord, error) {
	var out ports.SigningSubmissionRecord
	err := s.db.tx(ctx, func(x q) error {
		cur, err := loadSigningSubmission(ctx, x, id, " FOR UPDATE")
		if err != nil {
			return err
		}
		before := cloneSubmitters(cur.Submitters)
		if err := fn(&cur); err != nil {
			return err
		}
		if len(cur.Submitters) != len(before) {
			return fmt.Errorf("update signing submission %d: submitters cannot be added or removed", id)
		}
		if _, err := x.exec(ctx, `UPDATE signing_submissions SET status = ?, send_email = ?, expire_at = ?, updated_at = ?,
			completed_at = ?, declined_at = ?, expired_at = ?, evidence_pending = ? WHERE id = ?`,
			cur.Status, cur.SendEmail, nullTime(cur.ExpireAt), cur.UpdatedAt, nullTime(cur.CompletedAt), nullTime(cur.DeclinedAt),
			nullTime(cur.ExpiredAt), cur.EvidencePending, id); err != nil {
			return err
		}
		for i, p := range cur.Submitters {
			if submitterEqual(p, before[i]) {
				continue
			}
			if _, err := x.exec(ctx, `UPDATE signing_submitters SET status = ?, sent_at = ?, opened_at = ?, completed_at = ?,
				declined_at = ?, decline_reason = ?, signed_name = ?, signer_addr = ?, signer_agent = ? WHERE id = ? AND submission_id = ?`,
				p.Status, nullTime(p.SentAt), nullTime(p.OpenedAt), nullTime(p.CompletedAt), nullTime(p.DeclinedAt), p.DeclineReason,
				p.SignedName, p.SignerAddr, p.SignerAgent, before[i].ID, id); err != nil {
				return err
			}
		}
		out, err = loadSigningSubmission(ctx, x, id, "")
		return err
	})
	if err != nil {
		return out, fmt.Errorf("update signing submission %d: %w", id, err)
	}
	return out, nil
}

// DueSubmissions implements ports.SigningStore through the partial index
// signing_submissions_due.
func (s *SigningStore) DueSubmissions(ctx context.Context, now time.Time, limit int) ([]int64, error) {
	ids, err := sqlrow.QueryAll(ctx, s.db.read(), sqlrow.ID, `SELECT id FROM signing_submissions
		WHERE status = 'pending' AND expire_at IS NOT NULL AND expire_at <= ? ORDER BY expire_at, id LIMIT ?`, now, limit)
	if err != nil {
		return nil, fmt.Errorf("list due signing submissions: %w", err)
	}
	return ids, nil
}

// EvidencePending implements ports.SigningStore, through the partial
// index signing_submissions_evidence_pending.
func (s *SigningStore) EvidencePending(ctx context.Context, limit int) ([]int64, error) {
	ids, err := sqlrow.QueryAll(ctx, s.db.read(), sqlrow.ID, `SELECT id FROM signing_submissions WHERE evidence_pending ORDER BY id LIMIT ?`, limit)
	if err != nil {
		return nil, fmt.Errorf("list signing submissions pending evidence: %w", err)
	}
	return ids, nil
}

// SetEvidence implements ports.SigningStore.
func (s *SigningStore) SetEvidence(ctx context.Context, id int64, combinedDocumentID, auditDocumentID string) error {
	err := s.db.tx(ctx, func(x q) error {
		n, err := x.exec(ctx, `UPDATE signing_submissions SET evidence_pending = false, combined_document_id = ?,
			audit_document_id = ? WHERE id = ?`, combinedDocumentID, auditDocumentID, id)
		if err != nil {
			return err
		}
		if n == 0 {
			return notFound("signing submission")
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("set the evidence of signing submission %d: %w", id, err)
	}
	return nil
}

func loadSigningSubmission(ctx context.Context, x q, id int64, lock string) (ports.SigningSubmissionRecord, error) {
	subs, err := loadSigningSubmissions(ctx, x, "s.id = ?"+lock, id)
	if err != nil {
		return ports.SigningSubmissionRecord{}, err
	}
	if len(subs) == 0 {
		return ports.SigningSubmissionRecord{}, notFound("signing submission")
	}
	return subs[0], nil
}

// loadSigningSubmissions reads the submissions that match tail and their
// submitters in two queries.
func loadSigningSubmissions(ctx context.Context, x q, tail string, args ...any) ([]ports.SigningSubmissionRecord, error) {
	rows, err := x.query(ctx, `SELECT s.id, s.template_id, s.name, s.signing_order, s.status, s.send_email,
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
		if err := rows.Scan(&s.ID, &s.TemplateID, &s.Name, &s.Order, &s.Status, &s.SendEmail, &s.Message.Subject, &s.Message.Body,
			&s.ExpireAt, &s.CreatedAt, &s.UpdatedAt, &s.CompletedAt, &s.DeclinedAt, &s.ExpiredAt,
			&s.EvidencePending, &s.CombinedDocumentID, &s.AuditDocumentID); err != nil {
			rows.Close()
			return nil, err
		}
		s.ExpireAt, s.CompletedAt, s.DeclinedAt, s.ExpiredAt = utcp(s.ExpireAt), utcp(s.CompletedAt), utcp(s.DeclinedAt), utcp(s.ExpiredAt)
		s.CreatedAt, s.UpdatedAt = utc(s.CreatedAt), utc(s.UpdatedAt)
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
	ids := make([]int64, len(out))
	for i, s := range out {
		ids[i] = s.ID
	}
	srows, err := x.query(ctx, `SELECT submission_id, id, slug, name, email, phone, role, status, sent_at, opened_at,
		completed_at, declined_at, decline_reason, signed_name, signer_addr, signer_agent
		FROM signing_submitters WHERE submission_id = ANY (?) ORDER BY submission_id, position`, ids)
	if err != nil {
		return nil, err
	}
	defer srows.Close()
	for srows.Next() {
		var sid int64
		var p ports.SigningSubmitterRecord
		if err := srows.Scan(&sid, &p.ID, &p.Slug, &p.Name, &p.Email, &p.Phone, &p.Role, &p.Status, &p.SentAt, &p.OpenedAt,
			&p.CompletedAt, &p.DeclinedAt, &p.DeclineReason, &p.SignedName, &p.SignerAddr, &p.SignerAgent); err != nil {
			return nil, err
		}
		p.SentAt, p.OpenedAt, p.CompletedAt, p.DeclinedAt = utcp(p.SentAt), utcp(p.OpenedAt), utcp(p.CompletedAt), utcp(p.DeclinedAt)
		i := index[sid]
		out[i].Submitters = append(out[i].Submitters, p)
	}
	return out, srows.Err()
}

func cloneSubmitters(ps []ports.SigningSubmitterRecord) []ports.SigningSubmitterRecord {
	out := make([]ports.SigningSubmitterRecord, len(ps))
	for i, p := range ps {
		out[i] = p
		out[i].SentAt, out[i].OpenedAt = cloneTime(p.SentAt), cloneTime(p.OpenedAt)
		out[i].CompletedAt, out[i].DeclinedAt = cloneTime(p.CompletedAt), cloneTime(p.DeclinedAt)
	}
	return out
}

func cloneTime(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	c := *t
	return &c
}

func submitterEqual(a, b ports.SigningSubmitterRecord) bool {
	return a.Status == b.Status && timeEqual(a.SentAt, b.SentAt) && timeEqual(a.OpenedAt, b.OpenedAt) &&
		timeEqual(a.CompletedAt, b.CompletedAt) && timeEqual(a.DeclinedAt, b.DeclinedAt) &&
		a.DeclineReason == b.DeclineReason && a.SignedName == b.SignedName && a.SignerAddr == b.SignerAddr &&
		a.SignerAgent == b.SignerAgent
}

func timeEqual(a, b *time.Time) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.UnixMilli() == b.UnixMilli()
}
