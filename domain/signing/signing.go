// Package signing holds the provider-neutral shapes of digital signing:
// templates built from contract documents, submissions sent to signers, and
// the events a signing provider reports back. Both the embedded signer and
// the DocuSeal adapter speak these types.
package signing

import "time"

// Submission statuses, as DocuSeal names them.
const (
	SubmissionPending   = "pending"
	SubmissionCompleted = "completed"
	SubmissionDeclined  = "declined"
	SubmissionExpired   = "expired"
)

// Submitter statuses, as DocuSeal names them.
const (
	SubmitterAwaiting  = "awaiting"
	SubmitterSent      = "sent"
	SubmitterOpened    = "opened"
	SubmitterCompleted = "completed"
	SubmitterDeclined  = "declined"
)

// Signing orders.
const (
	OrderPreserved = "preserved" // only the next signer may sign
	OrderRandom    = "random"    // every signer may sign at any time
)

// Template is a set of documents prepared for signing.
type Template struct {
	ID        string
	Name      string
	Slug      string
	Roles     []string
	Documents []TemplateDocument
	CreatedAt time.Time
	UpdatedAt time.Time
}

// TemplateDocument is one document of a template.
type TemplateDocument struct {
	ID       string
	FileName string
	URL      string
}

// Submission is one round of signing of a template by its submitters.
type Submission struct {
	ID                  string
	TemplateID          string
	Status              string
	CreatedAt           time.Time
	CompletedAt         *time.Time
	AuditLogURL         string
	CombinedDocumentURL string
	Submitters          []Submitter
}

// Submitter is one signing party of a submission.
type Submitter struct {
	ID            string
	Name          string
	Email         string
	Phone         string
	Role          string
	Status        string
	SentAt        *time.Time
	OpenedAt      *time.Time
	CompletedAt   *time.Time
	DeclinedAt    *time.Time
	DeclineReason string
	EmbedSrc      string
}

// Document is a file handed to a provider to build a template from.
type Document struct {
	ID          string // our document id, for reference
	FileName    string
	ContentType string // application/pdf or the DOCX media type
	Content     []byte
}

// NewTemplate asks a provider to build a template from documents.
type NewTemplate struct {
	Name       string
	ExternalID string   // the contract's UUID
	Roles      []string // one per submitter, in order
	Documents  []Document
}

// NewSubmitter is a signing party to invite.
type NewSubmitter struct {
	Name  string
	Email string
	Phone string
	Role  string
}

// Message is the invitation email's subject and body.
type Message struct {
	Subject string
	Body    string
}

// NewSubmission asks a provider to send a template to submitters.
type NewSubmission struct {
	TemplateID string
	Submitters []NewSubmitter
	SendEmail  bool
	SendSMS    bool
	Order      string // OrderPreserved or OrderRandom
	Message    Message
	ExpireAt   *time.Time
	// Name is shown on signing pages (the contract's name).
	Name string
}

// BuilderTokenRequest names the claims of a DocuSeal form-builder token.
type BuilderTokenRequest struct {
	UserEmail        string
	IntegrationEmail string
	Name             string
	ExternalID       string
	TemplateID       string // empty when the contract has no template yet
	ExpiresAt        time.Time
}

// Event kinds a provider reports.
const (
	EventSubmitterCompleted  = "submitter.completed"  // one signer signed (DocuSeal form.completed)
	EventSubmitterDeclined   = "submitter.declined"   // one signer declined (form.declined)
	EventSubmissionCompleted = "submission.completed" // every signer signed
	EventSubmissionExpired   = "submission.expired"   // the submission expired
)

// Event is a change of signing state reported by a provider.
type Event struct {
	Kind         string
	SubmissionID string
	TemplateID   string
	// SubmitterEmail names the signer for submitter events.
	SubmitterEmail string
	// Reason is the decline reason for EventSubmitterDeclined.
	Reason string
	// AllCompleted is true on EventSubmitterCompleted when it was the last
	// signer, so the submission as a whole is complete.
	AllCompleted bool
	At           time.Time
}
