package console

import (
	"crypto/hmac"
	"errors"
	"io"
	"mime"
	"net/http"
	"strconv"
	"time"

	"github.com/gorilla/mux"

	"counsel/domain"
	"counsel/domain/contract"
)

// Documents: upload (multipart, streamed to the use case), download and
// delete. The upload form carries its CSRF token as the first part, so
// the file is never buffered before the token is checked.

// maxPartsBeforeFile bounds the parts read before the file.
const maxPartsBeforeFile = 4

// uploadXHR marks an upload sent by console.js, which shows progress: on
// success it gets 204 and the address to go to instead of a redirect.
const uploadXHR = "X-Counsel-Upload"

func (c *console) documentUpload(w http.ResponseWriter, r *http.Request, p *page) {
	id := pathID(r)
	if r.ContentLength > contract.MaxDocumentSize+uploadSlack {
		// Said before reading: the file would be refused at its end.
		c.contractFail(w, r, p, id, false, fileError(domain.Errorf(domain.ETOOLARGE, "the file is larger than %d MiB", contract.MaxDocumentSize>>20)))
		return
	}
	mr, err := r.MultipartReader()
	if err != nil {
		c.errorPage(w, r, http.StatusBadRequest, "Bad request", "Send the document with the upload form.")
		return
	}
	csrfOK := false
	for n := 0; ; n++ {
		part, perr := mr.NextPart()
		if perr != nil || n == maxPartsBeforeFile {
			err = domain.Invalid(map[string][]string{"file": {"choose a PDF or DOCX file"}})
			if !csrfOK {
				c.errorPage(w, r, http.StatusForbidden, "Form expired",
					"The form was out of date or did not come from this site. Go back, reload the page and try again.")
				return
			}
			break
		}
		switch part.FormName() {
		case "csrf":
			b, _ := io.ReadAll(io.LimitReader(part, 200))
			csrfOK = hmac.Equal(b, []byte(p.CSRF))
			continue
		case "file":
			if !csrfOK {
				c.errorPage(w, r, http.StatusForbidden, "Form expired",
					"The form was out of date or did not come from this site. Go back, reload the page and try again.")
				return
			}
			if part.FileName() == "" {
				err = domain.Invalid(map[string][]string{"file": {"choose a PDF or DOCX file"}})
				break
			}
			var d contract.Document
			d, err = c.svc.Contracts.AddDocument(r.Context(), id, part.FileName(), readErrors{part})
			if err == nil {
				msg := "Uploaded " + d.FileName + "."
				if r.Header.Get(uploadXHR) != "" {
					c.setFlash(w, msg)
					w.Header().Set(uploadXHR, contractPath(id)+"#documents")
					w.WriteHeader(http.StatusNoContent)
					return
				}
				c.redirect(w, r, contractPath(id)+"#documents", msg)
				return
			}
		default:
			continue
		}
		break
	}
	c.contractFail(w, r, p, id, false, fileError(err))
}

// uploadSlack is what an upload's body may hold beyond the file: the
// token, the multipart framing and the file's headers.
const uploadSlack = 64 << 10

// fileError puts an error of the file at the file input.
func fileError(err error) error {
	var de *domain.Error
	if errors.As(err, &de) && len(de.Fields) == 0 {
		switch de.Code {
		case domain.ETOOLARGE, domain.EUNSUPPORTED, domain.EINVALID, domain.ECONFLICT:
			return &domain.Error{Code: de.Code, Message: de.Message, Fields: map[string][]string{"file": {de.Message}}}
		}
	}
	return err
}

// readErrors turns a broken upload (cut off, past the size limit) into a
// client error rather than an internal one.
type readErrors struct{ r io.Reader }

func (u readErrors) Read(b []byte) (int, error) {
	n, err := u.r.Read(b)
	if err != nil && err != io.EOF {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return n, domain.Errorf(domain.ETOOLARGE, "the file is larger than %d MiB", contract.MaxDocumentSize>>20)
		}
		return n, &domain.Error{Code: domain.EINVALID, Message: "the upload was cut off; try again", Err: err}
	}
	return n, err
}

func docPathID(r *http.Request) int64 {
	n, _ := strconv.ParseInt(mux.Vars(r)["doc"], 10, 64)
	return n
}

// documentDownload sends a document's bytes as an attachment.
func (c *console) documentDownload(w http.ResponseWriter, r *http.Request, p *page) {
	d, rc, err := c.svc.Contracts.OpenDocument(r.Context(), pathID(r), docPathID(r))
	if err != nil {
		c.fail(w, r, p, err)
		return
	}
	defer rc.Close()
	w.Header().Set("Content-Type", d.ContentType)
	w.Header().Set("Content-Disposition", mime.FormatMediaType("attachment", map[string]string{"filename": d.FileName}))
	http.ServeContent(w, r, "", time.Time{}, rc)
}

// documentDelete removes a document unless the contract is out for
// signature; a refusal is shown on the contract page with its reason.
func (c *console) documentDelete(w http.ResponseWriter, r *http.Request, p *page) {
	id := pathID(r)
	if err := c.svc.Contracts.RemoveDocument(r.Context(), id, docPathID(r)); err != nil {
		c.contractFail(w, r, p, id, false, err)
		return
	}
	c.redirect(w, r, contractPath(id)+"#documents", "Document removed.")
}
