package http

import (
	"net/http"

	"counsel/domain/signing"
)

// The public side of signed evidence (docs/decisions.md §13): the signing
// certificate, and checking a PDF through the API (the /verify page is in
// adapters/pages). The verify route streams the upload to a temporary
// file; it is limited per client address like the sign-in routes.

// The API reference entries of the signed evidence routes (routes.go).
var (
	opSigningCertificate = op{summary: "The certificate (chain) the embedded signer's evidence is signed with, PEM: import it into a PDF reader to trust the signature",
		tag: "system", resp: str(), respType: "application/x-pem-file", headers: []string{"Content-Disposition", "Cache-Control"}}
	opVerify = op{summary: "Check whether a PDF is an unmodified document signed by this server (multipart/form-data, field file; at most 20 MiB): for which contract, by whom and when. A PDF without a valid signature is a 200 with valid false and the reason; a file that is not a PDF is a 415",
		tag: "signing", body: pdfUpload(), bodyType: "multipart/form-data", resp: ref("SigningVerificationDto"), errs: []int{400, 413, 415, 429}}
)

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
