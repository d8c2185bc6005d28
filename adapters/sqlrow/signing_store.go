package sqlrow

import (
	"context"
	"fmt"
	"time"

	"counsel/ports"
)

// SigningStore implements ports.SigningStore on any Engine: the embedded
// signer's templates, submissions and submitters. A record is read in a
// snapshot (ReadTx), as it takes several queries.
type SigningStore struct{ e Engine }

var _ ports.SigningStore = SigningStore{}

// NewSigningStore returns the signing store of e.
func NewSigningStore(e Engine) SigningStore { return SigningStore{e: e} }

// CreateTemplate implements ports.SigningStore.
func (s SigningStore) CreateTemplate(ctx context.Context, t ports.SigningTemplateRecord) (ports.SigningTemplateRecord, error) {
	var out ports.SigningTemplateRecord
	err := s.e.WriteTx(ctx, func(x Querier) error {
		id, err := CreateSigningTemplate(ctx, x, s.e, t)
		if err != nil {
			return err
		}
		out, err = SigningTemplate(ctx, x, s.e, "t.id = ?", id)
		return err
	})
	if err != nil {
		return out, fmt.Errorf("create signing template %q: %w", t.Slug, err)
	}
	return out, nil
}

// Template implements ports.SigningStore.
func (s SigningStore) Template(ctx context.Context, id int64) (ports.SigningTemplateRecord, error) {
	return s.template(ctx, "t.id = ?", id)
}

// TemplateBySlug implements ports.SigningStore.
func (s SigningStore) TemplateBySlug(ctx context.Context, slug string) (ports.SigningTemplateRecord, error) {
	return s.template(ctx, "t.slug = ?", slug)
}

func (s SigningStore) template(ctx context.Context, where string, arg any) (ports.SigningTemplateRecord, error) {
	var out ports.SigningTemplateRecord
	err := s.e.ReadTx(ctx, func(x Querier) (err error) {
		out, err = SigningTemplate(ctx, x, s.e, where, arg)
		return err
	})
	if err != nil {
		return out, fmt.Errorf("load signing template %v: %w", arg, err)
	}
	return out, nil
}

// CreateSubmission implements ports.SigningStore.
func (s SigningStore) CreateSubmission(ctx context.Context, sub ports.SigningSubmissionRecord) (ports.SigningSubmissionRecord, error) {
	var out ports.SigningSubmissionRecord
	err := s.e.WriteTx(ctx, func(x Querier) error {
		id, err := CreateSigningSubmission(ctx, x, s.e, sub)
		if err != nil {
			return err
		}
		out, err = SigningSubmission(ctx, x, s.e, id, "")
		return err
	})
	if err != nil {
		return out, fmt.Errorf("create signing submission of template %d: %w", sub.TemplateID, err)
	}
	return out, nil
}

// Submission implements ports.SigningStore.
func (s SigningStore) Submission(ctx context.Context, id int64) (ports.SigningSubmissionRecord, error) {
	var out ports.SigningSubmissionRecord
	err := s.e.ReadTx(ctx, func(x Querier) (err error) {
		out, err = SigningSubmission(ctx, x, s.e, id, "")
		return err
	})
	if err != nil {
		return out, fmt.Errorf("load signing submission %d: %w", id, err)
	}
	return out, nil
}

// SubmissionBySlug implements ports.SigningStore.
func (s SigningStore) SubmissionBySlug(ctx context.Context, slug string) (ports.SigningSubmissionRecord, int, error) {
	var out ports.SigningSubmissionRecord
	idx := -1
	err := s.e.ReadTx(ctx, func(x Querier) (err error) {
		out, idx, err = SigningSubmissionBySlug(ctx, x, s.e, slug)
		return err
	})
	if err != nil {
		return out, idx, fmt.Errorf("load signing submission of submitter %q: %w", slug, err)
	}
	return out, idx, nil
}

// SubmissionsByTemplate implements ports.SigningStore.
func (s SigningStore) SubmissionsByTemplate(ctx context.Context, templateID int64, limit int) ([]ports.SigningSubmissionRecord, error) {
	var out []ports.SigningSubmissionRecord
	err := s.e.ReadTx(ctx, func(x Querier) (err error) {
		out, err = SigningSubmissions(ctx, x, s.e, "s.template_id = ? ORDER BY s.id DESC LIMIT ?", templateID, limit)
		return err
	})
	if err != nil {
		return out, fmt.Errorf("list signing submissions of template %d: %w", templateID, err)
	}
	return out, nil
}

// UpdateSubmission implements ports.SigningStore. The submission's row is
// locked (LockRow) while fn decides, so two signers (or a signer and the
// expiry sweep) on different instances are applied one after the other.
func (s SigningStore) UpdateSubmission(ctx context.Context, id int64, fn func(*ports.SigningSubmissionRecord) error) (ports.SigningSubmissionRecord, error) {
	var out ports.SigningSubmissionRecord
	err := s.e.WriteTx(ctx, func(x Querier) (err error) {
		out, err = UpdateSigningSubmission(ctx, x, s.e, id, fn, s.e.LockRow())
		return err
	})
	if err != nil {
		return out, fmt.Errorf("update signing submission %d: %w", id, err)
	}
	return out, nil
}

// RemindableSubmissions implements ports.SigningStore.
func (s SigningStore) RemindableSubmissions(ctx context.Context, before time.Time, max int, afterID int64, limit int) ([]int64, error) {
	ids, err := RemindableSubmissions(ctx, s.e.Read(), s.e, before, max, afterID, limit)
	if err != nil {
		return nil, fmt.Errorf("list signing submissions to remind: %w", err)
	}
	return ids, nil
}

// DueSubmissions implements ports.SigningStore through the partial index
// signing_submissions_due, which holds exactly the rows it reads.
func (s SigningStore) DueSubmissions(ctx context.Context, now time.Time, limit int) ([]int64, error) {
	ids, err := QueryAll(ctx, s.e.Read(), ID, `SELECT id FROM signing_submissions
		WHERE status = 'pending' AND expire_at IS NOT NULL AND expire_at <= ? ORDER BY expire_at, id LIMIT ?`, s.e.Arg(now), limit)
	if err != nil {
		return nil, fmt.Errorf("list due signing submissions: %w", err)
	}
	return ids, nil
}

// EvidencePending implements ports.SigningStore, through the partial
// index signing_submissions_evidence_pending.
func (s SigningStore) EvidencePending(ctx context.Context, now time.Time, limit int) ([]int64, error) {
	ids, err := QueryAll(ctx, s.e.Read(), ID, `SELECT id FROM signing_submissions WHERE `+s.e.IsTrue("evidence_pending")+`
		AND (evidence_retry_at IS NULL OR evidence_retry_at <= ?) ORDER BY id LIMIT ?`, s.e.Arg(now), limit)
	if err != nil {
		return nil, fmt.Errorf("list signing submissions pending evidence: %w", err)
	}
	return ids, nil
}

// EvidenceAttempt implements ports.SigningStore.
func (s SigningStore) EvidenceAttempt(ctx context.Context, id int64, retryAt func(attempts int) time.Time) (int, error) {
	var n int
	err := s.e.WriteTx(ctx, func(x Querier) error {
		if err := x.Row(ctx, `SELECT evidence_attempts FROM signing_submissions WHERE id = ?`+s.e.LockRow(), id).Scan(&n); err != nil {
			return IfNoRows(err, "signing submission")
		}
		n++
		_, err := x.Exec(ctx, `UPDATE signing_submissions SET evidence_attempts = ?, evidence_retry_at = ? WHERE id = ?`, n, s.e.Arg(retryAt(n)), id)
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("count an evidence attempt of signing submission %d: %w", id, err)
	}
	return n, nil
}

// EvidenceFailed implements ports.SigningStore.
func (s SigningStore) EvidenceFailed(ctx context.Context, id int64, at time.Time) error {
	err := s.updateOne(ctx, `UPDATE signing_submissions SET evidence_pending = ?, evidence_failed_at = ? WHERE id = ?`, false, s.e.Arg(at), id)
	if err != nil {
		return fmt.Errorf("record the failed evidence of signing submission %d: %w", id, err)
	}
	return nil
}

// SetEvidence implements ports.SigningStore.
func (s SigningStore) SetEvidence(ctx context.Context, id int64, combinedDocumentID, auditDocumentID string) error {
	err := s.updateOne(ctx, `UPDATE signing_submissions SET evidence_pending = ?, combined_document_id = ?,
		audit_document_id = ? WHERE id = ?`, false, combinedDocumentID, auditDocumentID, id)
	if err != nil {
		return fmt.Errorf("set the evidence of signing submission %d: %w", id, err)
	}
	return nil
}

// updateOne runs an UPDATE of one submission; ENOTFOUND when it changed
// none.
func (s SigningStore) updateOne(ctx context.Context, query string, args ...any) error {
	return s.e.WriteTx(ctx, func(x Querier) error {
		n, err := x.Exec(ctx, query, args...)
		if err != nil {
			return err
		}
		if n == 0 {
			return NotFound("signing submission")
		}
		return nil
	})
}
