package sqlrow

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"counsel/ports"
)

// CreateSigningTemplate inserts t with its documents and returns its id.
func CreateSigningTemplate(ctx context.Context, x Querier, tc Times, t ports.SigningTemplateRecord) (int64, error) {
	roles := t.Roles
	if roles == nil {
		roles = []string{}
	}
	rj, err := json.Marshal(roles)
	if err != nil {
		return 0, err
	}
	id, err := x.Insert(ctx, `INSERT INTO signing_templates (name, slug, external_id, roles, created_at, updated_at)
		VALUES (?, ?, ?, ?, ?, ?)`, t.Name, t.Slug, t.ExternalID, string(rj), tc.Arg(t.CreatedAt), tc.Arg(t.UpdatedAt))
	if err != nil {
		return 0, err
	}
	for i, d := range t.Documents {
		if _, err := x.Exec(ctx, `INSERT INTO signing_template_documents (template_id, position, document_id, file_name, content_type)
			VALUES (?, ?, ?, ?, ?)`, id, i, d.DocumentID, d.FileName, d.ContentType); err != nil {
			return 0, err
		}
	}
	return id, nil
}

// SigningTemplate reads the template where (with arg) selects, and its
// documents. ENOTFOUND when there is none.
func SigningTemplate(ctx context.Context, x Querier, tc Times, where string, arg any) (ports.SigningTemplateRecord, error) {
	var t ports.SigningTemplateRecord
	var roles []byte
	err := x.Row(ctx, `SELECT t.id, t.name, t.slug, t.external_id, CAST(t.roles AS text), t.created_at, t.updated_at
		FROM signing_templates t WHERE `+where, arg).Scan(&t.ID, &t.Name, &t.Slug, &t.ExternalID, &roles,
		Time(tc, &t.CreatedAt), Time(tc, &t.UpdatedAt))
	if err != nil {
		return t, IfNoRows(err, "signing template")
	}
	if err := json.Unmarshal(roles, &t.Roles); err != nil {
		return t, fmt.Errorf("signing template %d roles: %w", t.ID, err)
	}
	t.Documents, err = QueryAll(ctx, x, func(s Scanner) (ports.SigningDocumentRecord, error) {
		var d ports.SigningDocumentRecord
		err := s.Scan(&d.DocumentID, &d.FileName, &d.ContentType)
		return d, err
	}, `SELECT document_id, file_name, content_type FROM signing_template_documents WHERE template_id = ? ORDER BY position`, t.ID)
	return t, err
}

// CreateSigningSubmission inserts sub with its submitters and returns its
// id.
func CreateSigningSubmission(ctx context.Context, x Querier, tc Times, sub ports.SigningSubmissionRecord) (int64, error) {
	id, err := x.Insert(ctx, `INSERT INTO signing_submissions (template_id, name, signing_order, status, send_email,
		message_subject, message_body, expire_at, created_at, updated_at, completed_at, declined_at, expired_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		sub.TemplateID, sub.Name, sub.Order, sub.Status, sub.SendEmail, sub.Message.Subject, sub.Message.Body,
		NullArg(tc, sub.ExpireAt), tc.Arg(sub.CreatedAt), tc.Arg(sub.UpdatedAt), NullArg(tc, sub.CompletedAt),
		NullArg(tc, sub.DeclinedAt), NullArg(tc, sub.ExpiredAt))
	if err != nil {
		return 0, err
	}
	for i, p := range sub.Submitters {
		if _, err := x.Exec(ctx, `INSERT INTO signing_submitters (submission_id, position, slug, name, email, phone, role,
			status, sent_at, opened_at, completed_at, declined_at, decline_reason, signed_name, signer_addr, signer_agent)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			id, i, p.Slug, p.Name, p.Email, p.Phone, p.Role, p.Status, NullArg(tc, p.SentAt), NullArg(tc, p.OpenedAt),
			NullArg(tc, p.CompletedAt), NullArg(tc, p.DeclinedAt), p.DeclineReason, p.SignedName, p.SignerAddr, p.SignerAgent); err != nil {
			return 0, err
		}
	}
	return id, nil
}

// SigningSubmission reads one submission with its submitters; lock is
// appended to its read. ENOTFOUND when there is none.
func SigningSubmission(ctx context.Context, x Querier, d Dialect, id int64, lock string) (ports.SigningSubmissionRecord, error) {
	subs, err := SigningSubmissions(ctx, x, d, "s.id = ?"+lock, id)
	if err != nil {
		return ports.SigningSubmissionRecord{}, err
	}
	if len(subs) == 0 {
		return ports.SigningSubmissionRecord{}, NotFound("signing submission")
	}
	return subs[0], nil
}

// SigningSubmissionBySlug reads the submission of a submitter's slug and
// the submitter's index in it. ENOTFOUND for an unknown slug.
func SigningSubmissionBySlug(ctx context.Context, x Querier, d Dialect, slug string) (ports.SigningSubmissionRecord, int, error) {
	var id int64
	var pos int
	err := x.Row(ctx, `SELECT submission_id, position FROM signing_submitters WHERE slug = ?`, slug).Scan(&id, &pos)
	if err != nil {
		return ports.SigningSubmissionRecord{}, -1, IfNoRows(err, "signing submitter")
	}
	out, err := SigningSubmission(ctx, x, d, id, "")
	if err != nil {
		return out, -1, err
	}
	for i, p := range out.Submitters {
		if p.Slug == slug {
			return out, i, nil
		}
	}
	return out, -1, NotFound("signing submitter")
}

// SigningSubmissions reads the submissions that match tail (a WHERE
// clause with any ORDER BY and LIMIT) and their submitters in two
// queries, not one per submission.
func SigningSubmissions(ctx context.Context, x Querier, d Dialect, tail string, args ...any) ([]ports.SigningSubmissionRecord, error) {
	out, err := QueryAll(ctx, x, func(r Scanner) (ports.SigningSubmissionRecord, error) {
		var s ports.SigningSubmissionRecord
		err := r.Scan(&s.ID, &s.TemplateID, &s.Name, &s.Order, &s.Status, &s.SendEmail, &s.Message.Subject, &s.Message.Body,
			NullTime(d, &s.ExpireAt), Time(d, &s.CreatedAt), Time(d, &s.UpdatedAt), NullTime(d, &s.CompletedAt),
			NullTime(d, &s.DeclinedAt), NullTime(d, &s.ExpiredAt),
			&s.EvidencePending, &s.CombinedDocumentID, &s.AuditDocumentID)
		return s, err
	}, `SELECT s.id, s.template_id, s.name, s.signing_order, s.status, s.send_email,
		s.message_subject, s.message_body, s.expire_at, s.created_at, s.updated_at, s.completed_at, s.declined_at, s.expired_at,
		s.evidence_pending, s.combined_document_id, s.audit_document_id
		FROM signing_submissions s WHERE `+tail, args...)
	if err != nil || len(out) == 0 {
		return out, err
	}
	index := map[int64]int{}
	ids := make([]int64, len(out))
	for i, s := range out {
		index[s.ID], ids[i] = i, s.ID
	}
	in, inArgs := d.In("submission_id", ids)
	rows, err := x.Query(ctx, `SELECT submission_id, id, slug, name, email, phone, role, status, sent_at, opened_at,
		completed_at, declined_at, decline_reason, signed_name, signer_addr, signer_agent, reminders, reminded_at
		FROM signing_submitters WHERE `+in+` ORDER BY submission_id, position`, inArgs...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var sid int64
		var p ports.SigningSubmitterRecord
		if err := rows.Scan(&sid, &p.ID, &p.Slug, &p.Name, &p.Email, &p.Phone, &p.Role, &p.Status, NullTime(d, &p.SentAt),
			NullTime(d, &p.OpenedAt), NullTime(d, &p.CompletedAt), NullTime(d, &p.DeclinedAt),
			&p.DeclineReason, &p.SignedName, &p.SignerAddr, &p.SignerAgent, &p.Reminders, NullTime(d, &p.RemindedAt)); err != nil {
			return nil, err
		}
		i := index[sid]
		out[i].Submitters = append(out[i].Submitters, p)
	}
	return out, rows.Err()
}

// UpdateSigningSubmission loads a submission (lock appended to its read),
// lets fn change it, and saves what fn changed: the submission's state and
// only the submitters fn changed.
func UpdateSigningSubmission(ctx context.Context, x Querier, d Dialect, id int64, fn func(*ports.SigningSubmissionRecord) error, lock string) (ports.SigningSubmissionRecord, error) {
	cur, err := SigningSubmission(ctx, x, d, id, lock)
	if err != nil {
		return cur, err
	}
	before := cloneSubmitters(cur.Submitters)
	if err := fn(&cur); err != nil {
		return cur, err
	}
	if len(cur.Submitters) != len(before) {
		return cur, fmt.Errorf("update signing submission %d: submitters cannot be added or removed", id)
	}
	if _, err := x.Exec(ctx, `UPDATE signing_submissions SET status = ?, send_email = ?, expire_at = ?, updated_at = ?,
		completed_at = ?, declined_at = ?, expired_at = ?, evidence_pending = ? WHERE id = ?`,
		cur.Status, cur.SendEmail, NullArg(d, cur.ExpireAt), d.Arg(cur.UpdatedAt), NullArg(d, cur.CompletedAt), NullArg(d, cur.DeclinedAt),
		NullArg(d, cur.ExpiredAt), cur.EvidencePending, id); err != nil {
		return cur, err
	}
	for i, p := range cur.Submitters {
		if submitterEqual(p, before[i]) {
			continue
		}
		if _, err := x.Exec(ctx, `UPDATE signing_submitters SET status = ?, sent_at = ?, opened_at = ?, completed_at = ?,
			declined_at = ?, decline_reason = ?, signed_name = ?, signer_addr = ?, signer_agent = ?, reminders = ?, reminded_at = ?
			WHERE id = ? AND submission_id = ?`,
			p.Status, NullArg(d, p.SentAt), NullArg(d, p.OpenedAt), NullArg(d, p.CompletedAt), NullArg(d, p.DeclinedAt), p.DeclineReason,
			p.SignedName, p.SignerAddr, p.SignerAgent, p.Reminders, NullArg(d, p.RemindedAt), before[i].ID, id); err != nil {
			return cur, err
		}
	}
	return SigningSubmission(ctx, x, d, id, "")
}

func cloneSubmitters(ps []ports.SigningSubmitterRecord) []ports.SigningSubmitterRecord {
	out := make([]ports.SigningSubmitterRecord, len(ps))
	for i, p := range ps {
		out[i] = p
		out[i].SentAt, out[i].OpenedAt = cloneTime(p.SentAt), cloneTime(p.OpenedAt)
		out[i].CompletedAt, out[i].DeclinedAt = cloneTime(p.CompletedAt), cloneTime(p.DeclinedAt)
		out[i].RemindedAt = cloneTime(p.RemindedAt)
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

// submitterEqual compares the fields UpdateSigningSubmission saves, times
// to the millisecond both engines keep.
func submitterEqual(a, b ports.SigningSubmitterRecord) bool {
	return a.Status == b.Status && timeEqual(a.SentAt, b.SentAt) && timeEqual(a.OpenedAt, b.OpenedAt) &&
		timeEqual(a.CompletedAt, b.CompletedAt) && timeEqual(a.DeclinedAt, b.DeclinedAt) &&
		a.DeclineReason == b.DeclineReason && a.SignedName == b.SignedName && a.SignerAddr == b.SignerAddr &&
		a.SignerAgent == b.SignerAgent && a.Reminders == b.Reminders && timeEqual(a.RemindedAt, b.RemindedAt)
}

func timeEqual(a, b *time.Time) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.UnixMilli() == b.UnixMilli()
}

// RemindableSubmissions reads the ids of ports.SigningStore's
// RemindableSubmissions, through the partial index
// signing_submitters_remind.
func RemindableSubmissions(ctx context.Context, x Querier, tc Times, before time.Time, max int, afterID int64, limit int) ([]int64, error) {
	return QueryAll(ctx, x, ID, `SELECT s.id FROM signing_submissions s WHERE s.status = 'pending' AND s.id > ? AND EXISTS (
		SELECT 1 FROM signing_submitters p WHERE p.submission_id = s.id AND p.status IN ('sent', 'opened')
		AND p.sent_at IS NOT NULL AND p.reminders < ?
		AND CASE WHEN p.reminded_at IS NOT NULL AND p.reminded_at > p.sent_at THEN p.reminded_at ELSE p.sent_at END <= ?)
		ORDER BY s.id LIMIT ?`, afterID, max, tc.Arg(before), limit)
}
