package pages

import (
	_ "embed"
	"errors"
	"html/template"
	"io"
	"mime"
	"net/http"
	"strings"

	"counsel/domain"
	"counsel/ports"
)

// The embedded signer's pages: plain HTML forms that work without
// JavaScript, for signers who have no account. The slug in the path is
// the signer's credential, so every answer is uncacheable, sends no
// referrer (which would leak the slug to a document's host) and allows
// no script.

//go:embed sign.html
var signPagesHTML string

var signPageTemplates = template.Must(template.New("signpages").Parse(signPagesHTML))

// signPageHeaders are sent with every signing page and document. Only
// the origins of COUNSEL_FRAME_ANCESTORS may frame them.
func (p *Pages) signPageHeaders(h http.Header) {
	ancestors, xfo := signerFraming(p.opts.FrameAncestors)
	h.Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors "+ancestors)
	h.Set("X-Frame-Options", xfo)
	h.Set("Cache-Control", "no-store")
	h.Set("Referrer-Policy", "no-referrer")
}

// renderSignPage writes the named page with status.
func (p *Pages) renderSignPage(w http.ResponseWriter, r *http.Request, status int, name string, data any) {
	p.render(w, r, status, signPageTemplates, name, data, "signing page", p.signPageHeaders)
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
func (p *Pages) signPageFail(w http.ResponseWriter, r *http.Request, slug string, err error) {
	switch domain.ErrorCode(err) {
	case domain.ENOTFOUND:
		p.renderSignPage(w, r, http.StatusNotFound, "notfound", nil)
	case domain.ECONFLICT:
		data := signWaitingData{}
		if page, err := p.svc.SigningPages.Page(r.Context(), slug); err == nil {
			data.Title = page.Title
		}
		p.renderSignPage(w, r, http.StatusConflict, "waiting", data)
	case domain.EFORBIDDEN:
		p.renderSignPage(w, r, http.StatusForbidden, "forbidden", slug)
	case domain.EINVALID:
		p.renderSignPage(w, r, http.StatusBadRequest, "error", "The form could not be read.")
	default:
		p.log.ErrorContext(r.Context(), "signing page failed", "request_id", requestID(r), "err", err)
		p.renderSignPage(w, r, http.StatusInternalServerError, "error", "The request could not be completed (request id "+requestID(r)+").")
	}
}

// signPagesOff answers when no embedded signer is configured: the routes
// exist (the API reference lists them) but no link is valid.
func (p *Pages) signPagesOff(w http.ResponseWriter, r *http.Request) bool {
	if p.svc.SigningPages == nil {
		p.renderSignPage(w, r, http.StatusNotFound, "notfound", nil)
		return true
	}
	return false
}

func (p *Pages) handleSignPage() http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if p.signPagesOff(w, r) {
			return
		}
		slug := r.PathValue("slug")
		page, err := p.svc.SigningPages.Page(r.Context(), slug)
		if err != nil {
			p.signPageFail(w, r, slug, err)
			return
		}
		if page.Waiting {
			p.renderSignPage(w, r, http.StatusOK, "waiting", signWaitingData{Title: page.Title})
			return
		}
		p.renderSignPage(w, r, http.StatusOK, "sign", signPageData{Slug: slug, Page: page})
	}
}

// readSignForm checks that a form post is same-origin and parses it. It
// answers the request itself and returns false when it cannot go on.
func (p *Pages) readSignForm(w http.ResponseWriter, r *http.Request, cop *http.CrossOriginProtection, slug string) bool {
	if p.signPagesOff(w, r) {
		return false
	}
	if err := cop.Check(r); err != nil {
		p.signPageFail(w, r, slug, &domain.Error{Code: domain.EFORBIDDEN, Message: "cross-origin form post refused", Err: err})
		return false
	}
	if err := r.ParseForm(); err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			p.renderSignPage(w, r, http.StatusRequestEntityTooLarge, "error", "The form is too large.")
			return false
		}
		p.signPageFail(w, r, slug, &domain.Error{Code: domain.EINVALID, Message: "the form could not be read", Err: err})
		return false
	}
	return true
}

// showSignPageAgain renders the signing page again with field errors (400), or
// the page's own failure when it can no longer be shown.
func (p *Pages) showSignPageAgain(w http.ResponseWriter, r *http.Request, slug string, err error, name, reason string) {
	var de *domain.Error
	errors.As(err, &de)
	page, perr := p.svc.SigningPages.Page(r.Context(), slug)
	if perr != nil {
		p.signPageFail(w, r, slug, perr)
		return
	}
	if page.Waiting {
		p.renderSignPage(w, r, http.StatusConflict, "waiting", signWaitingData{Title: page.Title})
		return
	}
	errs := map[string][]string{}
	if de != nil {
		errs = de.Fields
	}
	p.renderSignPage(w, r, http.StatusBadRequest, "sign", signPageData{Slug: slug, Page: page, Errors: errs, Name: name, Reason: reason})
}

func (p *Pages) handleSignSubmit() http.HandlerFunc {
	cop := http.NewCrossOriginProtection()
	return func(w http.ResponseWriter, r *http.Request) {
		slug := r.PathValue("slug")
		if !p.readSignForm(w, r, cop, slug) {
			return
		}
		in := ports.SignInput{
			FormToken:  r.PostForm.Get("token"),
			Name:       r.PostForm.Get("name"),
			Consent:    r.PostForm.Get("consent") != "",
			ClientAddr: ports.RequestOf(r.Context()).IP,
			UserAgent:  r.UserAgent(),
		}
		res, err := p.svc.SigningPages.Sign(r.Context(), slug, in)
		switch {
		case domain.ErrorCode(err) == domain.EINVALID:
			p.showSignPageAgain(w, r, slug, err, in.Name, "")
		case err != nil:
			p.signPageFail(w, r, slug, err)
		default:
			p.renderSignPage(w, r, http.StatusOK, "signed", res)
		}
	}
}

func (p *Pages) handleSignDecline() http.HandlerFunc {
	cop := http.NewCrossOriginProtection()
	return func(w http.ResponseWriter, r *http.Request) {
		slug := r.PathValue("slug")
		if !p.readSignForm(w, r, cop, slug) {
			return
		}
		in := ports.DeclineInput{
			FormToken:  r.PostForm.Get("token"),
			Reason:     r.PostForm.Get("reason"),
			ClientAddr: ports.RequestOf(r.Context()).IP,
			UserAgent:  r.UserAgent(),
		}
		res, err := p.svc.SigningPages.Decline(r.Context(), slug, in)
		switch {
		case domain.ErrorCode(err) == domain.EINVALID:
			p.showSignPageAgain(w, r, slug, err, "", in.Reason)
		case err != nil:
			p.signPageFail(w, r, slug, err)
		default:
			p.renderSignPage(w, r, http.StatusOK, "declined", res)
		}
	}
}

func (p *Pages) handleSignDocument() http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if p.signPagesOff(w, r) {
			return
		}
		slug := r.PathValue("slug")
		q := r.URL.Query()
		doc, err := p.svc.SigningPages.Document(r.Context(), ports.SigningDocumentRequest{
			Slug: slug, DocumentID: r.PathValue("docId"), Expires: q.Get("expires"), Signature: q.Get("sig"),
		})
		if err != nil {
			p.signPageFail(w, r, slug, err)
			return
		}
		defer doc.Body.Close()
		p.signPageHeaders(w.Header())
		h := w.Header()
		h.Set("Content-Type", doc.ContentType)
		disposition := mime.FormatMediaType("attachment", map[string]string{"filename": doc.FileName})
		if disposition == "" {
			disposition = "attachment"
		}
		h.Set("Content-Disposition", disposition)
		w.WriteHeader(http.StatusOK)
		if _, err := io.Copy(w, doc.Body); err != nil {
			p.log.WarnContext(r.Context(), "signing document copy", "request_id", requestID(r), "err", err)
		}
	}
}

// signerFraming returns the frame-ancestors source list and the
// X-Frame-Options value of the signer's pages: 'none' and DENY without
// allowed origins; the origins and SAMEORIGIN otherwise (browsers that
// know frame-ancestors ignore X-Frame-Options when it is present, and
// the few that do not fall back to refusing other sites).
func signerFraming(origins []string) (ancestors, xfo string) {
	if len(origins) == 0 {
		return "'none'", "DENY"
	}
	return strings.Join(origins, " "), "SAMEORIGIN"
}
