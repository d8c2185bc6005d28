package http

import (
	"fmt"
	"net/http"

	"counsel/domain"

	"github.com/gorilla/mux"
)

// The HTML pages (adapters/pages) have their routes here, with their
// limits and API reference entries, and their handlers in
// Services.Pages: this adapter writes no HTML.

// signPageMaxBody bounds the signing page's forms: a name, a reason and a
// token.
const signPageMaxBody = 16 << 10

const signSlug = "/sign/{slug:[A-Za-z0-9_-]+}"

// pdfUpload is the body of a PDF check: the multipart field file.
func pdfUpload() js {
	return object(js{"file": js{"type": "string", "format": "binary", "description": "a PDF of at most 20 MiB"}}, "file")
}

// The API reference entries of the page routes (routes.go).
var (
	opDocs           = op{summary: "This API's reference as a web page", tag: "system", kind: kindPage}
	opVerifyPage     = op{summary: "A page where anyone can drop a PDF to check its signature (HTML, no JavaScript)", tag: "signing", kind: kindPage}
	opVerifyPagePost = op{summary: "The /verify page's form (multipart/form-data, field file): the result as a page", tag: "signing",
		body: pdfUpload(), bodyType: "multipart/form-data", kind: kindPage, errs: []int{400, 413, 415, 429}}
	opSignPage = op{summary: "A signer's signing page (embedded signer; HTML without JavaScript): the documents and the Sign and Decline forms, or a waiting page while an earlier signer must sign first. An unknown or used link is a 404 with one and the same page",
		tag: "signing pages", kind: kindPage, errs: []int{404}}
	opSignSubmit = op{summary: "Sign: the typed full name and the consent, with the page's form token. 400 re-renders the page with the missing fields; 403 for a missing, stale or foreign form token or a cross-site request; 409 while an earlier signer must sign first",
		tag: "signing pages", bodyType: "application/x-www-form-urlencoded",
		body: object(js{"name": strDesc("the signer's full name, typed"), "consent": strDesc("present (any value) when the consent box is ticked"),
			"token": strDesc("the form token of the page")}, "name", "consent", "token"),
		kind: kindPage, errs: []int{400, 403, 404, 409}}
	opSignDecline = op{summary: "Decline with a reason, with the page's form token. Errors as for signing",
		tag: "signing pages", bodyType: "application/x-www-form-urlencoded",
		body: object(js{"reason": strDesc("why the signer declines"), "token": strDesc("the form token of the page")}, "reason", "token"),
		kind: kindPage, errs: []int{400, 403, 404, 409}}
	opSignDocument = op{summary: "Download a document through a signer's link, or through a template's document URL (which carries expires and sig)",
		tag: "signing pages", params: []param{
			{"expires", integer(), "expiry of a template document URL (Unix seconds)"},
			{"sig", str(), "signature of a template document URL"},
		}, kind: kindFile, errs: []int{404, 409}}
)

// page is the handler Services.Pages has for key ("METHOD path"), with
// the route's path variables as the request's path values; without
// Services.Pages it answers 501. With Services.Pages, a page route it has
// no handler for panics, and newServer panics when it holds a key that
// is no page route.
func (s *server) page(key string) http.HandlerFunc {
	h := s.svc.Pages[key]
	if h == nil {
		if s.svc.Pages != nil {
			panic(fmt.Sprintf("http: Services.Pages has no handler for the page %s", key))
		}
		return func(w http.ResponseWriter, r *http.Request) {
			s.failf(w, r, domain.ENOTIMPLEMENTED, "the page is not available in this configuration")
		}
	}
	s.mounted[key] = true
	return func(w http.ResponseWriter, r *http.Request) {
		for k, v := range mux.Vars(r) {
			r.SetPathValue(k, v)
		}
		h.ServeHTTP(w, r)
	}
}

// checkPages panics when Services.Pages holds a handler no page route
// took.
func (s *server) checkPages() {
	for key := range s.svc.Pages {
		if !s.mounted[key] {
			panic(fmt.Sprintf("http: Services.Pages has %s, which is no page route", key))
		}
	}
}
