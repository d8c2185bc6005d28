package docuseal

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/matryer/is"

	"counsel/adapters/docuseal/docusealtest"
	"counsel/domain"
	"counsel/domain/signing"
)

const testSecret = "whsec_dGVzdC13ZWJob29rLXNlY3JldA=="

// sig is a request's header lookup with only X-Docuseal-Signature.
func sig(header string) func(string) string {
	return func(name string) string {
		if strings.EqualFold(name, SignatureHeader) {
			return header
		}
		return ""
	}
}

func webhookClient(t *testing.T) *Client {
	t.Helper()
	c, err := New(Config{BaseURL: "https://api.docuseal.com", APIKey: "k", WebhookSecret: testSecret})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestWebhookSignature(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 3, 4, 16, 20, 12, 0, time.UTC)
	body := testdata(t, "webhook_form_completed.json")
	good := SignWebhook(testSecret, now, body)
	ts := strconv.FormatInt(now.Unix(), 10)
	tests := []struct {
		name   string
		header string
		body   []byte
		now    time.Time
		ok     bool
	}{
		{"valid", good, body, now, true},
		{"valid with spaces around", "  " + good + " ", body, now, true},
		{"valid upper-case hex", ts + "." + strings.ToUpper(strings.SplitN(good, ".", 2)[1]), body, now, true},
		{"299 s old", good, body, now.Add(299 * time.Second), true},
		{"299 s ahead", good, body, now.Add(-299 * time.Second), true},
		{"missing", "", body, now, false},
		{"no dot", ts, body, now, false},
		{"no timestamp", "." + strings.SplitN(good, ".", 2)[1], body, now, false},
		{"timestamp not a number", "abc." + strings.SplitN(good, ".", 2)[1], body, now, false},
		{"negative timestamp", "-" + good, body, now, false},
		{"signature not hex", ts + ".zz" + strings.SplitN(good, ".", 2)[1][2:], body, now, false},
		{"short signature", good[:len(good)-2], body, now, false},
		{"other secret", SignWebhook("whsec_other", now, body), body, now, false},
		{"body changed", good, append([]byte(" "), body...), now, false},
		{"timestamp changed", strconv.FormatInt(now.Unix()+1, 10) + "." + strings.SplitN(good, ".", 2)[1], body, now, false},
		{"stale", good, body, now.Add(301 * time.Second), false},
		{"from the future", good, body, now.Add(-301 * time.Second), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			events, err := webhookClient(t).ParseWebhook(sig(tt.header), tt.body, tt.now)
			if tt.ok {
				is.NoErr(err)            // accepted
				is.Equal(len(events), 1) // and read
				return
			}
			is.Equal(domain.ErrorCode(err), domain.EUNAUTHORIZED)                             // refused
			is.Equal(domain.ErrorMessage(err), "the webhook signature is missing or invalid") // one message for all
			is.Equal(len(events), 0)                                                          // no events
		})
	}
}

func TestWebhookEvents(t *testing.T) {
	t.Parallel()
	tests := []struct {
		file string
		want []signing.Event
	}{
		{"webhook_form_completed_first.json", []signing.Event{{
			Kind: signing.EventSubmitterCompleted, SubmissionID: "5001", TemplateID: "1001",
			SubmitterEmail: "client@example.com", AllCompleted: false, At: at("2026-03-02T11:49:21.701Z"),
		}}},
		{"webhook_form_completed.json", []signing.Event{{
			Kind: signing.EventSubmitterCompleted, SubmissionID: "5002", TemplateID: "1001",
			SubmitterEmail: "partner@example.com", AllCompleted: true, At: at("2026-03-04T16:20:11.420Z"),
		}}},
		{"webhook_form_declined.json", []signing.Event{{
			Kind: signing.EventSubmitterDeclined, SubmissionID: "5001", TemplateID: "1001",
			SubmitterEmail: "partner@example.com", Reason: "The fee schedule is wrong", At: at("2026-03-03T08:12:40.500Z"),
		}}},
		{"webhook_submission_completed.json", []signing.Event{{
			Kind: signing.EventSubmissionCompleted, SubmissionID: "5002", TemplateID: "1001", At: at("2026-03-04T16:20:11.420Z"),
		}}},
		{"webhook_submission_expired.json", []signing.Event{{
			Kind: signing.EventSubmissionExpired, SubmissionID: "5003", TemplateID: "1001", At: at("2026-03-10T00:00:05Z"),
		}}},
		{"webhook_form_viewed.json", nil},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			is := is.New(t)
			body := testdata(t, tt.file)
			now := time.Date(2026, 3, 5, 0, 0, 0, 0, time.UTC)
			events, err := webhookClient(t).ParseWebhook(sig(SignWebhook(testSecret, now, body)), body, now)
			is.NoErr(err)             // accepted
			is.Equal(events, tt.want) // mapped
		})
	}
}

func TestWebhookAllCompletedFromSubmitters(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		data string
		want bool
	}{
		{"submission completed", `{"submission_id":1,"submission":{"id":1,"status":"completed"}}`, true},
		{"every listed submitter completed", `{"submission_id":1,"submission":{"id":1,"submitters":[{"status":"completed"},{"status":"completed"}]}}`, true},
		{"one listed submitter left", `{"submission_id":1,"submission":{"id":1,"status":"pending","submitters":[{"status":"completed"},{"status":"sent"}]}}`, false},
		{"nothing said", `{"submission_id":1}`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			now := time.Now()
			body := []byte(`{"event_type":"form.completed","timestamp":"2026-03-04T16:20:12Z","data":` + tt.data + `}`)
			events, err := webhookClient(t).ParseWebhook(sig(SignWebhook(testSecret, now, body)), body, now)
			is.NoErr(err)                             // accepted
			is.Equal(events[0].AllCompleted, tt.want) // as far as the payload tells
			is.Equal(events[0].SubmissionID, "1")     // submission named
		})
	}
}

func TestWebhookUnreadableBodies(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		body string
	}{
		{"not JSON", `event_type=form.completed`},
		{"truncated", `{"event_type":"form.completed","data":{"id":1`},
		{"no event type", `{"timestamp":"2026-03-04T16:20:12Z","data":{}}`},
		{"data not an object", `{"event_type":"form.completed","data":[1,2]}`},
		{"data missing", `{"event_type":"submission.completed"}`},
		{"no submission", `{"event_type":"form.declined","data":{"id":9,"email":"a@example.com"}}`},
		{"submission without id", `{"event_type":"submission.expired","data":{"status":"expired"}}`},
		{"wrong types", `{"event_type":"form.completed","data":{"submission_id":"five"}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			now := time.Now()
			events, err := webhookClient(t).ParseWebhook(sig(SignWebhook(testSecret, now, []byte(tt.body))), []byte(tt.body), now)
			is.Equal(domain.ErrorCode(err), domain.EINVALID) // unreadable
			is.Equal(len(events), 0)                         // no events
		})
	}
}

func TestWebhookTimestampFallsBack(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	now := time.Date(2026, 3, 10, 0, 0, 0, 0, time.UTC)
	body := []byte(`{"event_type":"submission.expired","timestamp":1773100800,"data":{"id":3}}`)
	events, err := webhookClient(t).ParseWebhook(sig(SignWebhook(testSecret, now, body)), body, now)
	is.NoErr(err)                                          // accepted
	is.Equal(events[0].At, time.Unix(1773100800, 0).UTC()) // Unix timestamps read too
	body = []byte(`{"event_type":"submission.expired","data":{"id":3}}`)
	events, err = webhookClient(t).ParseWebhook(sig(SignWebhook(testSecret, now, body)), body, now)
	is.NoErr(err)               // accepted
	is.Equal(events[0].At, now) // no timestamp: now
}

// TestFakeWebhooksRoundTrip checks that the fake's webhooks are what the
// adapter reads, through a whole lifecycle.
func TestFakeWebhooksRoundTrip(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	srv := docusealtest.NewServer(t)
	c := newTestClient(t, srv)
	tpl, err := c.CreateTemplate(context.Background(), pdfTemplate("Client", "Firm"))
	is.NoErr(err) // template
	subs, err := c.CreateSubmission(context.Background(), signing.NewSubmission{
		TemplateID: tpl.ID, SendEmail: true,
		Submitters: []signing.NewSubmitter{{Email: "client@example.com", Role: "Client"}, {Email: "partner@example.com", Role: "Firm"}},
	})
	is.NoErr(err) // submission
	id := subs[0].ID
	is.Equal(subs[0].Submitters[0].Status, signing.SubmitterSent)     // first invited
	is.Equal(subs[0].Submitters[1].Status, signing.SubmitterAwaiting) // second waits its turn

	parse := func(eventType, email string) []signing.Event {
		header, body, err := srv.Webhook(eventType, id, email)
		is.NoErr(err) // webhook built
		events, err := c.ParseWebhook(sig(header), body, time.Now())
		is.NoErr(err) // webhook accepted
		return events
	}
	is.NoErr(srv.Open(id, "client@example.com"))                 // client opens
	is.Equal(len(parse("form.viewed", "client@example.com")), 0) // nothing changes

	is.True(srv.Complete(id, "partner@example.com") != nil) // preserved order: not yet
	is.NoErr(srv.Complete(id, "client@example.com"))        // client signs
	ev := parse("form.completed", "client@example.com")
	is.Equal(ev[0].Kind, signing.EventSubmitterCompleted) // submitter completed
	is.True(!ev[0].AllCompleted)                          // partner left
	is.Equal(ev[0].TemplateID, tpl.ID)                    // template named

	got, err := c.GetSubmission(context.Background(), id)
	is.NoErr(err)                                             // read back
	is.Equal(got.Submitters[1].Status, signing.SubmitterSent) // partner invited next
	is.True(got.Submitters[1].SentAt != nil)                  // with a time

	is.NoErr(srv.Complete(id, "partner@example.com")) // partner signs
	ev = parse("form.completed", "partner@example.com")
	is.True(ev[0].AllCompleted) // last signature
	ev = parse("submission.completed", "")
	is.Equal(ev[0].Kind, signing.EventSubmissionCompleted) // submission completed
	is.Equal(ev[0].SubmissionID, id)                       // named

	got, err = c.GetSubmission(context.Background(), id)
	is.NoErr(err)                                     // read back
	is.Equal(got.Status, signing.SubmissionCompleted) // completed
	is.True(got.AuditLogURL != "")                    // audit log
	is.True(got.CombinedDocumentURL != "")            // combined document
	is.Equal(len(got.Submitters), 2)                  // both

	// A second submission expires.
	subs, err = c.CreateSubmission(context.Background(), signing.NewSubmission{TemplateID: tpl.ID, Submitters: []signing.NewSubmitter{{Email: "client@example.com", Role: "Client"}}})
	is.NoErr(err) // another submission
	id = subs[0].ID
	is.NoErr(srv.Expire(id)) // expires
	ev = parse("submission.expired", "")
	is.Equal(ev[0].Kind, signing.EventSubmissionExpired) // expired
	got, err = c.GetSubmission(context.Background(), id)
	is.NoErr(err)                                          // read back
	is.Equal(got.Status, signing.SubmissionExpired)        // expired
	is.True(srv.Complete(id, "client@example.com") != nil) // too late to sign
}

func TestSignWebhookKnownVector(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	// HMAC-SHA256("whsec_test", "1700000000.{}") computed independently
	// (Python hmac).
	is.Equal(SignWebhook("whsec_test", time.Unix(1700000000, 0), []byte("{}")), "1700000000.35495024f4ef3f94e5a93e22221544c4b75e9a42300cd965ab81cb85cd994e91") // DocuSeal's format
}
