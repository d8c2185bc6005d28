package docuseal

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/matryer/is"

	"counsel/adapters/docuseal/docusealtest"
	"counsel/domain"
	"counsel/domain/signing"
	"counsel/ports/porttest"
)

func pdfTemplate(roles ...string) signing.NewTemplate {
	return signing.NewTemplate{
		Name:       "Service agreement",
		ExternalID: "c248ffba-ef81-48b7-8e17-e3cecda1c1c5",
		Roles:      roles,
		Documents:  []signing.Document{porttest.PDFDocument("agreement.pdf", 1)},
	}
}

func TestProEditionIsExplained(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		doc  signing.Document
		path string
	}{
		{"pdf", porttest.PDFDocument("agreement.pdf", 1), "/api/templates/pdf"},
		{"docx", porttest.DOCXDocument("letter.docx", "Hello"), "/api/templates/docx"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			srv := docusealtest.NewServer(t, docusealtest.WithCommunityEdition())
			c := newTestClient(t, srv)
			_, err := c.CreateTemplate(context.Background(), signing.NewTemplate{Name: "x", Roles: []string{"Client"}, Documents: []signing.Document{tt.doc}})
			is.Equal(domain.ErrorCode(err), domain.EUPSTREAM) // a provider failure
			is.True(errors.Is(err, ErrProEditionRequired))    // cause named
			msg := domain.ErrorMessage(err)
			is.True(strings.Contains(msg, "Pro Edition"))                           // says why
			is.True(strings.Contains(msg, "create the template in DocuSeal"))       // says what to do
			is.True(strings.Contains(msg, "/api/contracts/{id}/submission/create")) // names the endpoint
			is.True(strings.Contains(msg, "templateId"))                            // with the template id
			is.Equal(srv.Hits(http.MethodPost, tt.path), 1)                         // no retry of a POST
		})
	}
}

func TestRecordedProEditionBody(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	c := replay(t, map[string]func(http.ResponseWriter, *http.Request){
		"POST /api/templates/pdf": func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(http.StatusNotFound)
			w.Write(testdata(t, "pro_edition_404.json"))
		},
	})
	_, err := c.CreateTemplate(context.Background(), pdfTemplate("Client"))
	is.True(errors.Is(err, ErrProEditionRequired)) // recognised from DocuSeal's real body
}

func TestOutageIsUpstream(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		outage  docusealtest.Outage
		message string
	}{
		{"500", docusealtest.OutageError, "DocuSeal failed (500)"},
		{"connection closed", docusealtest.OutageClosed, "DocuSeal could not be reached"},
		{"no answer", docusealtest.OutageHang, "DocuSeal did not answer in time"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := docusealtest.NewServer(t)
			// Short only where the server hangs: a 500 or a closed
			// connection must not be taken for a hang on a loaded machine.
			timeout := 5 * time.Second
			if tt.outage == docusealtest.OutageHang {
				timeout = 100 * time.Millisecond
			}
			c := newTestClient(t, srv, func(cfg *Config) { cfg.Timeout = timeout })
			tpl, err := c.CreateTemplate(context.Background(), pdfTemplate("Client", "Firm"))
			if err != nil {
				t.Fatal(err)
			}
			srv.SetOutage(tt.outage)
			calls := []struct {
				name  string
				call  func() error
				tries int // GETs are retried, POSTs are not
			}{
				{"CreateTemplate", func() error { _, err := c.CreateTemplate(context.Background(), pdfTemplate("Client")); return err }, 1},
				{"GetTemplate", func() error { _, err := c.GetTemplate(context.Background(), tpl.ID); return err }, 3},
				{"CreateSubmission", func() error {
					_, err := c.CreateSubmission(context.Background(), signing.NewSubmission{TemplateID: tpl.ID, Submitters: []signing.NewSubmitter{{Email: "a@example.com"}}})
					return err
				}, 1},
				{"ListSubmissions", func() error { _, err := c.ListSubmissions(context.Background(), tpl.ID); return err }, 3},
				{"GetSubmission", func() error { _, err := c.GetSubmission(context.Background(), "5001"); return err }, 3},
			}
			for _, call := range calls {
				t.Run(call.name, func(t *testing.T) {
					is := is.New(t)
					before := srv.Hits("", "")
					err := call.call()
					is.Equal(domain.ErrorCode(err), domain.EUPSTREAM) // provider failure
					is.Equal(domain.ErrorMessage(err), tt.message)    // safe message
					is.Equal(srv.Hits("", "")-before, call.tries)     // bounded tries
				})
			}
		})
	}
}

func TestRetriesRecover(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	srv := docusealtest.NewServer(t)
	c := newTestClient(t, srv)
	tpl, err := c.CreateTemplate(context.Background(), pdfTemplate("Client"))
	is.NoErr(err) // create template

	srv.FailNext(2)
	got, err := c.GetTemplate(context.Background(), tpl.ID)
	is.NoErr(err)                                                   // third try succeeds
	is.Equal(got.ID, tpl.ID)                                        // the template
	is.Equal(srv.Hits(http.MethodGet, "/api/templates/"+tpl.ID), 3) // two failures, one success

	srv.FailNext(3)
	_, err = c.GetTemplate(context.Background(), tpl.ID)
	is.Equal(domain.ErrorCode(err), domain.EUPSTREAM)               // gives up
	is.Equal(srv.Hits(http.MethodGet, "/api/templates/"+tpl.ID), 6) // after three tries
}

func TestRetryWaitsForTheCaller(t *testing.T) {
	is := is.New(t)
	srv := docusealtest.NewServer(t)
	c := newTestClient(t, srv)
	c.backoff = []time.Duration{time.Hour}
	srv.SetOutage(docusealtest.OutageError)
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := c.GetTemplate(ctx, "1")
	is.Equal(domain.ErrorCode(err), domain.EUPSTREAM) // upstream failure
	is.True(errors.Is(err, context.DeadlineExceeded)) // the caller's deadline
	is.True(time.Since(start) < 5*time.Second)        // did not sleep the backoff out
}

func TestRefusalsAreUpstreamWithSafeMessages(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("x", 5000)
	tests := []struct {
		name    string
		status  int
		body    string
		message string
	}{
		{"DocuSeal's reason is quoted", 422, `{"error":"Defined more signing parties than in template"}`, "DocuSeal refused the request (422): Defined more signing parties than in template"},
		{"long reasons are cut", 422, `{"error":"` + long + `"}`, "DocuSeal refused the request (422): " + strings.Repeat("x", 200) + "..."},
		{"non-JSON bodies are not quoted", 400, "<html>" + long + "</html>", "DocuSeal refused the request (400)"},
		{"bad API key", 401, `{"error":"Not authenticated"}`, "DocuSeal refused the configured API key (401)"},
		{"rate limited", 429, `{"error":"Too many requests"}`, "DocuSeal is rate limiting requests (429)"},
		{"409 on a create", 409, `{"status":409}`, "DocuSeal refused the request (409)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			var logs bytes.Buffer
			c := replay(t, map[string]func(http.ResponseWriter, *http.Request){
				"POST /api/submissions": func(w http.ResponseWriter, r *http.Request) {
					w.WriteHeader(tt.status)
					w.Write([]byte(tt.body))
				},
			})
			c.log = slog.New(slog.NewTextHandler(&logs, nil))
			_, err := c.CreateSubmission(context.Background(), signing.NewSubmission{TemplateID: "1", Submitters: []signing.NewSubmitter{{Email: "a@example.com"}}})
			is.Equal(domain.ErrorCode(err), domain.EUPSTREAM)    // upstream failure
			is.Equal(domain.ErrorMessage(err), tt.message)       // safe message
			is.True(!strings.Contains(err.Error(), replayKey))   // no API key in the error
			is.True(!strings.Contains(logs.String(), replayKey)) // nor in the log
			is.True(logs.Len() < 2000)                           // the log keeps an excerpt
		})
	}
}

func TestUnknownIDsAreNotFound(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	srv := docusealtest.NewServer(t)
	c := newTestClient(t, srv)
	_, err := c.GetTemplate(context.Background(), "424242")
	is.Equal(domain.ErrorCode(err), domain.ENOTFOUND)              // unknown template
	is.Equal(srv.Hits(http.MethodGet, "/api/templates/424242"), 1) // a 404 is not retried
	_, err = c.GetSubmission(context.Background(), "424242")
	is.Equal(domain.ErrorCode(err), domain.ENOTFOUND) // unknown submission
	_, err = c.GetTemplate(context.Background(), "../submissions")
	is.Equal(domain.ErrorCode(err), domain.ENOTFOUND) // not an id: never sent
	is.Equal(srv.Hits("", ""), 2)                     // only the two real lookups
	_, err = c.CreateSubmission(context.Background(), signing.NewSubmission{TemplateID: "abc", Submitters: []signing.NewSubmitter{{Email: "a@example.com"}}})
	is.Equal(domain.ErrorCode(err), domain.ENOTFOUND) // no such template
}

func TestWrongAPIKeyIsUpstream(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	srv := docusealtest.NewServer(t)
	c := newTestClient(t, srv, func(cfg *Config) { cfg.APIKey = "wrong-key" })
	_, err := c.GetTemplate(context.Background(), "1")
	is.Equal(domain.ErrorCode(err), domain.EUPSTREAM)                                   // not the caller's credentials
	is.Equal(domain.ErrorMessage(err), "DocuSeal refused the configured API key (401)") // says so
	is.True(!strings.Contains(err.Error(), "wrong-key"))                                // never the key
}

func TestOversizedAnswersAreRefused(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	c := replay(t, map[string]func(http.ResponseWriter, *http.Request){
		"GET /api/templates/1": func(w http.ResponseWriter, r *http.Request) {
			w.Write([]byte(`{"id":1,"name":"`))
			w.Write(bytes.Repeat([]byte("a"), maxResponseBytes))
			w.Write([]byte(`"}`))
		},
	})
	_, err := c.GetTemplate(context.Background(), "1")
	is.Equal(domain.ErrorCode(err), domain.EUPSTREAM) // refused, not read whole
}

func TestUnreadableAnswerIsUpstream(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	c := replay(t, map[string]func(http.ResponseWriter, *http.Request){
		"GET /api/templates/1": body([]byte(`<html>maintenance</html>`)),
	})
	_, err := c.GetTemplate(context.Background(), "1")
	is.Equal(domain.ErrorCode(err), domain.EUPSTREAM)                                    // upstream failure
	is.Equal(domain.ErrorMessage(err), "DocuSeal sent an answer that could not be read") // safe message
}

func TestNewValidatesConfig(t *testing.T) {
	t.Parallel()
	good := Config{BaseURL: "https://api.docuseal.com", APIKey: "k", WebhookSecret: "whsec_s"}
	tests := []struct {
		name   string
		change func(*Config)
		want   string // "" for valid
	}{
		{"valid", func(*Config) {}, ""},
		{"self-hosted with /api and a trailing slash", func(c *Config) { c.BaseURL = "http://localhost:3000/api/" }, ""},
		{"no base URL", func(c *Config) { c.BaseURL = "" }, "BaseURL is required"},
		{"relative base URL", func(c *Config) { c.BaseURL = "docuseal.example.com/api" }, "BaseURL must be an http or https URL"},
		{"credentials in the URL", func(c *Config) { c.BaseURL = "https://u:p@docuseal.example.com" }, "BaseURL must not carry credentials"},
		{"no API key", func(c *Config) { c.APIKey = " " }, "APIKey is required"},
		{"no webhook secret nor header", func(c *Config) { c.WebhookSecret = "" }, "WebhookSecret or WebhookHeader is required"},
		{"a header without a value", func(c *Config) { c.WebhookHeader = "X-Key:" }, `WebhookHeader must be "Name: value"`},
		{"a header with a bad name", func(c *Config) { c.WebhookHeader = "X Key: v" }, `WebhookHeader must be "Name: value"`},
		{"a header named as the signature", func(c *Config) { c.WebhookHeader = "X-Docuseal-Signature: v" }, "must not be named X-Docuseal-Signature"},
		{"negative timeout", func(c *Config) { c.Timeout = -time.Second }, "Timeout must not be negative"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			cfg := good
			tt.change(&cfg)
			c, err := New(cfg)
			if tt.want == "" {
				is.NoErr(err)                                 // valid
				is.Equal(c.timeout, DefaultTimeout)           // default timeout
				is.True(!strings.HasSuffix(c.base.Path, "/")) // trailing slash dropped
				return
			}
			is.True(err != nil)                                // refused
			is.True(strings.Contains(err.Error(), tt.want))    // says why
			is.True(!strings.Contains(err.Error(), "whsec_s")) // no secrets
		})
	}
}

func TestRedirectsKeepTheAPIKeyHome(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	var leaked string
	elsewhere := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		leaked = r.Header.Get("X-Auth-Token")
		w.Write([]byte(`{"id":1}`))
	}))
	defer elsewhere.Close()
	home := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/api/templates/1" {
			http.Redirect(w, r, elsewhere.URL+"/api/templates/1", http.StatusFound)
			return
		}
		http.Redirect(w, r, "/api/templates/1", http.StatusFound)
	}))
	defer home.Close()
	c, err := New(Config{BaseURL: home.URL + "/api", APIKey: "secret-key", WebhookSecret: "s"})
	is.NoErr(err) // client
	c.backoff = nil

	_, err = c.GetTemplate(context.Background(), "2")
	is.Equal(domain.ErrorCode(err), domain.EUPSTREAM)                        // same-host redirect followed, then the other-host one refused
	is.Equal(domain.ErrorMessage(err), "DocuSeal refused the request (302)") // as a refusal
	is.Equal(leaked, "")                                                     // the key never left
}
