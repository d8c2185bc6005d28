package ports

import (
	"context"
	"time"

	"counsel/domain/contract"
	"counsel/domain/signing"
)

// ContractSigningStore is what the signing use case needs of the contract
// store beyond ports.ContractStore: the lookup of a contract by its signing
// submission, with a record of the provider events already applied, and
// documents by id alone (the embedded signer's pages name no contract).
type ContractSigningStore interface {
	// UpdateBySubmission finds the contract whose
	// digitalContractSubmissionId is submissionID and, in one transaction,
	// records eventKey for that contract and submission, lets fn change
	// the contract and saves it with fn's entries (as UpdateContract
	// does). When eventKey was recorded before, fn is not called, nothing
	// changes, and applied is false: a provider's repeated delivery is a
	// no-op. An empty eventKey is never recorded. ENOTFOUND when no
	// contract has the submission.
	UpdateBySubmission(ctx context.Context, submissionID, eventKey string, fn func(c *contract.Contract) ([]contract.AuditEntry, error)) (c contract.Contract, applied bool, err error)
	// DocumentByID returns a contract document by its id alone. ENOTFOUND
	// if there is none.
	DocumentByID(ctx context.Context, docID int64) (contract.Document, error)
	// TemplateDigest returns the digest of the documents a provider's
	// template was built from, "" when none is recorded.
	TemplateDigest(ctx context.Context, templateID string) (string, error)
	// SetTemplateDigest records (or replaces) a template's digest.
	SetTemplateDigest(ctx context.Context, templateID, digest string) error
	// SaveSignerLinks records the sealed signing links of a submission's
	// submitters, by submitter id; a link recorded before is replaced.
	SaveSignerLinks(ctx context.Context, submissionID string, sealed map[string][]byte) error
	// SignerLinks returns the sealed links recorded for a submission, by
	// submitter id (empty when none).
	SignerLinks(ctx context.Context, submissionID string) (map[string][]byte, error)
}

// Sealer keeps small secrets unreadable at rest: authenticated encryption
// bound to a label (what the secret belongs to), under a key kept apart
// from the sealed bytes.
type Sealer interface {
	// Seal encrypts plain for label.
	Seal(label string, plain []byte) ([]byte, error)
	// Open decrypts what Seal made for the same label; an error for
	// anything else (another label, altered bytes, another key).
	Open(label string, sealed []byte) ([]byte, error)
}

// SigningSubmitter is a signing party named by a client.
type SigningSubmitter struct {
	Name  string
	Email string
	Phone string
	Role  string
	// SendEmail and SendSMS are the party's own preferences in a
	// SigningCreateSubmissionInput; nil means the submission's.
	SendEmail *bool
	SendSMS   *bool
}

// SubmitForSigningInput is the body of submitForSigning.
type SubmitForSigningInput struct {
	DocumentIDs []int64
	Submitters  []SigningSubmitter
	SendEmail   bool
	SendSMS     bool
	Order       string // signing.OrderPreserved or signing.OrderRandom; "" is preserved
	Message     signing.Message
	ExpireAt    *time.Time
}

// CreateSubmissionsInput is the spec's SigningCreateSubmissionInput: one
// submission per entry of Submissions, each with its submitters.
type CreateSubmissionsInput struct {
	TemplateID  string
	Submissions [][]SigningSubmitter
	SendEmail   bool
	SendSMS     bool
	Order       string
}

// SigningService is the signing use case the HTTP adapter calls. Every
// method but Webhook checks the caller's permission (ContractView to read,
// ContractEdit to change): EUNAUTHORIZED without a caller, EFORBIDDEN
// without the permission. A failure of the provider is EUPSTREAM and
// changes no contract.
type SigningService interface {
	// SubmitForSigning sends documents of a contract to its signers: a
	// template (unless the contract has one that fits), a submission, and
	// the contract WaitingForClientSignature. ENOTFOUND for an unknown
	// contract; ECONFLICT unless it is Draft, ContractDesign or Declined;
	// EINVALID for no document of the contract, no submitter with an
	// email, or other invalid input.
	SubmitForSigning(ctx context.Context, contractID int64, in SubmitForSigningInput) (signing.Submission, error)
	// Template returns the contract's signing template. ENOTFOUND for an
	// unknown or non-digital contract.
	Template(ctx context.Context, contractID int64) (signing.Template, error)
	// Submissions returns the submissions of the contract's template and
	// applies any outcome of its submission that the contract missed.
	// ENOTFOUND for an unknown or non-digital contract.
	Submissions(ctx context.Context, contractID int64) ([]signing.Submission, error)
	// CreateSubmissions creates submissions on an existing template and
	// links the first to the contract where docs/decisions.md §6 says so.
	// ENOTFOUND, EINVALID, ECONFLICT as for SubmitForSigning.
	CreateSubmissions(ctx context.Context, contractID int64, in CreateSubmissionsInput) ([]signing.Submission, error)
	// BuilderToken returns a DocuSeal form-builder token for the contract.
	// ENOTFOUND; ENOTIMPLEMENTED with a provider that has no form builder.
	BuilderToken(ctx context.Context, contractID int64) (string, error)
	// Webhook authenticates a provider's callback (header returns a
	// request header by name) and applies its events. EUNAUTHORIZED for a
	// callback that is not authenticated (and always with a provider that
	// sends none); EINVALID for a body it cannot read. Events about
	// unknown submissions are logged and accepted.
	Webhook(ctx context.Context, header func(name string) string, body []byte) error
	// RemindSigners emails a reminder now to every signer of the
	// contract's submission submissionID who may sign and was not
	// reminded within signing.ReminderCooldown (docs/decisions.md §16).
	// ENOTFOUND for an unknown or non-digital contract or a submission
	// not of its template; ECONFLICT when the submission is not pending
	// or no signer may sign; ERATELIMITED (with RetryAfter) when every
	// such signer is cooling down; ENOTIMPLEMENTED with DocuSeal, which
	// reminds its signers itself.
	RemindSigners(ctx context.Context, contractID int64, submissionID string) (RemindResult, error)
}
