package ports

import (
	"context"
	"io"
	"time"

	"counsel/domain/contract"
	"counsel/domain/signing"
)

// EvidencePDF is a PDF original handed to PDFEvidence.Produce: Index is
// its position in Evidence.Documents.
type EvidencePDF struct {
	Index int
	Body  io.ReadSeeker
}

// PDFEvidence makes and checks the signed evidence of a completed signing
// (docs/decisions.md §13).
type PDFEvidence interface {
	// Produce writes the audit certificate of ev to audit, and to
	// combined the PDF originals stamped with ev's signers, then the
	// certificate, signed over the whole file. An original that cannot be
	// read as a PDF is marked Excluded in the certificate and left out;
	// only a failure to write or to sign is an error.
	Produce(ctx context.Context, ev signing.Evidence, pdfs []EvidencePDF, combined, audit io.Writer) error
	// Verify checks the signature of the PDF in r (size bytes), reading
	// only its tail and the signed ranges. A file that is not a PDF is
	// EUNSUPPORTED; every other outcome is a Verification (Valid false
	// with its Reason for a missing, broken, partial or foreign
	// signature). SHA256 and CounselDocument are left to the caller.
	Verify(ctx context.Context, r io.ReaderAt, size int64) (signing.Verification, error)
	// CertificatePEM is the signing certificate and its chain, PEM.
	CertificatePEM() []byte
}

// SigningEvidenceRecord is what a signing provider that keeps its own
// records tells about a completed submission for its evidence.
type SigningEvidenceRecord struct {
	SubmissionID string
	TemplateID   string
	// Pending is true while the submission's evidence has not been
	// stored.
	Pending     bool
	CompletedAt time.Time
	// DocumentIDs are the contract documents signed, in template order.
	DocumentIDs []string
	Signers     []signing.EvidenceSigner
}

// SigningEvidenceSource is the embedded signer's side of the evidence: it
// marks a submission "evidence pending" in the transaction of its last
// signature and clears the mark when the evidence is stored.
type SigningEvidenceSource interface {
	// PendingEvidence returns up to limit ids of submissions whose
	// evidence is pending and due at now, oldest first.
	PendingEvidence(ctx context.Context, now time.Time, limit int) ([]string, error)
	// EvidenceAttempt counts an attempt at a submission's evidence before
	// it is made and sets when the next may be made (retryAt of the
	// count); it returns the count. ENOTFOUND for an unknown id.
	EvidenceAttempt(ctx context.Context, submissionID string, retryAt func(attempts int) time.Time) (int, error)
	// EvidenceFailed gives up a submission's evidence after its last
	// attempt: it is no longer pending. ENOTFOUND for an unknown id.
	EvidenceFailed(ctx context.Context, submissionID string, at time.Time) error
	// EvidenceRecord returns a submission's record. ENOTFOUND for an
	// unknown id.
	EvidenceRecord(ctx context.Context, submissionID string) (SigningEvidenceRecord, error)
	// EvidenceStored links the stored evidence documents to the
	// submission (its combinedDocumentUrl and auditLogUrl) and clears the
	// pending mark, in one transaction. ENOTFOUND for an unknown id.
	EvidenceStored(ctx context.Context, submissionID, combinedDocumentID, auditDocumentID string) error
	// EvidenceLinks returns what makes the signed links, valid until
	// expires, to the evidence documents of a submission: they open
	// without a session once EvidenceStored has linked the documents.
	// ENOTFOUND for an unknown id.
	EvidenceLinks(ctx context.Context, submissionID string, expires time.Time) (func(documentID string) string, error)
}

// EvidenceStore is what the evidence needs of the contract store.
type EvidenceStore interface {
	// ContractBySubmission returns the contract whose
	// digitalContractSubmissionId is submissionID. ENOTFOUND if none.
	ContractBySubmission(ctx context.Context, submissionID string) (contract.Contract, error)
	// AddEvidence records, in one transaction, that the evidence of
	// submission submissionID is stored: the documents docs with their
	// bytes (IDs and storage keys are assigned; the contract's document
	// limit does not apply) and the entries of audit. When that
	// submission's evidence was recorded before, nothing changes (no
	// bytes are written), applied is false and the documents returned
	// are the ones recorded then. onStored, when not nil, is called
	// inside the transaction with the documents stored, only when it
	// stores them: the effects it adds (the completion emails) are written
	// with them. ENOTFOUND when no contract has the submission; on any
	// error nothing is written.
	AddEvidence(ctx context.Context, submissionID string, docs []NewDocument, audit []contract.AuditEntry, onStored func(stored []contract.Document)) (stored []contract.Document, applied bool, err error)
	// SignedDocumentBySHA256 reports whether a document of kind signed
	// has the SHA-256 sha (lower-case hex).
	SignedDocumentBySHA256(ctx context.Context, sha string) (bool, error)
}

// EvidenceService is the public side of the evidence: the signing
// certificate and the verification of a PDF. No caller permission is
// needed.
type EvidenceService interface {
	// SigningCertificatePEM is the certificate (chain) evidence is signed
	// with.
	SigningCertificatePEM() []byte
	// VerifyPDF reads a PDF of at most contract.MaxDocumentSize bytes
	// from r and verifies its signature. ETOOLARGE past the limit,
	// EUNSUPPORTED for a file that is not a PDF.
	VerifyPDF(ctx context.Context, r io.Reader) (signing.Verification, error)
}
