// Package embeddedsign is Counsel's own signing provider, the default
// (COUNSEL_SIGNING_PROVIDER=embedded). It implements ports.SigningProvider
// with templates and submissions kept in Counsel's database through
// ports.SigningStore, and ports.SigningPages, the signer-facing pages the
// HTTP adapter serves at /sign/{slug}.
//
// Templates refer to contract documents by id and never copy their bytes;
// signers read them through a DocumentOpener. Every submitter gets an
// unguessable slug (192 random bits, base64url) that is their signing
// link. Signatures, declines and expiry are recorded in one transaction
// each and reported afterwards to an EventSink, so the contract side
// moves through the same transitions as with DocuSeal's webhooks.
package embeddedsign

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/url"
	"strconv"
	"strings"
	"time"

	"counsel/domain"
	"counsel/domain/signing"
	"counsel/ports"
)

// DocumentOpener opens a contract document by its id. It returns an error
// with code ENOTFOUND when the document no longer exists. fileName and
// contentType may be empty; the template's record fills them in.
type DocumentOpener func(ctx context.Context, documentID string) (body io.ReadCloser, fileName, contentType string, err error)

// EventSink receives the signing events the provider records. It is called
// after the change is committed; an error is logged, not retried (the
// contract side reconciles when it reads the submission).
type EventSink func(ctx context.Context, e signing.Event) error

// Config configures a Provider.
type Config struct {
	// PublicURL is the external base URL of the service; signing links are
	// PublicURL + "/sign/{slug}". Required: an absolute http(s) URL.
	PublicURL string
	// Store keeps templates and submissions. Required.
	Store ports.SigningStore
	// Documents opens the documents templates refer to. Required.
	Documents DocumentOpener
	// Events receives signing events; nil drops them.
	Events EventSink
	// Reminders is the schedule of automatic reminders (RemindDue); its
	// zero value sends none. Invitations and reminders are queued in the
	// mail outbox with the change that causes them.
	Reminders signing.ReminderSchedule
	// Secret keys the signing pages' form tokens and the template
	// documents' links. Required, at least 32 bytes; keep it across
	// restarts (a server secret in the database).
	Secret []byte
	// FormTokenMaxAge is how long a signing page's forms stay valid;
	// default 12 hours.
	FormTokenMaxAge time.Duration
	// DocumentLinkTTL is how long a template document's URL works;
	// default 1 hour.
	DocumentLinkTTL time.Duration
	// Now is the clock; default time.Now.
	Now func() time.Time
	// Rand is the source of slugs; default crypto/rand.
	Rand io.Reader
	// Logger; default discards.
	Logger *slog.Logger
}

// Limits of what one template or submission may hold.
const (
	maxDocuments  = 20
	maxSubmitters = 20
	maxListed     = 500 // submissions ListSubmissions returns
	sweepBatch    = 100 // submissions ExpireDue expires per store read
	maxNameLen    = 200
	maxReasonLen  = 2000
	maxAgentLen   = 512
	slugBytes     = 24 // 192 bits
)

// Provider is the embedded signing provider.
type Provider struct {
	cfg     Config
	base    string // PublicURL without a trailing slash
	log     *slog.Logger
	formKey []byte
	linkKey []byte
}

var (
	_ ports.SigningProvider  = (*Provider)(nil)
	_ ports.SigningPages     = (*Provider)(nil)
	_ ports.SigningReminders = (*Provider)(nil)
)

// New returns a Provider, or an error naming what the configuration lacks.
func New(cfg Config) (*Provider, error) {
	var missing []string
	u, err := url.Parse(cfg.PublicURL)
	if cfg.PublicURL == "" || err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		missing = append(missing, fmt.Sprintf("PublicURL must be an absolute http(s) URL, got %q", cfg.PublicURL))
	}
	if cfg.Store == nil {
		missing = append(missing, "Store is required")
	}
	if cfg.Documents == nil {
		missing = append(missing, "Documents is required")
	}
	if len(cfg.Secret) < 32 {
		missing = append(missing, "Secret must be at least 32 bytes")
	}
	if len(missing) > 0 {
		return nil, errors.New("embeddedsign: " + strings.Join(missing, "; "))
	}
	if cfg.FormTokenMaxAge <= 0 {
		cfg.FormTokenMaxAge = 12 * time.Hour
	}
	if cfg.DocumentLinkTTL <= 0 {
		cfg.DocumentLinkTTL = time.Hour
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Rand == nil {
		cfg.Rand = rand.Reader
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	return &Provider{
		cfg:  cfg,
		base: strings.TrimRight(cfg.PublicURL, "/"),
		log:  cfg.Logger,
		// One secret, two keys: a form token can never pass as a link
		// signature or the reverse.
		formKey: derive(cfg.Secret, "counsel signing page form token"),
		linkKey: derive(cfg.Secret, "counsel signing template document link"),
	}, nil
}

func derive(secret []byte, purpose string) []byte {
	m := hmac.New(sha256.New, secret)
	m.Write([]byte(purpose))
	return m.Sum(nil)
}

// now is the clock at the stored precision (milliseconds, UTC), so a value
// read back equals the one written.
func (p *Provider) now() time.Time { return p.cfg.Now().UTC().Truncate(time.Millisecond) }

// newSlug returns 192 random bits, base64url without padding.
func (p *Provider) newSlug() (string, error) {
	b := make([]byte, slugBytes)
	if _, err := io.ReadFull(p.cfg.Rand, b); err != nil {
		return "", fmt.Errorf("embeddedsign: random slug: %w", err)
	}
	return base64.RawURLEncoding.EncodeToString(b), nil
}

// signLink is a submitter's signing page.
func (p *Provider) signLink(slug string) string { return p.base + "/sign/" + slug }

// parseID reads a store id written by formatID; anything else is not an
// id this provider made, so ENOTFOUND for the kind of record named
// ("template", "submission").
func parseID(kind, s string) (int64, error) {
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n <= 0 || strconv.FormatInt(n, 10) != s {
		return 0, &domain.Error{Code: domain.ENOTFOUND, Message: fmt.Sprintf("signing %s %q not found", kind, s)}
	}
	return n, nil
}

func formatID(n int64) string { return strconv.FormatInt(n, 10) }

// errLinkNotFound is the one answer for an unknown slug and for a slug
// that is done, so a page cannot tell them apart.
func errLinkNotFound() error {
	return &domain.Error{Code: domain.ENOTFOUND, Message: "this signing link is not valid or no longer active"}
}

// errWaiting refuses a signer whose turn has not come (order preserved).
func errWaiting() error {
	return &domain.Error{Code: domain.ECONFLICT, Message: "an earlier signer has to sign first"}
}

// emit hands events to the sink after a commit. The request may already
// be gone; the events must still reach the contract side.
func (p *Provider) emit(ctx context.Context, events []signing.Event) {
	if p.cfg.Events == nil {
		return
	}
	ctx = context.WithoutCancel(ctx)
	for _, e := range events {
		if err := p.cfg.Events(ctx, e); err != nil {
			p.log.ErrorContext(ctx, "embeddedsign: signing event not delivered; the contract reconciles on read",
				"kind", e.Kind, "submission_id", e.SubmissionID, "err", err)
		}
	}
}
