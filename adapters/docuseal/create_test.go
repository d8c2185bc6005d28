package docuseal

import (
	"archive/zip"
	"bytes"
	"compress/zlib"
	"context"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/matryer/is"

	"counsel/adapters/docuseal/docusealtest"
	"counsel/domain"
	"counsel/domain/signing"
	"counsel/ports/porttest"
)

func TestCreateTemplatePlacesFieldsOnTheLastPage(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		docs      []signing.Document
		roles     []string
		wantKind  string
		wantRoles []string
		wantPage  int
	}{
		{
			name:     "one-page PDF, one role",
			docs:     []signing.Document{porttest.PDFDocument("agreement.pdf", 1)},
			roles:    []string{"Client"},
			wantKind: "pdf", wantRoles: []string{"Client"}, wantPage: 1,
		},
		{
			name:     "three-page PDF, unnamed roles",
			docs:     []signing.Document{porttest.PDFDocument("agreement.pdf", 3)},
			roles:    []string{"", "", ""},
			wantKind: "pdf", wantRoles: []string{"Signer 1", "Signer 2", "Signer 3"}, wantPage: 3,
		},
		{
			name:     "no roles gives one signer",
			docs:     []signing.Document{porttest.PDFDocument("agreement.pdf", 2)},
			wantKind: "pdf", wantRoles: []string{"Signer 1"}, wantPage: 2,
		},
		{
			name:     "DOCX",
			docs:     []signing.Document{porttest.DOCXDocument("letter.docx", "Dear client")},
			roles:    []string{"Client", "Firm"},
			wantKind: "docx", wantRoles: []string{"Client", "Firm"}, wantPage: 1,
		},
		{
			name:     "PDF then DOCX goes to the DOCX endpoint, fields on the DOCX",
			docs:     []signing.Document{porttest.PDFDocument("schedule.pdf", 4), porttest.DOCXDocument("letter.docx", "Dear client")},
			roles:    []string{"Client"},
			wantKind: "docx", wantRoles: []string{"Client"}, wantPage: 1,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			srv := docusealtest.NewServer(t)
			c := newTestClient(t, srv)
			tpl, err := c.CreateTemplate(context.Background(), signing.NewTemplate{Name: "Agreement", ExternalID: "ext-1", Roles: tt.roles, Documents: tt.docs})
			is.NoErr(err)                     // create template
			is.Equal(tpl.Roles, tt.wantRoles) // one role per signer

			got, ok := srv.Template(tpl.ID)
			is.True(ok)                                // stored
			is.Equal(got.Kind, tt.wantKind)            // right endpoint
			is.Equal(got.ExternalID, "ext-1")          // contract UUID kept
			is.Equal(len(got.Documents), len(tt.docs)) // every document
			for i, d := range tt.docs {
				is.Equal(got.Documents[i].Content, d.Content) // sent whole (base64)
				is.Equal(got.Documents[i].Name, d.FileName)   // file name kept
			}
			is.Equal(len(got.Fields), 2*len(tt.wantRoles)) // a signature and a date per role
			for i, role := range tt.wantRoles {
				sig, date := got.Fields[2*i], got.Fields[2*i+1]
				is.Equal(sig.Type, "signature") // signature first
				is.Equal(date.Type, "date")     // then the date
				for _, f := range []docusealtest.Field{sig, date} {
					is.Equal(f.Role, role)                        // the role's field
					is.True(f.Required)                           // must be filled
					is.Equal(len(f.Areas), 1)                     // one place
					is.Equal(f.Areas[0].Page, tt.wantPage)        // on the last page
					is.Equal(f.Areas[0].Document, len(tt.docs)-1) // of the last document
				}
			}
		})
	}
}

func TestFieldsStayOnThePage(t *testing.T) {
	t.Parallel()
	for _, n := range []int{1, 2, 5, 12, 40} {
		t.Run(formatID(int64(n))+" roles", func(t *testing.T) {
			is := is.New(t)
			fields := signatureFields(make([]string, n), 1)
			for _, f := range fields {
				a := f.Areas[0]
				is.True(a.X >= 0 && a.Y >= 0 && a.W > 0 && a.H > 0) // inside the page
				is.True(a.X+a.W <= 1 && a.Y+a.H <= 1)               // not past its edges
			}
			for i := 2; i < len(fields); i += 2 {
				prev, cur := fields[i-2].Areas[0], fields[i].Areas[0]
				is.True(cur.Y >= prev.Y+prev.H) // each row below the one above
			}
		})
	}
}

func TestCreateTemplateRefusesBadInput(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   signing.NewTemplate
		code string
	}{
		{"no documents", signing.NewTemplate{Name: "x"}, domain.EINVALID},
		{"duplicate roles", signing.NewTemplate{Roles: []string{"Client", "client"}, Documents: []signing.Document{porttest.PDFDocument("a.pdf", 1)}}, domain.EINVALID},
		{"a default name taken", signing.NewTemplate{Roles: []string{"Signer 2", ""}, Documents: []signing.Document{porttest.PDFDocument("a.pdf", 1)}}, domain.EINVALID},
		{"an image", signing.NewTemplate{Documents: []signing.Document{{FileName: "scan.png", ContentType: "image/png", Content: []byte("\x89PNG")}}}, domain.EUNSUPPORTED},
		{"unknown bytes", signing.NewTemplate{Documents: []signing.Document{{FileName: "x.bin", Content: []byte("hello")}}}, domain.EUNSUPPORTED},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			srv := docusealtest.NewServer(t)
			c := newTestClient(t, srv)
			_, err := c.CreateTemplate(context.Background(), tt.in)
			is.Equal(domain.ErrorCode(err), tt.code) // refused
			is.Equal(srv.Hits("", ""), 0)            // before calling DocuSeal
		})
	}
}

func TestDocumentKindBySniffing(t *testing.T) {
	t.Parallel()
	tests := []struct {
		doc  signing.Document
		want string
	}{
		{signing.Document{FileName: "a", Content: porttest.MinimalPDF(1)}, "pdf"},
		{signing.Document{FileName: "a.docx", ContentType: "application/octet-stream", Content: porttest.MinimalDOCX("x")}, "docx"},
		{signing.Document{FileName: "a.zip", Content: porttest.MinimalDOCX("x")}, ""},
		{signing.Document{FileName: "a.pdf", ContentType: "application/pdf; charset=binary", Content: []byte("%PDF-1.7")}, "pdf"},
	}
	for _, tt := range tests {
		t.Run(tt.doc.FileName, func(t *testing.T) {
			is := is.New(t)
			is.Equal(documentKind(tt.doc), tt.want) // kind
		})
	}
}

func TestTemplateRequestBody(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	srv := docusealtest.NewServer(t)
	c := newTestClient(t, srv)
	_, err := c.CreateTemplate(context.Background(), signing.NewTemplate{
		ExternalID: "c248ffba-ef81-48b7-8e17-e3cecda1c1c5",
		Roles:      []string{"Client"},
		Documents:  []signing.Document{{FileName: `C:\contracts\Deed`, ContentType: "application/pdf", Content: porttest.MinimalPDF(1)}},
	})
	is.NoErr(err) // create
	reqs := srv.Requests(http.MethodPost, "/api/templates/pdf")
	is.Equal(len(reqs), 1)                                           // one request
	is.Equal(reqs[0].Header.Get("X-Auth-Token"), srv.APIKey)         // authenticated
	is.Equal(reqs[0].Header.Get("Content-Type"), "application/json") // JSON
	var body struct {
		Name       string `json:"name"`
		ExternalID string `json:"external_id"`
		Documents  []struct {
			Name   string `json:"name"`
			File   string `json:"file"`
			Fields []struct {
				Name, Type, Role string
				Required         bool
				Areas            []struct {
					X, Y, W, H float64
					Page       int
				}
			} `json:"fields"`
		} `json:"documents"`
	}
	is.NoErr(json.Unmarshal(reqs[0].Body, &body))                     // JSON body
	is.Equal(body.Name, "Deed")                                       // named after the file without a name
	is.Equal(body.ExternalID, "c248ffba-ef81-48b7-8e17-e3cecda1c1c5") // contract UUID
	is.Equal(body.Documents[0].Name, "Deed.pdf")                      // base name with its extension
	raw, err := base64.StdEncoding.DecodeString(body.Documents[0].File)
	is.NoErr(err)                                                  // base64
	is.True(bytes.HasPrefix(raw, []byte("%PDF-")))                 // the PDF
	is.Equal(body.Documents[0].Fields[0].Name, "Client signature") // named fields
	is.Equal(body.Documents[0].Fields[0].Areas[0].Page, 1)         // page counted from 1
}

func TestCreateSubmissionRequestBody(t *testing.T) {
	t.Parallel()
	expire := time.Date(2026, 4, 1, 10, 0, 0, 0, time.FixedZone("AEST", 10*3600))
	tests := []struct {
		name string
		in   func(templateID string) signing.NewSubmission
		want string
	}{
		{
			name: "everything",
			in: func(id string) signing.NewSubmission {
				return signing.NewSubmission{
					TemplateID: id,
					Submitters: []signing.NewSubmitter{
						{Name: "Casey Client", Email: " client@example.com ", Phone: "+61400000001", Role: "Client"},
						{Name: "Pat Partner", Email: "partner@example.com", Role: "Firm"},
					},
					SendEmail: true, SendSMS: true, Order: signing.OrderRandom,
					Message:  signing.Message{Subject: "Please sign", Body: "Sign here: {{submitter.link}}"},
					ExpireAt: &expire,
					Name:     "Service agreement",
				}
			},
			want: `{"template_id":TID,"send_email":true,"send_sms":true,"order":"random","message":{"subject":"Please sign","body":"Sign here: {{submitter.link}}"},"expire_at":"2026-04-01T00:00:00Z","submitters":[{"name":"Casey Client","email":"client@example.com","phone":"+61400000001","role":"Client"},{"name":"Pat Partner","email":"partner@example.com","role":"Firm"}]}`,
		},
		{
			name: "defaults",
			in: func(id string) signing.NewSubmission {
				return signing.NewSubmission{TemplateID: id, Submitters: []signing.NewSubmitter{{Email: "a@example.com"}, {Email: "b@example.com"}}}
			},
			want: `{"template_id":TID,"send_email":false,"send_sms":false,"submitters":[{"email":"a@example.com","role":"Signer 1"},{"email":"b@example.com","role":"Signer 2"}]}`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			srv := docusealtest.NewServer(t)
			c := newTestClient(t, srv)
			roles := []string{"Client", "Firm"}
			if tt.name == "defaults" {
				roles = []string{"", ""}
			}
			tpl, err := c.CreateTemplate(context.Background(), pdfTemplate(roles...))
			is.NoErr(err) // template
			subs, err := c.CreateSubmission(context.Background(), tt.in(tpl.ID))
			is.NoErr(err)                        // submission
			is.Equal(len(subs[0].Submitters), 2) // both signers
			reqs := srv.Requests(http.MethodPost, "/api/submissions")
			is.Equal(len(reqs), 1)                                      // one request
			is.Equal(string(reqs[0].Body), replaceTID(tt.want, tpl.ID)) // exact body
		})
	}
}

func replaceTID(s, id string) string {
	return string(bytes.ReplaceAll([]byte(s), []byte("TID"), []byte(id)))
}

func TestCreateSubmissionRefusals(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	srv := docusealtest.NewServer(t)
	c := newTestClient(t, srv)
	tpl, err := c.CreateTemplate(context.Background(), pdfTemplate("Client"))
	is.NoErr(err) // one-role template

	_, err = c.CreateSubmission(context.Background(), signing.NewSubmission{TemplateID: tpl.ID, Submitters: []signing.NewSubmitter{{Email: "a@example.com"}, {Email: "b@example.com"}}})
	is.Equal(domain.ErrorCode(err), domain.EUPSTREAM)                                                                       // DocuSeal refuses
	is.Equal(domain.ErrorMessage(err), "DocuSeal refused the request (422): Defined more signing parties than in template") // and says why

	_, err = c.CreateSubmission(context.Background(), signing.NewSubmission{TemplateID: tpl.ID})
	is.Equal(domain.ErrorCode(err), domain.EINVALID) // no submitters
	_, err = c.CreateSubmission(context.Background(), signing.NewSubmission{TemplateID: tpl.ID, Order: "sequential", Submitters: []signing.NewSubmitter{{Email: "a@example.com"}}})
	is.Equal(domain.ErrorCode(err), domain.EINVALID)           // unknown order
	is.Equal(srv.Hits(http.MethodPost, "/api/submissions"), 1) // only the first reached DocuSeal
}

func TestPageCounting(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		pdf  []byte
		want int
	}{
		{"one page", porttest.MinimalPDF(1), 1},
		{"seven pages", porttest.MinimalPDF(7), 7},
		{"pages in an object stream", objectStreamPDF(t, 4), 4},
		{"a page rewritten by an incremental update counts once", append(porttest.MinimalPDF(2), []byte("4 0 obj\n<< /Type /Page /Parent 2 0 R >>\nendobj\n")...), 2},
		{"not a PDF", []byte("hello"), 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			is.Equal(pdfPages(tt.pdf), tt.want) // page count
		})
	}
}

func TestDOCXPages(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	is.Equal(docxPages(porttest.MinimalDOCX("x")), 1) // no app.xml: page 1
	is.Equal(docxPages(docxWithPages(t, 3)), 3)       // Word's count
	is.Equal(docxPages([]byte("not a zip")), 1)       // unreadable: page 1
}

// objectStreamPDF builds a PDF 1.5 whose page objects live in a compressed
// object stream, as most modern writers produce.
func objectStreamPDF(t *testing.T, pages int) []byte {
	t.Helper()
	var objs bytes.Buffer
	for i := 0; i < pages; i++ {
		objs.WriteString("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] >>\n")
	}
	objs.WriteString("<< /Type /Pages /Count " + formatID(int64(pages)) + " /Kids [] >>")
	var z bytes.Buffer
	zw := zlib.NewWriter(&z)
	zw.Write(objs.Bytes())
	zw.Close()
	var b bytes.Buffer
	b.WriteString("%PDF-1.5\n1 0 obj\n<< /Type /Catalog /Pages 2 0 R >>\nendobj\n")
	b.WriteString("5 0 obj\n<< /Type /ObjStm /N 5 /First 0 /Filter /FlateDecode /Length " + formatID(int64(z.Len())) + " >>\nstream\n")
	b.Write(z.Bytes())
	b.WriteString("\nendstream\nendobj\n%%EOF\n")
	return b.Bytes()
}

func docxWithPages(t *testing.T, pages int) []byte {
	t.Helper()
	src, err := zip.NewReader(bytes.NewReader(porttest.MinimalDOCX("x")), int64(len(porttest.MinimalDOCX("x"))))
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	zw := zip.NewWriter(&b)
	for _, f := range src.File {
		w, _ := zw.Create(f.Name)
		r, _ := f.Open()
		var buf bytes.Buffer
		buf.ReadFrom(r)
		r.Close()
		w.Write(buf.Bytes())
	}
	w, _ := zw.Create("docProps/app.xml")
	w.Write([]byte(`<?xml version="1.0" encoding="UTF-8" standalone="yes"?><Properties xmlns="http://schemas.openxmlformats.org/officeDocument/2006/extended-properties"><Pages>` + formatID(int64(pages)) + `</Pages><Words>1</Words></Properties>`))
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}
