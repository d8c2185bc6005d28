package ports

import (
	"context"
	"io"
	"time"

	"counsel/domain/signing"
)

// SigningTemplateRecord is a template as the embedded signer keeps it. Its
// documents are references to contract documents, not copies.
type SigningTemplateRecord struct {
	ID         int64 // set by the store
	Name       string
	Slug       string // random, unique
	ExternalID string // the contract's UUID
	Roles      []string
	Documents  []SigningDocumentRecord
	CreatedAt  time.Time
	UpdatedAt  time.Time
}

// SigningDocumentRecord names one document of a template.
type SigningDocumentRecord struct {
	DocumentID  string // the contract document's id, unique within a template
	FileName    string
	ContentType string
}

// SigningSubmissionRecord is a submission with its submitters, in
// submitter order.
type SigningSubmissionRecord struct {
	ID          int64 // set by the store
	TemplateID  int64
	Name        string // shown on signing pages (the contract's name)
	Order       string // signing.OrderPreserved or signing.OrderRandom
	Status      string // a signing.Submission* status
	SendEmail   bool
	Message     signing.Message
	ExpireAt    *time.Time
	CreatedAt   time.Time
	UpdatedAt   time.Time
	CompletedAt *time.Time
	DeclinedAt  *time.Time
	ExpiredAt   *time.Time
	Submitters  []SigningSubmitterRecord
	// EvidencePending is set with the last signature and cleared when
	// the signed evidence is stored (SetEvidence).
	EvidencePending bool
	// CombinedDocumentID and AuditDocumentID are the contract documents
	// of the stored evidence; empty before.
	CombinedDocumentID string
	AuditDocumentID    string
}

// SigningSubmitterRecord is one signing party of a submission.
type SigningSubmitterRecord struct {
	ID            int64 // set by the store
	Slug          string
	Name          string
	Email         string
	Phone         string
	Role          string
	Status        string // a signing.Submitter* status
	SentAt        *time.Time
	OpenedAt      *time.Time
	CompletedAt   *time.Time
	DeclinedAt    *time.Time
	DeclineReason string
	// SignedName, SignerAddr and SignerAgent are the evidence of a
	// signature: the name the signer typed, and the client address and
	// user agent it came from.
	SignedName  string
	SignerAddr  string
	SignerAgent string
	// Reminders is how many reminders the signer was sent (automatic and
	// by hand) and RemindedAt when the last was queued.
	Reminders  int
	RemindedAt *time.Time
}

// SigningStore keeps the embedded signer's templates and submissions.
type SigningStore interface {
	// CreateTemplate stores t with its document references and returns it
	// with its id. ECONFLICT when the slug is taken.
	CreateTemplate(ctx context.Context, t SigningTemplateRecord) (SigningTemplateRecord, error)
	// Template returns a template. ENOTFOUND if it does not exist.
	Template(ctx context.Context, id int64) (SigningTemplateRecord, error)
	// TemplateBySlug returns the template with slug. ENOTFOUND if none.
	TemplateBySlug(ctx context.Context, slug string) (SigningTemplateRecord, error)
	// CreateSubmission stores s with its submitters and returns it with the
	// ids set. ENOTFOUND when the template does not exist, ECONFLICT when a
	// slug is taken.
	CreateSubmission(ctx context.Context, s SigningSubmissionRecord) (SigningSubmissionRecord, error)
	// Submission returns a submission with its submitters. ENOTFOUND if it
	// does not exist.
	Submission(ctx context.Context, id int64) (SigningSubmissionRecord, error)
	// SubmissionBySlug returns the submission one of whose submitters has
	// slug, and that submitter's index in Submitters. ENOTFOUND if none.
	SubmissionBySlug(ctx context.Context, slug string) (SigningSubmissionRecord, int, error)
	// SubmissionsByTemplate returns at most limit submissions of a
	// template with their submitters, newest first (an unknown template has
	// none).
	SubmissionsByTemplate(ctx context.Context, templateID int64, limit int) ([]SigningSubmissionRecord, error)
	// UpdateSubmission loads submission id, calls fn with it and saves the
	// submission's and its submitters' state as fn left it, all in one
	// transaction. An error from fn rolls back and is returned as is.
	// ENOTFOUND if the submission does not exist. Ids, slugs, the template
	// and the submitters' contact details are not changed by a save.
	UpdateSubmission(ctx context.Context, id int64, fn func(*SigningSubmissionRecord) error) (SigningSubmissionRecord, error)
	// RemindableSubmissions returns the ids, above afterID and in
	// order, of at most limit pending submissions with a signer who was
	// invited, has neither signed nor declined, was sent fewer than max
	// reminders, and whose invitation or last reminder (the later) is at
	// or before before. The caller decides again inside UpdateSubmission.
	RemindableSubmissions(ctx context.Context, before time.Time, max int, afterID int64, limit int) ([]int64, error)
	// DueSubmissions returns the ids of at most limit pending submissions
	// whose expiry time is at or before now, soonest first.
	DueSubmissions(ctx context.Context, now time.Time, limit int) ([]int64, error)
	// EvidencePending returns the ids of at most limit submissions whose
	// EvidencePending is set and whose next attempt is due at now (none
	// made yet, or its retry time is not after now), oldest first.
	EvidencePending(ctx context.Context, now time.Time, limit int) ([]int64, error)
	// EvidenceAttempt counts an attempt at making submission id's
	// evidence, before it is made (so a crash counts too), and sets when
	// the next may be made: retryAt of the count. It returns the count,
	// this attempt included. ENOTFOUND if there is no such submission.
	EvidenceAttempt(ctx context.Context, id int64, retryAt func(attempts int) time.Time) (int, error)
	// EvidenceFailed gives up submission id's evidence: its
	// EvidencePending is cleared and at recorded as when it failed.
	// ENOTFOUND if there is no such submission.
	EvidenceFailed(ctx context.Context, id int64, at time.Time) error
	// SetEvidence records the evidence documents of submission id and
	// clears its EvidencePending, in one transaction. ENOTFOUND if the
	// submission does not exist.
	SetEvidence(ctx context.Context, id int64, combinedDocumentID, auditDocumentID string) error
}

// SigningPage is what a signer's page shows.
type SigningPage struct {
	// Title names what is signed (the contract's name, else the
	// template's).
	Title         string
	SubmitterName string
	Role          string
	// Waiting is true when an earlier signer must sign first (order
	// preserved); the page then shows no documents and no forms.
	Waiting   bool
	Documents []SigningPageDocument
	ExpireAt  *time.Time
	// FormToken protects the page's forms against cross-site requests;
	// the Sign and Decline calls must send it back.
	FormToken string
}

// SigningPageDocument is a document link of a signing page.
type SigningPageDocument struct {
	ID       string
	FileName string
}

// SignInput is a signer's signature: the typed full name and the consent
// to sign electronically, with the request's origin as evidence.
type SignInput struct {
	FormToken  string
	Name       string
	Consent    bool
	ClientAddr string
	UserAgent  string
}

// DeclineInput is a signer's refusal with a reason.
type DeclineInput struct {
	FormToken  string
	Reason     string
	ClientAddr string
	UserAgent  string
}

// SignResult is what the confirmation page shows.
type SignResult struct {
	Title string
	// AllCompleted is true when this signature was the last one.
	AllCompleted bool
}

// SigningDocumentRequest asks for a document through a signer's slug, or
// through a template's slug with a link signature (Expires and Signature,
// from the template's document URL).
type SigningDocumentRequest struct {
	Slug       string
	DocumentID string
	Expires    string
	Signature  string
}

// SigningDocument is an open document. The caller closes Body.
type SigningDocument struct {
	Body        io.ReadCloser
	FileName    string
	ContentType string
}

// SigningPages is the embedded signer's signing pages: what the public
// /sign/{slug} routes call. A slug that is unknown, or whose submitter or
// submission is done (completed, declined or expired), is ENOTFOUND in
// every method, with one and the same message, so a page cannot tell them
// apart.
type SigningPages interface {
	// Page returns the signing page of slug and marks the submitter opened
	// the first time a page that can be signed is shown. ENOTFOUND as above.
	Page(ctx context.Context, slug string) (SigningPage, error)
	// Sign records the signature of slug's submitter. EFORBIDDEN for a
	// missing, wrong or stale form token; ENOTFOUND as above; ECONFLICT
	// while an earlier signer must sign first; EINVALID (fields "name",
	// "consent") for a missing name or consent.
	Sign(ctx context.Context, slug string, in SignInput) (SignResult, error)
	// Decline records the refusal of slug's submitter and declines the
	// submission. Errors as for Sign; EINVALID (field "reason") for a
	// missing reason.
	Decline(ctx context.Context, slug string, in DeclineInput) (SignResult, error)
	// Document opens a document of the template slug's submission was made
	// from. ENOTFOUND as above and for a document the template does not
	// have; ECONFLICT while an earlier signer must sign first.
	Document(ctx context.Context, req SigningDocumentRequest) (SigningDocument, error)
}
