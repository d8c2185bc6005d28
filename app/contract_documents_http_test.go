package app_test

import (
	"archive/zip"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"net/textproto"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/matryer/is"

	"counsel/app/apptest"
	"counsel/domain/account"
	"counsel/domain/contract"
	"counsel/ports/porttest"
)

// contractDOCX is a minimal WordprocessingML package: content types,
// relationships and a one-paragraph document.
func contractDOCX(t testing.TB) []byte {
	t.Helper()
	parts := []struct{ name, body string }{
		{"[Content_Types].xml", `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>`},
		{"_rels/.rels", `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>`},
		{"word/document.xml", `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body><w:p><w:r><w:t>Agreement</w:t></w:r></w:p></w:body></w:document>`},
	}
	var b bytes.Buffer
	z := zip.NewWriter(&b)
	for _, p := range parts {
		w, err := z.Create(p.name)
		if err != nil {
			t.Fatal(err)
		}
		io.WriteString(w, p.body)
	}
	if err := z.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// contractMultipart builds a multipart body with one file part.
func contractMultipart(field, fileName string, content io.Reader) (io.Reader, string) {
	pr, pw := io.Pipe()
	mw := multipart.NewWriter(pw)
	go func() {
		h := textproto.MIMEHeader{}
		h.Set("Content-Disposition", mime.FormatMediaType("form-data", map[string]string{"name": field, "filename": fileName}))
		h.Set("Content-Type", "application/octet-stream")
		w, err := mw.CreatePart(h)
		if err == nil {
			_, err = io.Copy(w, content)
		}
		if err == nil {
			err = mw.Close()
		}
		pw.CloseWithError(err)
	}()
	return pr, mw.FormDataContentType()
}

func contractUpload(t testing.TB, s *apptest.Server, tok string, id int64, fileName string, content []byte) *apptest.Response {
	t.Helper()
	body, ct := contractMultipart("file", fileName, bytes.NewReader(content))
	req, err := http.NewRequest("POST", fmt.Sprintf("%s/api/contracts/%d/documents", s.URL, id), body)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", ct)
	req.Header.Set("Authorization", "Bearer "+tok)
	return s.Send(t, req)
}

// contractFiles lists the documents kept (the blobs in the database, on
// both engines) and the uploads waiting in the spool folder.
func contractFiles(t testing.TB, s *apptest.Server) (docs, tmp []string) {
	t.Helper()
	ctx := context.Background()
	var n int64
	if err := s.QueryRow(ctx, `SELECT count(*) FROM document_blobs`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	for i := int64(0); i < n; i++ {
		var key string
		if err := s.QueryRow(ctx, `SELECT storage_key FROM document_blobs ORDER BY storage_key LIMIT 1 OFFSET ?`, i).Scan(&key); err != nil {
			t.Fatal(err)
		}
		docs = append(docs, key)
	}
	spool := s.Config.SpoolDir
	if spool == "" {
		spool = filepath.Join(s.Config.DataDir, "tmp")
	}
	es, err := os.ReadDir(spool)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range es {
		tmp = append(tmp, e.Name())
	}
	return docs, tmp
}

func TestContractDocuments(t *testing.T) {
	t.Parallel()
	s := apptest.New(t)
	admin := s.Admin(t)
	uid, editor := s.User(t, account.ContractEdit, account.ContractView)
	id := contractID(contractCreate(t, s, admin, map[string]any{"contractName": "With documents"}))
	pdf, docx := porttest.MinimalPDF(1), contractDOCX(t)

	var pdfDoc map[string]any
	t.Run("upload a PDF", func(t *testing.T) {
		is := is.New(t)
		r := contractUpload(t, s, editor, id, "Lease – signed ✓.pdf", pdf)
		is.Equal(r.Status, 201)
		pdfDoc = r.Map(t)
		is.Equal(contractKeys(pdfDoc), []string{"contentType", "contractId", "fileName", "id", "kind", "sha256", "size", "uploadedAt", "uploadedBy"}) // exactly these fields
		is.Equal(pdfDoc["kind"], "original")                                                                                                          // an upload
		sum := sha256.Sum256(pdf)
		is.Equal(pdfDoc["sha256"], hex.EncodeToString(sum[:])) // checksum of the bytes
		is.Equal(pdfDoc["size"], float64(len(pdf)))            // size
		is.Equal(pdfDoc["contentType"], "application/pdf")     // from the content
		is.Equal(pdfDoc["fileName"], "Lease – signed ✓.pdf")   // the name as sent
		is.Equal(pdfDoc["contractId"], float64(id))            // its contract
		is.Equal(pdfDoc["uploadedBy"], float64(uid))           // who
		is.Equal(pdfDoc["uploadedAt"], "2026-11-21T09:30:00Z") // when
		is.Equal(r.Header.Get("Location"), fmt.Sprintf("/api/contracts/%d/documents/%d/content", id, contractID(pdfDoc)))
	})

	var docxDoc map[string]any
	t.Run("upload a DOCX named anything", func(t *testing.T) {
		is := is.New(t)
		r := contractUpload(t, s, editor, id, `C:\Users\me\draft.bin`, docx)
		is.Equal(r.Status, 201)
		docxDoc = r.Map(t)
		is.Equal(docxDoc["contentType"], contract.ContentTypeDOCX) // recognised by content, not name
		is.Equal(docxDoc["fileName"], "draft.bin")                 // no folder part
	})

	t.Run("list", func(t *testing.T) {
		is := is.New(t)
		r := s.Do(t, "GET", fmt.Sprintf("/api/contracts/%d/documents", id), editor, nil)
		is.Equal(r.Status, 200)
		var list struct{ Items []map[string]any }
		r.JSON(t, &list)
		is.Equal(len(list.Items), 2)    // both, in an items object
		is.Equal(list.Items[0], pdfDoc) // oldest first
		is.Equal(list.Items[1], docxDoc)
	})

	t.Run("content", func(t *testing.T) {
		is := is.New(t)
		r := s.Do(t, "GET", fmt.Sprintf("/api/contracts/%d/documents/%d/content", id, contractID(pdfDoc)), editor, nil)
		is.Equal(r.Status, 200)
		is.Equal(r.Body, pdf)                                     // the same bytes
		is.Equal(r.Header.Get("Content-Type"), "application/pdf") // its type
		is.Equal(r.Header.Get("X-Content-Type-Options"), "nosniff")
		cd := r.Header.Get("Content-Disposition")
		is.Equal(cd, `attachment; filename="Lease _ signed _.pdf"; filename*=UTF-8''Lease%20%E2%80%93%20signed%20%E2%9C%93.pdf`) // safely encoded
		_, params, err := mime.ParseMediaType(cd)
		is.NoErr(err)                                        // a valid header
		is.Equal(params["filename"], "Lease – signed ✓.pdf") // clients decode the exact name
		etag := r.Header.Get("ETag")
		is.Equal(etag, `"`+pdfDoc["sha256"].(string)+`"`) // the checksum

		req, _ := http.NewRequest("GET", fmt.Sprintf("%s/api/contracts/%d/documents/%d/content", s.URL, id, contractID(pdfDoc)), nil)
		req.Header.Set("Authorization", "Bearer "+editor)
		req.Header.Set("If-None-Match", etag)
		is.Equal(s.Send(t, req).Status, 304) // cached copy still good
		req.Header.Del("If-None-Match")
		req.Header.Set("Range", "bytes=0-4")
		rr := s.Send(t, req)
		is.Equal(rr.Status, 206)
		is.Equal(string(rr.Body), "%PDF-") // ranges work

		is.Equal(s.Do(t, "GET", fmt.Sprintf("/api/contracts/%d/documents/%d/content", id, 99999), editor, nil).Status, 404)
		other := contractID(contractCreate(t, s, admin, map[string]any{"contractName": "other"}))
		is.Equal(s.Do(t, "GET", fmt.Sprintf("/api/contracts/%d/documents/%d/content", other, contractID(pdfDoc)), editor, nil).Status, 404) // not through another contract
	})

	t.Run("header injection in a file name", func(t *testing.T) {
		is := is.New(t)
		r := contractUpload(t, s, editor, id, "a\"; filename=evil.exe\r\nX-Evil: 1.pdf", pdf)
		is.Equal(r.Status, 201)
		c := s.Do(t, "GET", fmt.Sprintf("/api/contracts/%d/documents/%d/content", id, contractID(r.Map(t))), editor, nil)
		is.Equal(c.Header.Get("X-Evil"), "") // no header smuggled
		_, params, err := mime.ParseMediaType(c.Header.Get("Content-Disposition"))
		is.NoErr(err)
		is.Equal(params["filename"], `a"; filename=evil.exeX-Evil: 1.pdf`) // controls dropped, the rest kept and encoded
	})

	t.Run("refused uploads", func(t *testing.T) {
		zipOnly := func() []byte {
			var b bytes.Buffer
			z := zip.NewWriter(&b)
			w, _ := z.Create("xl/workbook.xml")
			w.Write([]byte("<workbook/>"))
			z.Close()
			return b.Bytes()
		}()
		tests := []struct {
			name, file string
			content    []byte
			status     int
		}{
			{"text renamed to .pdf", "notes.pdf", []byte("This is plain text, not a PDF.\n"), 415},
			{"text renamed to .docx", "notes.docx", []byte("PK but not really a zip"), 415},
			{"a zip that is not a DOCX", "book.docx", zipOnly, 415},
			{"empty file", "empty.pdf", nil, 415},
			{"html", "page.pdf", []byte("<html><script>alert(1)</script></html>"), 415},
			{"one byte too large", "big.pdf", append([]byte("%PDF-"), make([]byte, contract.MaxDocumentSize-4)...), 413},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				is := is.New(t)
				docsBefore, _ := contractFiles(t, s)
				r := contractUpload(t, s, editor, id, tt.file, tt.content)
				is.Equal(r.Status, tt.status)
				contractProblem(t, r)
				docs, tmp := contractFiles(t, s)
				is.Equal(docs, docsBefore) // nothing kept
				is.Equal(len(tmp), 0)      // no partial file left behind
			})
		}
	})

	t.Run("exactly 20 MiB is accepted", func(t *testing.T) {
		is := is.New(t)
		big := append([]byte("%PDF-"), make([]byte, contract.MaxDocumentSize-5)...)
		r := contractUpload(t, s, editor, id, "big.pdf", big)
		is.Equal(r.Status, 201)
		is.Equal(r.Map(t)["size"], float64(contract.MaxDocumentSize)) // 20 MiB
	})

	t.Run("malformed requests", func(t *testing.T) {
		send := func(ct string, body io.Reader, length int64) *apptest.Response {
			req, _ := http.NewRequest("POST", fmt.Sprintf("%s/api/contracts/%d/documents", s.URL, id), body)
			req.Header.Set("Authorization", "Bearer "+editor)
			if ct != "" {
				req.Header.Set("Content-Type", ct)
			}
			if length >= 0 {
				req.ContentLength = length
			}
			return s.Send(t, req)
		}
		other, otherCT := contractMultipart("attachment", "x.pdf", bytes.NewReader(pdf))
		full, _ := io.ReadAll(func() io.Reader { b, _ := contractMultipart("file", "x.pdf", bytes.NewReader(pdf)); return b }())
		boundary := strings.TrimPrefix(strings.SplitN(string(full), "\r\n", 2)[0], "--")
		cut := full[:len(full)-len(boundary)-20] // the closing boundary and the end of the file are missing
		tests := []struct {
			name   string
			r      func() *apptest.Response
			status int
		}{
			{"JSON instead of multipart", func() *apptest.Response { return send("application/json", strings.NewReader(`{"file":"x"}`), -1) }, 415},
			{"no content type", func() *apptest.Response { return send("", bytes.NewReader(pdf), -1) }, 415},
			{"no file field", func() *apptest.Response { return send(otherCT, other, -1) }, 400},
			{"cut off", func() *apptest.Response {
				return send("multipart/form-data; boundary="+boundary, bytes.NewReader(cut), int64(len(cut)))
			}, 400},
			{"body over the route limit", func() *apptest.Response {
				n := int64(contract.MaxDocumentSize + 2<<20)
				return send("multipart/form-data; boundary=x", io.LimitReader(&zeros{n: n}, n), n)
			}, 413},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				is := is.New(t)
				docsBefore, _ := contractFiles(t, s)
				r := tt.r()
				is.Equal(r.Status, tt.status)
				contractProblem(t, r)
				docs, tmp := contractFiles(t, s)
				is.Equal(docs, docsBefore) // nothing kept
				is.Equal(len(tmp), 0)      // nothing half-written
			})
		}
	})

	t.Run("unknown contract", func(t *testing.T) {
		is := is.New(t)
		r := contractUpload(t, s, editor, 424242, "x.pdf", pdf)
		is.Equal(r.Status, 404)
		_, tmp := contractFiles(t, s)
		is.Equal(len(tmp), 0) // refused before reading the file
	})

	t.Run("remove", func(t *testing.T) {
		is := is.New(t)
		docsBefore, _ := contractFiles(t, s)
		path := fmt.Sprintf("/api/contracts/%d/documents/%d", id, contractID(docxDoc))
		r := s.Do(t, "DELETE", path, editor, nil)
		is.Equal(r.Status, 204)
		docs, _ := contractFiles(t, s)
		is.Equal(len(docs), len(docsBefore)-1)                             // the file is gone
		is.Equal(s.Do(t, "DELETE", path, editor, nil).Status, 404)         // and the row
		is.Equal(s.Do(t, "GET", path+"/content", editor, nil).Status, 404) // no content
		var page struct{ Items []map[string]any }
		s.Do(t, "GET", fmt.Sprintf("/api/contracts/%d/history", id), editor, nil).JSON(t, &page)
		is.Equal(page.Items[0]["action"], "documentRemoved")                      // audited
		is.True(strings.Contains(page.Items[0]["details"].(string), "draft.bin")) // naming the file
		is.Equal(page.Items[1]["action"], "documentAdded")                        // uploads audited too
	})

	t.Run("deleting the contract removes its files", func(t *testing.T) {
		is := is.New(t)
		c := contractID(contractCreate(t, s, admin, map[string]any{"contractName": "short-lived"}))
		is.Equal(contractUpload(t, s, editor, c, "a.pdf", pdf).Status, 201)
		is.Equal(contractUpload(t, s, editor, c, "b.docx", docx).Status, 201)
		docsBefore, _ := contractFiles(t, s)
		is.Equal(s.Do(t, "DELETE", fmt.Sprintf("/api/contracts/%d", c), admin, nil).Status, 204)
		docs, _ := contractFiles(t, s)
		is.Equal(len(docs), len(docsBefore)-2) // both files removed after the rows
		is.Equal(s.Do(t, "GET", fmt.Sprintf("/api/contracts/%d/documents", c), admin, nil).Status, 404)
	})

	t.Run("only ContractEdit may upload", func(t *testing.T) {
		is := is.New(t)
		_, viewer := s.User(t, account.ContractView)
		is.Equal(contractUpload(t, s, viewer, id, "x.pdf", pdf).Status, 403)
		_, tmp := contractFiles(t, s)
		is.Equal(len(tmp), 0) // refused before the body is read
	})
}

// TestContractDocumentRemovalOutForSignature holds the API to the one
// document-removal rule the console follows too (docs/decisions.md §5.4):
// while the contract is out for signature no document can be removed, the
// one sent nor another (409 problem+json with the reason); before and
// after, an original can.
func TestContractDocumentRemovalOutForSignature(t *testing.T) {
	t.Parallel()
	s := apptest.New(t)
	admin := s.Admin(t)
	is := is.New(t)
	id, doc := signingContract(t, s, admin, "Out for signature", 1)
	other := int64(contractUpload(t, s, admin, id, "annex.pdf", porttest.MinimalPDF(2)).Expect(t, 201, "upload").Map(t)["id"].(float64))
	spare := int64(contractUpload(t, s, admin, id, "spare.pdf", porttest.MinimalPDF(3)).Expect(t, 201, "upload").Map(t)["id"].(float64))
	remove := func(docID int64) *apptest.Response {
		return s.Do(t, "DELETE", fmt.Sprintf("/api/contracts/%d/documents/%d", id, docID), admin, nil)
	}
	is.Equal(remove(spare).Status, 204) // a draft's document goes

	signingSubmit(t, s, admin, id, []int64{doc}, "preserved", "ann@client.example").Expect(t, 200, "submit")
	is.Equal(signingContractGet(t, s, admin, id)["status"], "WaitingForClientSignature")
	for _, d := range []int64{doc, other} {
		r := remove(d)
		is.Equal(r.Status, 409) // out for signature
		detail, _ := contractProblem(t, r)
		is.Equal(detail, contract.ErrOutForSignature) // with the reason
	}
	var list struct{ Items []map[string]any }
	s.Do(t, "GET", fmt.Sprintf("/api/contracts/%d/documents", id), admin, nil).Expect(t, 200, "list").JSON(t, &list)
	is.Equal(len(list.Items), 2) // both kept

	contractForce(t, s, id, contract.Declined, true)
	is.Equal(remove(other).Status, 204) // no longer out for signature
}

func TestContractDocumentLimitPerContract(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	s := apptest.New(t)
	admin := s.Admin(t)
	id := contractID(contractCreate(t, s, admin, map[string]any{"contractName": "many files"}))
	pdf := porttest.MinimalPDF(1)
	for i := 0; i < contract.MaxDocuments; i++ {
		if r := contractUpload(t, s, admin, id, fmt.Sprintf("f%d.pdf", i), pdf); r.Status != 201 {
			t.Fatalf("upload %d: %d %s", i, r.Status, r.Body)
		}
	}
	docsBefore, _ := contractFiles(t, s)
	r := contractUpload(t, s, admin, id, "one-too-many.pdf", pdf)
	is.Equal(r.Status, 409) // at most 100 documents
	docs, tmp := contractFiles(t, s)
	is.Equal(len(docs), len(docsBefore)) // the committed file was removed again
	is.Equal(len(tmp), 0)
}

// zeros reads n bytes of zeros after a PDF header, without holding them.
type zeros struct{ n int64 }

func (z *zeros) Read(p []byte) (int, error) {
	if z.n <= 0 {
		return 0, io.EOF
	}
	n := int(min(int64(len(p)), z.n))
	clear(p[:n])
	z.n -= int64(n)
	return n, nil
}

// uploadAlloc uploads one 20 MiB document streamed from a generator and
// returns the bytes allocated meanwhile by the whole process (client and
// server) and the growth of the heap in use.
func uploadAlloc(t testing.TB, s *apptest.Server, tok string, id int64) (total, heap uint64) {
	content := io.MultiReader(strings.NewReader("%PDF-"), &zeros{n: contract.MaxDocumentSize - 5})
	body, ct := contractMultipart("file", "big.pdf", content)
	req, err := http.NewRequest("POST", fmt.Sprintf("%s/api/contracts/%d/documents", s.URL, id), body)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", ct)
	req.Header.Set("Authorization", "Bearer "+tok)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	r := s.Send(t, req)
	runtime.ReadMemStats(&after)
	if r.Status != 201 {
		t.Fatalf("upload: %d %s", r.Status, r.Body)
	}
	return after.TotalAlloc - before.TotalAlloc, after.HeapInuse - min(after.HeapInuse, before.HeapInuse)
}

// TestContractUploadStreams checks that a 20 MiB upload is never held in
// memory: the whole process allocates a small fraction of the file.
func TestContractUploadStreams(t *testing.T) {
	is := is.New(t)
	s := apptest.New(t)
	admin := s.Admin(t)
	id := contractID(contractCreate(t, s, admin, map[string]any{"contractName": "streamed"}))
	uploadAlloc(t, s, admin, id) // warm up connections and pools
	total, heap := uploadAlloc(t, s, admin, id)
	t.Logf("20 MiB upload: %d bytes allocated, heap in use grew by %d bytes", total, heap)
	is.True(total < 4<<20) // far less than the file: streamed, not buffered
}

// BenchmarkContractUpload20MiB reports the memory one 20 MiB upload
// allocates (B/op covers client and server in this process).
func BenchmarkContractUpload20MiB(b *testing.B) {
	s := apptest.New(b)
	admin := s.Admin(b)
	id := contractID(contractCreate(b, s, admin, map[string]any{"contractName": "bench"}))
	b.ReportAllocs()
	b.SetBytes(contract.MaxDocumentSize)
	var total, heap uint64
	for b.Loop() {
		t, h := uploadAlloc(b, s, admin, id)
		total, heap = total+t, max(heap, h)
		// Keep under the per-contract limit.
		if r := s.Do(b, "GET", fmt.Sprintf("/api/contracts/%d/documents", id), admin, nil); strings.Count(string(r.Body), `"id"`) >= contract.MaxDocuments-1 {
			id = contractID(contractCreate(b, s, admin, map[string]any{"contractName": "bench"}))
		}
	}
	b.ReportMetric(float64(heap), "max-heap-growth-B")
}
