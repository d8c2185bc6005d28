// Package openapitest checks HTTP exchanges against the service's own
// OpenAPI document (/openapi.json) with kin-openapi's openapi3filter:
// route, security, parameters, request body, declared status, declared
// content type, declared headers and the response body's schema. Tests
// wrap the handler (Handler) or the client transport (Transport) once, so
// every request a test makes is checked without extra code.
//
// A request value may also take the forms its schema's x-also-accepts
// lists (a plain date for a date-time, a code for an enumeration): the
// document gives clients one canonical form per value and names the other
// forms the server reads there; a response is held to the canonical form.
//
// A request the document does not allow (a test of bad input or of an
// attack) is expected to be refused: it fails the test only when the
// server accepts it with a 2xx. Its response, when the route exists, is
// still checked like any other.
//
// Set COUNSEL_OPENAPI_COUNT_FILE to a path to have each wrapped handler
// append "<exchanges> <outside>" when its test ends: the number of
// exchanges validated and how many of their requests were outside the
// document on purpose.
package openapitest

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/gorillamux"
)

// maxBody bounds what the validator buffers of one body.
const maxBody = 64 << 20

// streamed is the request size past which a wrapped handler passes the
// body through unread (uploads stream to disk, and tests measure that)
// and checks everything of the exchange but the request body's schema.
const streamed = 1 << 20

func init() {
	// Bodies the document declares as binary or text: the validator
	// checks their presence and content type, not their bytes.
	for _, ct := range []string{"application/pdf", "application/vnd.openxmlformats-officedocument.wordprocessingml.document", "text/html", "application/x-pem-file", "text/calendar", "application/x-ndjson"} {
		openapi3filter.RegisterBodyDecoder(ct, openapi3filter.FileBodyDecoder)
	}
}

// Validator checks exchanges against one document.
type Validator struct {
	doc     *openapi3.T
	router  routers.Router
	names   map[string]string // property names by lower case
	notAPI  []string          // paths (and their subpaths) the document leaves out on purpose
	n       atomic.Int64      // exchanges checked
	outside atomic.Int64      // requests outside the document
}

// Load parses and validates the document and prepares its router.
func Load(raw []byte) (*Validator, error) {
	loader := openapi3.NewLoader()
	doc, err := loader.LoadFromData(raw)
	if err != nil {
		return nil, fmt.Errorf("parse the document: %w", err)
	}
	if err := doc.Validate(loader.Context); err != nil {
		return nil, fmt.Errorf("the document is invalid: %w", err)
	}
	if err := widen(doc); err != nil {
		return nil, err
	}
	// Match paths whatever host the test server listens on.
	doc.Servers = nil
	r, err := gorillamux.NewRouter(doc)
	if err != nil {
		return nil, fmt.Errorf("route the document: %w", err)
	}
	v := &Validator{doc: doc, router: r, names: map[string]string{}}
	if raw, ok := doc.Extensions["x-not-api"].([]any); ok {
		for _, p := range raw {
			if s, ok := p.(string); ok {
				v.notAPI = append(v.notAPI, s)
			}
		}
	}
	seen := map[*openapi3.Schema]bool{}
	if doc.Components != nil {
		for _, s := range doc.Components.Schemas {
			v.collect(s, seen)
		}
	}
	for _, item := range doc.Paths.Map() {
		for _, o := range item.Operations() {
			if o.RequestBody != nil && o.RequestBody.Value != nil {
				for _, mt := range o.RequestBody.Value.Content {
					v.collect(mt.Schema, seen)
				}
			}
		}
	}
	return v, nil
}

// alsoAccepts is the document's extension that lists, on a request
// value's schema, the forms the server reads besides the schema's own.
const alsoAccepts = "x-also-accepts"

// widen rewrites every schema that carries x-also-accepts as the union of
// itself (without the extension) and the forms listed, so requests are
// checked against all the server reads. The schema is changed in place:
// every reference to it sees the union. Only request schemas carry the
// extension (the adapter's TestLenientOnlyInRequests), so responses are
// still checked against the canonical forms alone.
func widen(doc *openapi3.T) error {
	seen := map[*openapi3.Schema]bool{}
	var walk func(sr *openapi3.SchemaRef) error
	walk = func(sr *openapi3.SchemaRef) error {
		if sr == nil || sr.Value == nil || seen[sr.Value] {
			return nil
		}
		s := sr.Value
		seen[s] = true
		if raw, ok := s.Extensions[alsoAccepts]; ok {
			b, err := json.Marshal(raw)
			if err != nil {
				return fmt.Errorf("%s: %w", alsoAccepts, err)
			}
			var alts []*openapi3.SchemaRef
			if err := json.Unmarshal(b, &alts); err != nil {
				return fmt.Errorf("%s: %w", alsoAccepts, err)
			}
			canonical := *s
			canonical.Extensions = map[string]any{}
			for k, v := range s.Extensions {
				if k != alsoAccepts {
					canonical.Extensions[k] = v
				}
			}
			union := openapi3.SchemaRefs{{Value: &canonical}}
			for _, a := range alts {
				if a.Ref != "" || a.Value == nil {
					return fmt.Errorf("%s: a form is a reference (%q): write it inline", alsoAccepts, a.Ref)
				}
				union = append(union, a)
			}
			*s = openapi3.Schema{AnyOf: union}
		}
		for _, p := range s.Properties {
			if err := walk(p); err != nil {
				return err
			}
		}
		if s.AdditionalProperties.Schema != nil {
			if err := walk(s.AdditionalProperties.Schema); err != nil {
				return err
			}
		}
		for _, l := range []openapi3.SchemaRefs{{s.Items}, {s.Not}, s.AnyOf, s.OneOf, s.AllOf} {
			for _, x := range l {
				if err := walk(x); err != nil {
					return err
				}
			}
		}
		return nil
	}
	if doc.Components != nil {
		for _, s := range doc.Components.Schemas {
			if err := walk(s); err != nil {
				return err
			}
		}
	}
	for _, item := range doc.Paths.Map() {
		for _, o := range item.Operations() {
			for _, p := range o.Parameters {
				if p.Value != nil {
					if err := walk(p.Value.Schema); err != nil {
						return err
					}
				}
			}
			if o.RequestBody != nil && o.RequestBody.Value != nil {
				for _, mt := range o.RequestBody.Value.Content {
					if err := walk(mt.Schema); err != nil {
						return err
					}
				}
			}
		}
	}
	return nil
}

// loaded holds one Validator per distinct document (by SHA-256) for
// loadShared.
var loaded sync.Map

// loadShared is Load once per distinct document in the process: parsing
// and validating the document takes about a second under -race, and every
// test of the app serves the same one. The Validator returned has its own
// counters and shares the document, router and names, which checking only
// reads.
func loadShared(raw []byte) (*Validator, error) {
	key := sha256.Sum256(raw)
	base, ok := loaded.Load(key)
	if !ok {
		v, err := Load(raw)
		if err != nil {
			return nil, err
		}
		base, _ = loaded.LoadOrStore(key, v)
	}
	b := base.(*Validator)
	return &Validator{doc: b.doc, router: b.router, names: b.names, notAPI: b.notAPI}, nil
}

// collect notes every property name under s, for canonical.
func (v *Validator) collect(s *openapi3.SchemaRef, seen map[*openapi3.Schema]bool) {
	if s == nil || s.Value == nil || seen[s.Value] {
		return
	}
	seen[s.Value] = true
	for name, p := range s.Value.Properties {
		v.names[strings.ToLower(name)] = name
		v.collect(p, seen)
	}
	v.collect(s.Value.Items, seen)
	for _, l := range [][]*openapi3.SchemaRef{s.Value.AnyOf, s.Value.OneOf, s.Value.AllOf} {
		for _, x := range l {
			v.collect(x, seen)
		}
	}
}

// canonical renames the object keys of a JSON body to the document's
// spelling: the server reads field names case-insensitively, as the
// document's description says and its schemas cannot.
func (v *Validator) canonical(body []byte) []byte {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var x any
	if dec.Decode(&x) != nil {
		return body
	}
	var walk func(any) any
	walk = func(x any) any {
		switch t := x.(type) {
		case map[string]any:
			out := make(map[string]any, len(t))
			for k, e := range t {
				if c, ok := v.names[strings.ToLower(k)]; ok {
					k = c
				}
				out[k] = walk(e)
			}
			return out
		case []any:
			for i := range t {
				t[i] = walk(t[i])
			}
		}
		return x
	}
	b, err := json.Marshal(walk(x))
	if err != nil {
		return body
	}
	return b
}

// Doc is the parsed document.
func (v *Validator) Doc() *openapi3.T { return v.doc }

// Counts returns how many exchanges were checked and how many requests
// were outside the document.
func (v *Validator) Counts() (exchanges, outside int64) { return v.n.Load(), v.outside.Load() }

// bearer accepts a request that carries a bearer token; whether the token
// is good is the server's business, and a refusal must then be declared.
func bearer(_ context.Context, in *openapi3filter.AuthenticationInput) error {
	h := in.RequestValidationInput.Request.Header.Get("Authorization")
	if len(h) < 8 || !strings.EqualFold(h[:7], "bearer ") {
		return errors.New("no bearer token")
	}
	return nil
}

// Check validates one finished exchange and returns what is wrong with
// it, or nil. req's body is reqBody (req.Body is not read).
func (v *Validator) Check(req *http.Request, reqBody []byte, status int, header http.Header, body []byte) error {
	return v.check(req, reqBody, false, status, header, body)
}

func (v *Validator) check(req *http.Request, reqBody []byte, skipBody bool, status int, header http.Header, body []byte) error {
	v.n.Add(1)
	for _, p := range v.notAPI {
		if req.URL.Path == p || (p != "/" && strings.HasPrefix(req.URL.Path, p+"/")) {
			v.n.Add(-1) // not an exchange of the API (x-not-api)
			return nil
		}
	}
	if req.Method == http.MethodOptions && req.Header.Get("Access-Control-Request-Method") != "" {
		v.outside.Add(1) // a CORS preflight: not an operation of the API
		return nil
	}
	if strings.HasPrefix(req.Header.Get("Content-Type"), "application/json") {
		reqBody = v.canonical(reqBody)
	}
	r := req.Clone(context.Background())
	r.Body = io.NopCloser(bytes.NewReader(reqBody))
	r.ContentLength = int64(len(reqBody))
	route, params, err := v.router.FindRoute(r)
	if err != nil {
		v.outside.Add(1)
		if status >= 200 && status < 300 {
			return fmt.Errorf("%s %s answered %d but the document has no such operation: %w", req.Method, req.URL.Path, status, err)
		}
		return nil // unknown routes and methods: nothing to check the answer against
	}
	opts := &openapi3filter.Options{AuthenticationFunc: bearer, MultiError: true, IncludeResponseStatus: true, ExcludeRequestBody: skipBody}
	in := &openapi3filter.RequestValidationInput{Request: r, PathParams: params, Route: route, Options: opts}
	if err := openapi3filter.ValidateRequest(context.Background(), in); err != nil {
		v.outside.Add(1)
		if status >= 200 && status < 300 {
			return fmt.Errorf("%s %s answered %d to a request the document does not allow: %v", req.Method, req.URL.RequestURI(), status, err)
		}
	}
	if status == http.StatusMethodNotAllowed {
		return nil
	}
	rin := &openapi3filter.ResponseValidationInput{RequestValidationInput: in, Status: status, Header: header, Options: opts}
	rin.SetBodyBytes(body)
	if err := openapi3filter.ValidateResponse(context.Background(), rin); err != nil {
		return fmt.Errorf("%s %s: the %d answer (%s) disagrees with the document: %v", req.Method, req.URL.RequestURI(), status, header.Get("Content-Type"), err)
	}
	return nil
}

// report appends the counts to COUNSEL_OPENAPI_COUNT_FILE, if set.
func (v *Validator) report(t testing.TB) {
	path := os.Getenv("COUNSEL_OPENAPI_COUNT_FILE")
	if path == "" {
		return
	}
	n, o := v.Counts()
	if n == 0 {
		return
	}
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
	if err != nil {
		t.Errorf("openapitest: count file: %v", err)
		return
	}
	defer f.Close()
	if _, err := fmt.Fprintf(f, "%d %d\n", n, o); err != nil {
		t.Errorf("openapitest: count file: %v", err)
	}
}

// Handler wraps h, which serves /openapi.json, so that every exchange it
// serves is checked; a disagreement fails t.
func Handler(t testing.TB, h http.Handler) http.Handler {
	t.Helper()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("GET", "/openapi.json", nil))
	if rec.Code != http.StatusOK {
		t.Fatalf("openapitest: GET /openapi.json: %d", rec.Code)
	}
	v, err := loadShared(rec.Body.Bytes())
	if err != nil {
		t.Fatalf("openapitest: %v", err)
	}
	t.Cleanup(func() { v.report(t) })
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var reqBody []byte
		skip := r.ContentLength > streamed || r.ContentLength < 0
		if !skip {
			b, err := io.ReadAll(io.LimitReader(r.Body, maxBody))
			if err != nil {
				// The client went away or sent a broken body: the
				// server's own reading would have failed the same way.
				h.ServeHTTP(w, r)
				return
			}
			reqBody = b
			r.Body = io.NopCloser(bytes.NewReader(reqBody))
		}
		cw := &capture{ResponseWriter: w}
		h.ServeHTTP(cw, r)
		if cw.status == 0 {
			cw.status = http.StatusOK
		}
		if err := v.check(r, reqBody, skip, cw.status, w.Header(), cw.body.Bytes()); err != nil {
			t.Errorf("openapitest: %v", err)
		}
	})
}

// capture passes a response through and keeps a copy.
type capture struct {
	http.ResponseWriter
	status int
	body   bytes.Buffer
}

func (c *capture) WriteHeader(code int) {
	if c.status == 0 && code >= 200 {
		c.status = code
	}
	c.ResponseWriter.WriteHeader(code)
}

func (c *capture) Write(b []byte) (int, error) {
	if c.status == 0 {
		c.status = http.StatusOK
	}
	if c.body.Len() < maxBody {
		c.body.Write(b)
	}
	return c.ResponseWriter.Write(b)
}

// Unwrap lets http.ResponseController reach the connection.
func (c *capture) Unwrap() http.ResponseWriter { return c.ResponseWriter }

// Flush passes flushes through.
func (c *capture) Flush() {
	if f, ok := c.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Transport wraps base (http.DefaultTransport when nil) so that every
// exchange through it is checked against the document of the server it
// talks to, fetched on first use; a disagreement fails t.
func Transport(t testing.TB, base http.RoundTripper) http.RoundTripper {
	if base == nil {
		base = http.DefaultTransport
	}
	tr := &transport{t: t, base: base, docs: map[string]*Validator{}}
	t.Cleanup(func() {
		tr.mu.Lock()
		defer tr.mu.Unlock()
		for _, v := range tr.docs {
			v.report(t)
		}
	})
	return tr
}

type transport struct {
	t    testing.TB
	base http.RoundTripper
	mu   sync.Mutex
	docs map[string]*Validator
}

func (tr *transport) validator(req *http.Request) (*Validator, error) {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	if v := tr.docs[req.URL.Host]; v != nil {
		return v, nil
	}
	dr, err := http.NewRequestWithContext(req.Context(), "GET", req.URL.Scheme+"://"+req.URL.Host+"/openapi.json", nil)
	if err != nil {
		return nil, err
	}
	res, err := tr.base.RoundTrip(dr)
	if err != nil {
		return nil, err
	}
	defer res.Body.Close()
	raw, err := io.ReadAll(res.Body)
	if err != nil {
		return nil, err
	}
	if res.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET /openapi.json: %d", res.StatusCode)
	}
	v, err := loadShared(raw)
	if err != nil {
		return nil, err
	}
	tr.docs[req.URL.Host] = v
	return v, nil
}

func (tr *transport) RoundTrip(req *http.Request) (*http.Response, error) {
	var reqBody []byte
	if req.Body != nil {
		b, err := io.ReadAll(io.LimitReader(req.Body, maxBody))
		req.Body.Close()
		if err != nil {
			return nil, err
		}
		reqBody = b
		req = req.Clone(req.Context())
		req.Body = io.NopCloser(bytes.NewReader(b))
		req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(b)), nil }
	}
	res, err := tr.base.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	body, err := io.ReadAll(io.LimitReader(res.Body, maxBody))
	res.Body.Close()
	if err != nil {
		return nil, err
	}
	res.Body = io.NopCloser(bytes.NewReader(body))
	v, err := tr.validator(req)
	if err != nil {
		tr.t.Errorf("openapitest: %v", err)
		return res, nil
	}
	if err := v.Check(req, reqBody, res.StatusCode, res.Header, body); err != nil {
		tr.t.Errorf("openapitest: %v", err)
	}
	return res, nil
}

// Client is an http.Client whose every exchange is checked.
func Client(t testing.TB) *http.Client { return &http.Client{Transport: Transport(t, nil)} }
