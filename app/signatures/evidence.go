package signatures

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"time"

	"counsel/domain"
	"counsel/domain/contract"
	"counsel/domain/signing"
	"counsel/ports"
)

// evidenceBatch is how many pending submissions one run of
// ProduceEvidence reads at a time.
const evidenceBatch = 20

// maxEvidenceAttempts is how many times a submission's evidence is tried:
// the first, in the flow that made the contract Signed, and five retries.
const maxEvidenceAttempts = 6

// evidenceRetryAfter is how long after attempt n (from 1) the next may
// start: the first retry at the next run (at start or within a minute),
// then later and later.
var evidenceRetryAfter = [maxEvidenceAttempts]time.Duration{0, 5 * time.Minute, 30 * time.Minute, 2 * time.Hour, 8 * time.Hour, 24 * time.Hour}

// EvidenceDeps are what the signed evidence of the embedded signer needs
// (docs/decisions.md §13). Without a Source (DocuSeal) no evidence is made and
// the provider's own URLs stay.
type EvidenceDeps struct {
	PDF    ports.PDFEvidence
	Source ports.SigningEvidenceSource
	Store  ports.EvidenceStore
	// FirmName is the firm the certificate and the stamps name.
	FirmName string
}

var _ ports.EvidenceService = (*Service)(nil)

// SigningCertificatePEM implements ports.EvidenceService.
func (s *Service) SigningCertificatePEM() []byte {
	if s.d.Evidence.PDF == nil {
		return nil
	}
	return s.d.Evidence.PDF.CertificatePEM()
}

// VerifyPDF implements ports.EvidenceService. The upload is staged to a
// temporary file (hashed on the way) and verified from there, then
// removed.
func (s *Service) VerifyPDF(ctx context.Context, r io.Reader) (signing.Verification, error) {
	if s.d.Evidence.PDF == nil {
		return signing.Verification{}, domain.Errorf(domain.ENOTIMPLEMENTED, "signed evidence is not configured")
	}
	staged, err := s.d.Blobs.Stage(ctx, r, contract.MaxDocumentSize)
	if err != nil {
		if domain.ErrorCode(err) == domain.ETOOLARGE {
			return signing.Verification{}, domain.Errorf(domain.ETOOLARGE, "the file is larger than %d MiB", contract.MaxDocumentSize>>20)
		}
		return signing.Verification{}, err
	}
	defer staged.Discard()
	v, err := s.d.Evidence.PDF.Verify(ctx, staged, staged.Size())
	if err != nil {
		return signing.Verification{}, err
	}
	v.SHA256 = staged.SHA256()
	if v.Valid && s.d.Evidence.Store != nil {
		if v.CounselDocument, err = s.d.Evidence.Store.SignedDocumentBySHA256(ctx, v.SHA256); err != nil {
			return signing.Verification{}, fmt.Errorf("look up signed document: %w", err)
		}
	}
	return v, nil
}

// ProduceEvidence makes the evidence of every submission whose evidence
// is pending (interrupted by a crash or a failure) and due, and returns
// how many it stored. It runs at start and every minute; a submission
// that fails is logged and retried with backoff (evidenceRetryAfter), at
// most maxEvidenceAttempts times in all, then given up: the contract
// stays Signed and its history says so.
func (s *Service) ProduceEvidence(ctx context.Context) (int, error) {
	if s.d.Evidence.Source == nil {
		return 0, nil
	}
	ids, err := s.d.Evidence.Source.PendingEvidence(ctx, s.d.Clock.Now(), evidenceBatch)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, id := range ids {
		if err := ctx.Err(); err != nil {
			return n, err
		}
		stored, err := s.produceEvidence(ctx, id)
		if err != nil {
			s.d.Logger.ErrorContext(ctx, "signed evidence not made", "submission", id, "err", err)
			continue
		}
		if stored {
			n++
		}
	}
	return n, nil
}

// produceEvidence makes and stores the evidence of one submission when it
// is pending, and reports whether this call stored it. Of two runs racing
// for one submission, the store keeps the first's documents and writes
// nothing of the second's.
func (s *Service) produceEvidence(ctx context.Context, submissionID string) (bool, error) {
	ed := s.d.Evidence
	rec, err := ed.Source.EvidenceRecord(ctx, submissionID)
	if err != nil {
		return false, fmt.Errorf("evidence record: %w", err)
	}
	if !rec.Pending {
		return false, nil
	}
	c, err := ed.Store.ContractBySubmission(ctx, submissionID)
	if domain.ErrorCode(err) == domain.ENOTFOUND {
		// An older submission no contract refers to: nothing to attach
		// evidence to.
		s.d.Logger.WarnContext(ctx, "signed evidence skipped: no contract has the submission", "submission", submissionID)
		return false, ed.Source.EvidenceStored(ctx, submissionID, "", "")
	}
	if err != nil {
		return false, fmt.Errorf("contract of submission %s: %w", submissionID, err)
	}
	// The attempt is counted before it starts, so a crash while making it
	// counts too.
	started := s.d.Clock.Now()
	attempt, err := ed.Source.EvidenceAttempt(ctx, submissionID, func(n int) time.Time {
		return started.Add(evidenceRetryAfter[min(max(n, 1), maxEvidenceAttempts)-1])
	})
	if err != nil {
		return false, fmt.Errorf("count an evidence attempt of submission %s: %w", submissionID, err)
	}
	if attempt > maxEvidenceAttempts {
		// The last attempt did not finish (a crash).
		return false, s.evidenceFailed(ctx, c, submissionID, attempt-1, errors.New("the last attempt did not finish"))
	}
	applied, err := s.makeEvidence(ctx, c, rec)
	if err != nil {
		if attempt >= maxEvidenceAttempts {
			if ferr := s.evidenceFailed(ctx, c, submissionID, attempt, err); ferr != nil {
				return false, ferr
			}
		}
		return false, err
	}
	return applied, nil
}

// evidenceFailed gives up a submission's evidence after attempts tries:
// it is no longer pending, the contract (still Signed) gains a history
// entry saying so, and the error is logged for the administrators.
func (s *Service) evidenceFailed(ctx context.Context, c contract.Contract, submissionID string, attempts int, cause error) error {
	now := s.d.Clock.Now()
	s.d.Logger.ErrorContext(ctx, "signed evidence given up", "contract", c.ID, "submission", submissionID, "attempts", attempts, "err", cause)
	if err := s.d.Evidence.Source.EvidenceFailed(ctx, submissionID, now); err != nil {
		return fmt.Errorf("give up the evidence of submission %s: %w", submissionID, err)
	}
	details := fmt.Sprintf("signed evidence of submission %s could not be made after %d attempts and will not be tried again; see the server log", submissionID, attempts)
	if _, err := s.d.Contracts.UpdateContract(ctx, c.ID, func(*contract.Contract) ([]contract.AuditEntry, error) {
		return []contract.AuditEntry{{Action: contract.ActionSigningEvent, Actor: contract.ActorSigningProvider, At: now, Details: details}}, nil
	}); err != nil {
		return fmt.Errorf("record the failed evidence of submission %s: %w", submissionID, err)
	}
	return nil
}

// makeEvidence makes and stores the evidence of a submission and reports
// whether this call stored it.
func (s *Service) makeEvidence(ctx context.Context, c contract.Contract, rec ports.SigningEvidenceRecord) (bool, error) {
	ed := s.d.Evidence
	submissionID := rec.SubmissionID
	ev, pdfs, closeAll, err := s.evidenceInput(ctx, c, rec)
	defer closeAll()
	if err != nil {
		return false, err
	}
	var combined, audit bytes.Buffer
	if err := ed.PDF.Produce(ctx, ev, pdfs, &combined, &audit); err != nil {
		return false, fmt.Errorf("produce evidence of submission %s: %w", submissionID, err)
	}
	now := s.d.Clock.Now()
	docs := make([]ports.NewDocument, 0, 2)
	for _, f := range []struct {
		kind, name string
		b          []byte
	}{
		{contract.KindSigned, c.Name + " - signed.pdf", combined.Bytes()},
		{contract.KindAudit, c.Name + " - audit certificate.pdf", audit.Bytes()},
	} {
		sum := sha256.Sum256(f.b)
		docs = append(docs, ports.NewDocument{Document: contract.Document{
			ContractID: c.ID, Kind: f.kind, UploadedAt: now, FileName: contract.CleanFileName(f.name, contract.ContentTypePDF),
			ContentType: contract.ContentTypePDF, Size: int64(len(f.b)), SHA256: hex.EncodeToString(sum[:]),
		}, Body: bytes.NewReader(f.b)})
	}
	entry := contract.AuditEntry{Action: contract.ActionSigningCompleted, Actor: contract.ActorSigningProvider, At: now,
		Details: fmt.Sprintf("signed evidence of submission %s: combined PDF sha256 %s; audit certificate sha256 %s",
			submissionID, docs[0].SHA256, docs[1].SHA256)}
	// The PDFs, their rows and the entry in one transaction; of two runs
	// racing for one submission, the first's are kept and the second
	// writes nothing.
	// The completion emails are queued with the evidence, or not at all.
	ctx, fx := ports.WithEffects(ctx)
	copies, err := s.completionMails(ctx, c, rec, combined.Bytes(), audit.Bytes(), docs)
	if err != nil {
		return false, err
	}
	stored, applied, err := ed.Store.AddEvidence(ctx, submissionID, docs, []contract.AuditEntry{entry}, func(stored []contract.Document) {
		fx.Add(copies(stored)...)
	})
	if err != nil {
		return false, fmt.Errorf("store evidence of submission %s: %w", submissionID, err)
	}
	var combinedID, auditID string
	for _, d := range stored {
		switch d.Kind {
		case contract.KindSigned:
			combinedID = strconv.FormatInt(d.ID, 10)
		case contract.KindAudit:
			auditID = strconv.FormatInt(d.ID, 10)
		}
	}
	if err := ed.Source.EvidenceStored(ctx, submissionID, combinedID, auditID); err != nil {
		return false, fmt.Errorf("link evidence of submission %s: %w", submissionID, err)
	}
	if applied {
		s.d.Logger.InfoContext(ctx, "signed evidence stored", "contract", c.ID, "submission", submissionID, "sha256", docs[0].SHA256)
	}
	return applied, nil
}

// evidenceInput gathers what the evidence states: the contract, its
// signed documents (and opens the PDFs), the signers and the event log.
// closeAll closes what was opened, also on error.
func (s *Service) evidenceInput(ctx context.Context, c contract.Contract, rec ports.SigningEvidenceRecord) (signing.Evidence, []ports.EvidencePDF, func(), error) {
	var closers []io.Closer
	closeAll := func() {
		for _, cl := range closers {
			cl.Close()
		}
	}
	completed := rec.CompletedAt
	if completed.IsZero() {
		completed = s.d.Clock.Now()
	}
	ev := signing.Evidence{
		FirmName: s.d.Evidence.FirmName, ContractUUID: c.UUID, ContractName: c.Name,
		SubmissionID: rec.SubmissionID, CompletedAt: completed, Signers: rec.Signers,
	}
	var pdfs []ports.EvidencePDF
	for _, idStr := range rec.DocumentIDs {
		id, err := strconv.ParseInt(idStr, 10, 64)
		if err != nil {
			continue
		}
		d, err := s.d.Signing.DocumentByID(ctx, id)
		if domain.ErrorCode(err) == domain.ENOTFOUND {
			// Removed after signing began: the certificate says so.
			ev.Documents = append(ev.Documents, signing.EvidenceDocument{FileName: "document " + idStr + " (removed)", SHA256: "-"})
			continue
		}
		if err != nil {
			return ev, nil, closeAll, fmt.Errorf("document %d: %w", id, err)
		}
		isPDF := d.ContentType == contract.ContentTypePDF
		ev.Documents = append(ev.Documents, signing.EvidenceDocument{FileName: d.FileName, ContentType: d.ContentType,
			Size: d.Size, SHA256: d.SHA256, PDF: isPDF})
		if !isPDF {
			continue
		}
		rc, err := s.d.Blobs.Open(ctx, d.StorageKey)
		if err != nil {
			return ev, nil, closeAll, fmt.Errorf("open document %d: %w", id, err)
		}
		closers = append(closers, rc)
		pdfs = append(pdfs, ports.EvidencePDF{Index: len(ev.Documents) - 1, Body: rc})
	}
	history, _, err := s.d.Contracts.History(ctx, c.ID, 100, 0)
	if err != nil {
		return ev, nil, closeAll, fmt.Errorf("history of contract %d: %w", c.ID, err)
	}
	for _, h := range history {
		text := string(h.Action)
		if h.Details != "" {
			text += ": " + h.Details
		}
		ev.Events = append(ev.Events, signing.EvidenceEvent{At: h.At, Text: text + " (" + h.ActorName + ")"})
	}
	for _, p := range rec.Signers {
		if p.SentAt != nil {
			ev.Events = append(ev.Events, signing.EvidenceEvent{At: *p.SentAt, Text: "invitation emailed to " + p.Email})
		}
		if p.OpenedAt != nil {
			ev.Events = append(ev.Events, signing.EvidenceEvent{At: *p.OpenedAt, Text: p.Email + " opened the signing page"})
		}
	}
	sort.SliceStable(ev.Events, func(i, j int) bool { return ev.Events[i].At.Before(ev.Events[j].At) })
	for i := range ev.Events {
		ev.Events[i].Text = strings.TrimSpace(ev.Events[i].Text)
	}
	return ev, pdfs, closeAll, nil
}
