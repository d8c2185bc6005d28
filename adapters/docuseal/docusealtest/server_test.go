package docusealtest

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/matryer/is"

	"counsel/ports/porttest"
)

// These tests hold the fake to DocuSeal's shapes: every key (and kind of
// value) of the recorded bodies in testdata/docuseal must be in the fake's
// answers too.

func recorded(t *testing.T, name string) any {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "..", "testdata", "docuseal", name))
	if err != nil {
		t.Fatal(err)
	}
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return v
}

// sameShape reports the keys of want missing from got, and values of a
// different JSON kind (null matching anything), recursively; arrays compare
// their first elements.
func sameShape(path string, want, got any) []string {
	var problems []string
	switch w := want.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			return []string{fmt.Sprintf("%s: want an object, got %T", path, got)}
		}
		keys := make([]string, 0, len(w))
		for k := range w {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			gv, ok := g[k]
			if !ok {
				problems = append(problems, path+"."+k+": missing")
				continue
			}
			problems = append(problems, sameShape(path+"."+k, w[k], gv)...)
		}
	case []any:
		g, ok := got.([]any)
		if !ok {
			return []string{fmt.Sprintf("%s: want an array, got %T", path, got)}
		}
		if len(w) > 0 && len(g) > 0 {
			problems = append(problems, sameShape(path+"[0]", w[0], g[0])...)
		}
	case nil:
	default:
		if got != nil && fmt.Sprintf("%T", want) != fmt.Sprintf("%T", got) {
			problems = append(problems, fmt.Sprintf("%s: want %T, got %T", path, want, got))
		}
	}
	return problems
}

type client struct {
	t   *testing.T
	srv *Server
}

func (c client) do(method, path, body string) (int, any) {
	c.t.Helper()
	req, err := http.NewRequest(method, c.srv.URL+path, strings.NewReader(body))
	if err != nil {
		c.t.Fatal(err)
	}
	req.Header.Set("X-Auth-Token", c.srv.APIKey)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		c.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	var v any
	if len(b) > 0 {
		if err := json.Unmarshal(b, &v); err != nil {
			c.t.Fatalf("%s %s: %v: %s", method, path, err, b)
		}
	}
	return resp.StatusCode, v
}

func templateBody(roles ...string) string {
	var fields []string
	for _, r := range roles {
		fields = append(fields,
			fmt.Sprintf(`{"name":"%s signature","type":"signature","role":"%s","areas":[{"x":0.1,"y":0.8,"w":0.3,"h":0.05,"page":1}]}`, r, r),
			fmt.Sprintf(`{"name":"%s date","type":"date","role":"%s","areas":[{"x":0.5,"y":0.8,"w":0.2,"h":0.04,"page":1}]}`, r, r))
	}
	return fmt.Sprintf(`{"name":"Service agreement","external_id":"c248ffba-ef81-48b7-8e17-e3cecda1c1c5","documents":[{"name":"agreement.pdf","file":"%s","fields":[%s]}]}`,
		base64.StdEncoding.EncodeToString(porttest.MinimalPDF(1)), strings.Join(fields, ","))
}

func id(v any) string { return fmt.Sprint(int64(v.(map[string]any)["id"].(float64))) }

func TestShapesMatchRecordedBodies(t *testing.T) {
	t.Parallel()
	srv := NewServer(t)
	c := client{t, srv}
	check := func(t *testing.T, name string, got any) {
		t.Helper()
		if problems := sameShape(name, recorded(t, name), got); len(problems) > 0 {
			t.Errorf("fake differs from %s:\n%s", name, strings.Join(problems, "\n"))
		}
	}

	status, tpl := c.do("POST", "/templates/pdf", templateBody("Client", "Firm"))
	if status != 200 {
		t.Fatalf("create template: %d %v", status, tpl)
	}
	check(t, "template_created_pdf.json", tpl)
	_, got := c.do("GET", "/templates/"+id(tpl), "")
	check(t, "template.json", got)

	submit := func(order string) string {
		status, subs := c.do("POST", "/submissions", fmt.Sprintf(`{"template_id":%s,"order":"%s","submitters":[{"email":"client@example.com","role":"Client","name":"Casey Client","phone":"+61400000001"},{"email":"partner@example.com","role":"Firm"}]}`, id(tpl), order))
		if status != 200 {
			t.Fatalf("create submission: %d %v", status, subs)
		}
		check(t, "submissions_create.json", subs)
		return fmt.Sprint(int64(subs.([]any)[0].(map[string]any)["submission_id"].(float64)))
	}

	declined := submit("preserved")
	if err := srv.Complete(declined, "client@example.com"); err != nil {
		t.Fatal(err)
	}
	header, body, err := srv.Webhook("form.completed", declined, "client@example.com")
	if err != nil {
		t.Fatal(err)
	}
	var hook any
	json.Unmarshal(body, &hook)
	check(t, "webhook_form_completed_first.json", hook)
	if !strings.HasPrefix(header, fmt.Sprint(time.Now().Unix())[:8]) {
		t.Errorf("header %q is not <unix ts>.<mac>", header)
	}
	if err := srv.Open(declined, "partner@example.com"); err != nil {
		t.Fatal(err)
	}
	_, body, _ = srv.Webhook("form.viewed", declined, "partner@example.com")
	json.Unmarshal(body, &hook)
	check(t, "webhook_form_viewed.json", hook)
	if err := srv.Decline(declined, "partner@example.com", "The fee schedule is wrong"); err != nil {
		t.Fatal(err)
	}
	_, body, _ = srv.Webhook("form.declined", declined, "partner@example.com")
	json.Unmarshal(body, &hook)
	check(t, "webhook_form_declined.json", hook)
	_, got = c.do("GET", "/submissions/"+declined, "")
	check(t, "submission_declined.json", got)

	completed := submit("random")
	for _, email := range []string{"client@example.com", "partner@example.com"} {
		if err := srv.Complete(completed, email); err != nil {
			t.Fatal(err)
		}
	}
	_, body, _ = srv.Webhook("form.completed", completed, "partner@example.com")
	json.Unmarshal(body, &hook)
	check(t, "webhook_form_completed.json", hook)
	_, got = c.do("GET", "/submissions/"+completed+"?include=combined_document_url", "")
	check(t, "submission_completed.json", got)
	_, body, _ = srv.Webhook("submission.completed", completed, "")
	json.Unmarshal(body, &hook)
	check(t, "webhook_submission_completed.json", hook)

	_, got = c.do("GET", "/submissions?template_id="+id(tpl), "")
	check(t, "submissions_list.json", got)

	expired := submit("random")
	if err := srv.Expire(expired); err != nil {
		t.Fatal(err)
	}
	_, body, _ = srv.Webhook("submission.expired", expired, "")
	json.Unmarshal(body, &hook)
	check(t, "webhook_submission_expired.json", hook)
}

func TestDocuSealBehaviour(t *testing.T) {
	t.Parallel()
	t.Run("API key", func(t *testing.T) {
		is := is.New(t)
		srv := NewServer(t, WithAPIKey("right"))
		resp, err := http.Get(srv.URL + "/templates/1")
		is.NoErr(err)                                      // request
		is.Equal(resp.StatusCode, http.StatusUnauthorized) // no token
		resp.Body.Close()
	})
	t.Run("Community Edition", func(t *testing.T) {
		is := is.New(t)
		srv := NewServer(t, WithCommunityEdition())
		c := client{t, srv}
		status, got := c.do("POST", "/templates/pdf", templateBody("Client"))
		is.Equal(status, http.StatusNotFound)              // no such route
		is.Equal(got, recorded(t, "pro_edition_404.json")) // DocuSeal's body
		status, _ = c.do("POST", "/templates/docx", templateBody("Client"))
		is.Equal(status, http.StatusNotFound) // DOCX too
		srv.SetCommunityEdition(false)
		status, _ = c.do("POST", "/templates/pdf", templateBody("Client"))
		is.Equal(status, http.StatusOK) // Pro again
	})
	t.Run("submission refusals", func(t *testing.T) {
		srv := NewServer(t)
		c := client{t, srv}
		_, tpl := c.do("POST", "/templates/pdf", templateBody("Client"))
		_, bare := c.do("POST", "/templates/pdf", fmt.Sprintf(`{"name":"bare","documents":[{"name":"a.pdf","file":"%s"}]}`, base64.StdEncoding.EncodeToString(porttest.MinimalPDF(1))))
		foreign := srv.AddForeignTemplate()
		tid := id(tpl)
		tests := []struct {
			name, body string
			status     int
			want       map[string]any
		}{
			{"more signers than roles", `{"template_id":` + tid + `,"submitters":[{"email":"a@example.com"},{"email":"b@example.com"}]}`, 422, map[string]any{"error": "Defined more signing parties than in template"}},
			{"a template without fields", `{"template_id":` + id(bare) + `,"submitters":[{"email":"a@example.com"}]}`, 422, map[string]any{"error": "Template does not contain fields"}},
			// load_and_authorize_resource :template: RecordNotFound, then
			// CanCan::AccessDenied for another account's template.
			{"an unknown template", `{"template_id":999,"submitters":[{"email":"a@example.com"}]}`, 404, map[string]any{"status": float64(404)}},
			{"another account's template", `{"template_id":` + foreign + `,"submitters":[{"email":"a@example.com"}]}`, 403, map[string]any{"error": "Not authorized"}},
			// Params::SubmissionCreateValidator.
			{"a message without a body", `{"template_id":` + tid + `,"message":{"subject":"Sign"},"submitters":[{"email":"a@example.com"}]}`, 422, map[string]any{"error": "body is required in `message`."}},
			{"a phone with spaces", `{"template_id":` + tid + `,"submitters":[{"email":"a@example.com","phone":"+61 400 000 000"}]}`, 422, map[string]any{"error": "phone should start with +<country code> and contain only digits in `submitters[0]`."}},
			{"a phone without +", `{"template_id":` + tid + `,"submitters":[{"phone":"0400000000"}]}`, 422, map[string]any{"error": "phone should start with +<country code> and contain only digits in `submitters[0]`."}},
			{"an invalid email", `{"template_id":` + tid + `,"submitters":[{"email":"a@example"}]}`, 422, map[string]any{"error": "email is invalid in `submitters[0]`."}},
			{"a submitter with nothing", `{"template_id":` + tid + `,"submitters":[{"role":"Client"}]}`, 422, map[string]any{"error": "email or phone or name is required in `submitters[0]`."}},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				is := is.New(t)
				status, got := c.do("POST", "/submissions", tt.body)
				is.Equal(status, tt.status) // refused
				is.Equal(got, tt.want)      // DocuSeal's answer
			})
		}
		t.Run("accepted: an empty message, a body alone, an E.164 phone", func(t *testing.T) {
			is := is.New(t)
			for _, body := range []string{
				`{"template_id":` + tid + `,"message":{},"submitters":[{"email":"a@example.com"}]}`,
				`{"template_id":` + tid + `,"message":{"body":"Please sign"},"submitters":[{"email":"a@example.com","phone":"+61400000000"}]}`,
			} {
				status, _ := c.do("POST", "/submissions", body)
				is.Equal(status, http.StatusOK) // accepted
			}
		})
		t.Run("reading another account's template", func(t *testing.T) {
			is := is.New(t)
			status, got := c.do("GET", "/templates/"+foreign, "")
			is.Equal(status, http.StatusForbidden)                   // 403
			is.Equal(got, map[string]any{"error": "Not authorized"}) // CanCan
		})
	})
	t.Run("areas must be page-relative and on a page", func(t *testing.T) {
		srv := NewServer(t)
		c := client{t, srv}
		file := base64.StdEncoding.EncodeToString(porttest.MinimalPDF(2))
		for _, a := range []string{`{"x":10,"y":700,"w":200,"h":40,"page":1}`, `{"x":0.1,"y":0.1,"w":0.2,"h":0.1,"page":3}`, `{"x":0.1,"y":0.1,"w":0.2,"h":0.1,"page":0}`} {
			t.Run(a, func(t *testing.T) {
				is := is.New(t)
				status, _ := c.do("POST", "/templates/pdf", `{"documents":[{"name":"a.pdf","file":"`+file+`","fields":[{"type":"signature","role":"A","areas":[`+a+`]}]}]}`)
				is.Equal(status, http.StatusUnprocessableEntity) // refused
			})
		}
	})
	t.Run("external_id updates the template", func(t *testing.T) {
		is := is.New(t)
		srv := NewServer(t)
		c := client{t, srv}
		_, first := c.do("POST", "/templates/pdf", templateBody("Client"))
		_, second := c.do("POST", "/templates/pdf", templateBody("Client", "Firm"))
		is.Equal(id(first), id(second)) // same template
		tpl, _ := srv.Template(id(second))
		is.Equal(tpl.Roles, []string{"Client", "Firm"}) // with the new fields
	})
	t.Run("pagination", func(t *testing.T) {
		is := is.New(t)
		srv := NewServer(t)
		c := client{t, srv}
		_, tpl := c.do("POST", "/templates/pdf", templateBody("Client"))
		for i := 0; i < 5; i++ {
			c.do("POST", "/submissions", `{"template_id":`+id(tpl)+`,"submitters":[{"email":"a@example.com"}]}`)
		}
		_, page := c.do("GET", "/submissions?template_id="+id(tpl)+"&limit=2", "")
		p := page.(map[string]any)
		is.Equal(len(p["data"].([]any)), 2) // limit
		next := fmt.Sprint(int64(p["pagination"].(map[string]any)["next"].(float64)))
		_, page = c.do("GET", "/submissions?template_id="+id(tpl)+"&limit=2&after="+next, "")
		data := page.(map[string]any)["data"].([]any)
		is.Equal(len(data), 2)      // next page
		is.True(id(data[0]) < next) // below the cursor
	})
	t.Run("signing page and files", func(t *testing.T) {
		is := is.New(t)
		srv := NewServer(t)
		c := client{t, srv}
		_, tpl := c.do("POST", "/templates/pdf", templateBody("Client"))
		_, subs := c.do("POST", "/submissions", `{"template_id":`+id(tpl)+`,"submitters":[{"email":"a@example.com"}]}`)
		resp, err := http.Get(subs.([]any)[0].(map[string]any)["embed_src"].(string))
		is.NoErr(err)                            // signing link
		is.Equal(resp.StatusCode, http.StatusOK) // serves a page
		resp.Body.Close()
		url := tpl.(map[string]any)["documents"].([]any)[0].(map[string]any)["url"].(string)
		resp, err = http.Get(url)
		is.NoErr(err) // document link
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		is.True(bytes.HasPrefix(b, []byte("%PDF-"))) // the document
	})
}

func TestSign(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	// HMAC-SHA256("whsec_test", "1700000000.{}") computed independently (Python
	// hmac), as DocuSeal's
	// WebhookUrls::Signatures.sign computes it.
	is.Equal(Sign("whsec_test", time.Unix(1700000000, 0), []byte("{}")), "1700000000.35495024f4ef3f94e5a93e22221544c4b75e9a42300cd965ab81cb85cd994e91") // known signature
}

// TestRealDocuSealWebhooks checks the stand-in's webhooks and links
// against DocuSeal's source (see the package comment).
func TestRealDocuSealWebhooks(t *testing.T) {
	t.Parallel()
	clockAt := time.Date(2026, 11, 21, 9, 30, 0, 123e6, time.UTC)
	now := clockAt
	newServer := func(t *testing.T, opts ...Option) (*Server, client, string) {
		srv := NewServer(t, append([]Option{WithClock(func() time.Time { return now })}, opts...)...)
		c := client{t, srv}
		_, tpl := c.do("POST", "/templates/pdf", templateBody("Client"))
		status, subs := c.do("POST", "/submissions", `{"template_id":`+id(tpl)+`,"submitters":[{"email":"client@example.com","role":"Client"}]}`)
		if status != 200 {
			t.Fatalf("create submission: %d %v", status, subs)
		}
		return srv, c, fmt.Sprint(int64(subs.([]any)[0].(map[string]any)["submission_id"].(float64)))
	}

	t.Run("a generated whsec_ secret of 24 random bytes", func(t *testing.T) {
		is := is.New(t)
		a, b := NewServer(t), NewServer(t)
		is.True(strings.HasPrefix(a.WebhookSecret, "whsec_")) // DocuSeal's prefix
		raw, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(a.WebhookSecret, "whsec_"))
		is.NoErr(err)                               // base64
		is.Equal(len(raw), 24)                      // 24 bytes
		is.True(a.WebhookSecret != b.WebhookSecret) // one per webhook URL
	})

	t.Run("each attempt is signed afresh; the body keeps the event time in milliseconds", func(t *testing.T) {
		is := is.New(t)
		now = clockAt
		srv, _, sub := newServer(t)
		is.NoErr(srv.Complete(sub, "client@example.com"))
		header, body, err := srv.Webhook("form.completed", sub, "client@example.com")
		is.NoErr(err)
		var env struct{ Timestamp string }
		is.NoErr(json.Unmarshal(body, &env))
		is.Equal(env.Timestamp, "2026-11-21T09:30:00.123Z")                      // created_at.to_json
		is.Equal(header, Sign(srv.WebhookSecret, clockAt, body))                 // signed now
		now = clockAt.Add(2 * time.Minute)                                       // a retry later
		is.Equal(srv.Resign(body), Sign(srv.WebhookSecret, now, body))           // a fresh timestamp
		is.True(strings.HasPrefix(srv.Resign(body), fmt.Sprint(now.Unix())+".")) // of the attempt
		now = clockAt
	})

	t.Run("the test delivery is never signed but carries the custom header", func(t *testing.T) {
		is := is.New(t)
		srv, _, sub := newServer(t, WithWebhookHeader("X-Counsel-Key", "s3cret"))
		_, _, err := srv.TestDelivery()
		is.True(err != nil) // nothing to send before a completion
		is.NoErr(srv.Complete(sub, "client@example.com"))
		h, body, err := srv.TestDelivery()
		is.NoErr(err)
		is.Equal(h.Get(SignatureHeader), "")       // unsigned
		is.Equal(h.Get("X-Counsel-Key"), "s3cret") // the custom header
		var env struct {
			EventType string `json:"event_type"`
			Timestamp string
		}
		is.NoErr(json.Unmarshal(body, &env))
		is.Equal(env.EventType, "form.completed")       // a form.completed
		is.Equal(env.Timestamp, "2026-11-21T09:30:00Z") // Time.current.iso8601
		h, _, err = srv.Delivery("form.completed", sub, "client@example.com")
		is.NoErr(err)
		is.True(h.Get(SignatureHeader) != "")      // real deliveries are signed
		is.Equal(h.Get("X-Counsel-Key"), "s3cret") // and carry the header too
	})

	t.Run("before 2.5.3 nothing is signed", func(t *testing.T) {
		is := is.New(t)
		srv, _, sub := newServer(t, WithUnsignedWebhooks(), WithWebhookHeader("X-Counsel-Key", "s3cret"))
		is.NoErr(srv.Complete(sub, "client@example.com"))
		h, _, err := srv.Delivery("form.completed", sub, "client@example.com")
		is.NoErr(err)
		is.Equal(h.Get(SignatureHeader), "")       // unsigned
		is.Equal(h.Get("X-Counsel-Key"), "s3cret") // the custom header only
	})

	t.Run("shared_link is recorded and honoured", func(t *testing.T) {
		is := is.New(t)
		srv, c, _ := newServer(t)
		other := strings.Replace(templateBody("Client"), "c248ffba", "d248ffba", 1)
		_, open := c.do("POST", "/templates/pdf", other) // default: true
		shut := strings.Replace(templateBody("Client"), `{"name":"Service agreement","external_id":"c248ffba-ef81-48b7-8e17-e3cecda1c1c5",`, `{"name":"Private","shared_link":false,`, 1)
		_, closed := c.do("POST", "/templates/pdf", shut)
		tpl, _ := srv.Template(id(open))
		is.True(tpl.SharedLink) // DocuSeal's default
		_, err := srv.StartForm(id(open), "anyone@example.org")
		is.NoErr(err) // anyone with the link starts a submission
		tpl, _ = srv.Template(id(closed))
		is.True(!tpl.SharedLink) // recorded
		_, err = srv.StartForm(id(closed), "anyone@example.org")
		is.True(err != nil) // refused
	})

	t.Run("no decline_reason in API answers; it is in submission_events and webhooks", func(t *testing.T) {
		is := is.New(t)
		srv, c, sub := newServer(t)
		is.NoErr(srv.Decline(sub, "client@example.com", "Wrong fee"))
		_, got := c.do("GET", "/submissions/"+sub, "")
		m := got.(map[string]any)
		st := m["submitters"].([]any)[0].(map[string]any)
		_, has := st["decline_reason"]
		is.True(!has) // not on the submitter
		_, has = st["embed_src"]
		is.True(!has) // no link either
		var reason any
		for _, e := range m["submission_events"].([]any) {
			if e.(map[string]any)["event_type"] == "decline_form" {
				reason = e.(map[string]any)["data"].(map[string]any)["reason"]
			}
		}
		is.Equal(reason, "Wrong fee") // in the events
		_, body, err := srv.Webhook("form.declined", sub, "client@example.com")
		is.NoErr(err)
		is.True(strings.Contains(string(body), `"decline_reason":"Wrong fee"`)) // in the webhook
	})

	t.Run("combined_document_url is null until asked for", func(t *testing.T) {
		is := is.New(t)
		srv, c, sub := newServer(t)
		is.NoErr(srv.Complete(sub, "client@example.com"))
		_, list := c.do("GET", "/submissions", "")
		is.Equal(list.(map[string]any)["data"].([]any)[0].(map[string]any)["combined_document_url"], nil) // not generated
		_, got := c.do("GET", "/submissions/"+sub, "")
		is.Equal(got.(map[string]any)["combined_document_url"], nil) // nor without include
		_, got = c.do("GET", "/submissions/"+sub+"?include=combined_document_url", "")
		url := got.(map[string]any)["combined_document_url"]
		is.True(url != nil) // generated
		_, list = c.do("GET", "/submissions", "")
		is.Equal(list.(map[string]any)["data"].([]any)[0].(map[string]any)["combined_document_url"], url) // and kept
	})
}
