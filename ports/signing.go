package ports

import (
	"context"
	"time"

	"counsel/domain/signing"
)

// SigningProvider is a digital-signing service: the embedded signer or
// DocuSeal. Any failure to reach or understand the provider is returned as
// a *domain.Error with code EUPSTREAM; unknown ids are ENOTFOUND.
type SigningProvider interface {
	// CreateTemplate builds a template from documents, with one signing role
	// per entry of in.Roles.
	CreateTemplate(ctx context.Context, in signing.NewTemplate) (signing.Template, error)
	// GetTemplate returns a template. ENOTFOUND if it does not exist.
	GetTemplate(ctx context.Context, id string) (signing.Template, error)
	// CreateSubmission sends a template to its submitters and returns the
	// created submission(s).
	CreateSubmission(ctx context.Context, in signing.NewSubmission) ([]signing.Submission, error)
	// ListSubmissions returns the submissions of a template, newest first.
	ListSubmissions(ctx context.Context, templateID string) ([]signing.Submission, error)
	// GetSubmission returns one submission. ENOTFOUND if it does not exist.
	GetSubmission(ctx context.Context, id string) (signing.Submission, error)
	// BuilderToken returns a form-builder token. ENOTIMPLEMENTED where the
	// provider has no form builder.
	BuilderToken(ctx context.Context, in signing.BuilderTokenRequest) (string, error)
	// ParseWebhook authenticates and decodes a provider callback; header
	// returns the value of a request header by name ("" when absent). It
	// returns EUNAUTHORIZED when the callback is not authenticated (a
	// signature missing, wrong or older than the allowed window at now,
	// and no configured header either), EINVALID for a body it cannot
	// read, and no events (nil, nil) for event types that change nothing.
	ParseWebhook(header func(name string) string, body []byte, now time.Time) ([]signing.Event, error)
}

// SigningReminders is what a signing provider that mails its own signers
// (the embedded signer) offers for reminders (docs/decisions.md §16).
type SigningReminders interface {
	// RemindDue sends every automatic reminder due now, each in the
	// transaction that records it (once across instances), and returns
	// how many it sent.
	RemindDue(ctx context.Context) (int, error)
	// RemindNow sends a reminder now to every signer of submission
	// submissionID who may sign and was not reminded within
	// signing.ReminderCooldown; by is the user who asked (the history
	// names them). ENOTFOUND for an unknown submission; ECONFLICT when it
	// is not pending or no signer may sign now; ERATELIMITED, with
	// RetryAfter the shortest wait, when every such signer is cooling
	// down.
	RemindNow(ctx context.Context, submissionID string, by int64) (RemindResult, error)
}

// RemindResult is what a reminder by hand did: the signers reminded, and
// those reminded too recently, with how long until they can be again.
type RemindResult struct {
	Reminded    []string
	CoolingDown []CoolingSigner
}

// CoolingSigner is a signer reminded less than signing.ReminderCooldown ago.
type CoolingSigner struct {
	Email      string
	RetryAfter time.Duration
}
