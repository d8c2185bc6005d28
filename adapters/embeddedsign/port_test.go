package embeddedsign_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"path"
	"strings"
	"sync"
	"testing"
	"time"

	"counsel/adapters/embeddedsign"
	"counsel/adapters/sqlite"
	"counsel/app/apptest"
	"counsel/domain"
	"counsel/domain/signing"
	"counsel/ports"
	"counsel/ports/porttest"
)

// TestSigningProviderSuite runs the port's acceptance suite against the
// embedded provider over a temporary SQLite file, with the driver acting
// as the signers through the signing pages' methods.
func TestSigningProviderSuite(t *testing.T) {
	t.Parallel()
	porttest.SigningProvider(t, func(t *testing.T) porttest.SigningDriver {
		return newHarness(t)
	})
}

// harness is a provider over a fresh database with a fake clock, document
// store and event log; the mail it queues is in the database's outbox.
type harness struct {
	p      *embeddedsign.Provider
	db     *sqlite.DB
	clock  *porttest.Clock
	events *eventLog
	docs   map[string][]byte
}

type option func(*embeddedsign.Config)

func withReminders(every time.Duration, max int) option {
	return func(c *embeddedsign.Config) { c.Reminders = signing.ReminderSchedule{Interval: every, Max: max} }
}

func newHarness(t testing.TB, opts ...option) *harness {
	t.Helper()
	db, err := sqlite.Open(context.Background(), apptest.SQLiteFile(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	h := &harness{
		db:     db,
		clock:  porttest.NewClock(time.Date(2026, 5, 4, 10, 0, 0, 0, time.UTC)),
		events: &eventLog{},
		docs: map[string][]byte{
			"1": porttest.MinimalPDF(1),
			"2": porttest.MinimalDOCX("Engagement letter"),
		},
	}
	cfg := embeddedsign.Config{
		PublicURL: "https://counsel.example.com/",
		Store:     db.Stores().Signing,
		Documents: func(_ context.Context, id string) (io.ReadCloser, string, string, error) {
			b, ok := h.docs[id]
			if !ok {
				return nil, "", "", &domain.Error{Code: domain.ENOTFOUND, Message: "document not found"}
			}
			return io.NopCloser(bytes.NewReader(b)), "", "", nil
		},
		Events: h.events.record,
		Secret: bytes.Repeat([]byte{7}, 32),
		Now:    h.clock.Now,
	}
	for _, o := range opts {
		o(&cfg)
	}
	p, err := embeddedsign.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	h.p = p
	return h
}

func (h *harness) Provider() ports.SigningProvider { return h.p }

// slugOf finds the slug of the submitter with email from its embedSrc.
func (h *harness) slugOf(t *testing.T, submissionID, email string) string {
	t.Helper()
	s, err := h.p.GetSubmission(context.Background(), submissionID)
	if err != nil {
		t.Fatal(err)
	}
	for _, sub := range s.Submitters {
		if sub.Email == email {
			return path.Base(sub.EmbedSrc)
		}
	}
	t.Fatalf("no submitter %s in submission %s", email, submissionID)
	return ""
}

// openPage opens the page of the signer with email and returns its slug
// and form token.
func (h *harness) openPage(t *testing.T, submissionID, email string) (slug, token string) {
	t.Helper()
	slug = h.slugOf(t, submissionID, email)
	page, err := h.p.Page(context.Background(), slug)
	if err != nil {
		t.Fatalf("page: %v", err)
	}
	return slug, page.FormToken
}

// Complete opens the signer's page and signs with the page's form token.
func (h *harness) Complete(t *testing.T, submissionID, email string) {
	t.Helper()
	slug, token := h.openPage(t, submissionID, email)
	if _, err := h.p.Sign(context.Background(), slug, ports.SignInput{FormToken: token, Name: "Typed " + email, Consent: true}); err != nil {
		t.Fatalf("sign: %v", err)
	}
}

// Decline opens the signer's page and declines with reason.
func (h *harness) Decline(t *testing.T, submissionID, email, reason string) {
	t.Helper()
	slug, token := h.openPage(t, submissionID, email)
	if _, err := h.p.Decline(context.Background(), slug, ports.DeclineInput{FormToken: token, Reason: reason}); err != nil {
		t.Fatalf("decline: %v", err)
	}
}

type email struct{ to, subject, body, kind string }

// mails returns the messages queued in the outbox, oldest first.
func (h *harness) mails(t *testing.T) []email {
	t.Helper()
	ob := h.db.Stores().Outbox
	list, _, err := ob.Mails(context.Background(), 1000, 0)
	if err != nil {
		t.Fatal(err)
	}
	out := make([]email, 0, len(list))
	for i := len(list) - 1; i >= 0; i-- {
		m, err := ob.OutboxMail(context.Background(), list[i].ID)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, email{to: m.To, subject: m.Subject, body: m.Text, kind: m.Kind})
	}
	return out
}

// mailTo lists the recipients of the queued messages of kind, oldest first.
func (h *harness) mailTo(t *testing.T, kind string) []string {
	t.Helper()
	var out []string
	for _, m := range h.mails(t) {
		if m.kind == kind {
			out = append(out, m.to)
		}
	}
	return out
}

type eventLog struct {
	mu     sync.Mutex
	events []signing.Event
	fail   bool
}

func (l *eventLog) record(_ context.Context, e signing.Event) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.events = append(l.events, e)
	if l.fail {
		return errors.New("contract store unavailable")
	}
	return nil
}

func (l *eventLog) kinds() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []string
	for _, e := range l.events {
		out = append(out, e.Kind)
	}
	return out
}

func (l *eventLog) all() []signing.Event {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]signing.Event(nil), l.events...)
}

// twoSigners is a submission for a client and a partner without email.
func twoSigners(templateID, order string) signing.NewSubmission {
	return signing.NewSubmission{
		TemplateID: templateID,
		Submitters: []signing.NewSubmitter{
			{Name: "Casey Client", Email: "client@example.com", Role: "Client"},
			{Name: "Pat Partner", Email: "partner@example.com", Role: "Firm"},
		},
		Order: order,
		Name:  "Service agreement 2026",
	}
}

func (h *harness) template(t testing.TB) signing.Template {
	t.Helper()
	tpl, err := h.p.CreateTemplate(context.Background(), signing.NewTemplate{
		Name: "Service agreement", ExternalID: "0b9a7f1e-5a4c-4a7e-9d3b-2f8f6c1d0e11", Roles: []string{"Client", "Firm"},
		Documents: []signing.Document{
			{ID: "1", FileName: "agreement.pdf", ContentType: "application/pdf"},
			{ID: "2", FileName: "C:\\docs\\letter.docx", ContentType: porttest.DOCXContentType},
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	return tpl
}

func (h *harness) submission(t testing.TB, in signing.NewSubmission) signing.Submission {
	t.Helper()
	subs, err := h.p.CreateSubmission(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	return subs[0]
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if strings.Contains(x, s) {
			return true
		}
	}
	return false
}
