package ports

import (
	"context"
	"time"

	"counsel/domain/contract"
)

// CalendarStore keeps each user's calendar feed token, as its SHA-256
// (docs/decisions.md §16).
type CalendarStore interface {
	// SetCalendarFeed makes hash user userID's feed token, replacing any
	// other. ENOTFOUND for an unknown or deleted user.
	SetCalendarFeed(ctx context.Context, userID int64, hash []byte, at time.Time) error
	// RemoveCalendarFeed turns user userID's feed off (nothing when off).
	RemoveCalendarFeed(ctx context.Context, userID int64) error
	// CalendarFeedUser returns the active user whose feed token hashes to
	// hash. ENOTFOUND for any other hash, and for a user deactivated or
	// deleted (whose feed the database removes).
	CalendarFeedUser(ctx context.Context, hash []byte) (int64, error)
}

// CalendarService is the personal calendar feed (docs/decisions.md §16).
type CalendarService interface {
	// CreateCalendarFeed gives the caller a new feed URL, replacing the
	// old one. EUNAUTHORIZED without a caller.
	CreateCalendarFeed(ctx context.Context) (url string, err error)
	// RemoveCalendarFeed turns the caller's feed off.
	RemoveCalendarFeed(ctx context.Context) error
	// CalendarFeed reads the feed of token: the contracts its user owns
	// that have an end date. ENOTFOUND for an unknown or revoked token.
	CalendarFeed(ctx context.Context, token string) (CalendarFeed, error)
}

// CalendarFeed is what a calendar feed shows.
type CalendarFeed struct {
	Contracts []contract.Contract
	// ConsoleURL is the console's address (COUNSEL_PUBLIC_URL + /console),
	// for each event's link.
	ConsoleURL string
}

// Outbox statuses (docs/decisions.md §16).
const (
	MailPending = "pending" // to send, at NextAttemptAt
	MailSent    = "sent"
	MailFailed  = "failed" // given up after retrying for MailRetryFor
	MailKept    = "kept"   // no SMTP configured: kept to be read, never sent
)

// MailRetryFor is how long the outbox retries a message before giving up.
const MailRetryFor = 24 * time.Hour

// OutboxMail is a message of the outbox as stored.
type OutboxMail struct {
	ID            int64
	Kind          string
	To            string
	Subject       string
	Text          string
	HTML          string
	Status        string
	Attempts      int
	CreatedAt     time.Time
	NextAttemptAt time.Time
	SentAt        *time.Time
	Error         string
	Attachments   []Attachment
}

// Mail returns the message to send.
func (m OutboxMail) Mail() Mail {
	return Mail{To: m.To, Subject: m.Subject, Kind: m.Kind, Text: m.Text, HTML: m.HTML, Attachments: m.Attachments}
}

// OutboxStore keeps the mail outbox the engines' write transactions fill
// (Effects, Mail).
type OutboxStore interface {
	// ClaimMail holds up to limit pending messages due at now (their
	// NextAttemptAt passed, unclaimed or their claim lapsed) for one
	// sender until now+lease, and returns them with their attachments,
	// due first. Claimed rows are skipped by concurrent claims (FOR
	// UPDATE SKIP LOCKED on PostgreSQL; SQLite's one writer), so one
	// message goes to one sender at a time.
	ClaimMail(ctx context.Context, now time.Time, lease time.Duration, limit int) ([]OutboxMail, error)
	// FinishMail records the outcome of an attempt at message id: status
	// (MailSent, MailFailed, MailKept or MailPending to retry at next),
	// the attempts made, when it was sent and the last error, and
	// releases the claim. ENOTFOUND for an unknown id.
	FinishMail(ctx context.Context, id int64, status string, attempts int, next time.Time, sentAt *time.Time, errText string) error
	// Mails returns a page of the outbox, newest first, without bodies or
	// attachments' bytes, and its length.
	Mails(ctx context.Context, limit, offset int64) ([]OutboxMail, int64, error)
	// OutboxMail returns one message with its bodies and attachments.
	// ENOTFOUND for an unknown id.
	OutboxMail(ctx context.Context, id int64) (OutboxMail, error)
	// PendingMail counts the messages still to send (the partial index of
	// the claim answers it).
	PendingMail(ctx context.Context) (int, error)
}

// MailSender delivers one message (an SMTP relay). An error means it was
// not accepted and may be retried.
type MailSender interface {
	SendMail(ctx context.Context, m Mail) error
}

// MailService is the outbox as system administrators see it
// (GET /api/system/mail and the console's page).
type MailService interface {
	// Mails lists the outbox, newest first. EFORBIDDEN unless the caller
	// is a system administrator.
	Mails(ctx context.Context, limit, offset int64) ([]OutboxMail, int64, error)
	// OutboxMail returns one message with its text. EFORBIDDEN as Mails;
	// ENOTFOUND.
	OutboxMail(ctx context.Context, id int64) (OutboxMail, error)
}
