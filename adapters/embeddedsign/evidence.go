package embeddedsign

import (
	"context"
	"fmt"
	"strings"
	"time"

	"counsel/domain/contract"
	"counsel/domain/signing"
	"counsel/ports"
)

var _ ports.SigningEvidenceSource = (*Provider)(nil)

// PendingEvidence implements ports.SigningEvidenceSource.
func (p *Provider) PendingEvidence(ctx context.Context, now time.Time, limit int) ([]string, error) {
	ids, err := p.cfg.Store.EvidencePending(ctx, now, limit)
	if err != nil {
		return nil, fmt.Errorf("pending signing evidence: %w", err)
	}
	out := make([]string, len(ids))
	for i, id := range ids {
		out[i] = formatID(id)
	}
	return out, nil
}

// EvidenceAttempt implements ports.SigningEvidenceSource.
func (p *Provider) EvidenceAttempt(ctx context.Context, submissionID string, retryAt func(attempts int) time.Time) (int, error) {
	id, err := parseID("submission", submissionID)
	if err != nil {
		return 0, err
	}
	return p.cfg.Store.EvidenceAttempt(ctx, id, retryAt)
}

// EvidenceFailed implements ports.SigningEvidenceSource.
func (p *Provider) EvidenceFailed(ctx context.Context, submissionID string, at time.Time) error {
	id, err := parseID("submission", submissionID)
	if err != nil {
		return err
	}
	return p.cfg.Store.EvidenceFailed(ctx, id, at)
}

// EvidenceRecord implements ports.SigningEvidenceSource.
func (p *Provider) EvidenceRecord(ctx context.Context, submissionID string) (ports.SigningEvidenceRecord, error) {
	id, err := parseID("submission", submissionID)
	if err != nil {
		return ports.SigningEvidenceRecord{}, err
	}
	rec, err := p.cfg.Store.Submission(ctx, id)
	if err != nil {
		return ports.SigningEvidenceRecord{}, err
	}
	tpl, err := p.cfg.Store.Template(ctx, rec.TemplateID)
	if err != nil {
		return ports.SigningEvidenceRecord{}, fmt.Errorf("signing template %d: %w", rec.TemplateID, err)
	}
	out := ports.SigningEvidenceRecord{
		SubmissionID: submissionID, TemplateID: formatID(rec.TemplateID), Pending: rec.EvidencePending,
	}
	if rec.CompletedAt != nil {
		out.CompletedAt = *rec.CompletedAt
	}
	for _, d := range tpl.Documents {
		out.DocumentIDs = append(out.DocumentIDs, d.DocumentID)
	}
	for _, q := range rec.Submitters {
		out.Signers = append(out.Signers, signing.EvidenceSigner{
			Name: q.Name, Email: q.Email, Role: q.Role, SignedName: q.SignedName, IP: q.SignerAddr, UserAgent: q.SignerAgent,
			SentAt: q.SentAt, OpenedAt: q.OpenedAt, SignedAt: q.CompletedAt, DeclinedAt: q.DeclinedAt, DeclineReason: q.DeclineReason,
		})
	}
	return out, nil
}

// EvidenceStored implements ports.SigningEvidenceSource.
func (p *Provider) EvidenceStored(ctx context.Context, submissionID, combinedDocumentID, auditDocumentID string) error {
	id, err := parseID("submission", submissionID)
	if err != nil {
		return err
	}
	return p.cfg.Store.SetEvidence(ctx, id, combinedDocumentID, auditDocumentID)
}

// EvidenceLinks implements ports.SigningEvidenceSource: links under the
// template's slug, as the submission's combinedDocumentUrl and
// auditLogUrl are made, expiring at expires.
func (p *Provider) EvidenceLinks(ctx context.Context, submissionID string, expires time.Time) (func(string) string, error) {
	id, err := parseID("submission", submissionID)
	if err != nil {
		return nil, err
	}
	rec, err := p.cfg.Store.Submission(ctx, id)
	if err != nil {
		return nil, err
	}
	tpl, err := p.cfg.Store.Template(ctx, rec.TemplateID)
	if err != nil {
		return nil, fmt.Errorf("signing template %d: %w", rec.TemplateID, err)
	}
	return func(documentID string) string { return p.documentLink(tpl.Slug, documentID, expires.Unix()) }, nil
}

// withEvidence adds to tpl's documents the stored evidence of its
// submissions, so a signed link to them opens them.
func (p *Provider) withEvidence(ctx context.Context, tpl ports.SigningTemplateRecord) (ports.SigningTemplateRecord, error) {
	recs, err := p.cfg.Store.SubmissionsByTemplate(ctx, tpl.ID, maxListed)
	if err != nil {
		return tpl, fmt.Errorf("signing submissions of template %d: %w", tpl.ID, err)
	}
	docs := append([]ports.SigningDocumentRecord(nil), tpl.Documents...)
	for _, rec := range recs {
		if rec.CombinedDocumentID != "" {
			docs = append(docs, ports.SigningDocumentRecord{DocumentID: rec.CombinedDocumentID, FileName: evidenceName(tpl.Name, "signed"), ContentType: contract.ContentTypePDF})
		}
		if rec.AuditDocumentID != "" {
			docs = append(docs, ports.SigningDocumentRecord{DocumentID: rec.AuditDocumentID, FileName: evidenceName(tpl.Name, "audit certificate"), ContentType: contract.ContentTypePDF})
		}
	}
	tpl.Documents = docs
	return tpl, nil
}

func evidenceName(name, what string) string {
	return strings.TrimSpace(name+" - "+what) + ".pdf"
}
