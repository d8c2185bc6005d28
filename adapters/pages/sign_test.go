package pages

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"counsel/adapters/embeddedsign"
	"counsel/adapters/sqlite"
	"counsel/domain"
	"counsel/domain/signing"
	"counsel/ports"

	"github.com/matryer/is"
)

// signEnv is the real handler over the embedded signer and a temporary
// SQLite file, with a fake clock.
type signEnv struct {
	h      http.Handler
	p      *embeddedsign.Provider
	store  ports.SigningStore
	mu     sync.Mutex
	now    time.Time
	events []signing.Event
	docs   map[string][]byte
}

func newSignEnv(t *testing.T) *signEnv {
	t.Helper()
	db, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "sign.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	e := &signEnv{
		store: db.Stores().Signing,
		now:   time.Date(2026, 5, 4, 10, 0, 0, 0, time.UTC),
		docs:  map[string][]byte{"11": []byte("%PDF-1.4 agreement"), "12": []byte("PK\x03\x04 schedule")},
	}
	e.p, err = embeddedsign.New(embeddedsign.Config{
		PublicURL: "https://counsel.example.com",
		Store:     e.store,
		Documents: func(_ context.Context, id string) (io.ReadCloser, string, string, error) {
			b, ok := e.docs[id]
			if !ok {
				return nil, "", "", &domain.Error{Code: domain.ENOTFOUND, Message: "no document"}
			}
			return io.NopCloser(bytes.NewReader(b)), "", "", nil
		},
		Events: func(_ context.Context, ev signing.Event) error {
			e.mu.Lock()
			defer e.mu.Unlock()
			e.events = append(e.events, ev)
			return nil
		},
		Secret: bytes.Repeat([]byte{1}, 32),
		Now:    e.clock,
	})
	if err != nil {
		t.Fatal(err)
	}
	e.h = checked(t, Services{SigningPages: e.p}, Options{}, e.clock)
	return e
}

func (e *signEnv) clock() time.Time {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.now
}

func (e *signEnv) advance(d time.Duration) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.now = e.now.Add(d)
}

func (e *signEnv) kinds() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	var out []string
	for _, ev := range e.events {
		out = append(out, ev.Kind)
	}
	return out
}

// submission creates a template of two documents and a submission for
// two signers; it returns the submission and the signers' slugs.
func (e *signEnv) submission(t *testing.T, order, name, firstSigner string, expire *time.Time) (signing.Submission, string, string) {
	t.Helper()
	ctx := context.Background()
	tpl, err := e.p.CreateTemplate(ctx, signing.NewTemplate{Name: name, Roles: []string{"Client", "Firm"}, Documents: []signing.Document{
		{ID: "11", FileName: "agreement.pdf", ContentType: "application/pdf"},
		{ID: "12", FileName: "Zeitplan für Müller.docx", ContentType: "application/vnd.openxmlformats-officedocument.wordprocessingml.document"},
	}})
	if err != nil {
		t.Fatal(err)
	}
	subs, err := e.p.CreateSubmission(ctx, signing.NewSubmission{TemplateID: tpl.ID, Order: order, Name: name, ExpireAt: expire,
		Submitters: []signing.NewSubmitter{{Name: firstSigner, Email: "client@example.com"}, {Name: "Pat Partner", Email: "partner@example.com"}}})
	if err != nil {
		t.Fatal(err)
	}
	s := subs[0]
	return s, path.Base(s.Submitters[0].EmbedSrc), path.Base(s.Submitters[1].EmbedSrc)
}

type signPageResp struct {
	status int
	header http.Header
	body   string
}

func (e *signEnv) do(t *testing.T, r *http.Request) signPageResp {
	t.Helper()
	rec := httptest.NewRecorder()
	e.h.ServeHTTP(rec, r)
	return signPageResp{rec.Code, rec.Header(), rec.Body.String()}
}

func (e *signEnv) get(t *testing.T, target string) signPageResp {
	t.Helper()
	r := httptest.NewRequest("GET", target, nil)
	r.Host = "counsel.example.com"
	return e.do(t, r)
}

// post sends a form as a browser on the same origin would.
func (e *signEnv) post(t *testing.T, target string, form url.Values, headers ...string) signPageResp {
	t.Helper()
	r := httptest.NewRequest("POST", target, strings.NewReader(form.Encode()))
	r.Host = "counsel.example.com"
	r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	r.Header.Set("Origin", "https://counsel.example.com")
	r.Header.Set("Sec-Fetch-Site", "same-origin")
	r.Header.Set("User-Agent", "TestBrowser/1.0")
	for i := 0; i+1 < len(headers); i += 2 {
		if headers[i+1] == "" {
			r.Header.Del(headers[i])
		} else {
			r.Header.Set(headers[i], headers[i+1])
		}
	}
	return e.do(t, r)
}

var signTokenField = regexp.MustCompile(`name="token" value="([^"]+)"`)

// signFormToken reads the form token from a signing page.
func signFormToken(t *testing.T, page signPageResp) string {
	t.Helper()
	m := signTokenField.FindStringSubmatch(page.body)
	if m == nil {
		t.Fatalf("no form token in page (status %d)", page.status)
	}
	return m[1]
}

func signFormValues(tok, name string, consent bool) url.Values {
	v := url.Values{"token": {tok}, "name": {name}}
	if consent {
		v.Set("consent", "yes")
	}
	return v
}

// isSignPage checks the headers every signing page carries.
func isSignPage(is *is.I, r signPageResp) {
	is.Equal(r.header.Get("Content-Type"), "text/html; charset=utf-8")                                                                             // HTML
	is.Equal(r.header.Get("Content-Security-Policy"), "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'") // no script, no framing
	is.Equal(r.header.Get("X-Frame-Options"), "DENY")                                                                                              // no framing, for older browsers
	is.Equal(r.header.Get("Cache-Control"), "no-store")                                                                                            // never cached
	is.Equal(r.header.Get("Referrer-Policy"), "no-referrer")                                                                                       // the slug never leaks
	is.Equal(r.header.Get("X-Content-Type-Options"), "nosniff")                                                                                    // from the outer middleware
	is.True(!strings.Contains(strings.ToLower(r.body), "<script"))                                                                                 // no script at all
}

func TestSignPageEscapesWhatItShows(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	e := newSignEnv(t)
	_, first, _ := e.submission(t, signing.OrderRandom, `<script>alert("contract")</script>`, `<img src=x onerror=alert(1)>`, nil)
	r := e.get(t, "/sign/"+first)
	is.Equal(r.status, 200) // the page
	isSignPage(is, r)
	is.True(strings.Contains(r.body, "&lt;script&gt;alert(&#34;contract&#34;)&lt;/script&gt;")) // the name, escaped
	is.True(strings.Contains(r.body, "&lt;img src=x onerror=alert(1)&gt;"))                     // the signer, escaped
	is.True(!strings.Contains(r.body, "<img"))                                                  // nothing injected
	is.True(strings.Contains(r.body, `href="/sign/`+first+`/documents/11"`))                    // document links
	is.True(strings.Contains(r.body, "Zeitplan für Müller.docx"))                               // document names
	is.True(strings.Contains(r.body, `action="/sign/`+first+`/sign"`))                          // the sign form
	is.True(strings.Contains(r.body, `action="/sign/`+first+`/decline"`))                       // the decline form
}

func TestSignPreservedOrder(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	e := newSignEnv(t)
	s, first, second := e.submission(t, signing.OrderPreserved, "Service agreement", "Casey Client", nil)

	r := e.get(t, "/sign/"+second)
	is.Equal(r.status, 200) // the waiting page
	isSignPage(is, r)
	is.True(strings.Contains(r.body, "earlier signer")) // says why
	is.True(!strings.Contains(r.body, `name="token"`))  // no forms
	is.True(!strings.Contains(r.body, "/documents/"))   // no documents
	r = e.get(t, "/sign/"+second+"/documents/11")
	is.Equal(r.status, 409) // documents wait too
	r = e.post(t, "/sign/"+second+"/sign", signFormValues("", "Pat Partner", true))
	is.Equal(r.status, 403) // no form of its own to sign with

	page := e.get(t, "/sign/"+first)
	r = e.post(t, "/sign/"+first+"/sign", signFormValues(signFormToken(t, page), "Casey Client", true))
	is.Equal(r.status, 200) // signed
	isSignPage(is, r)
	is.True(strings.Contains(r.body, "You signed"))    // confirmation
	is.True(strings.Contains(r.body, "other parties")) // not the last
	is.Equal(e.kinds(), []string{signing.EventSubmitterCompleted})

	page = e.get(t, "/sign/"+second)
	is.Equal(page.status, 200) // now the second may sign
	r = e.post(t, "/sign/"+second+"/sign", signFormValues(signFormToken(t, page), "Pat Partner", true))
	is.Equal(r.status, 200)                                         // signed
	is.True(strings.Contains(r.body, "Every party has now signed")) // the last
	is.Equal(e.kinds(), []string{signing.EventSubmitterCompleted, signing.EventSubmitterCompleted, signing.EventSubmissionCompleted})

	got, err := e.p.GetSubmission(context.Background(), s.ID)
	is.NoErr(err)                                     // read
	is.Equal(got.Status, signing.SubmissionCompleted) // completed
	rec, _, err := e.store.SubmissionBySlug(context.Background(), first)
	is.NoErr(err)                                              // the stored evidence
	is.Equal(rec.Submitters[0].SignedName, "Casey Client")     // typed name
	is.Equal(rec.Submitters[0].SignerAddr, "192.0.2.1")        // client address
	is.Equal(rec.Submitters[0].SignerAgent, "TestBrowser/1.0") // user agent
}

func TestSignRandomOrder(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	e := newSignEnv(t)
	_, _, second := e.submission(t, signing.OrderRandom, "NDA", "Casey", nil)
	page := e.get(t, "/sign/"+second)
	is.Equal(page.status, 200) // the second signer's page
	r := e.post(t, "/sign/"+second+"/sign", signFormValues(signFormToken(t, page), "Pat Partner", true))
	is.Equal(r.status, 200) // signs first
}

func TestSignDecline(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	e := newSignEnv(t)
	s, first, second := e.submission(t, signing.OrderRandom, "NDA", "Casey", nil)
	page := e.get(t, "/sign/"+second)
	r := e.post(t, "/sign/"+second+"/decline", url.Values{"token": {signFormToken(t, page)}, "reason": {"The <b>fee</b> is wrong"}})
	is.Equal(r.status, 200) // declined
	isSignPage(is, r)
	is.True(strings.Contains(r.body, "You declined")) // confirmation
	got, _ := e.p.GetSubmission(context.Background(), s.ID)
	is.Equal(got.Status, signing.SubmissionDeclined)                     // declined
	is.Equal(got.Submitters[1].DeclineReason, "The <b>fee</b> is wrong") // reason kept as typed
	is.Equal(e.kinds(), []string{signing.EventSubmitterDeclined})        // reported
	is.Equal(e.get(t, "/sign/"+first).status, 404)                       // everyone's link is done
}

func TestSignMissingFields(t *testing.T) {
	t.Parallel()
	e := newSignEnv(t)
	_, first, _ := e.submission(t, signing.OrderRandom, "NDA", "Casey", nil)
	tok := signFormToken(t, e.get(t, "/sign/"+first))
	tests := []struct {
		name   string
		target string
		form   url.Values
		want   string
		keeps  string
	}{
		{"no name", "/sign/" + first + "/sign", signFormValues(tok, "  ", true), "type your full name", ""},
		{"no consent", "/sign/" + first + "/sign", signFormValues(tok, `Casey "<Client>"`, false), "tick the box", `value="Casey &#34;&lt;Client&gt;&#34;"`},
		{"no reason", "/sign/" + first + "/decline", url.Values{"token": {tok}}, "say why you decline", "<details open>"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			r := e.post(t, tt.target, tt.form)
			is.Equal(r.status, 400) // refused
			isSignPage(is, r)
			is.True(strings.Contains(r.body, tt.want))        // says what is missing
			is.True(strings.Contains(r.body, `name="token"`)) // the forms again, with a fresh token
			if tt.keeps != "" {
				is.True(strings.Contains(r.body, tt.keeps)) // keeps what was typed, escaped
			}
		})
	}
	is := is.New(t)
	is.Equal(len(e.kinds()), 0) // nothing happened
}

func TestSignFormProtection(t *testing.T) {
	t.Parallel()
	e := newSignEnv(t)
	_, first, second := e.submission(t, signing.OrderRandom, "NDA", "Casey", nil)
	tok := signFormToken(t, e.get(t, "/sign/"+first))
	otherTok := signFormToken(t, e.get(t, "/sign/"+second))
	tests := []struct {
		name    string
		form    url.Values
		headers []string
		want    int
	}{
		{"missing token", signFormValues("", "Casey", true), nil, 403},
		{"garbage token", signFormValues("not-a-token", "Casey", true), nil, 403},
		{"another signer's token", signFormValues(otherTok, "Casey", true), nil, 403},
		{"cross-site origin", signFormValues(tok, "Casey", true), []string{"Sec-Fetch-Site", "", "Origin", "https://evil.example"}, 403},
		{"cross-site fetch metadata", signFormValues(tok, "Casey", true), []string{"Sec-Fetch-Site", "cross-site", "Origin", "https://evil.example"}, 403},
		{"same-site subdomain", signFormValues(tok, "Casey", true), []string{"Sec-Fetch-Site", "same-site", "Origin", "https://evil.counsel.example.com"}, 403},
		{"null origin", signFormValues(tok, "Casey", true), []string{"Sec-Fetch-Site", "", "Origin", "null"}, 403},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			r := e.post(t, "/sign/"+first+"/sign", tt.form, tt.headers...)
			is.Equal(r.status, tt.want) // refused
			isSignPage(is, r)
			is.True(strings.Contains(r.body, "Nothing was signed")) // says so
		})
	}
	t.Run("a stale token", func(t *testing.T) {
		is := is.New(t)
		e.advance(13 * time.Hour)
		defer e.advance(-13 * time.Hour)
		r := e.post(t, "/sign/"+first+"/sign", signFormValues(tok, "Casey", true))
		is.Equal(r.status, 403) // older than the form's lifetime
	})
	t.Run("a same-origin post without fetch metadata", func(t *testing.T) {
		is := is.New(t)
		r := e.post(t, "/sign/"+first+"/sign", signFormValues(tok, "Casey", true), "Sec-Fetch-Site", "")
		is.Equal(r.status, 200) // Origin matches Host
	})
	is := is.New(t)
	is.Equal(e.kinds(), []string{signing.EventSubmitterCompleted}) // only the accepted post signed
}

func TestSignNotFoundPagesAreIdentical(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	e := newSignEnv(t)
	_, first, second := e.submission(t, signing.OrderRandom, "NDA", "Casey", nil)
	page := e.get(t, "/sign/"+first)
	is.Equal(e.post(t, "/sign/"+first+"/sign", signFormValues(signFormToken(t, page), "Casey", true)).status, 200) // used now

	unknown := e.get(t, "/sign/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA")
	used := e.get(t, "/sign/"+first)
	is.Equal(unknown.status, 404) // unknown
	is.Equal(used.status, 404)    // used
	isSignPage(is, used)
	is.Equal(used.body, unknown.body) // the same page
	for _, target := range []string{"/sign/" + first + "/documents/11", "/sign/zzz/documents/11", "/sign/" + second + "/documents/99"} {
		r := e.get(t, target)
		is.Equal(r.status, 404)        // documents of used or unknown links, or unknown documents
		is.Equal(r.body, unknown.body) // the same page
	}
	r := e.post(t, "/sign/"+first+"/sign", signFormValues(signFormToken(t, page), "Casey", true))
	is.Equal(r.status, 404)        // signing twice
	is.Equal(r.body, unknown.body) // the same page

	off := checked(t, Services{}, Options{}, nil)
	for _, m := range []string{"GET /sign/x", "POST /sign/x/sign", "POST /sign/x/decline", "GET /sign/x/documents/1"} {
		method, target, _ := strings.Cut(m, " ")
		rec := httptest.NewRecorder()
		off.ServeHTTP(rec, httptest.NewRequest(method, target, nil))
		is.Equal(rec.Code, 404)                   // no embedded signer: no valid link
		is.Equal(rec.Body.String(), unknown.body) // the same page
	}
}

func TestSignDocumentDownload(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	e := newSignEnv(t)
	s, first, _ := e.submission(t, signing.OrderRandom, "NDA", "Casey", nil)
	r := e.get(t, "/sign/"+first+"/documents/11")
	is.Equal(r.status, 200)                                                             // streamed
	is.Equal(r.body, string(e.docs["11"]))                                              // the bytes
	is.Equal(r.header.Get("Content-Type"), "application/pdf")                           // the type
	is.Equal(r.header.Get("Content-Disposition"), `attachment; filename=agreement.pdf`) // a download
	is.Equal(r.header.Get("Cache-Control"), "no-store")                                 // never cached
	is.Equal(r.header.Get("Referrer-Policy"), "no-referrer")                            // no referrer

	r = e.get(t, "/sign/"+first+"/documents/12")
	is.Equal(r.status, 200)                                                                                              // the second document
	is.Equal(r.header.Get("Content-Disposition"), `attachment; filename*=utf-8''Zeitplan%20f%C3%BCr%20M%C3%BCller.docx`) // non-ASCII name encoded

	tpl, err := e.p.GetTemplate(context.Background(), s.TemplateID)
	is.NoErr(err) // the template
	u, _ := url.Parse(tpl.Documents[0].URL)
	r = e.get(t, u.RequestURI())
	is.Equal(r.status, 200)                // the template's signed link works
	is.Equal(r.body, string(e.docs["11"])) // the bytes
	q := u.Query()
	q.Set("expires", q.Get("expires")+"9")
	r = e.get(t, u.Path+"?"+q.Encode())
	is.Equal(r.status, 404) // an altered link does not
}

func TestSignExpiry(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	e := newSignEnv(t)
	at := e.clock().Add(time.Hour)
	_, first, _ := e.submission(t, signing.OrderRandom, "NDA", "Casey", &at)
	page := e.get(t, "/sign/"+first)
	is.Equal(page.status, 200)                                   // before the expiry time
	is.True(strings.Contains(page.body, "4 May 2026 11:00 UTC")) // shows until when
	e.advance(time.Hour)
	r := e.post(t, "/sign/"+first+"/sign", signFormValues(signFormToken(t, page), "Casey", true))
	is.Equal(r.status, 404)                                       // too late
	is.Equal(e.get(t, "/sign/"+first).status, 404)                // the link is gone
	is.Equal(e.kinds(), []string{signing.EventSubmissionExpired}) // expired once
}

func TestSignPagesInTheAPIReference(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	e := newSignEnv(t)
	r := e.get(t, "/openapi.json")
	var doc struct {
		Paths map[string]map[string]struct {
			Tags       []string
			Permission string `json:"x-permission"`
			Responses  map[string]struct {
				Content map[string]json.RawMessage
			}
		}
	}
	is.NoErr(json.Unmarshal([]byte(r.body), &doc)) // the document
	for _, pm := range []string{"/sign/{slug} get", "/sign/{slug}/sign post", "/sign/{slug}/decline post", "/sign/{slug}/documents/{docId} get"} {
		p, m, _ := strings.Cut(pm, " ")
		o, ok := doc.Paths[p][m]
		is.True(ok)                                 // documented
		is.Equal(o.Tags, []string{"signing pages"}) // tagged
		is.Equal(o.Permission, "Public")            // no token needed
		if !strings.Contains(p, "documents") {
			_, html := o.Responses["200"].Content["text/html"]
			is.True(html) // answers HTML
		}
	}
}
