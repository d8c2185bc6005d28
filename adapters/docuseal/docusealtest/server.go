// Package docusealtest runs a fake DocuSeal server for tests: an
// httptest.Server that keeps templates and submissions in memory and answers
// the API endpoints Counsel uses with DocuSeal's real response shapes (as
// docs/openapi.json and the serializers of docusealco/docuseal give them, and
// as the bodies in testdata/docuseal/ record them).
//
// It checks X-Auth-Token, can behave as a Community Edition server (the
// template-from-document endpoints answer 404 "Pro Edition") or be down, and
// lets a test act as the signers (Open, Complete, Decline, Expire) and build
// the correctly signed webhook DocuSeal would send about it (Webhook), so
// application tests can drive a whole signing lifecycle.
//
// The fake is stricter than DocuSeal where that catches client bugs: field
// areas must be page-relative and lie on an existing page, and two submitters
// may not take one role.
//
// Where DocuSeal's behaviour surprises a client, the fake follows DocuSeal's
// source (docusealco/docuseal 3.x), cited at each place:
//   - each webhook URL has a generated HMAC secret "whsec_" + base64 of 24
//     random bytes (lib/webhook_urls/signatures.rb, app/models/webhook_url.rb);
//     a delivery is signed afresh at each attempt while the body's timestamp
//     stays the event's creation time, with milliseconds
//     (lib/send_webhook_request.rb); before 2.5.3 nothing was signed, and any
//     custom header set under the URL's "Secret" goes with every delivery
//     (app/controllers/webhook_secret_controller.rb);
//   - the settings page's test delivery is never signed
//     (app/jobs/send_test_webhook_request_job.rb);
//   - templates record shared_link (default true in docs/openapi.json for
//     /templates/pdf and /templates/docx), which lets anyone start a
//     submission from the template's link (app/controllers/start_form_controller.rb);
//   - POST /submissions validates message.body and phones
//     (lib/params/submission_create_validator.rb) and answers 404 for an
//     unknown template and 403 for another account's
//     (app/controllers/api/submissions_controller.rb, api_base_controller.rb,
//     app/controllers/errors_controller.rb);
//   - submitters in API answers carry no decline_reason and, but in the
//     create answer, no embed_src (lib/submitters/serialize_for_api.rb); the
//     reason is in submission_events (lib/submissions/serialize_for_api.rb)
//     and in form.declined webhooks (lib/submitters/serialize_for_webhook.rb);
//   - combined_document_url is null until someone asks for it with
//     include=combined_document_url (lib/submissions/serialize_for_api.rb).
package docusealtest

import (
	"bytes"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// Defaults of a new Server.
const (
	DefaultAPIKey = "test-docuseal-api-key"
	// ProEditionMessage is the 404 message of a Community Edition server
	// for the template-from-document endpoints
	// (app/controllers/errors_controller.rb).
	ProEditionMessage = "This feature is available in Pro Edition: https://www.docuseal.com/pricing"
	// SignatureHeader carries a webhook's signature.
	SignatureHeader = "X-Docuseal-Signature"
)

// Outage is a way the server can fail.
type Outage int

// Outage modes.
const (
	OutageNone   Outage = iota // answer normally
	OutageError                // answer every request 500
	OutageClosed               // close every connection without an answer
	OutageHang                 // answer nothing until the client gives up
)

// Option configures a Server.
type Option func(*Server)

// WithAPIKey sets the API key the server accepts.
func WithAPIKey(key string) Option { return func(s *Server) { s.APIKey = key } }

// WithWebhookSecret sets the secret webhooks are signed with, instead of a
// generated one.
func WithWebhookSecret(secret string) Option { return func(s *Server) { s.WebhookSecret = secret } }

// WithUnsignedWebhooks makes the server a DocuSeal older than 2.5.3, which
// signs no delivery (lib/send_webhook_request.rb before 2.5.3).
func WithUnsignedWebhooks() Option { return func(s *Server) { s.unsigned = true } }

// WithWebhookHeader sets the custom header (the webhook URL's "Secret":
// a key and a value) DocuSeal sends with every delivery, test deliveries
// included (app/controllers/webhook_secret_controller.rb).
func WithWebhookHeader(name, value string) Option {
	return func(s *Server) { s.headerName, s.headerValue = name, value }
}

// GenerateWebhookSecret makes a secret as DocuSeal does
// (WebhookUrls::Signatures.generate_secret): "whsec_" and the standard
// base64 of 24 random bytes.
func GenerateWebhookSecret() string {
	var b [24]byte
	rand.Read(b[:])
	return "whsec_" + base64.StdEncoding.EncodeToString(b[:])
}

// WithClock sets the server's clock (for created_at, sent_at, ... and webhook
// timestamps).
func WithClock(now func() time.Time) Option { return func(s *Server) { s.now = now } }

// WithCommunityEdition starts the server as a Community Edition.
func WithCommunityEdition() Option { return func(s *Server) { s.community = true } }

// Request is one request the server received.
type Request struct {
	Method   string
	Path     string
	RawQuery string
	Header   http.Header
	Body     []byte
}

// Server is a fake DocuSeal. Its methods are safe for concurrent use.
type Server struct {
	// URL is the API root to configure clients with (".../api").
	URL string
	// APIKey is the X-Auth-Token the server accepts.
	APIKey string
	// WebhookSecret signs the webhooks Webhook builds: generated, as
	// DocuSeal shows it read-only in its webhook settings.
	WebhookSecret string

	srv  *httptest.Server
	mux  *http.ServeMux
	now  func() time.Time
	done chan struct{}

	unsigned    bool
	headerName  string
	headerValue string

	mu          sync.Mutex
	community   bool
	outage      Outage
	failNext    int
	requests    []Request
	templates   []*template
	submissions []*submission
	lastID      map[string]int64
}

// NewServer starts a fake DocuSeal and stops it when the test ends.
func NewServer(t testing.TB, opts ...Option) *Server {
	t.Helper()
	s := &Server{
		APIKey:        DefaultAPIKey,
		WebhookSecret: GenerateWebhookSecret(),
		now:           time.Now,
		done:          make(chan struct{}),
		lastID:        map[string]int64{"template": 1000, "document": 2000, "submission": 5000, "submitter": 9000, "event": 0},
	}
	for _, o := range opts {
		o(s)
	}
	s.routes()
	s.srv = httptest.NewServer(s)
	s.URL = s.srv.URL + "/api"
	t.Cleanup(func() {
		close(s.done) // release hanging handlers first, or Close waits on them
		s.srv.Close()
	})
	return s
}

// SetCommunityEdition switches the server to (or from) Community Edition.
func (s *Server) SetCommunityEdition(on bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.community = on
}

// SetOutage makes the server fail in mode m (OutageNone to recover).
func (s *Server) SetOutage(m Outage) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.outage = m
}

// FailNext makes the next n requests answer 500.
func (s *Server) FailNext(n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.failNext = n
}

// Requests returns the requests received for method and path (the path as
// requested, e.g. "/api/submissions"); an empty method or path matches all.
func (s *Server) Requests(method, path string) []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Request
	for _, r := range s.requests {
		if (method == "" || r.Method == method) && (path == "" || r.Path == path) {
			out = append(out, r)
		}
	}
	return out
}

// Hits counts the requests received for method and path.
func (s *Server) Hits(method, path string) int { return len(s.Requests(method, path)) }

// ServeHTTP records the request, applies the outage settings and the API key
// check, and routes it.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(io.LimitReader(r.Body, 256<<20))
	r.Body = io.NopCloser(bytes.NewReader(body))

	s.mu.Lock()
	s.requests = append(s.requests, Request{Method: r.Method, Path: r.URL.Path, RawQuery: r.URL.RawQuery, Header: r.Header.Clone(), Body: body})
	outage, community := s.outage, s.community
	fail := s.failNext > 0
	if fail {
		s.failNext--
	}
	s.mu.Unlock()

	switch outage {
	case OutageError:
		writeJSON(w, http.StatusInternalServerError, map[string]any{"status": 500})
		return
	case OutageClosed:
		if hj, ok := w.(http.Hijacker); ok {
			if conn, _, err := hj.Hijack(); err == nil {
				conn.Close()
				return
			}
		}
		panic(http.ErrAbortHandler)
	case OutageHang:
		select {
		case <-r.Context().Done():
		case <-s.done:
		}
		return
	}
	if fail {
		writeJSON(w, http.StatusInternalServerError, map[string]any{"status": 500})
		return
	}
	// Rails routes before it authenticates: a Community Edition has no
	// route for these paths at all, and its error page says why.
	if community && r.Method == http.MethodPost && (r.URL.Path == "/api/templates/pdf" || r.URL.Path == "/api/templates/docx") {
		writeJSON(w, http.StatusNotFound, map[string]any{"status": 404, "message": ProEditionMessage})
		return
	}
	if strings.HasPrefix(r.URL.Path, "/api/") && r.Header.Get("X-Auth-Token") != s.APIKey {
		writeJSON(w, http.StatusUnauthorized, map[string]any{"error": "Not authenticated"})
		return
	}
	s.mux.ServeHTTP(w, r)
}

func (s *Server) routes() {
	s.mux = http.NewServeMux()
	s.mux.HandleFunc("POST /api/templates/pdf", func(w http.ResponseWriter, r *http.Request) { s.createTemplate(w, r, "pdf") })
	s.mux.HandleFunc("POST /api/templates/docx", func(w http.ResponseWriter, r *http.Request) { s.createTemplate(w, r, "docx") })
	s.mux.HandleFunc("GET /api/templates/{id}", s.getTemplate)
	s.mux.HandleFunc("POST /api/submissions", s.createSubmission)
	s.mux.HandleFunc("GET /api/submissions", s.listSubmissions)
	s.mux.HandleFunc("GET /api/submissions/{id}", s.getSubmission)
	s.mux.HandleFunc("GET /s/{slug}", s.signingPage)
	s.mux.HandleFunc("GET /file/{uuid}/{name}", s.file)
	s.mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusNotFound, map[string]any{"status": 404})
	})
}

// ---- state ----

type template struct {
	ID         int64
	Slug       string
	Name       string
	ExternalID string
	Kind       string // pdf or docx
	// SharedLink lets anyone holding the template's link start a
	// submission (the templates.shared_link column).
	SharedLink bool
	// Foreign marks a template of another DocuSeal account.
	Foreign   bool
	CreatedAt time.Time
	UpdatedAt time.Time
	Documents []*document
	Roles     []role
	Fields    []field
}

type document struct {
	ID       int64
	UUID     string
	Name     string // as given: the schema name and the file name
	Content  []byte
	Pages    int // 0 when unknown (DOCX)
	MimeType string
}

type role struct{ Name, UUID string }

type field struct {
	UUID, SubmitterUUID, Name, Type string
	Required                        bool
	Areas                           []area
}

type area struct {
	X, Y, W, H     float64
	AttachmentUUID string
	Page           int // zero-based, as DocuSeal stores it
}

type submission struct {
	ID       int64
	Slug     string
	Template *template
	Source   string // api or link
	Order    string
	// CombinedURL is set once the combined document has been generated.
	CombinedURL string
	CreatedAt   time.Time
	UpdatedAt   time.Time
	ExpireAt    *time.Time
	CompletedAt *time.Time
	AuditLogURL string
	Submitters  []*submitter
	Events      []submissionEvent
}

type submitter struct {
	ID            int64
	UUID          string // the template role's uuid
	Slug          string
	Role          string
	Email         string
	Name          string
	Phone         string
	SendEmail     bool
	SendSMS       bool
	SentAt        *time.Time
	OpenedAt      *time.Time
	CompletedAt   *time.Time
	DeclinedAt    *time.Time
	DeclineReason string
	CreatedAt     time.Time
	UpdatedAt     time.Time
}

type submissionEvent struct {
	ID          int64
	SubmitterID int64
	Type        string
	At          time.Time
	// Reason is the data.reason of a decline_form event
	// (app/controllers/submit_form_decline_controller.rb).
	Reason string
}

// addEvent records an event of typ by submitter submitterID on sub; the
// caller holds s.mu.
func (s *Server) addEvent(sub *submission, submitterID int64, typ string, at time.Time) {
	sub.Events = append(sub.Events, submissionEvent{ID: s.nextID("event"), SubmitterID: submitterID, Type: typ, At: at})
}

// declineReason is the reason of submitter st's decline_form event, as
// Submitters::SerializeForWebhook finds it; the caller holds s.mu.
func (sub *submission) declineReason(st *submitter) any {
	if st.DeclinedAt == nil {
		return nil
	}
	for _, e := range sub.Events {
		if e.SubmitterID == st.ID && e.Type == "decline_form" {
			return nullable(e.Reason)
		}
	}
	return nil
}

// nextID returns the next id of a kind; the caller holds s.mu.
func (s *Server) nextID(kind string) int64 {
	s.lastID[kind]++
	return s.lastID[kind]
}

func (s *Server) templateByID(id int64) *template {
	for _, t := range s.templates {
		if t.ID == id {
			return t
		}
	}
	return nil
}

func (s *Server) submissionByID(id int64) *submission {
	for _, sub := range s.submissions {
		if sub.ID == id {
			return sub
		}
	}
	return nil
}

func (sub *submission) status(now time.Time) string {
	all := true
	for _, s := range sub.Submitters {
		if s.DeclinedAt != nil {
			return "declined"
		}
		if s.CompletedAt == nil {
			all = false
		}
	}
	switch {
	case all:
		return "completed"
	case sub.ExpireAt != nil && !now.Before(*sub.ExpireAt):
		return "expired"
	}
	return "pending"
}

func (s *submitter) status() string {
	switch {
	case s.DeclinedAt != nil:
		return "declined"
	case s.CompletedAt != nil:
		return "completed"
	case s.OpenedAt != nil:
		return "opened"
	case s.SentAt != nil:
		return "sent"
	}
	return "awaiting"
}

// ---- templates ----

type templateParams struct {
	Name       string `json:"name"`
	ExternalID string `json:"external_id"`
	FolderName string `json:"folder_name"`
	// SharedLink defaults to true (docs/openapi.json, /templates/pdf).
	SharedLink *bool `json:"shared_link"`
	Documents  []struct {
		Name   string `json:"name"`
		File   string `json:"file"`
		Fields []struct {
			Name     string `json:"name"`
			Type     string `json:"type"`
			Role     string `json:"role"`
			Required *bool  `json:"required"`
			Areas    []struct {
				X    float64 `json:"x"`
				Y    float64 `json:"y"`
				W    float64 `json:"w"`
				H    float64 `json:"h"`
				Page int     `json:"page"`
			} `json:"areas"`
		} `json:"fields"`
	} `json:"documents"`
}

var fieldTypes = map[string]bool{
	"heading": true, "text": true, "signature": true, "initials": true, "date": true, "number": true,
	"image": true, "checkbox": true, "multiple": true, "file": true, "radio": true, "select": true,
	"cells": true, "stamp": true, "payment": true, "phone": true, "verification": true,
}

func (s *Server) createTemplate(w http.ResponseWriter, r *http.Request, kind string) {
	var p templateParams
	if err := json.NewDecoder(r.Body).Decode(&p); err != nil {
		unprocessable(w, "JSON parse error: "+err.Error())
		return
	}
	if len(p.Documents) == 0 {
		unprocessable(w, "documents is required")
		return
	}
	now := s.now().UTC()

	s.mu.Lock()
	defer s.mu.Unlock()

	var docs []*document
	var roles []role
	var fields []field
	roleUUID := func(name string) string {
		for _, r := range roles {
			if r.Name == name {
				return r.UUID
			}
		}
		r := role{Name: name, UUID: newUUID()}
		roles = append(roles, r)
		return r.UUID
	}
	for i, d := range p.Documents {
		if d.File == "" {
			unprocessable(w, fmt.Sprintf("documents[%d].file is required", i))
			return
		}
		if strings.HasPrefix(d.File, "http://") || strings.HasPrefix(d.File, "https://") {
			unprocessable(w, "the fake DocuSeal does not download files: send them base64-encoded")
			return
		}
		content, err := base64.StdEncoding.DecodeString(d.File)
		if err != nil {
			unprocessable(w, fmt.Sprintf("documents[%d].file is not valid base64", i))
			return
		}
		doc := &document{ID: s.nextID("document"), UUID: newUUID(), Name: d.Name, Content: content}
		switch kind {
		case "pdf":
			if !bytes.HasPrefix(content, []byte("%PDF-")) {
				unprocessable(w, fmt.Sprintf("documents[%d] is not a PDF file", i))
				return
			}
			doc.Pages, doc.MimeType = pdfPageCount(content), "application/pdf"
		case "docx":
			if !bytes.HasPrefix(content, []byte("%PDF-")) && !bytes.HasPrefix(content, []byte("PK\x03\x04")) {
				unprocessable(w, fmt.Sprintf("documents[%d] is not a DOCX file", i))
				return
			}
			// DocuSeal renders DOCX to PDF; the fake cannot, so it keeps
			// the file and does not know its pages.
			doc.MimeType = "application/vnd.openxmlformats-officedocument.wordprocessingml.document"
			if bytes.HasPrefix(content, []byte("%PDF-")) {
				doc.Pages, doc.MimeType = pdfPageCount(content), "application/pdf"
			}
		}
		if doc.Name == "" {
			doc.Name = fmt.Sprintf("document.%s", kind)
		}
		for j, f := range d.Fields {
			fieldName := fmt.Sprintf("documents[%d].fields[%d]", i, j)
			typ := f.Type
			if typ == "" {
				typ = "text"
			}
			if !fieldTypes[typ] {
				unprocessable(w, fmt.Sprintf("%s.type %q is not a field type", fieldName, typ))
				return
			}
			roleName := f.Role
			if roleName == "" {
				roleName = "First Party"
			}
			fl := field{UUID: newUUID(), SubmitterUUID: roleUUID(roleName), Name: f.Name, Type: typ, Required: f.Required == nil || *f.Required}
			if fl.Name == "" {
				fl.Name = strings.ToUpper(typ[:1]) + typ[1:]
			}
			for k, a := range f.Areas {
				where := fmt.Sprintf("%s.areas[%d]", fieldName, k)
				switch {
				case a.Page < 1:
					unprocessable(w, where+".page counts from 1")
					return
				case doc.Pages > 0 && a.Page > doc.Pages:
					unprocessable(w, fmt.Sprintf("%s.page %d is past the document's %d pages", where, a.Page, doc.Pages))
					return
				case a.W <= 0 || a.H <= 0 || a.X < 0 || a.Y < 0 || a.X+a.W > 1.0000001 || a.Y+a.H > 1.0000001:
					unprocessable(w, where+" must be page-relative (fractions of the page within 0..1)")
					return
				}
				fl.Areas = append(fl.Areas, area{X: a.X, Y: a.Y, W: a.W, H: a.H, AttachmentUUID: doc.UUID, Page: a.Page - 1})
			}
			fields = append(fields, fl)
		}
		docs = append(docs, doc)
	}
	if len(roles) == 0 {
		roles = []role{{Name: "First Party", UUID: newUUID()}}
	}

	// "Existing template with specified external_id will be updated with
	// a new document."
	var t *template
	if p.ExternalID != "" {
		for _, existing := range s.templates {
			if existing.ExternalID == p.ExternalID {
				t = existing
			}
		}
	}
	if t == nil {
		t = &template{ID: s.nextID("template"), Slug: newSlug(), ExternalID: p.ExternalID, CreatedAt: now}
		s.templates = append(s.templates, t)
	}
	t.Name = p.Name
	if t.Name == "" {
		t.Name = strings.TrimSuffix(p.Documents[0].Name, path.Ext(p.Documents[0].Name))
	}
	t.Kind, t.UpdatedAt, t.Documents, t.Roles, t.Fields = kind, now, docs, roles, fields
	t.SharedLink = p.SharedLink == nil || *p.SharedLink
	writeJSON(w, http.StatusOK, s.templateJSON(t))
}

func (s *Server) getTemplate(w http.ResponseWriter, r *http.Request) {
	id, err := strconv.ParseInt(r.PathValue("id"), 10, 64)
	s.mu.Lock()
	defer s.mu.Unlock()
	t := s.templateByID(id)
	if err != nil || t == nil {
		writeJSON(w, http.StatusNotFound, map[string]any{"status": 404})
		return
	}
	if t.Foreign {
		forbidden(w)
		return
	}
	writeJSON(w, http.StatusOK, s.templateJSON(t))
}

// AddForeignTemplate stores a one-role template with fields that belongs
// to another DocuSeal account, and returns its id: reading it or sending
// it answers 403 "Not authorized", as CanCan's AccessDenied does for
// another account's record (app/controllers/api/api_base_controller.rb).
func (s *Server) AddForeignTemplate() string {
	now := s.now().UTC()
	s.mu.Lock()
	defer s.mu.Unlock()
	r := role{Name: "First Party", UUID: newUUID()}
	t := &template{ID: s.nextID("template"), Slug: newSlug(), Name: "Another account's template", Kind: "pdf",
		Foreign: true, CreatedAt: now, UpdatedAt: now, Roles: []role{r},
		Fields: []field{{UUID: newUUID(), SubmitterUUID: r.UUID, Name: "Signature", Type: "signature", Required: true}}}
	s.templates = append(s.templates, t)
	return strconv.FormatInt(t.ID, 10)
}

// ---- submissions ----

type submissionParams struct {
	TemplateID      json.Number     `json:"template_id"`
	SendEmail       *bool           `json:"send_email"`
	SendSMS         bool            `json:"send_sms"`
	Order           string          `json:"order"`
	SubmittersOrder string          `json:"submitters_order"`
	ExpireAt        string          `json:"expire_at"`
	Message         json.RawMessage `json:"message"`
	Submitters      []struct {
		Name      string `json:"name"`
		Email     string `json:"email"`
		Phone     string `json:"phone"`
		Role      string `json:"role"`
		SendEmail *bool  `json:"send_email"`
		SendSMS   *bool  `json:"send_sms"`
	} `json:"submitters"`
}

func (s *Server) createSubmission(w http.ResponseWriter, r *http.Request) {
	var p submissionParams
	dec := json.NewDecoder(r.Body)
	dec.UseNumber()
	if err := dec.Decode(&p); err != nil {
		unprocessable(w, "JSON parse error: "+err.Error())
		return
	}
	if p.TemplateID == "" {
		unprocessable(w, "template_id is required")
		return
	}
	if len(p.Submitters) == 0 {
		unprocessable(w, "submitters is required")
		return
	}
	if msg := validateSubmission(p); msg != "" {
		unprocessable(w, msg)
		return
	}
	order := p.SubmittersOrder
	if order == "" {
		order = p.Order
	}
	if order == "" {
		order = "preserved"
	}
	if order != "preserved" && order != "random" {
		unprocessable(w, "order must be preserved or random")
		return
	}
	var expireAt *time.Time
	if p.ExpireAt != "" {
		t, ok := parseTime(p.ExpireAt)
		if !ok {
			unprocessable(w, "expire_at is not a time")
			return
		}
		expireAt = &t
	}
	sendEmail := p.SendEmail == nil || *p.SendEmail
	now := s.now().UTC()

	s.mu.Lock()
	defer s.mu.Unlock()
	tid, _ := strconv.ParseInt(p.TemplateID.String(), 10, 64)
	t := s.templateByID(tid)
	switch {
	case t == nil:
		// load_and_authorize_resource :template raises RecordNotFound,
		// which ErrorsController renders as {"status": 404}.
		writeJSON(w, http.StatusNotFound, map[string]any{"status": 404})
		return
	case t.Foreign:
		forbidden(w)
		return
	case len(t.Fields) == 0:
		unprocessable(w, "Template does not contain fields")
		return
	case len(p.Submitters) > len(t.Roles):
		unprocessable(w, "Defined more signing parties than in template")
		return
	}

	sub := &submission{ID: s.nextID("submission"), Slug: newSlug(), Template: t, Source: "api", Order: order, CreatedAt: now, UpdatedAt: now, ExpireAt: expireAt}
	taken := map[string]bool{}
	for i, ps := range p.Submitters {
		// Submissions::CreateFromSubmitters.find_submitter_uuid: the role
		// by name ignoring case, else the role at the same position.
		var rl role
		for _, candidate := range t.Roles {
			if strings.EqualFold(candidate.Name, ps.Role) {
				rl = candidate
			}
		}
		if rl.UUID == "" {
			rl = t.Roles[i]
		}
		if ps.Email == "" && ps.Phone == "" && ps.Name == "" {
			continue // DocuSeal skips submitters with nothing to reach them by
		}
		if taken[rl.UUID] {
			unprocessable(w, fmt.Sprintf("two submitters take the role %q", rl.Name))
			return
		}
		taken[rl.UUID] = true
		st := &submitter{
			ID: s.nextID("submitter"), UUID: rl.UUID, Slug: newSlug(), Role: rl.Name,
			Email: strings.ToLower(strings.TrimSpace(ps.Email)), Name: ps.Name, Phone: ps.Phone,
			SendEmail: sendEmail && (ps.SendEmail == nil || *ps.SendEmail),
			SendSMS:   p.SendSMS || (ps.SendSMS != nil && *ps.SendSMS),
			CreatedAt: now, UpdatedAt: now,
		}
		if st.SendEmail && st.Email != "" && (order == "random" || len(sub.Submitters) == 0) {
			st.SentAt = ptr(now)
			s.addEvent(sub, st.ID, "send_email", now)
		}
		sub.Submitters = append(sub.Submitters, st)
	}
	if len(sub.Submitters) == 0 {
		writeJSON(w, http.StatusOK, []any{})
		return
	}
	s.submissions = append(s.submissions, sub)

	out := make([]map[string]any, 0, len(sub.Submitters))
	for _, st := range sub.Submitters {
		m := s.submitterJSON(sub, st, false)
		m["embed_src"] = s.srv.URL + "/s/" + st.Slug
		out = append(out, m)
	}
	writeJSON(w, http.StatusOK, out)
}

func (s *Server) listSubmissions(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	limit := 10
	if l, err := strconv.Atoi(q.Get("limit")); err == nil && l > 0 {
		limit = min(l, 100)
	}
	after, _ := strconv.ParseInt(q.Get("after"), 10, 64)
	before, _ := strconv.ParseInt(q.Get("before"), 10, 64)
	tid, _ := strconv.ParseInt(q.Get("template_id"), 10, 64)
	now := s.now().UTC()

	s.mu.Lock()
	defer s.mu.Unlock()
	data := []map[string]any{}
	var ids []int64
	// Api::ApiBaseController#paginate: id descending, after = ids below.
	for i := len(s.submissions) - 1; i >= 0 && len(data) < limit; i-- {
		sub := s.submissions[i]
		switch {
		case q.Has("template_id") && sub.Template.ID != tid,
			q.Get("status") != "" && sub.status(now) != q.Get("status"),
			after > 0 && sub.ID >= after,
			before > 0 && sub.ID <= before:
			continue
		}
		data = append(data, s.submissionJSON(sub, false, false))
		ids = append(ids, sub.ID)
	}
	pagination := map[string]any{"count": len(data), "next": nil, "prev": nil}
	if len(ids) > 0 {
		pagination["next"], pagination["prev"] = ids[len(ids)-1], ids[0]
	}
	writeJSON(w, http.StatusOK, map[string]any{"data": data, "pagination": pagination})
}

func (s *Server) getSubmission(w http.ResponseWriter, r *http.Request) {
	id, err := strconv.ParseInt(r.PathValue("id"), 10, 64)
	s.mu.Lock()
	defer s.mu.Unlock()
	sub := s.submissionByID(id)
	if err != nil || sub == nil {
		writeJSON(w, http.StatusNotFound, map[string]any{"status": 404})
		return
	}
	combined := strings.Contains(r.URL.Query().Get("include"), "combined_document_url")
	if combined && sub.status(s.now().UTC()) == "completed" && sub.CombinedURL == "" {
		// Submissions::EnsureCombinedGenerated, then kept as the
		// submission's combined_document attachment.
		sub.CombinedURL = s.fileURL(newUUID(), sub.Template.Name+".pdf")
	}
	writeJSON(w, http.StatusOK, s.submissionJSON(sub, true, combined))
}

func (s *Server) signingPage(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, sub := range s.submissions {
		for _, st := range sub.Submitters {
			if st.Slug == r.PathValue("slug") {
				w.Header().Set("Content-Type", "text/html; charset=utf-8")
				fmt.Fprintf(w, "<!doctype html><title>%s</title><p>Signing form for %s (%s)</p>", sub.Template.Name, st.Email, st.status())
				return
			}
		}
	}
	http.NotFound(w, r)
}

func (s *Server) file(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, t := range s.templates {
		for _, d := range t.Documents {
			if d.UUID == r.PathValue("uuid") {
				w.Header().Set("Content-Type", d.MimeType)
				w.Write(d.Content)
				return
			}
		}
	}
	http.NotFound(w, r)
}

// ---- JSON shapes ----

// templateJSON is Templates::SerializeForApi; the caller holds s.mu.
func (s *Server) templateJSON(t *template) map[string]any {
	schema := []map[string]any{}
	docs := []map[string]any{}
	for _, d := range t.Documents {
		schema = append(schema, map[string]any{"attachment_uuid": d.UUID, "name": d.Name})
		docs = append(docs, map[string]any{
			"id":                d.ID,
			"uuid":              d.UUID,
			"url":               s.fileURL(d.UUID, d.Name),
			"preview_image_url": s.fileURL(d.UUID, "0.jpg"),
			"filename":          d.Name,
		})
	}
	fields := []map[string]any{}
	for _, f := range t.Fields {
		areas := []map[string]any{}
		for _, a := range f.Areas {
			areas = append(areas, map[string]any{"x": a.X, "y": a.Y, "w": a.W, "h": a.H, "attachment_uuid": a.AttachmentUUID, "page": a.Page})
		}
		fields = append(fields, map[string]any{
			"uuid": f.UUID, "submitter_uuid": f.SubmitterUUID, "name": f.Name, "type": f.Type,
			"required": f.Required, "preferences": map[string]any{}, "areas": areas,
		})
	}
	roles := []map[string]any{}
	for _, r := range t.Roles {
		roles = append(roles, map[string]any{"name": r.Name, "uuid": r.UUID})
	}
	return map[string]any{
		"id":          t.ID,
		"slug":        t.Slug,
		"name":        t.Name,
		"preferences": map[string]any{},
		"schema":      schema,
		"fields":      fields,
		"submitters":  roles,
		"author_id":   1,
		"archived_at": nil,
		"created_at":  railsTime(t.CreatedAt),
		"updated_at":  railsTime(t.UpdatedAt),
		"source":      "api",
		"folder_id":   1,
		"folder_name": "Default",
		"external_id": nullable(t.ExternalID),
		"author":      author(),
		"documents":   docs,
	}
}

// submissionJSON is Submissions::SerializeForApi (full) or a list item of
// GET /submissions; the caller holds s.mu.
func (s *Server) submissionJSON(sub *submission, full, combined bool) map[string]any {
	now := s.now().UTC()
	status := sub.status(now)
	subs := []map[string]any{}
	for _, st := range sub.Submitters {
		subs = append(subs, s.submitterJSON(sub, st, full))
	}
	m := map[string]any{
		"id":                    sub.ID,
		"source":                "api",
		"submitters_order":      sub.Order,
		"slug":                  sub.Slug,
		"status":                status,
		"audit_log_url":         nullable(sub.AuditLogURL),
		"combined_document_url": nil,
		"expire_at":             railsTimePtr(sub.ExpireAt),
		"completed_at":          railsTimePtr(sub.CompletedAt),
		"created_at":            railsTime(sub.CreatedAt),
		"updated_at":            railsTime(sub.UpdatedAt),
		"archived_at":           nil,
		"submitters":            subs,
		"template": map[string]any{
			"id":          sub.Template.ID,
			"name":        sub.Template.Name,
			"external_id": nullable(sub.Template.ExternalID),
			"folder_name": "Default",
			"created_at":  railsTime(sub.Template.CreatedAt),
			"updated_at":  railsTime(sub.Template.UpdatedAt),
		},
		"created_by_user": author(),
	}
	// Submissions::SerializeForApi: the combined document's URL once it
	// exists, whatever was asked; null before.
	if status == "completed" && sub.CombinedURL != "" {
		m["combined_document_url"] = sub.CombinedURL
	}
	if full {
		// Submitters::SerializeForApi.serialize_events: data carries the
		// decline reason.
		events := []map[string]any{}
		for _, e := range sub.Events {
			data := map[string]any{}
			if e.Reason != "" {
				data["reason"] = e.Reason
			}
			events = append(events, map[string]any{"id": e.ID, "submitter_id": e.SubmitterID, "event_type": e.Type, "event_timestamp": railsTime(e.At), "data": data})
		}
		m["submission_events"] = events
		m["documents"] = s.signedDocuments(sub, status == "completed")
		m["metadata"] = map[string]any{}
	}
	return m
}

// submitterJSON is Submitters::SerializeForApi; the caller holds s.mu.
func (s *Server) submitterJSON(sub *submission, st *submitter, withDocuments bool) map[string]any {
	m := map[string]any{
		"id":            st.ID,
		"submission_id": sub.ID,
		"uuid":          st.UUID,
		"email":         nullable(st.Email),
		"slug":          st.Slug,
		"sent_at":       railsTimePtr(st.SentAt),
		"opened_at":     railsTimePtr(st.OpenedAt),
		"completed_at":  railsTimePtr(st.CompletedAt),
		"declined_at":   railsTimePtr(st.DeclinedAt),
		"created_at":    railsTime(st.CreatedAt),
		"updated_at":    railsTime(st.UpdatedAt),
		"name":          nullable(st.Name),
		"phone":         nullable(st.Phone),
		"external_id":   nil,
		"status":        st.status(),
		"metadata":      map[string]any{},
		"preferences":   map[string]any{"send_email": st.SendEmail, "send_sms": st.SendSMS},
		"values":        s.values(sub, st),
		"role":          st.Role,
	}
	if withDocuments {
		m["documents"] = s.signedDocuments(sub, st.CompletedAt != nil)
	}
	return m
}

// submitterWebhookJSON is Submitters::SerializeForWebhook, the data of
// form.* events; the caller holds s.mu.
func (s *Server) submitterWebhookJSON(sub *submission, st *submitter) map[string]any {
	now := s.now().UTC()
	m := s.submitterJSON(sub, st, true)
	// Only webhooks carry the decline reason.
	m["decline_reason"] = sub.declineReason(st)
	m["ua"] = "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0"
	m["ip"] = "203.0.113.7"
	m["application_key"] = nil
	m["audit_log_url"] = nullable(sub.AuditLogURL)
	m["submission_url"] = s.srv.URL + "/e/" + sub.Slug
	m["template"] = map[string]any{
		"id":          sub.Template.ID,
		"name":        sub.Template.Name,
		"external_id": nullable(sub.Template.ExternalID),
		"created_at":  railsTime(sub.Template.CreatedAt),
		"updated_at":  railsTime(sub.Template.UpdatedAt),
		"folder_name": "Default",
	}
	m["submission"] = map[string]any{
		"id":                    sub.ID,
		"audit_log_url":         nullable(sub.AuditLogURL),
		"combined_document_url": nullable(sub.CombinedURL),
		"status":                sub.status(now),
		"url":                   s.srv.URL + "/e/" + sub.Slug,
		"variables":             map[string]any{},
		"created_at":            railsTime(sub.CreatedAt),
	}
	delete(m, "uuid")
	delete(m, "slug")
	return m
}

func (s *Server) values(sub *submission, st *submitter) []map[string]any {
	out := []map[string]any{}
	if st.CompletedAt == nil {
		return out
	}
	for _, f := range sub.Template.Fields {
		if f.SubmitterUUID != st.UUID {
			continue
		}
		var v any = st.Name
		switch f.Type {
		case "signature":
			v = s.fileURL(newUUID(), "signature.png")
		case "date":
			v = st.CompletedAt.Format("2006-01-02")
		}
		out = append(out, map[string]any{"field": f.Name, "value": v})
	}
	return out
}

func (s *Server) signedDocuments(sub *submission, done bool) []map[string]any {
	out := []map[string]any{}
	if !done {
		return out
	}
	for _, d := range sub.Template.Documents {
		out = append(out, map[string]any{"name": strings.TrimSuffix(d.Name, path.Ext(d.Name)), "url": s.fileURL(d.UUID, d.Name)})
	}
	return out
}

func (s *Server) fileURL(uuid, name string) string {
	return s.srv.URL + "/file/" + uuid + "/" + strings.ReplaceAll(name, " ", "%20")
}

func author() map[string]any {
	return map[string]any{"id": 1, "first_name": "Test", "last_name": "Admin", "email": "admin@example.com"}
}

// ---- helpers ----

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}

func unprocessable(w http.ResponseWriter, msg string) {
	writeJSON(w, http.StatusUnprocessableEntity, map[string]any{"error": msg})
}

// forbidden is CanCan::AccessDenied as Api::ApiBaseController renders it.
func forbidden(w http.ResponseWriter) {
	writeJSON(w, http.StatusForbidden, map[string]any{"error": "Not authorized"})
}

// emailFormat is User::FULL_EMAIL_REGEXP (app/models/user.rb), which
// Params::BaseValidator#email_format applies.
var emailFormat = regexp.MustCompile(`(?i)^[a-z0-9][.']?(?:(?:[a-z0-9_-]+[.+'])*[a-z0-9_-]+)*@(?:[a-z0-9]+[.-])*[a-z0-9]+\.[a-z]{2,}$`)

// phoneFormat is the phone rule of Params::SubmissionCreateValidator.
var phoneFormat = regexp.MustCompile(`^\+\d+$`)

// validateSubmission is the part of Params::SubmissionCreateValidator
// (lib/params/submission_create_validator.rb) for a body with submitters;
// it returns DocuSeal's message, "" when the body passes.
func validateSubmission(p submissionParams) string {
	// in_path(params, :message, skip_blank: true): a message object that
	// is not blank must have a body.
	if m := strings.TrimSpace(string(p.Message)); m != "" && m != "null" && m != "{}" {
		var msg map[string]any
		if json.Unmarshal(p.Message, &msg) != nil {
			return "message must be a Object"
		}
		if b, _ := msg["body"].(string); strings.TrimSpace(b) == "" {
			return "body is required in `message`."
		}
	}
	roles := map[string]bool{}
	for i, sp := range p.Submitters {
		at := fmt.Sprintf(" in `submitters[%d]`.", i)
		if sp.Email == "" && sp.Phone == "" && sp.Name == "" {
			return "email or phone or name is required" + at
		}
		if sp.Email != "" && !strings.Contains(sp.Email, "<") && !emailFormat.MatchString(strings.TrimSpace(sp.Email)) {
			return "email is invalid" + at
		}
		if sp.Phone != "" && !phoneFormat.MatchString(sp.Phone) {
			return "phone should start with +<country code> and contain only digits" + at
		}
		if sp.Role != "" {
			if roles[sp.Role] {
				return "role must be unique in `submitters`."
			}
			roles[sp.Role] = true
		}
	}
	return ""
}

// railsTime formats t as Rails' JSON does: UTC with milliseconds.
func railsTime(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000Z") }

func railsTimePtr(t *time.Time) any {
	if t == nil {
		return nil
	}
	return railsTime(*t)
}

func nullable(s string) any {
	if s == "" {
		return nil
	}
	return s
}

func ptr[T any](v T) *T { return &v }

func parseTime(s string) (time.Time, bool) {
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02 15:04:05 MST", "2006-01-02"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t.UTC(), true
		}
	}
	return time.Time{}, false
}

func newUUID() string {
	var b [16]byte
	rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}

const slugAlphabet = "ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz123456789"

func newSlug() string {
	var b [14]byte
	rand.Read(b[:])
	for i := range b {
		b[i] = slugAlphabet[int(b[i])%len(slugAlphabet)]
	}
	return string(b[:])
}

// pdfPageCount reads a PDF's page count from its page tree's /Count (the
// largest, which is the root's), independently of how the client counts.
var countEntry = regexp.MustCompile(`/Count\s+(\d+)`)

func pdfPageCount(b []byte) int {
	n := 0
	for _, m := range countEntry.FindAllSubmatch(b, -1) {
		if c, err := strconv.Atoi(string(m[1])); err == nil && c > n {
			n = c
		}
	}
	return n // 0: unknown, e.g. the tree is in a compressed object stream
}
