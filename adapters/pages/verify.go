package pages

import (
	_ "embed"
	"errors"
	"fmt"
	"html/template"
	"io"
	"mime/multipart"
	"net/http"
	"time"

	"counsel/domain"
	"counsel/domain/signing"
)

// The /verify page (docs/decisions.md §13): anyone may drop a PDF to check
// that it is an unmodified document this server signed. The upload is
// streamed to the evidence service, never held here.

//go:embed verify.html
var verifyHTML string

var verifyTemplate = template.Must(template.New("verify").Parse(verifyHTML))

// needEvidence answers 501 with the page without an evidence service.
func (p *Pages) needEvidence(h http.HandlerFunc) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if p.svc.Evidence == nil {
			p.renderVerifyPage(w, r, http.StatusNotImplemented, verifyPageData{Error: "Signed evidence is not available on this server."})
			return
		}
		h(w, r)
	})
}

// stamp is a time as the page shows it: RFC 3339 in UTC.
type stamp time.Time

func (t stamp) String() string { return time.Time(t).UTC().Format(time.RFC3339) }

type verifySigner struct {
	Name, Email string
	SignedAt    stamp
}

// verification is what the page shows of a signing.Verification.
type verification struct {
	Valid, CounselDocument bool
	ContractUUID           *string
	SignedAt               *stamp
	Signers                []verifySigner
	SHA256, Reason         string
}

func toVerification(v signing.Verification) verification {
	d := verification{Valid: v.Valid, CounselDocument: v.CounselDocument, Signers: []verifySigner{}, SHA256: v.SHA256, Reason: v.Reason}
	if v.ContractUUID != "" {
		d.ContractUUID = &v.ContractUUID
	}
	if v.SignedAt != nil && !v.SignedAt.IsZero() {
		at := stamp(*v.SignedAt)
		d.SignedAt = &at
	}
	for _, s := range v.Signers {
		d.Signers = append(d.Signers, verifySigner{Name: s.Name, Email: s.Email, SignedAt: stamp(s.SignedAt)})
	}
	return d
}

// verifyPageData is what the /verify template reads.
type verifyPageData struct {
	Result *verification
	Error  string
}

func verifyPageHeaders(h http.Header) {
	h.Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'")
	h.Set("X-Frame-Options", "DENY")
	h.Set("Referrer-Policy", "same-origin")
	h.Set("Cache-Control", "no-store")
}

func (p *Pages) renderVerifyPage(w http.ResponseWriter, r *http.Request, status int, data verifyPageData) {
	p.render(w, r, status, verifyTemplate, "verify", data, "verify page", verifyPageHeaders)
}

func (p *Pages) handleVerifyPage() http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		p.renderVerifyPage(w, r, http.StatusOK, verifyPageData{})
	}
}

// verifyStatus is the status of a page that shows why a file could not
// be checked, for the errors a check answers; false for any other, which
// the page shows as a failure with the request id.
func verifyStatus(err error) (int, bool) {
	switch domain.ErrorCode(err) {
	case domain.EINVALID:
		return http.StatusBadRequest, true
	case domain.ETOOLARGE:
		return http.StatusRequestEntityTooLarge, true
	case domain.EUNSUPPORTED:
		return http.StatusUnsupportedMediaType, true
	case domain.ENOTIMPLEMENTED:
		return http.StatusNotImplemented, true
	}
	return 0, false
}

func (p *Pages) handleVerifyPagePost() http.HandlerFunc {
	cop := http.NewCrossOriginProtection()
	return func(w http.ResponseWriter, r *http.Request) {
		if err := cop.Check(r); err != nil {
			p.renderVerifyPage(w, r, http.StatusForbidden, verifyPageData{Error: "The form did not come from this page."})
			return
		}
		v, err := p.verifyUpload(r)
		if err != nil {
			c, ok := verifyStatus(err)
			msg := domain.ErrorMessage(err)
			if !ok {
				p.log.ErrorContext(r.Context(), "verify page failed", "request_id", requestID(r), "err", err)
				c, msg = http.StatusInternalServerError, "The file could not be checked (request id "+requestID(r)+")."
			}
			p.renderVerifyPage(w, r, c, verifyPageData{Error: msg})
			return
		}
		d := toVerification(v)
		p.renderVerifyPage(w, r, http.StatusOK, verifyPageData{Result: &d})
	}
}

// maxPartsBeforeFile bounds the form parts read before the file.
const maxPartsBeforeFile = 10

// verifyUpload verifies the part named file of the multipart form,
// streaming it to the evidence service.
func (p *Pages) verifyUpload(r *http.Request) (signing.Verification, error) {
	mr, err := r.MultipartReader()
	if err != nil {
		return signing.Verification{}, domain.Errorf(domain.EUNSUPPORTED, "send the document as multipart/form-data in the field file")
	}
	var part *multipart.Part
	for n := 0; part == nil; n++ {
		if n == maxPartsBeforeFile {
			return signing.Verification{}, domain.Invalid(map[string][]string{"file": {fmt.Sprintf("file must come within the first %d parts", maxPartsBeforeFile)}})
		}
		next, err := mr.NextPart()
		switch {
		case err == io.EOF:
			return signing.Verification{}, domain.Invalid(map[string][]string{"file": {"file is required"}})
		case err != nil:
			return signing.Verification{}, uploadError(err)
		case next.FormName() == "file":
			part = next
		}
	}
	return p.svc.Evidence.VerifyPDF(r.Context(), upload{part})
}

// upload reads the file part; a failed read is a domain error, so that
// the check answers it as the page's own error.
type upload struct{ part io.Reader }

func (u upload) Read(b []byte) (n int, err error) {
	if n, err = u.part.Read(b); err == nil || err == io.EOF {
		return n, err
	}
	return n, uploadError(err)
}

// uploadError is a failed read of the upload: too large past the body
// limit, invalid otherwise.
func uploadError(err error) error {
	if mbe := (*http.MaxBytesError)(nil); errors.As(err, &mbe) {
		return domain.Errorf(domain.ETOOLARGE, "the request body is larger than %d bytes", mbe.Limit)
	}
	return &domain.Error{Code: domain.EINVALID, Message: "the upload could not be read: the multipart body is malformed or incomplete", Err: err}
}
