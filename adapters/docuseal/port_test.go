package docuseal

import (
	"testing"
	"time"

	"counsel/adapters/docuseal/docusealtest"
	"counsel/domain/signing"
	"counsel/ports"
	"counsel/ports/porttest"
)

// TestSigningProviderSuite runs the port's acceptance suite against the
// adapter talking to a fake DocuSeal.
func TestSigningProviderSuite(t *testing.T) {
	t.Parallel()
	porttest.SigningProvider(t, func(t *testing.T) porttest.SigningDriver {
		srv := docusealtest.NewServer(t)
		return fakeDriver{srv: srv, client: newTestClient(t, srv)}
	})
}

// fakeDriver acts as the signers through the fake server's helpers.
type fakeDriver struct {
	srv    *docusealtest.Server
	client *Client
}

func (d fakeDriver) Provider() ports.SigningProvider { return d.client }

func (d fakeDriver) Complete(t *testing.T, submissionID, email string) {
	t.Helper()
	if err := d.srv.Complete(submissionID, email); err != nil {
		t.Fatal(err)
	}
}

func (d fakeDriver) Decline(t *testing.T, submissionID, email, reason string) {
	t.Helper()
	if err := d.srv.Decline(submissionID, email, reason); err != nil {
		t.Fatal(err)
	}
}

func (d fakeDriver) Webhook(t *testing.T, ev signing.Event) (string, []byte, time.Time) {
	t.Helper()
	eventType := map[string]string{
		signing.EventSubmitterCompleted:  "form.completed",
		signing.EventSubmitterDeclined:   "form.declined",
		signing.EventSubmissionCompleted: "submission.completed",
		signing.EventSubmissionExpired:   "submission.expired",
	}[ev.Kind]
	header, body, err := d.srv.Webhook(eventType, ev.SubmissionID, ev.SubmitterEmail)
	if err != nil {
		t.Fatal(err)
	}
	return header, body, time.Now()
}

// newTestClient returns a Client for srv with short retry waits.
func newTestClient(t testing.TB, srv *docusealtest.Server, opts ...func(*Config)) *Client {
	t.Helper()
	cfg := Config{
		BaseURL:       srv.URL,
		APIKey:        srv.APIKey,
		WebhookSecret: srv.WebhookSecret,
		UserEmail:     "admin@example.com",
		Timeout:       5 * time.Second,
	}
	for _, o := range opts {
		o(&cfg)
	}
	c, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	c.backoff = []time.Duration{time.Millisecond, 2 * time.Millisecond}
	return c
}
