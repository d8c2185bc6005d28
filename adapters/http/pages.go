package http

import (
	"fmt"
	"net/http"

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

func (s *server) pageRoutes() []route {
	const tag = "signing pages"
	rs := []route{
		{method: "GET", path: "/docs", access: public,
			op: op{summary: "This API's reference as a web page", tag: "system", kind: kindPage}},
		{method: "GET", path: "/verify", access: public, module: true,
			op: op{summary: "A page where anyone can drop a PDF to check its signature (HTML, no JavaScript)", tag: "signing", kind: kindPage}},
		{method: "POST", path: "/verify", access: public, limited: true, maxBody: uploadBodyLimit, module: true,
			op: op{summary: "The /verify page's form (multipart/form-data, field file): the result as a page", tag: "signing",
				body: pdfUpload(), bodyType: "multipart/form-data", kind: kindPage, errs: []int{400, 413, 415, 429}}},
		{method: "GET", path: signSlug, access: public,
			op: op{summary: "A signer's signing page (embedded signer; HTML without JavaScript): the documents and the Sign and Decline forms, or a waiting page while an earlier signer must sign first. An unknown or used link is a 404 with one and the same page",
				tag: tag, kind: kindPage, errs: []int{404}}},
		{method: "POST", path: signSlug + "/sign", access: public, maxBody: signPageMaxBody,
			op: op{summary: "Sign: the typed full name and the consent, with the page's form token. 400 re-renders the page with the missing fields; 403 for a missing, stale or foreign form token or a cross-site request; 409 while an earlier signer must sign first",
				tag: tag, bodyType: "application/x-www-form-urlencoded",
				body: object(js{"name": strDesc("the signer's full name, typed"), "consent": strDesc("present (any value) when the consent box is ticked"),
					"token": strDesc("the form token of the page")}, "name", "consent", "token"),
				kind: kindPage, errs: []int{400, 403, 404, 409}}},
		{method: "POST", path: signSlug + "/decline", access: public, maxBody: signPageMaxBody,
			op: op{summary: "Decline with a reason, with the page's form token. Errors as for signing",
				tag: tag, bodyType: "application/x-www-form-urlencoded",
				body: object(js{"reason": strDesc("why the signer declines"), "token": strDesc("the form token of the page")}, "reason", "token"),
				kind: kindPage, errs: []int{400, 403, 404, 409}}},
		{method: "GET", path: signSlug + "/documents/{docId:[A-Za-z0-9_-]+}", access: public,
			op: op{summary: "Download a document through a signer's link, or through a template's document URL (which carries expires and sig)",
				tag: tag, params: []param{
					{"expires", integer(), "expiry of a template document URL (Unix seconds)"},
					{"sig", str(), "signature of a template document URL"},
				}, kind: kindFile, errs: []int{404, 409}}},
	}
	used := map[string]bool{}
	for i := range rs {
		key := rs[i].method + " " + rs[i].path
		h := s.svc.Pages[key]
		if h == nil && s.svc.Pages != nil {
			panic(fmt.Sprintf("http: Services.Pages has no handler for the page %s", key))
		}
		used[key] = true
		rs[i].handler = s.page(h)
		if rs[i].path == "/verify" {
			rs[i].handler = s.needEvidence(rs[i].handler.ServeHTTP)
		}
	}
	for key := range s.svc.Pages {
		if !used[key] {
			panic(fmt.Sprintf("http: Services.Pages has %s, which is no page route", key))
		}
	}
	return rs
}

// page serves a page's handler with the route's path variables as the
// request's path values; a page not wired answers 501.
func (s *server) page(h http.Handler) http.Handler {
	return s.need(h != nil, "the page is", func(w http.ResponseWriter, r *http.Request) {
		for k, v := range mux.Vars(r) {
			r.SetPathValue(k, v)
		}
		h.ServeHTTP(w, r)
	})
}
