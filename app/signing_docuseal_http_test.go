package app_test

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/matryer/is"

	"counsel/adapters/docuseal/docusealtest"
	"counsel/app"
	"counsel/app/apptest"
	"counsel/domain/account"
	"counsel/ports/porttest"
)

// docusealServer starts a DocuSeal stand-in with opts and a service using
// it, changed by change; both run on the service's fake clock. Warnings
// and errors of the service go to the returned buffer.
func docusealServer(t *testing.T, opts []docusealtest.Option, change func(c *app.Config, ds *docusealtest.Server)) (*apptest.Server, *docusealtest.Server, *syncBuffer) {
	t.Helper()
	var clock atomic.Pointer[apptest.Clock]
	ds := docusealtest.NewServer(t, append([]docusealtest.Option{docusealtest.WithClock(func() time.Time { return clock.Load().Now() })}, opts...)...)
	logs := &syncBuffer{}
	s := apptest.New(t, func(c *app.Config) {
		c.SigningProvider = "docuseal"
		c.DocuSealURL = ds.URL
		c.DocuSealAPIKey = ds.APIKey
		c.DocuSealWebhookSecret = ds.WebhookSecret
		c.DocuSealUserEmail = "owner@firm.example"
		c.Logger = slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelWarn}))
		if change != nil {
			change(c, ds)
		}
	})
	clock.Store(s.Clock)
	return s, ds, logs
}

// postWebhook posts body with headers h to the webhook.
func postWebhook(t testing.TB, s *apptest.Server, h http.Header, body []byte) *apptest.Response {
	t.Helper()
	req, err := http.NewRequest("POST", s.URL+"/api/signing/webhook", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	for k, v := range h {
		req.Header[k] = v
	}
	return s.Send(t, req)
}

// problemType reads a problem document's type.
func problemType(t testing.TB, r *apptest.Response) (typ, detail string) {
	t.Helper()
	var p struct{ Type, Detail string }
	r.JSON(t, &p)
	return p.Type, p.Detail
}

// submitWith posts a submitForSigning body.
func submitWith(t testing.TB, s *apptest.Server, tok string, id int64, body map[string]any) *apptest.Response {
	t.Helper()
	return s.Do(t, "POST", fmt.Sprintf("/api/contracts/signing/%d/submitForSigning", id), tok, body)
}

// submissionsOf reads a contract's submissions.
func submissionsOf(t testing.TB, s *apptest.Server, tok string, id int64) []signingSubmission {
	t.Helper()
	return listItems[signingSubmission](t, s, tok, fmt.Sprintf("/api/contracts/%d/submissions", id), "submissions")
}

// TestSigningDocuSealAsItIs drives Counsel against a stand-in that behaves
// as DocuSeal's source does (docs/signing.md, "DocuSeal").
func TestSigningDocuSealAsItIs(t *testing.T) {
	t.Parallel()
	s, ds, logs := docusealServer(t, nil, nil)
	admin := s.Admin(t)
	alice := []map[string]any{{"name": "Alice", "email": "alice@client.example"}}

	t.Run("templates are made without a shared link", func(t *testing.T) {
		is := is.New(t)
		id, doc := signingContract(t, s, admin, "Private template", 1)
		signingSubmissionOf(t, signingSubmit(t, s, admin, id, []int64{doc}, "", "alice@client.example"))
		tid := signingContractGet(t, s, admin, id)["digitalContractId"].(string)
		tpl, ok := ds.Template(tid)
		is.True(ok)              // at DocuSeal
		is.True(!tpl.SharedLink) // shared_link false
		_, err := ds.StartForm(tid, "stranger@elsewhere.example")
		is.True(err != nil) // nobody starts a submission from its link
		req := ds.Requests("POST", "/api/templates/pdf")
		is.True(bytes.Contains(req[len(req)-1].Body, []byte(`"shared_link":false`))) // sent explicitly
	})

	t.Run("input DocuSeal would refuse is a 400 and reaches no provider", func(t *testing.T) {
		id, doc := signingContract(t, s, admin, "Bad input", 1)
		for _, tc := range []struct {
			name  string
			body  map[string]any
			field string
		}{
			{"a subject without a body", map[string]any{"documentIds": []int64{doc}, "submitters": alice, "message": map[string]any{"subject": "Please sign"}}, "message.body"},
			{"a phone with letters", map[string]any{"documentIds": []int64{doc}, "submitters": []map[string]any{{"email": "a@client.example", "phone": "+61 400 CALL ME"}}}, "submitters[0].phone"},
			{"a phone without a country code", map[string]any{"documentIds": []int64{doc}, "submitters": []map[string]any{{"email": "a@client.example", "phone": "0400 000 000"}}}, "submitters[0].phone"},
			{"a phone too short", map[string]any{"documentIds": []int64{doc}, "submitters": []map[string]any{{"email": "a@client.example", "phone": "+61 400"}}}, "submitters[0].phone"},
			{"a phone too long", map[string]any{"documentIds": []int64{doc}, "submitters": []map[string]any{{"email": "a@client.example", "phone": "+1234567890123456"}}}, "submitters[0].phone"},
			{"the second signer's phone", map[string]any{"documentIds": []int64{doc}, "submitters": []map[string]any{{"email": "a@client.example"}, {"email": "b@client.example", "phone": "12345"}}}, "submitters[1].phone"},
			{"an email without a top-level domain", map[string]any{"documentIds": []int64{doc}, "submitters": []map[string]any{{"email": "a@localhost"}}}, "submitters[0].email"},
			{"an email with a display name", map[string]any{"documentIds": []int64{doc}, "submitters": []map[string]any{{"email": "Alice <a@client.example>"}}}, "submitters[0].email"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				is := is.New(t)
				before := ds.Hits("", "")
				r := submitWith(t, s, admin, id, tc.body)
				is.Equal(r.Status, 400) // refused
				_, errs := contractProblem(t, r)
				is.True(len(errs[tc.field]) > 0)                                 // names the field
				is.Equal(ds.Hits("", ""), before)                                // DocuSeal never asked
				is.Equal(signingContractGet(t, s, admin, id)["status"], "Draft") // unchanged
			})
		}
		t.Run("on submission/create too", func(t *testing.T) {
			is := is.New(t)
			r := s.Do(t, "POST", fmt.Sprintf("/api/contracts/%d/submission/create", id), admin, map[string]any{
				"templateId": 1, "submission": []any{map[string]any{"submitters": []map[string]any{{"email": "a@client.example", "phone": "call me"}}}}})
			is.Equal(r.Status, 400) // refused
			_, errs := contractProblem(t, r)
			is.True(len(errs["submission[0].submitters[0].phone"]) > 0) // names the field
		})
	})

	t.Run("phones go to DocuSeal in E.164 and a message with its body", func(t *testing.T) {
		is := is.New(t)
		id, doc := signingContract(t, s, admin, "Phones", 1)
		sub := signingSubmissionOf(t, submitWith(t, s, admin, id, map[string]any{"documentIds": []int64{doc}, "sendEmail": false,
			"submitters": []map[string]any{{"name": "Alice", "email": "alice@client.example", "phone": "+61 (400) 000-001"}},
			"message":    map[string]any{"subject": "Please sign", "body": "The agreement is ready."}}))
		is.Equal(sub.Submitters[0].Phone, "+61400000001") // normalised
		req := ds.Requests("POST", "/api/submissions")
		var sent struct {
			Message    map[string]string
			Submitters []struct{ Phone string }
		}
		is.NoErr(json.Unmarshal(req[len(req)-1].Body, &sent))
		is.Equal(sent.Submitters[0].Phone, "+61400000001")                                                     // as DocuSeal takes it
		is.Equal(sent.Message, map[string]string{"subject": "Please sign", "body": "The agreement is ready."}) // subject and body
	})

	t.Run("an unknown or foreign templateId is a 404 naming the template", func(t *testing.T) {
		id, _ := signingContract(t, s, admin, "Templates", 1)
		for _, tc := range []struct {
			name, template string
		}{
			{"unknown to DocuSeal", "987654"},
			{"of another DocuSeal account", ds.AddForeignTemplate()},
		} {
			t.Run(tc.name, func(t *testing.T) {
				is := is.New(t)
				r := s.Do(t, "POST", fmt.Sprintf("/api/contracts/%d/submission/create", id), admin, map[string]any{
					"templateId": tc.template, "submission": []any{map[string]any{"submitters": alice}}})
				is.Equal(r.Status, 404) // not found
				typ, detail := problemType(t, r)
				is.Equal(typ, "/problems/not-found")           // the type
				is.True(strings.Contains(detail, tc.template)) // names the template
				c := signingContractGet(t, s, admin, id)
				is.Equal(c["status"], "Draft")        // unchanged
				is.Equal(c["digitalContractId"], nil) // not linked
			})
		}
		t.Run("a failing provider is still a 502", func(t *testing.T) {
			is := is.New(t)
			ds.SetOutage(docusealtest.OutageError)
			r := s.Do(t, "POST", fmt.Sprintf("/api/contracts/%d/submission/create", id), admin, map[string]any{
				"templateId": "987654", "submission": []any{map[string]any{"submitters": alice}}})
			ds.SetOutage(docusealtest.OutageNone)
			is.Equal(r.Status, 502) // upstream
		})
	})

	t.Run("a decline found by reading keeps its reason", func(t *testing.T) {
		is := is.New(t)
		id, doc := signingContract(t, s, admin, "Declined unseen", 1)
		sub := signingSubmissionOf(t, signingSubmit(t, s, admin, id, []int64{doc}, "", "erin@client.example"))
		is.NoErr(ds.Decline(sub.ID, "erin@client.example", "The fee schedule is missing")) // no webhook follows
		subs := submissionsOf(t, s, admin, id)
		is.Equal(subs[0].Status, "declined")                                          // read
		is.Equal(*subs[0].Submitters[0].DeclineReason, "The fee schedule is missing") // from DocuSeal's events
		is.Equal(signingContractGet(t, s, admin, id)["status"], "Declined")           // reconciled
		h := signingHistory(t, s, admin, id)
		is.Equal(h[0].Details, fmt.Sprintf("erin@client.example declined (submission %s): The fee schedule is missing", sub.ID)) // with the reason
	})

	t.Run("a resubmission of changed documents updates the template first", func(t *testing.T) {
		is := is.New(t)
		id, first := signingContract(t, s, admin, "Revised", 1)
		sub := signingSubmissionOf(t, signingSubmit(t, s, admin, id, []int64{first}, "", "erin@client.example"))
		tid := signingContractGet(t, s, admin, id)["digitalContractId"].(string)
		is.NoErr(ds.Decline(sub.ID, "erin@client.example", "Change clause 4"))
		header, body, err := ds.Webhook("form.declined", sub.ID, "erin@client.example")
		is.NoErr(err)
		is.Equal(docusealWebhook(t, s, header, body).Status, 200) // declined
		r := contractUpload(t, s, admin, id, "revised.pdf", porttest.MinimalPDF(2)).Expect(t, 201, "upload")
		revised := int64(r.Map(t)["id"].(float64))

		builds := ds.Hits("POST", "/api/templates/pdf")
		again := signingSubmissionOf(t, signingSubmit(t, s, admin, id, []int64{revised}, "", "erin@client.example"))
		is.Equal(ds.Hits("POST", "/api/templates/pdf"), builds+1) // the template sent again
		all := ds.Requests("", "")
		var order []string
		for _, q := range all {
			if q.Method == "POST" && (q.Path == "/api/templates/pdf" || q.Path == "/api/submissions") {
				order = append(order, q.Path)
			}
		}
		is.Equal(order[len(order)-2:], []string{"/api/templates/pdf", "/api/submissions"}) // before the submission
		tpl, _ := ds.Template(tid)
		is.Equal(len(tpl.Documents), 1)                                         // updated in place (same external_id)
		is.Equal(tpl.Documents[0].Name, "revised.pdf")                          // with the new document
		is.Equal(tpl.Documents[0].Pages, 2)                                     // its content
		is.Equal(signingContractGet(t, s, admin, id)["digitalContractId"], tid) // same template id

		// Declined again; the same documents: the template is reused.
		is.NoErr(ds.Decline(again.ID, "erin@client.example", "Still no"))
		header, body, err = ds.Webhook("form.declined", again.ID, "erin@client.example")
		is.NoErr(err)
		is.Equal(docusealWebhook(t, s, header, body).Status, 200)
		signingSubmissionOf(t, signingSubmit(t, s, admin, id, []int64{revised}, "", "erin@client.example"))
		is.Equal(ds.Hits("POST", "/api/templates/pdf"), builds+1) // not sent again
	})

	t.Run("signer links are kept sealed and shown to ContractEdit only", func(t *testing.T) {
		is := is.New(t)
		id, doc := signingContract(t, s, admin, "Links", 1)
		sub := signingSubmissionOf(t, signingSubmit(t, s, admin, id, []int64{doc}, "random", "alice@client.example", "bob@client.example"))
		links := map[string]string{}
		for _, p := range sub.Submitters {
			is.True(strings.HasPrefix(p.EmbedSrc, ds.URL[:len(ds.URL)-len("/api")]+"/s/")) // DocuSeal's links
			links[p.Email] = p.EmbedSrc
		}
		list := submissionsOf(t, s, admin, id)
		for _, p := range list[0].Submitters {
			is.Equal(p.EmbedSrc, links[p.Email]) // shown again
		}
		_, viewer := s.User(t, account.ContractView)
		for _, p := range submissionsOf(t, s, viewer, id)[0].Submitters {
			is.Equal(p.EmbedSrc, "") // not to ContractView
		}
		var sealed []byte
		is.NoErr(s.QueryRow(context.Background(), `SELECT sealed FROM signing_signer_links WHERE submission_id = ? LIMIT 1`, sub.ID).Scan(&sealed))
		is.True(len(sealed) > 0)                         // recorded
		is.True(!bytes.Contains(sealed, []byte("/s/")))  // unreadable at rest
		is.True(!bytes.Contains(sealed, []byte("http"))) // not even the scheme
	})

	t.Run("a completed submission has its combined document", func(t *testing.T) {
		is := is.New(t)
		id, doc := signingContract(t, s, admin, "Combined", 1)
		sub := signingSubmissionOf(t, signingSubmit(t, s, admin, id, []int64{doc}, "", "gina@client.example"))
		is.NoErr(ds.Complete(sub.ID, "gina@client.example"))
		subs := submissionsOf(t, s, admin, id)
		is.Equal(subs[0].Status, "completed")                                                                  // completed
		is.True(subs[0].CombinedDocumentURL != nil && strings.HasPrefix(*subs[0].CombinedDocumentURL, "http")) // filled
		is.True(ds.Hits("GET", "/api/submissions/"+sub.ID) >= 1)                                               // asked DocuSeal
		is.True(strings.Contains(ds.Requests("GET", "/api/submissions/"+sub.ID)[0].RawQuery, "include=combined_document_url"))
	})

	t.Run("a retried delivery is signed afresh and accepted", func(t *testing.T) {
		is := is.New(t)
		id, doc := signingContract(t, s, admin, "Retried", 1)
		sub := signingSubmissionOf(t, signingSubmit(t, s, admin, id, []int64{doc}, "", "hal@client.example"))
		is.NoErr(ds.Complete(sub.ID, "hal@client.example"))
		_, body, err := ds.Webhook("form.completed", sub.ID, "hal@client.example")
		is.NoErr(err)
		s.Clock.Advance(16 * time.Minute)                                      // DocuSeal's backoff: 1, 2, 4, 8 minutes
		is.Equal(docusealWebhook(t, s, ds.Resign(body), body).Status, 200)     // the body's old timestamp does not matter
		is.Equal(signingContractGet(t, s, s.Admin(t), id)["status"], "Signed") // applied
	})

	t.Run("the settings page's test delivery is refused with a hint", func(t *testing.T) {
		is := is.New(t)
		h, body, err := ds.TestDelivery()
		is.NoErr(err)
		before := strings.Count(logs.String(), "COUNSEL_DOCUSEAL_WEBHOOK_HEADER")
		r := postWebhook(t, s, h, body)
		is.Equal(r.Status, 401) // unsigned
		typ, _ := problemType(t, r)
		is.Equal(typ, "/problems/unauthorized")
		is.Equal(strings.Count(logs.String(), "COUNSEL_DOCUSEAL_WEBHOOK_HEADER"), before+1) // logged once, naming the setting
		is.True(strings.Contains(logs.String(), "test delivery is never signed"))           // with the hint
	})
}

// TestSigningDocuSealWebhookHeader authenticates DocuSeal's deliveries by
// the custom header (DocuSeal before 2.5.3), alone or beside the secret.
func TestSigningDocuSealWebhookHeader(t *testing.T) {
	t.Parallel()
	t.Run("before 2.5.3: unsigned deliveries with the header", func(t *testing.T) {
		s, ds, _ := docusealServer(t, []docusealtest.Option{docusealtest.WithUnsignedWebhooks(), docusealtest.WithWebhookHeader("X-Counsel-Key", "k3y-Value")},
			func(c *app.Config, ds *docusealtest.Server) {
				c.DocuSealWebhookSecret = ""
				c.DocuSealWebhookHeader = "X-Counsel-Key: k3y-Value"
			})
		admin := s.Admin(t)
		id, doc := signingContract(t, s, admin, "Old DocuSeal", 1)
		sub := signingSubmissionOf(t, signingSubmit(t, s, admin, id, []int64{doc}, "", "ivy@client.example"))
		is.New(t).NoErr(ds.Complete(sub.ID, "ivy@client.example"))
		h, body, err := ds.Delivery("form.completed", sub.ID, "ivy@client.example")
		is.New(t).NoErr(err)
		is.New(t).Equal(h.Get("X-Docuseal-Signature"), "") // unsigned
		for _, tc := range []struct {
			name   string
			header http.Header
			status int
		}{
			{"no header", http.Header{}, 401},
			{"a wrong value", http.Header{"X-Counsel-Key": {"k3y-valuE"}}, 401},
			{"a longer value", http.Header{"X-Counsel-Key": {"k3y-Value2"}}, 401},
			{"another header with the value", http.Header{"X-Other": {"k3y-Value"}}, 401},
			{"a signature alone (no secret configured)", http.Header{"X-Docuseal-Signature": {docusealtest.Sign("whsec_x", s.Clock.Now(), body)}}, 401},
			{"the header", h, 200},
		} {
			t.Run(tc.name, func(t *testing.T) {
				is := is.New(t)
				r := postWebhook(t, s, tc.header, body)
				is.Equal(r.Status, tc.status) // status
			})
		}
		is.New(t).Equal(signingContractGet(t, s, admin, id)["status"], "Signed") // applied
	})

	t.Run("both set: either is enough; the test delivery carries the header", func(t *testing.T) {
		s, ds, _ := docusealServer(t, []docusealtest.Option{docusealtest.WithWebhookHeader("X-Counsel-Key", "k3y")},
			func(c *app.Config, ds *docusealtest.Server) { c.DocuSealWebhookHeader = "X-Counsel-Key: k3y" })
		admin := s.Admin(t)
		id, doc := signingContract(t, s, admin, "Both", 1)
		sub := signingSubmissionOf(t, signingSubmit(t, s, admin, id, []int64{doc}, "random", "ivy@client.example", "jo@client.example"))
		is := is.New(t)
		is.NoErr(ds.Complete(sub.ID, "ivy@client.example"))
		header, body, err := ds.Webhook("form.completed", sub.ID, "ivy@client.example")
		is.NoErr(err)
		is.Equal(postWebhook(t, s, http.Header{"X-Docuseal-Signature": {header}}, body).Status, 200)                                                   // the signature alone
		is.Equal(postWebhook(t, s, http.Header{"X-Counsel-Key": {"k3y"}}, body).Status, 200)                                                           // the header alone
		is.Equal(postWebhook(t, s, http.Header{"X-Docuseal-Signature": {header[:len(header)-2] + "00"}, "X-Counsel-Key": {"k3y"}}, body).Status, 200)  // a bad signature with the header
		is.Equal(postWebhook(t, s, http.Header{"X-Docuseal-Signature": {header[:len(header)-2] + "00"}, "X-Counsel-Key": {"nope"}}, body).Status, 401) // neither
		h, tbody, err := ds.TestDelivery()
		is.NoErr(err)
		is.Equal(postWebhook(t, s, h, tbody).Status, 200) // the test button works with the header
	})

	t.Run("configuration", func(t *testing.T) {
		for _, tc := range []struct {
			name, secret, header, want string
		}{
			{"neither", "", "", "COUNSEL_DOCUSEAL_WEBHOOK_HEADER"},
			{"a header without a value", "", "X-Key:", "COUNSEL_DOCUSEAL_WEBHOOK_HEADER"},
			{"a header without a colon", "", "X-Key v", "COUNSEL_DOCUSEAL_WEBHOOK_HEADER"},
			{"a header named as the signature", "whsec_x", "X-Docuseal-Signature: v", "COUNSEL_DOCUSEAL_WEBHOOK_HEADER"},
			{"the header alone", "", "X-Key: v", ""},
			{"both", "whsec_x", "X-Key: v", ""},
		} {
			t.Run(tc.name, func(t *testing.T) {
				is := is.New(t)
				env := map[string]string{"COUNSEL_SIGNING_PROVIDER": "docuseal", "COUNSEL_DOCUSEAL_URL": "https://docuseal.example/api", "COUNSEL_DOCUSEAL_API_KEY": "k",
					"COUNSEL_DOCUSEAL_WEBHOOK_SECRET": tc.secret, "COUNSEL_DOCUSEAL_WEBHOOK_HEADER": tc.header}
				_, err := app.LoadConfig(flag.NewFlagSet("test", flag.ContinueOnError), nil, func(k string) string { return env[k] })
				if tc.want == "" {
					is.NoErr(err) // valid
					return
				}
				is.True(err != nil)                             // refused
				is.True(strings.Contains(err.Error(), tc.want)) // names the setting
			})
		}
	})
}
