// Package pages is Counsel's public HTML pages: the embedded signer's
// pages under /sign (sign.go), the /verify page that checks a signed PDF
// (verify.go) and the API reference at /docs (docs.go). They are plain
// server-rendered HTML without JavaScript, for people who have no
// account, so each answer sets its own Content-Security-Policy, framing,
// referrer and caching headers, and every form post is checked to be
// same-origin.
//
// The package serves no route itself: Routes is its route table, and the
// HTTP adapter (adapters/http) mounts each entry at its path, where its
// middleware (request ids, logging, rate limits, body limits, the
// framing guard) and its API reference entry apply. Handlers read path
// variables with Request.PathValue, and the request id and client address
// from ports.RequestOf.
package pages

import (
	"bytes"
	"html/template"
	"log/slog"
	"net/http"
	"sync"

	"counsel/ports"
)

// Services are the use cases the pages call. A nil service leaves its
// pages answering as documented: SigningPages nil shows the not-found
// page for every link, Evidence nil answers 501.
type Services struct {
	// SigningPages serves the embedded signer's /sign pages; nil (the
	// DocuSeal provider) answers them with the not-found page.
	SigningPages ports.SigningPages
	// Evidence verifies signed PDFs for the /verify page.
	Evidence ports.EvidenceService
	// APIDocument returns the OpenAPI document /docs renders.
	APIDocument func() []byte
}

// Options configure the pages.
type Options struct {
	Logger         *slog.Logger
	FrameAncestors []string // origins that may frame the signer's pages; empty: none
}

// Pages is the HTML pages' handlers.
type Pages struct {
	svc     Services
	opts    Options
	log     *slog.Logger
	docHTML func() []byte
}

// New returns the pages over svc.
func New(svc Services, opts Options) *Pages {
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	p := &Pages{svc: svc, opts: opts, log: opts.Logger}
	// The /docs page is made on first request: an idle server need not
	// hold it.
	p.docHTML = sync.OnceValue(p.renderDocs)
	return p
}

// Route is one page: its method, its path (a gorilla/mux template, as
// the HTTP adapter's route table spells it) and its handler. Every page
// is public; the HTTP adapter's table holds each one's rate and body
// limits and API reference entry.
type Route struct {
	Method  string
	Path    string
	Handler http.Handler
}

// signSlug is the signer's link; the slug is the signer's credential.
const signSlug = "/sign/{slug:[A-Za-z0-9_-]+}"

// Routes is the route table of the pages: every page in one place.
func (p *Pages) Routes() []Route {
	return []Route{
		{"GET", "/docs", p.handleDocs()},
		{"GET", "/verify", p.needEvidence(p.handleVerifyPage())},
		{"POST", "/verify", p.needEvidence(p.handleVerifyPagePost())},
		{"GET", signSlug, p.handleSignPage()},
		{"POST", signSlug + "/sign", p.handleSignSubmit()},
		{"POST", signSlug + "/decline", p.handleSignDecline()},
		{"GET", signSlug + "/documents/{docId:[A-Za-z0-9_-]+}", p.handleSignDocument()},
	}
}

// requestID is the id the HTTP adapter gave the request.
func requestID(r *http.Request) string { return ports.RequestOf(r.Context()).RequestID }

// render executes the template of name into an HTML answer with status,
// after headers sets the page's own headers. A template that fails
// becomes a generic 500 page, logged as what.
func (p *Pages) render(w http.ResponseWriter, r *http.Request, status int, t *template.Template, name string, data any, what string, headers func(http.Header)) {
	var buf bytes.Buffer
	if err := t.ExecuteTemplate(&buf, name, data); err != nil {
		p.log.ErrorContext(r.Context(), what, "request_id", requestID(r), "page", name, "err", err)
		status = http.StatusInternalServerError
		buf.Reset()
		buf.WriteString("<!doctype html><title>Error</title><p>Something went wrong.</p>")
	}
	headers(w.Header())
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	w.Write(buf.Bytes())
}

// Handlers are the pages' handlers by "METHOD path", as the HTTP
// adapter's Services.Pages takes them.
func (p *Pages) Handlers() map[string]http.Handler {
	m := map[string]http.Handler{}
	for _, r := range p.Routes() {
		m[r.Method+" "+r.Path] = r.Handler
	}
	return m
}
