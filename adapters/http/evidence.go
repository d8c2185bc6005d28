package http

import (
	"bytes"
	_ "embed"
	"html/template"
	"net/http"

	"counsel/domain"
	"counsel/domain/signing"
)

// The public side of signed evidence (docs/decisions.md §13): the signing
// certificate, and checking a PDF through the API or the /verify page.
// Both verify routes stream the upload to a temporary file; they are
// limited per client address like the sign-in routes.

//go:embed verify.html
var verifyHTML string

var verifyTemplate = template.Must(template.New("verify").Parse(verifyHTML))

func (s *server) evidenceRoutes() []route {
	const tag = "signing"
	h := s.needEvidence
	upload := object(js{"file": js{"type": "string", "format": "binary", "description": "a PDF of at most 20 MiB"}}, "file")
	return optionalModule([]route{
		{method: "GET", path: "/.well-known/counsel-signing.pem", access: public, handler: h(s.handleSigningCertificate()),
			op: op{summary: "The certificate (chain) the embedded signer's evidence is signed with, PEM: import it into a PDF reader to trust the signature",
				tag: "system", resp: str(), respType: "application/x-pem-file", headers: []string{"Content-Disposition", "Cache-Control"}}},
		{method: "POST", path: "/api/signing/verify", access: public, limited: true, maxBody: uploadBodyLimit, handler: h(s.handleVerify()),
			op: op{summary: "Check whether a PDF is an unmodified document signed by this server (multipart/form-data, field file; at most 20 MiB): for which contract, by whom and when. A PDF without a valid signature is a 200 with valid false and the reason; a file that is not a PDF is a 415",
				tag: tag, body: upload, bodyType: "multipart/form-data", resp: ref("SigningVerificationDto"), errs: []int{400, 413, 415, 429}}},
		{method: "GET", path: "/verify", access: public, handler: h(s.handleVerifyPage()),
			op: op{summary: "A page where anyone can drop a PDF to check its signature (HTML, no JavaScript)", tag: tag, kind: kindPage}},
		{method: "POST", path: "/verify", access: public, limited: true, maxBody: uploadBodyLimit, handler: h(s.handleVerifyPagePost()),
			op: op{summary: "The /verify page's form (multipart/form-data, field file): the result as a page", tag: tag,
				body: upload, bodyType: "multipart/form-data", kind: kindPage, errs: []int{400, 413, 415, 429}}},
	})
}

// needEvidence answers 501 without an evidence service.
func (s *server) needEvidence(h http.HandlerFunc) http.Handler {
	return s.need(s.svc.Evidence != nil, "signed evidence is", h)
}

type verifySignerDTO struct {
	Name     string `json:"name"`
	Email    string `json:"email"`
	SignedAt Time   `json:"signedAt"`
}

type verificationDTO struct {
	Valid           bool              `json:"valid" doc:"true only when the signature verifies, covers the whole file and was made with this server's certificate"`
	CounselDocument bool              `json:"counselDocument" doc:"the file is a combined PDF this server stored"`
	ContractUUID    *string           `json:"contractUUId" doc:"the contract the evidence belongs to (when valid)"`
	SignedAt        *Time             `json:"signedAt"`
	Signers         []verifySignerDTO `json:"signers"`
	SHA256          string            `json:"sha256" doc:"lower-case hex SHA-256 of the uploaded file"`
	Reason          string            `json:"reason" doc:"why the file is or is not valid"`
}

func toVerification(v signing.Verification) verificationDTO {
	d := verificationDTO{Valid: v.Valid, CounselDocument: v.CounselDocument, ContractUUID: nonEmpty(v.ContractUUID),
		SignedAt: timePtr(v.SignedAt), Signers: []verifySignerDTO{}, SHA256: v.SHA256, Reason: v.Reason}
	for _, p := range v.Signers {
		d.Signers = append(d.Signers, verifySignerDTO{Name: p.Name, Email: p.Email, SignedAt: Time(p.SignedAt)})
	}
	return d
}

func (s *server) handleSigningCertificate() http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/x-pem-file")
		w.Header().Set("Content-Disposition", `attachment; filename="counsel-signing.pem"`)
		w.Header().Set("Cache-Control", "public, max-age=3600")
		w.Write(s.svc.Evidence.SigningCertificatePEM())
	}
}

// verifyUpload verifies the file part of a multipart request.
func (s *server) verifyUpload(r *http.Request) (signing.Verification, error) {
	part, err := filePart(r)
	if err != nil {
		return signing.Verification{}, err
	}
	return s.svc.Evidence.VerifyPDF(r.Context(), uploadReader{part})
}

func (s *server) handleVerify() http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		v, err := s.verifyUpload(r)
		s.reply(w, r, http.StatusOK, toVerification(v), err)
	}
}

// verifyPageData is what the /verify template reads.
type verifyPageData struct {
	Result *verificationDTO
	Error  string
}

func (s *server) renderVerifyPage(w http.ResponseWriter, r *http.Request, status int, data verifyPageData) {
	var buf bytes.Buffer
	if err := verifyTemplate.Execute(&buf, data); err != nil {
		s.log.ErrorContext(r.Context(), "verify page", "request_id", requestID(r.Context()), "err", err)
		status = http.StatusInternalServerError
		buf.Reset()
		buf.WriteString("<!doctype html><title>Error</title><p>Something went wrong.</p>")
	}
	h := w.Header()
	h.Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'")
	h.Set("X-Frame-Options", "DENY")
	h.Set("Referrer-Policy", "same-origin")
	h.Set("Cache-Control", "no-store")
	h.Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	w.Write(buf.Bytes())
}

func (s *server) handleVerifyPage() http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		s.renderVerifyPage(w, r, http.StatusOK, verifyPageData{})
	}
}

func (s *server) handleVerifyPagePost() http.HandlerFunc {
	cop := http.NewCrossOriginProtection()
	return func(w http.ResponseWriter, r *http.Request) {
		if err := cop.Check(r); err != nil {
			s.renderVerifyPage(w, r, http.StatusForbidden, verifyPageData{Error: "The form did not come from this page."})
			return
		}
		v, err := s.verifyUpload(r)
		if err != nil {
			code := domain.ErrorCode(err)
			c, ok := codes[code]
			msg := domain.ErrorMessage(err)
			if !ok || code == domain.EINTERNAL {
				s.log.ErrorContext(r.Context(), "verify page failed", "request_id", requestID(r.Context()), "err", err)
				c, msg = codes[domain.EINTERNAL], "The file could not be checked (request id "+requestID(r.Context())+")."
			}
			s.renderVerifyPage(w, r, c, verifyPageData{Error: msg})
			return
		}
		d := toVerification(v)
		s.renderVerifyPage(w, r, http.StatusOK, verifyPageData{Result: &d})
	}
}
