package http

import (
	"errors"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"strings"

	"counsel/domain"
	"counsel/domain/contract"
)

// uploadBodyLimit is the body limit of the upload route: the largest
// document plus room for the multipart framing and small extra fields.
// The document's own limit (413 past contract.MaxDocumentSize) is checked
// on the file part itself.
const uploadBodyLimit = contract.MaxDocumentSize + 1<<20

// The API reference entries of the contract document routes (routes.go).
var (
	opAddDocument = op{summary: "Upload a PDF or DOCX document (multipart/form-data, field file; at most 20 MiB)", tag: "contracts",
		body: object(js{"file": js{"type": "string", "format": "binary", "contentMediaType": "application/octet-stream",
			"description": "a PDF or DOCX file of at most 20 MiB, recognised by its content (PDF: starts with %PDF-; DOCX: a zip holding word/document.xml), not by its name"}}, "file"), bodyType: "multipart/form-data", ok: 201, resp: ref("ContractDocumentDto"), errs: []int{400, 404, 409, 413, 415}}
	opDocuments       = op{summary: "A contract's documents", tag: "contracts", resp: ref("ContractDocumentListDto"), errs: []int{404}}
	opDocumentContent = op{summary: "A document's bytes, as an attachment (Range and If-None-Match are honoured)", tag: "contracts",
		desc: "Content-Type is the document's (application/pdf, the DOCX type, or application/octet-stream); Content-Disposition is attachment with filename and filename*; ETag is the quoted SHA-256.",
		kind: kindDownload, errs: []int{404}}
	opRemoveDocument = op{summary: "Remove a document (its row, then its file). Signed evidence (kind signed or audit) cannot be removed, nor any document while the contract is out for signature (WaitingForClientSignature): 409", tag: "contracts", ok: 204, errs: []int{404, 409}}
)

type documentDTO struct {
	ID          int64  `json:"id"`
	ContractID  int64  `json:"contractId"`
	FileName    string `json:"fileName" doc:"the uploaded file's name, without any folder part or control characters"`
	ContentType string `json:"contentType" enum:"application/pdf,application/vnd.openxmlformats-officedocument.wordprocessingml.document"`
	Size        int64  `json:"size" doc:"bytes"`
	SHA256      string `json:"sha256" doc:"lower-case hex SHA-256 of the bytes"`
	UploadedAt  Time   `json:"uploadedAt"`
	UploadedBy  int64  `json:"uploadedBy" doc:"the uploading user's id (0 for signed evidence)"`
	Kind        string `json:"kind" enum:"original,signed,audit" doc:"original: uploaded; signed: the combined, digitally signed PDF of a completed signing; audit: its audit certificate. Signed evidence cannot be removed (409)"`
}

type documentListDTO struct {
	Items []documentDTO `json:"items" doc:"every document of the contract, oldest first (at most 100; not paged)"`
}

func toDocument(d contract.Document) documentDTO {
	return documentDTO{ID: d.ID, ContractID: d.ContractID, FileName: d.FileName, ContentType: d.ContentType, Size: d.Size,
		SHA256: d.SHA256, UploadedAt: Time(d.UploadedAt), UploadedBy: d.UploadedBy, Kind: kindOf(d)}
}

func kindOf(d contract.Document) string {
	if d.Kind == "" {
		return contract.KindOriginal
	}
	return d.Kind
}

// uploadReader turns failures to read the request body into client
// errors: past the route's limit a 413, anything else (a malformed or cut
// off multipart body) a 400.
type uploadReader struct{ r io.Reader }

func (u uploadReader) Read(p []byte) (int, error) {
	n, err := u.r.Read(p)
	if err != nil && err != io.EOF {
		err = bodyError(err)
	}
	return n, err
}

func bodyError(err error) error {
	var mbe *http.MaxBytesError
	if errors.As(err, &mbe) {
		return domain.Errorf(domain.ETOOLARGE, "the request body is larger than %d bytes", mbe.Limit)
	}
	return &domain.Error{Code: domain.EINVALID, Message: "the upload could not be read: the multipart body is malformed or incomplete", Err: err}
}

// maxPartsBeforeFile bounds the parts read before the file: thousands of
// tiny parts within the body limit would otherwise cost a header parse
// each for nothing.
const maxPartsBeforeFile = 10

// filePart finds the part named file, reading past a few other parts. The
// file itself is not read here: the service streams it.
func filePart(r *http.Request) (*multipart.Part, error) {
	mr, err := r.MultipartReader()
	if err != nil {
		return nil, domain.Errorf(domain.EUNSUPPORTED, "send the document as multipart/form-data in the field file")
	}
	for n := 0; ; n++ {
		if n == maxPartsBeforeFile {
			return nil, domain.Invalid(map[string][]string{"file": {fmt.Sprintf("file must come within the first %d parts", maxPartsBeforeFile)}})
		}
		part, err := mr.NextPart()
		if err == io.EOF {
			return nil, domain.Invalid(map[string][]string{"file": {"file is required"}})
		}
		if err != nil {
			return nil, bodyError(err)
		}
		if part.FormName() == "file" {
			return part, nil
		}
	}
}

func (s *server) handleAddDocument() http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		id, err := pathID(r, "id")
		if err != nil {
			s.fail(w, r, err)
			return
		}
		part, err := filePart(r)
		if err != nil {
			s.fail(w, r, err)
			return
		}
		// part.FileName keeps only the last element of the client's path;
		// the domain cleans the rest.
		d, err := s.svc.Contracts.AddDocument(r.Context(), id, part.FileName(), uploadReader{part})
		if err == nil {
			w.Header().Set("Location", "/api/contracts/"+itoa(id)+"/documents/"+itoa(d.ID)+"/content")
		}
		s.reply(w, r, http.StatusCreated, toDocument(d), err)
	}
}

func (s *server) handleDocuments() http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		id, err := pathID(r, "id")
		if err != nil {
			s.fail(w, r, err)
			return
		}
		ds, err := s.svc.Contracts.Documents(r.Context(), id)
		if err != nil {
			s.fail(w, r, err)
			return
		}
		items := make([]documentDTO, len(ds))
		for i, d := range ds {
			items[i] = toDocument(d)
		}
		encode(w, http.StatusOK, documentListDTO{Items: items})
	}
}

// attrChar reports whether b may appear unencoded in an RFC 8187 value.
func attrChar(b byte) bool {
	return b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9' || strings.IndexByte("!#$&+-.^_`|~", b) >= 0
}

// contentDisposition builds an attachment header that is safe for any
// file name: filename* carries the exact name percent-encoded as UTF-8
// (RFC 6266, RFC 8187), and filename an ASCII fallback for old clients
// with anything risky (quotes, backslashes, controls, non-ASCII) replaced.
func contentDisposition(name string) string {
	var fallback, encoded strings.Builder
	for _, r := range name {
		if r >= 0x20 && r < 0x7f && r != '"' && r != '\\' && r != '%' {
			fallback.WriteRune(r)
		} else {
			fallback.WriteByte('_')
		}
	}
	const hexDigits = "0123456789ABCDEF"
	for i := 0; i < len(name); i++ {
		if b := name[i]; attrChar(b) {
			encoded.WriteByte(b)
		} else {
			encoded.WriteByte('%')
			encoded.WriteByte(hexDigits[b>>4])
			encoded.WriteByte(hexDigits[b&15])
		}
	}
	return `attachment; filename="` + fallback.String() + `"; filename*=UTF-8''` + encoded.String()
}

func (s *server) handleDocumentContent() http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		id, docID, err := pathIDs(r, "id", "docId")
		if err != nil {
			s.fail(w, r, err)
			return
		}
		d, rc, err := s.svc.Contracts.OpenDocument(r.Context(), id, docID)
		if err != nil {
			s.fail(w, r, err)
			return
		}
		defer rc.Close()
		h := w.Header()
		h.Set("Content-Type", d.ContentType)
		h.Set("Content-Disposition", contentDisposition(d.FileName))
		h.Set("ETag", `"`+d.SHA256+`"`)
		h.Set("Cache-Control", "private, no-cache")
		// The bytes are never rendered by the browser as a page.
		h.Set("Content-Security-Policy", "sandbox")
		http.ServeContent(w, r, "", d.UploadedAt, rc)
	}
}

func (s *server) handleRemoveDocument() http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		id, docID, err := pathIDs(r, "id", "docId")
		if err == nil {
			err = s.svc.Contracts.RemoveDocument(r.Context(), id, docID)
		}
		s.reply(w, r, http.StatusNoContent, nil, err)
	}
}
