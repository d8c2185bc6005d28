package http

import (
	"bytes"
	_ "embed"
	"errors"
	"html/template"
	"io"
	"mime"
	"net/http"

	"counsel/domain"
	"counsel/ports"
)

// The embedded signer's pages: plain HTML forms that work without
// JavaScript, for signers who have no account. The slug in the path is
// the signer's credential, so every answer is uncacheable, sends no
// referrer (which would leak the slug to a document's host) and allows
// no script.

//go:embed signpages.html
var signPagesHTML string

var signPageTemplates = template.Must(template.New("signpages").Parse(signPagesHTML))

// signPageMaxBody bounds the forms: a name, a reason and a token.
const signPageMaxBody = 16 << 10

const signSlug = "/sign/{slug:[A-Za-z0-9_-]+}"

func (s *server) signPageRoutes() []route {
	const tag = "signing pages"
	return []route{
		{method: "GET", path: signSlug, access: public, handler: s.handleSignPage(),
			op: op{summary: "A signer's signing page (embedded signer; HTML without JavaScript): the documents and the Sign and Decline forms, or a waiting page while an earlier signer must sign first. An unknown or used link is a 404 with one and the same page",
				tag: tag, kind: kindPage, errs: []int{404}}},
		{method: "POST", path: signSlug + "/sign", access: public, maxBody: signPageMaxBody, handler: s.handleSignSubmit(),
			op: op{summary: "Sign: the typed full name and the consent, with the page's form token. 400 re-renders the page with the missing fields; 403 for a missing, stale or foreign form token or a cross-site request; 409 while an earlier signer must sign first",
				tag: tag, bodyType: "application/x-www-form-urlencoded",
				body: object(js{"name": strDesc("the signer's full name, typed"), "consent": strDesc("present (any value) when the consent box is ticked"),
					"token": strDesc("the form token of the page")}, "name", "consent", "token"),
				kind: kindPage, errs: []int{400, 403, 404, 409}}},
		{method: "POST", path: signSlug + "/decline", access: public, maxBody: signPageMaxBody, handler: s.handleSignDecline(),
			op: op{summary: "Decline with a reason, with the page's form token. Errors as for signing",
				tag: tag, bodyType: "application/x-www-form-urlencoded",
				body: object(js{"reason": strDesc("why the signer declines"), "token": strDesc("the form token of the page")}, "reason", "token"),
				kind: kindPage, errs: []int{400, 403, 404, 409}}},
		{method: "GET", path: signSlug + "/documents/{docId:[A-Za-z0-9_-]+}", access: public, handler: s.handleSignDocument(),
			op: op{summary: "Download a document through a signer's link, or through a template's document URL (which carries expires and sig)",
				tag: tag, params: []param{
					{"expires", integer(), "expiry of a template document URL (Unix seconds)"},
					{"sig", str(), "signature of a template document URL"},
				}, kind: kindFile, errs: []int{404, 409}}},
	}
}

// signPageHeaders are sent with every signing page and document. Only
// the origins of COUNSEL_FRAME_ANCESTORS may frame them.
func (s *server) signPageHeaders(w http.ResponseWriter) {
	h := w.Header()
	ancestors, xfo := signerFraming(s.opts.FrameAncestors)
	h.Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors "+ancestors)
	h.Set("X-Frame-Options", xfo)
	h.Set("Cache-Control", "no-store")
	h.Set("Referrer-Policy", "no-referrer")
}

// renderSignPage writes the named page with status.
func (s *server) renderSignPage(w http.ResponseWriter, r *http.Request, status int, name string, data any) {
	var buf bytes.Buffer
	if err := signPageTemplates.ExecuteTemplate(&buf, name, data); err != nil {
		s.log.ErrorContext(r.Context(), "signing page", "request_id", requestID(r.Context()), "page", name, "err", err)
		status = http.StatusInternalServerError
		buf.Reset()
		buf.WriteString("<!doctype html><title>Error</title><p>Something went wrong.</p>")
	}
	s.signPageHeaders(w)
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	w.Write(buf.Bytes())
}

// signPageData is what the signing page template reads.
type signPageData struct {
	Slug   string
	Page   ports.SigningPage
	Errors map[string][]string
	Name   string // the typed name, kept when the page is shown again
	Reason string
}

type signWaitingData struct{ Title string }

// signPageFail answers err as a page: the one not-found page, the
// waiting page, the form-expired page, or a generic error.
func (s *server) signPageFail(w http.ResponseWriter, r *http.Request, slug string, err error) {
	switch domain.ErrorCode(err) {
	case domain.ENOTFOUND:
		s.renderSignPage(w, r, http.StatusNotFound, "notfound", nil)
	case domain.ECONFLICT:
		data := signWaitingData{}
		if page, err := s.svc.SigningPages.Page(r.Context(), slug); err == nil {
			data.Title = page.Title
		}
		s.renderSignPage(w, r, http.StatusConflict, "waiting", data)
	case domain.EFORBIDDEN:
		s.renderSignPage(w, r, http.StatusForbidden, "forbidden", slug)
	case domain.EINVALID:
		s.renderSignPage(w, r, http.StatusBadRequest, "error", "The form could not be read.")
	default:
		s.log.ErrorContext(r.Context(), "signing page failed", "request_id", requestID(r.Context()), "err", err)
		s.renderSignPage(w, r, http.StatusInternalServerError, "error", "The request could not be completed (request id "+requestID(r.Context())+").")
	}
}

// signPagesOff answers when no embedded signer is configured: the routes
// exist (the API reference lists them) but no link is valid.
func (s *server) signPagesOff(w http.ResponseWriter, r *http.Request) bool {
	if s.svc.SigningPages == nil {
		s.renderSignPage(w, r, http.StatusNotFound, "notfound", nil)
		return true
	}
	return false
}

func (s *server) handleSignPage() http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if s.signPagesOff(w, r) {
			return
		}
		slug := muxVars(r)["slug"]
		page, err := s.svc.SigningPages.Page(r.Context(), slug)
		if err != nil {
			s.signPageFail(w, r, slug, err)
			return
		}
		if page.Waiting {
			s.renderSignPage(w, r, http.StatusOK, "waiting", signWaitingData{Title: page.Title})
			return
		}
		s.renderSignPage(w, r, http.StatusOK, "sign", signPageData{Slug: slug, Page: page})
	}
}

// readSignForm checks that a form post is same-origin and parses it. It
// answers the request itself and returns false when it cannot go on.
func (s *server) readSignForm(w http.ResponseWriter, r *http.Request, cop *http.CrossOriginProtection, slug string) bool {
	if s.signPagesOff(w, r) {
		return false
	}
	if err := cop.Check(r); err != nil {
		s.signPageFail(w, r, slug, &domain.Error{Code: domain.EFORBIDDEN, Message: "cross-origin form post refused", Err: err})
		return false
	}
	if err := r.ParseForm(); err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			s.renderSignPage(w, r, http.StatusRequestEntityTooLarge, "error", "The form is too large.")
			return false
		}
		s.signPageFail(w, r, slug, &domain.Error{Code: domain.EINVALID, Message: "the form could not be read", Err: err})
		return false
	}
	return true
}

// showSignPageAgain renders the signing page again with field errors (400), or
// the page's own failure when it can no longer be shown.
func (s *server) showSignPageAgain(w http.ResponseWriter, r *http.Request, slug string, err error, name, reason string) {
	var de *domain.Error
	errors.As(err, &de)
	page, perr := s.svc.SigningPages.Page(r.Context(), slug)
	if perr != nil {
		s.signPageFail(w, r, slug, perr)
		return
	}
	if page.Waiting {
		s.renderSignPage(w, r, http.StatusConflict, "waiting", signWaitingData{Title: page.Title})
		return
	}
	errs := map[string][]string{}
	if de != nil {
		errs = de.Fields
	}
	s.renderSignPage(w, r, http.StatusBadRequest, "sign", signPageData{Slug: slug, Page: page, Errors: errs, Name: name, Reason: reason})
}

func (s *server) handleSignSubmit() http.HandlerFunc {
	cop := http.NewCrossOriginProtection()
	return func(w http.ResponseWriter, r *http.Request) {
		slug := muxVars(r)["slug"]
		if !s.readSignForm(w, r, cop, slug) {
			return
		}
		in := ports.SignInput{
			FormToken:  r.PostForm.Get("token"),
			Name:       r.PostForm.Get("name"),
			Consent:    r.PostForm.Get("consent") != "",
			ClientAddr: s.clientAddr(r),
			UserAgent:  r.UserAgent(),
		}
		res, err := s.svc.SigningPages.Sign(r.Context(), slug, in)
		switch {
		case domain.ErrorCode(err) == domain.EINVALID:
			s.showSignPageAgain(w, r, slug, err, in.Name, "")
		case err != nil:
			s.signPageFail(w, r, slug, err)
		default:
			s.renderSignPage(w, r, http.StatusOK, "signed", res)
		}
	}
}

func (s *server) handleSignDecline() http.HandlerFunc {
	cop := http.NewCrossOriginProtection()
	return func(w http.ResponseWriter, r *http.Request) {
		slug := muxVars(r)["slug"]
		if !s.readSignForm(w, r, cop, slug) {
			return
		}
		in := ports.DeclineInput{
			FormToken:  r.PostForm.Get("token"),
			Reason:     r.PostForm.Get("reason"),
			ClientAddr: s.clientAddr(r),
			UserAgent:  r.UserAgent(),
		}
		res, err := s.svc.SigningPages.Decline(r.Context(), slug, in)
		switch {
		case domain.ErrorCode(err) == domain.EINVALID:
			s.showSignPageAgain(w, r, slug, err, "", in.Reason)
		case err != nil:
			s.signPageFail(w, r, slug, err)
		default:
			s.renderSignPage(w, r, http.StatusOK, "declined", res)
		}
	}
}

func (s *server) handleSignDocument() http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if s.signPagesOff(w, r) {
			return
		}
		slug := muxVars(r)["slug"]
		q := r.URL.Query()
		doc, err := s.svc.SigningPages.Document(r.Context(), ports.SigningDocumentRequest{
			Slug: slug, DocumentID: muxVars(r)["docId"], Expires: q.Get("expires"), Signature: q.Get("sig"),
		})
		if err != nil {
			s.signPageFail(w, r, slug, err)
			return
		}
		defer doc.Body.Close()
		s.signPageHeaders(w)
		h := w.Header()
		h.Set("Content-Type", doc.ContentType)
		disposition := mime.FormatMediaType("attachment", map[string]string{"filename": doc.FileName})
		if disposition == "" {
			disposition = "attachment"
		}
		h.Set("Content-Disposition", disposition)
		w.WriteHeader(http.StatusOK)
		if _, err := io.Copy(w, doc.Body); err != nil {
			s.log.WarnContext(r.Context(), "signing document copy", "request_id", requestID(r.Context()), "err", err)
		}
	}
}
