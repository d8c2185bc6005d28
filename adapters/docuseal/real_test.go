package docuseal

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/matryer/is"

	"counsel/adapters/docuseal/docusealtest"
	"counsel/domain"
	"counsel/domain/signing"
	"counsel/ports/porttest"
)

// Tests of what DocuSeal's own source does and a client could get wrong
// (see the docusealtest package comment for the files).

func TestTemplatesAreMadeWithoutASharedLink(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	srv := docusealtest.NewServer(t)
	c := newTestClient(t, srv)
	tpl, err := c.CreateTemplate(context.Background(), pdfTemplate("Client"))
	is.NoErr(err)
	reqs := srv.Requests(http.MethodPost, "/api/templates/pdf")
	is.True(bytes.Contains(reqs[0].Body, []byte(`"shared_link":false`))) // sent
	got, _ := srv.Template(tpl.ID)
	is.True(!got.SharedLink) // recorded
	_, err = srv.StartForm(tpl.ID, "stranger@example.org")
	is.True(err != nil) // no submission through the template's link
}

func TestForeignAndUnknownTemplatesAreNotFound(t *testing.T) {
	t.Parallel()
	srv := docusealtest.NewServer(t)
	c := newTestClient(t, srv)
	foreign := srv.AddForeignTemplate()
	for _, tc := range []struct {
		name, id string
	}{
		{"unknown", "424242"},
		{"another account's", foreign},
	} {
		t.Run(tc.name, func(t *testing.T) {
			is := is.New(t)
			_, err := c.CreateSubmission(context.Background(), signing.NewSubmission{TemplateID: tc.id,
				Submitters: []signing.NewSubmitter{{Email: "a@example.com"}}})
			is.Equal(domain.ErrorCode(err), domain.ENOTFOUND)          // not found
			is.True(strings.Contains(domain.ErrorMessage(err), tc.id)) // names it
			_, err = c.GetTemplate(context.Background(), tc.id)
			is.Equal(domain.ErrorCode(err), domain.ENOTFOUND) // reading it too
		})
	}
	t.Run("a bad API key stays upstream", func(t *testing.T) {
		is := is.New(t)
		bad := newTestClient(t, srv, func(c *Config) { c.APIKey = "wrong" })
		_, err := bad.CreateSubmission(context.Background(), signing.NewSubmission{TemplateID: foreign,
			Submitters: []signing.NewSubmitter{{Email: "a@example.com"}}})
		is.Equal(domain.ErrorCode(err), domain.EUPSTREAM) // 401 is the key
	})
}

func TestMessageNeedsABody(t *testing.T) {
	t.Parallel()
	srv := docusealtest.NewServer(t)
	c := newTestClient(t, srv)
	tpl, err := c.CreateTemplate(context.Background(), pdfTemplate("Client"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name    string
		msg     signing.Message
		code    string
		message string // the message object sent, "" for none
	}{
		{"none", signing.Message{}, "", ""},
		{"a body alone", signing.Message{Body: "Please sign"}, "", `"message":{"body":"Please sign"}`},
		{"both", signing.Message{Subject: "Agreement", Body: "Please sign"}, "", `"message":{"subject":"Agreement","body":"Please sign"}`},
		{"a subject alone", signing.Message{Subject: "Agreement"}, domain.EINVALID, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			is := is.New(t)
			before := srv.Hits(http.MethodPost, "/api/submissions")
			_, err := c.CreateSubmission(context.Background(), signing.NewSubmission{TemplateID: tpl.ID, Message: tc.msg,
				Submitters: []signing.NewSubmitter{{Email: "a@example.com", Role: "Client"}}})
			if tc.code != "" {
				is.Equal(domain.ErrorCode(err), tc.code)                        // refused here
				is.Equal(srv.Hits(http.MethodPost, "/api/submissions"), before) // not sent
				return
			}
			is.NoErr(err) // DocuSeal takes it
			reqs := srv.Requests(http.MethodPost, "/api/submissions")
			sent := reqs[len(reqs)-1].Body
			if tc.message == "" {
				is.True(!bytes.Contains(sent, []byte(`"message"`))) // no message object
			} else {
				is.True(bytes.Contains(sent, []byte(tc.message))) // the message
			}
		})
	}
}

func TestDeclineReasonComesFromSubmissionEvents(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	srv := docusealtest.NewServer(t)
	c := newTestClient(t, srv)
	ctx := context.Background()
	tpl, err := c.CreateTemplate(ctx, pdfTemplate("Client", "Firm"))
	is.NoErr(err)
	subs, err := c.CreateSubmission(ctx, signing.NewSubmission{TemplateID: tpl.ID, Order: signing.OrderRandom,
		Submitters: []signing.NewSubmitter{{Email: "a@example.com", Role: "Client"}, {Email: "b@example.com", Role: "Firm"}}})
	is.NoErr(err)
	is.NoErr(srv.Decline(subs[0].ID, "b@example.com", "Wrong fee"))

	got, err := c.GetSubmission(ctx, subs[0].ID)
	is.NoErr(err)
	is.Equal(got.Status, signing.SubmissionDeclined)       // declined
	is.Equal(got.Submitters[0].DeclineReason, "")          // Client did not decline
	is.Equal(got.Submitters[1].DeclineReason, "Wrong fee") // from decline_form's data

	list, err := c.ListSubmissions(ctx, tpl.ID)
	is.NoErr(err)
	is.Equal(list[0].Submitters[1].DeclineReason, "Wrong fee")            // read again for the list
	is.Equal(srv.Hits(http.MethodGet, "/api/submissions/"+subs[0].ID), 2) // once per read

	header, body, err := srv.Webhook("form.declined", subs[0].ID, "b@example.com")
	is.NoErr(err)
	events, err := c.ParseWebhook(sig(header), body, time.Now())
	is.NoErr(err)
	is.Equal(events[0].Reason, "Wrong fee") // the webhook has it itself
}

func TestListFillsTheCombinedDocument(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	srv := docusealtest.NewServer(t)
	c := newTestClient(t, srv)
	ctx := context.Background()
	tpl, err := c.CreateTemplate(ctx, pdfTemplate("Client"))
	is.NoErr(err)
	var ids []string
	for _, email := range []string{"a@example.com", "b@example.com", "c@example.com"} {
		subs, err := c.CreateSubmission(ctx, signing.NewSubmission{TemplateID: tpl.ID, Submitters: []signing.NewSubmitter{{Email: email, Role: "Client"}}})
		is.NoErr(err)
		ids = append(ids, subs[0].ID)
	}
	is.NoErr(srv.Complete(ids[0], "a@example.com"))
	is.NoErr(srv.Complete(ids[2], "c@example.com"))

	list, err := c.ListSubmissions(ctx, tpl.ID)
	is.NoErr(err)
	is.Equal(len(list), 3) // all of them
	for _, s := range list {
		if s.Status == signing.SubmissionCompleted {
			is.True(strings.HasPrefix(s.CombinedDocumentURL, "http")) // filled
			is.Equal(s.TemplateID, tpl.ID)                            // still its template
		} else {
			is.Equal(s.CombinedDocumentURL, "") // pending: none
		}
	}
	is.Equal(srv.Hits(http.MethodGet, "/api/submissions/"+ids[1]), 0) // the pending one not read again
	before := srv.Hits("", "")
	_, err = c.ListSubmissions(ctx, tpl.ID)
	is.NoErr(err)
	is.Equal(srv.Hits("", ""), before+1) // generated once: the list has it now
}

func TestWebhookAuthentication(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 21, 9, 30, 0, 0, time.UTC)
	body := []byte(`{"event_type":"form.completed","timestamp":"2026-11-21T09:20:00.123Z","data":{"id":1,"submission_id":7,"email":"a@example.com","status":"completed","submission":{"id":7,"status":"completed"}}}`)
	signed := SignWebhook(testSecret, now, body)
	headers := func(h map[string]string) func(string) string { return porttest.Headers(h) }
	for _, tc := range []struct {
		name    string
		secret  string
		header  string
		request map[string]string
		ok      bool
		hint    bool
	}{
		{"secret: signed", testSecret, "", map[string]string{SignatureHeader: signed}, true, false},
		{"secret: unsigned (the test button)", testSecret, "", nil, false, true},
		{"secret: a custom header is not enough", testSecret, "", map[string]string{"X-Key": "v"}, false, true},
		{"header: present", "", "X-Key: v4lue", map[string]string{"x-key": "v4lue"}, true, false},
		{"header: with spaces around", "", " X-Key :  v4lue ", map[string]string{"X-Key": "v4lue"}, true, false},
		{"header: wrong value", "", "X-Key: v4lue", map[string]string{"X-Key": "v4lue!"}, false, false},
		{"header: a prefix of the value", "", "X-Key: v4lue", map[string]string{"X-Key": "v4lu"}, false, false},
		{"header: missing", "", "X-Key: v4lue", nil, false, false},
		{"header: a signature is no use without the secret", "", "X-Key: v4lue", map[string]string{SignatureHeader: signed}, false, false},
		{"both: signature alone", testSecret, "X-Key: v4lue", map[string]string{SignatureHeader: signed}, true, false},
		{"both: header alone", testSecret, "X-Key: v4lue", map[string]string{"X-Key": "v4lue"}, true, false},
		{"both: a bad signature with the header", testSecret, "X-Key: v4lue", map[string]string{SignatureHeader: signed[:len(signed)-1] + "0", "X-Key": "v4lue"}, true, false},
		{"both: neither", testSecret, "X-Key: v4lue", map[string]string{SignatureHeader: signed[:len(signed)-1] + "0"}, false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			is := is.New(t)
			srv := docusealtest.NewServer(t)
			c := newTestClient(t, srv, func(c *Config) { c.WebhookSecret, c.WebhookHeader = tc.secret, tc.header })
			events, err := c.ParseWebhook(headers(tc.request), body, now)
			if tc.ok {
				is.NoErr(err)                                                              // accepted
				is.Equal(len(events), 1)                                                   // read
				is.Equal(events[0].At, time.Date(2026, 11, 21, 9, 20, 0, 123e6, time.UTC)) // the body's time, to the millisecond
				return
			}
			is.Equal(domain.ErrorCode(err), domain.EUNAUTHORIZED) // refused
			var de *domain.Error
			is.True(errors.As(err, &de))
			is.Equal(de.Err != nil && de.Err.Error() == UnsignedHint, tc.hint) // the hint, for unsigned deliveries
		})
	}
}

func TestWebhookFromTheStandIn(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	clock := time.Date(2026, 11, 21, 9, 30, 0, 0, time.UTC)
	now := clock
	srv := docusealtest.NewServer(t, docusealtest.WithClock(func() time.Time { return now }), docusealtest.WithWebhookHeader("X-Key", "v"))
	ctx := context.Background()
	c := newTestClient(t, srv)
	tpl, err := c.CreateTemplate(ctx, pdfTemplate("Client"))
	is.NoErr(err)
	subs, err := c.CreateSubmission(ctx, signing.NewSubmission{TemplateID: tpl.ID, Submitters: []signing.NewSubmitter{{Email: "a@example.com", Role: "Client"}}})
	is.NoErr(err)
	is.NoErr(srv.Complete(subs[0].ID, "a@example.com"))
	h, body, err := srv.Delivery("form.completed", subs[0].ID, "a@example.com")
	is.NoErr(err)
	events, err := c.ParseWebhook(h.Get, body, now)
	is.NoErr(err)                   // signed with the generated whsec_ secret
	is.True(events[0].AllCompleted) // the last signer
	now = clock.Add(30 * time.Minute)
	_, err = c.ParseWebhook(h.Get, body, now)
	is.Equal(domain.ErrorCode(err), domain.EUNAUTHORIZED) // that attempt is stale
	_, err = c.ParseWebhook(sig(srv.Resign(body)), body, now)
	is.NoErr(err) // a later attempt is signed afresh

	th, tbody, err := srv.TestDelivery()
	is.NoErr(err)
	_, err = c.ParseWebhook(th.Get, tbody, now)
	is.Equal(domain.ErrorCode(err), domain.EUNAUTHORIZED) // the test button's delivery is unsigned
	withHeader := newTestClient(t, srv, func(c *Config) { c.WebhookHeader = "X-Key: v" })
	_, err = withHeader.ParseWebhook(th.Get, tbody, now)
	is.NoErr(err) // but carries the custom header
}

func FuzzParseWebhookHeader(f *testing.F) {
	for _, s := range []string{"", "X-Key: v", "X-Key:", ":v", "X Key: v", "X-Docuseal-Signature: v", "a:b:c", "\x00: \x00"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		name, value, err := ParseWebhookHeader(s)
		if err != nil {
			return
		}
		if strings.TrimSpace(s) == "" {
			if name != "" || value != "" {
				t.Fatalf("%q: an empty setting gave %q: %q", s, name, value)
			}
			return
		}
		if name == "" || value == "" || strings.ContainsAny(name, " :\t\r\n") || strings.EqualFold(name, SignatureHeader) {
			t.Fatalf("%q accepted as %q: %q", s, name, value)
		}
	})
}
