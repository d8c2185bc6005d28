// Package porttest holds one acceptance suite per port. Every
// implementation of a port runs the same suite from its own tests, so the
// embedded signer and the DocuSeal adapter (against its fake server) are held
// to one contract, in the manner of ConduitIO's acceptance testing.
//
// The suites are ordinary Go code that takes a *testing.T; this package is
// imported only from _test.go files.
package porttest

import (
	"archive/zip"
	"bytes"
	"compress/flate"
	"context"
	"crypto/rand"
	"fmt"
	"hash/adler32"
	"strings"
	"testing"
	"time"

	"github.com/matryer/is"

	"counsel/domain"
	"counsel/domain/signing"
	"counsel/ports"
)

// DOCXContentType is the media type of Word documents.
const DOCXContentType = "application/vnd.openxmlformats-officedocument.wordprocessingml.document"

// SigningDriver gives the suite a fresh SigningProvider and lets it act as
// the signers, which no port method can do.
type SigningDriver interface {
	// Provider returns the implementation under test.
	Provider() ports.SigningProvider
	// Complete makes the submitter with email sign submission submissionID,
	// as that signer would through the provider's signing page.
	Complete(t *testing.T, submissionID, email string)
	// Decline makes the submitter with email decline submission
	// submissionID with reason.
	Decline(t *testing.T, submissionID, email, reason string)
}

// SigningWebhookDriver is a SigningDriver that can also produce the callback
// the provider sends about a change. Drivers that implement it get the
// webhook cases of the suite as well.
type SigningWebhookDriver interface {
	SigningDriver
	// Webhook returns a correctly authenticated callback (signature header
	// and raw body) for the change ev describes (Kind, SubmissionID and, for
	// submitter events, SubmitterEmail), and the time at which to check it.
	// The change itself must already have happened (see Complete, Decline).
	Webhook(t *testing.T, ev signing.Event) (header string, body []byte, now time.Time)
}

// SignatureHeader is the header a SigningWebhookDriver's signature goes in.
const SignatureHeader = "X-Docuseal-Signature"

// Headers returns a request's header lookup over h (names compared
// without regard to case).
func Headers(h map[string]string) func(string) string {
	return func(name string) string {
		for k, v := range h {
			if strings.EqualFold(k, name) {
				return v
			}
		}
		return ""
	}
}

// SigningProvider runs the acceptance suite of ports.SigningProvider.
// newDriver is called once per case, so every case starts from an empty
// provider.
func SigningProvider(t *testing.T, newDriver func(t *testing.T) SigningDriver) {
	ctx := context.Background()

	t.Run("CreateTemplate from one PDF keeps one role per signer", func(t *testing.T) {
		tests := []struct {
			name  string
			roles []string
			want  []string // "" where any distinct non-empty default is fine
		}{
			{name: "one named role", roles: []string{"Client"}, want: []string{"Client"}},
			{name: "three named roles", roles: []string{"Client", "Firm", "Witness"}, want: []string{"Client", "Firm", "Witness"}},
			{name: "unnamed roles get defaults", roles: []string{"", ""}, want: []string{"", ""}},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				is := is.New(t)
				p := newDriver(t).Provider()
				tpl, err := p.CreateTemplate(ctx, signing.NewTemplate{
					Name:       "Service agreement",
					ExternalID: "0b9a7f1e-5a4c-4a7e-9d3b-2f8f6c1d0e11",
					Roles:      tt.roles,
					Documents:  []signing.Document{PDFDocument("agreement.pdf", 2)},
				})
				is.NoErr(err)                            // create template
				is.True(tpl.ID != "")                    // template has an id
				is.Equal(tpl.Name, "Service agreement")  // name kept
				is.Equal(len(tpl.Roles), len(tt.want))   // one role per signer
				is.Equal(len(tpl.Documents), 1)          // one document
				is.True(tpl.Documents[0].FileName != "") // document has a file name
				is.True(!tpl.CreatedAt.IsZero())         // creation time set
				seen := map[string]bool{}
				for i, role := range tpl.Roles {
					is.True(role != "")  // roles are named
					is.True(!seen[role]) // roles are distinct
					seen[role] = true
					if tt.want[i] != "" {
						is.Equal(role, tt.want[i]) // named role kept in order
					}
				}
			})
		}
	})

	t.Run("CreateTemplate from a DOCX", func(t *testing.T) {
		is := is.New(t)
		p := newDriver(t).Provider()
		tpl, err := p.CreateTemplate(ctx, signing.NewTemplate{
			Name:       "Engagement letter",
			ExternalID: "7d1c2b3a-0000-4000-8000-000000000001",
			Roles:      []string{"Client", "Firm"},
			Documents:  []signing.Document{DOCXDocument("letter.docx", "Engagement letter")},
		})
		is.NoErr(err)                                   // create template
		is.True(tpl.ID != "")                           // template has an id
		is.Equal(tpl.Roles, []string{"Client", "Firm"}) // roles kept
		is.Equal(len(tpl.Documents), 1)                 // one document
	})

	t.Run("GetTemplate returns the created template", func(t *testing.T) {
		is := is.New(t)
		p := newDriver(t).Provider()
		created := mustTemplate(t, p, "Client", "Firm")
		got, err := p.GetTemplate(ctx, created.ID)
		is.NoErr(err)                                        // get template
		is.Equal(got.ID, created.ID)                         // same id
		is.Equal(got.Name, created.Name)                     // same name
		is.Equal(got.Roles, created.Roles)                   // same roles
		is.Equal(len(got.Documents), len(created.Documents)) // same documents
	})

	t.Run("unknown ids are ENOTFOUND", func(t *testing.T) {
		for _, id := range []string{"999999999", "no-such-id", ""} {
			t.Run(fmt.Sprintf("id %q", id), func(t *testing.T) {
				is := is.New(t)
				p := newDriver(t).Provider()
				_, err := p.GetTemplate(ctx, id)
				is.Equal(domain.ErrorCode(err), domain.ENOTFOUND) // unknown template
				_, err = p.GetSubmission(ctx, id)
				is.Equal(domain.ErrorCode(err), domain.ENOTFOUND) // unknown submission
			})
		}
	})

	t.Run("CreateSubmission with two submitters", func(t *testing.T) {
		for _, order := range []string{signing.OrderPreserved, signing.OrderRandom} {
			t.Run(order, func(t *testing.T) {
				is := is.New(t)
				p := newDriver(t).Provider()
				tpl := mustTemplate(t, p, "Client", "Firm")
				subs, err := p.CreateSubmission(ctx, twoSigners(tpl.ID, order))
				is.NoErr(err)          // create submission
				is.Equal(len(subs), 1) // one submission
				s := subs[0]
				is.True(s.ID != "")                                    // submission has an id
				is.Equal(s.TemplateID, tpl.ID)                         // template linked
				is.Equal(s.Status, signing.SubmissionPending)          // pending
				is.True(s.CompletedAt == nil)                          // not completed
				is.Equal(len(s.Submitters), 2)                         // both signers
				is.Equal(s.Submitters[0].Email, "client@example.com")  // first signer first
				is.Equal(s.Submitters[1].Email, "partner@example.com") // second signer second
				is.Equal(s.Submitters[0].Role, "Client")               // first role
				is.Equal(s.Submitters[1].Role, "Firm")                 // second role
				for _, sub := range s.Submitters {
					is.True(sub.ID != "")                                                                   // submitter has an id
					is.True(sub.EmbedSrc != "")                                                             // submitter has a signing link
					is.True(sub.Status == signing.SubmitterAwaiting || sub.Status == signing.SubmitterSent) // not yet acted
					is.True(sub.CompletedAt == nil && sub.DeclinedAt == nil)                                // no outcome yet
				}
			})
		}
	})

	t.Run("GetSubmission returns the created submission", func(t *testing.T) {
		is := is.New(t)
		p := newDriver(t).Provider()
		tpl := mustTemplate(t, p, "Client", "Firm")
		created := mustSubmission(t, p, twoSigners(tpl.ID, signing.OrderRandom))
		got, err := p.GetSubmission(ctx, created.ID)
		is.NoErr(err)                                           // get submission
		is.Equal(got.ID, created.ID)                            // same id
		is.Equal(got.TemplateID, tpl.ID)                        // template linked
		is.Equal(got.Status, signing.SubmissionPending)         // pending
		is.Equal(len(got.Submitters), 2)                        // both signers
		is.Equal(got.Submitters[0].Email, "client@example.com") // order kept
		is.True(!got.CreatedAt.IsZero())                        // creation time set
	})

	t.Run("ListSubmissions returns a template's submissions newest first", func(t *testing.T) {
		is := is.New(t)
		p := newDriver(t).Provider()
		tpl := mustTemplate(t, p, "Client", "Firm")
		other := mustTemplate(t, p, "Client", "Firm")
		first := mustSubmission(t, p, twoSigners(tpl.ID, signing.OrderRandom))
		mustSubmission(t, p, twoSigners(other.ID, signing.OrderRandom))
		second := mustSubmission(t, p, twoSigners(tpl.ID, signing.OrderRandom))

		got, err := p.ListSubmissions(ctx, tpl.ID)
		is.NoErr(err)                  // list submissions
		is.Equal(len(got), 2)          // only this template's submissions
		is.Equal(got[0].ID, second.ID) // newest first
		is.Equal(got[1].ID, first.ID)  // oldest last
		for _, s := range got {
			is.Equal(s.TemplateID, tpl.ID) // template linked
			is.Equal(len(s.Submitters), 2) // submitters included
		}

		none, err := p.ListSubmissions(ctx, mustTemplate(t, p, "Client").ID)
		is.NoErr(err)          // list of a template without submissions
		is.Equal(len(none), 0) // empty
	})

	t.Run("completing every signer completes the submission", func(t *testing.T) {
		for _, order := range []string{signing.OrderPreserved, signing.OrderRandom} {
			t.Run(order, func(t *testing.T) {
				is := is.New(t)
				d := newDriver(t)
				p := d.Provider()
				tpl := mustTemplate(t, p, "Client", "Firm")
				s := mustSubmission(t, p, twoSigners(tpl.ID, order))

				d.Complete(t, s.ID, "client@example.com")
				got, err := p.GetSubmission(ctx, s.ID)
				is.NoErr(err)                                                   // get after first signature
				is.Equal(got.Status, signing.SubmissionPending)                 // one signer left
				is.Equal(got.Submitters[0].Status, signing.SubmitterCompleted)  // first signed
				is.True(got.Submitters[0].CompletedAt != nil)                   // first signing time
				is.True(got.Submitters[1].Status != signing.SubmitterCompleted) // second not yet

				d.Complete(t, s.ID, "partner@example.com")
				got, err = p.GetSubmission(ctx, s.ID)
				is.NoErr(err)                                     // get after last signature
				is.Equal(got.Status, signing.SubmissionCompleted) // everyone signed
				is.True(got.CompletedAt != nil)                   // completion time
				for _, sub := range got.Submitters {
					is.Equal(sub.Status, signing.SubmitterCompleted) // signed
					is.True(sub.CompletedAt != nil)                  // signing time
				}
			})
		}
	})

	t.Run("a decline declines the submission", func(t *testing.T) {
		is := is.New(t)
		d := newDriver(t)
		p := d.Provider()
		tpl := mustTemplate(t, p, "Client", "Firm")
		s := mustSubmission(t, p, twoSigners(tpl.ID, signing.OrderRandom))

		d.Decline(t, s.ID, "partner@example.com", "The fee is wrong")
		got, err := p.GetSubmission(ctx, s.ID)
		is.NoErr(err)                                    // get after decline
		is.Equal(got.Status, signing.SubmissionDeclined) // declined
		is.True(got.CompletedAt == nil)                  // not completed
		dec := got.Submitters[1]
		is.Equal(dec.Status, signing.SubmitterDeclined)                // the signer declined
		is.Equal(dec.DeclineReason, "The fee is wrong")                // reason kept
		is.True(dec.DeclinedAt != nil)                                 // decline time
		is.True(got.Submitters[0].Status != signing.SubmitterDeclined) // the other did not
	})

	t.Run("BuilderToken is a token or ENOTIMPLEMENTED", func(t *testing.T) {
		is := is.New(t)
		p := newDriver(t).Provider()
		tok, err := p.BuilderToken(ctx, signing.BuilderTokenRequest{
			UserEmail:        "admin@example.com",
			IntegrationEmail: "lawyer@example.com",
			Name:             "Service agreement",
			ExternalID:       "0b9a7f1e-5a4c-4a7e-9d3b-2f8f6c1d0e11",
			ExpiresAt:        time.Now().Add(time.Hour),
		})
		if err != nil {
			is.Equal(domain.ErrorCode(err), domain.ENOTIMPLEMENTED) // no form builder
			is.Equal(tok, "")                                       // no token with an error
			return
		}
		is.True(tok != "") // a token
	})

	t.Run("ParseWebhook refuses an unsigned callback", func(t *testing.T) {
		is := is.New(t)
		p := newDriver(t).Provider()
		body := []byte(`{"event_type":"form.completed","timestamp":"2026-01-02T03:04:05Z","data":{"id":1,"submission_id":1}}`)
		events, err := p.ParseWebhook(Headers(nil), body, time.Now())
		is.Equal(domain.ErrorCode(err), domain.EUNAUTHORIZED) // missing signature
		is.Equal(len(events), 0)                              // no events
	})

	t.Run("webhooks report signing progress", func(t *testing.T) {
		if _, ok := newDriver(t).(SigningWebhookDriver); !ok {
			// The driver's provider reports changes some other way; the
			// cases above cover its state.
			return
		}
		t.Run("last signature completes", func(t *testing.T) {
			is := is.New(t)
			d := newDriver(t).(SigningWebhookDriver)
			p := d.Provider()
			tpl := mustTemplate(t, p, "Client", "Firm")
			s := mustSubmission(t, p, twoSigners(tpl.ID, signing.OrderPreserved))

			d.Complete(t, s.ID, "client@example.com")
			ev := parseOne(t, d, signing.Event{Kind: signing.EventSubmitterCompleted, SubmissionID: s.ID, SubmitterEmail: "client@example.com"})
			is.Equal(ev.Kind, signing.EventSubmitterCompleted) // submitter completed
			is.Equal(ev.SubmissionID, s.ID)                    // submission named
			is.Equal(ev.SubmitterEmail, "client@example.com")  // signer named
			is.True(!ev.AllCompleted)                          // one signer left

			d.Complete(t, s.ID, "partner@example.com")
			ev = parseOne(t, d, signing.Event{Kind: signing.EventSubmitterCompleted, SubmissionID: s.ID, SubmitterEmail: "partner@example.com"})
			is.Equal(ev.SubmitterEmail, "partner@example.com") // last signer named
			is.True(ev.AllCompleted)                           // everyone signed

			ev = parseOne(t, d, signing.Event{Kind: signing.EventSubmissionCompleted, SubmissionID: s.ID})
			is.Equal(ev.Kind, signing.EventSubmissionCompleted) // submission completed
			is.Equal(ev.SubmissionID, s.ID)                     // submission named
		})
		t.Run("decline carries the reason", func(t *testing.T) {
			is := is.New(t)
			d := newDriver(t).(SigningWebhookDriver)
			p := d.Provider()
			tpl := mustTemplate(t, p, "Client", "Firm")
			s := mustSubmission(t, p, twoSigners(tpl.ID, signing.OrderRandom))

			d.Decline(t, s.ID, "client@example.com", "Not this week")
			ev := parseOne(t, d, signing.Event{Kind: signing.EventSubmitterDeclined, SubmissionID: s.ID, SubmitterEmail: "client@example.com"})
			is.Equal(ev.Kind, signing.EventSubmitterDeclined) // declined
			is.Equal(ev.SubmissionID, s.ID)                   // submission named
			is.Equal(ev.Reason, "Not this week")              // reason kept
		})
		t.Run("a tampered body is refused", func(t *testing.T) {
			is := is.New(t)
			d := newDriver(t).(SigningWebhookDriver)
			p := d.Provider()
			tpl := mustTemplate(t, p, "Client", "Firm")
			s := mustSubmission(t, p, twoSigners(tpl.ID, signing.OrderRandom))
			d.Complete(t, s.ID, "client@example.com")
			header, body, now := d.Webhook(t, signing.Event{Kind: signing.EventSubmitterCompleted, SubmissionID: s.ID, SubmitterEmail: "client@example.com"})
			tampered := append(bytes.Clone(body), ' ')
			_, err := p.ParseWebhook(Headers(map[string]string{SignatureHeader: header}), tampered, now)
			is.Equal(domain.ErrorCode(err), domain.EUNAUTHORIZED) // body changed after signing
		})
	})
}

// parseOne has the driver produce the callback for ev and returns the one
// event the provider reads from it.
func parseOne(t *testing.T, d SigningWebhookDriver, ev signing.Event) signing.Event {
	t.Helper()
	header, body, now := d.Webhook(t, ev)
	events, err := d.Provider().ParseWebhook(Headers(map[string]string{SignatureHeader: header}), body, now)
	if err != nil {
		t.Fatalf("ParseWebhook(%s): %v", ev.Kind, err)
	}
	if len(events) != 1 {
		t.Fatalf("ParseWebhook(%s): got %d events, want 1: %+v", ev.Kind, len(events), events)
	}
	return events[0]
}

func mustTemplate(t *testing.T, p ports.SigningProvider, roles ...string) signing.Template {
	t.Helper()
	tpl, err := p.CreateTemplate(context.Background(), signing.NewTemplate{
		Name:       "Service agreement",
		ExternalID: newExternalID(t),
		Roles:      roles,
		Documents:  []signing.Document{PDFDocument("agreement.pdf", 1)},
	})
	if err != nil {
		t.Fatalf("CreateTemplate: %v", err)
	}
	return tpl
}

// newExternalID returns a fresh contract UUID: providers may update the
// template that already has an external id (DocuSeal does), so every
// template of a case needs its own.
func newExternalID(t *testing.T) string {
	t.Helper()
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		t.Fatalf("random external id: %v", err)
	}
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}

func mustSubmission(t *testing.T, p ports.SigningProvider, in signing.NewSubmission) signing.Submission {
	t.Helper()
	subs, err := p.CreateSubmission(context.Background(), in)
	if err != nil {
		t.Fatalf("CreateSubmission: %v", err)
	}
	if len(subs) != 1 {
		t.Fatalf("CreateSubmission: got %d submissions, want 1", len(subs))
	}
	return subs[0]
}

// twoSigners asks for a client and a partner of the firm to sign, without
// invitation emails so no provider sends mail from a test.
func twoSigners(templateID, order string) signing.NewSubmission {
	return signing.NewSubmission{
		TemplateID: templateID,
		Submitters: []signing.NewSubmitter{
			{Name: "Casey Client", Email: "client@example.com", Phone: "+61400000001", Role: "Client"},
			{Name: "Pat Partner", Email: "partner@example.com", Role: "Firm"},
		},
		SendEmail: false,
		Order:     order,
		Message:   signing.Message{Subject: "Please sign", Body: "The agreement is ready: {{submitter.link}}"},
		Name:      "Service agreement",
	}
}

// PDFDocument returns a signing.Document holding MinimalPDF(pages).
func PDFDocument(fileName string, pages int) signing.Document {
	return signing.Document{ID: "1", FileName: fileName, ContentType: "application/pdf", Content: MinimalPDF(pages)}
}

// DOCXDocument returns a signing.Document holding MinimalDOCX(text).
func DOCXDocument(fileName, text string) signing.Document {
	return signing.Document{ID: "2", FileName: fileName, ContentType: DOCXContentType, Content: MinimalDOCX(text)}
}

// MinimalPDF returns a small, valid PDF with the given number of A4 pages
// (at least one), each showing its page number. The cross-reference table
// has exact offsets, so strict readers accept it.
func MinimalPDF(pages int) []byte {
	if pages < 1 {
		pages = 1
	}
	// Objects: 1 catalog, 2 page tree, 3 font, then a page and its content
	// stream for every page.
	var objs []string
	kids := ""
	for i := 0; i < pages; i++ {
		kids += fmt.Sprintf("%d 0 R ", 4+2*i)
	}
	objs = append(objs,
		"<< /Type /Catalog /Pages 2 0 R >>",
		fmt.Sprintf("<< /Type /Pages /Kids [%s] /Count %d >>", kids, pages),
		"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
	)
	for i := 0; i < pages; i++ {
		content := fmt.Sprintf("BT /F1 24 Tf 72 770 Td (Page %d) Tj ET", i+1)
		objs = append(objs,
			fmt.Sprintf("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Resources << /Font << /F1 3 0 R >> >> /Contents %d 0 R >>", 5+2*i),
			fmt.Sprintf("<< /Length %d >>\nstream\n%s\nendstream", len(content), content),
		)
	}
	return PDFOf(objs)
}

// PDFOf writes a PDF 1.4 file of the objects objs (numbered from 1; the
// first is the catalog) with a cross-reference table of exact offsets.
func PDFOf(objs []string) []byte {
	var b bytes.Buffer
	b.WriteString("%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
	offsets := make([]int, len(objs))
	for i, o := range objs {
		offsets[i] = b.Len()
		fmt.Fprintf(&b, "%d 0 obj\n%s\nendobj\n", i+1, o)
	}
	xref := b.Len()
	fmt.Fprintf(&b, "xref\n0 %d\n0000000000 65535 f \n", len(objs)+1)
	for _, off := range offsets {
		fmt.Fprintf(&b, "%010d 00000 n \n", off)
	}
	fmt.Fprintf(&b, "trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n", len(objs)+1, xref)
	return b.Bytes()
}

// MinimalDOCX returns a small, valid Word document with one paragraph of
// text: a zip holding [Content_Types].xml, the package relationships and
// word/document.xml.
func MinimalDOCX(text string) []byte {
	files := []struct{ name, body string }{
		{"[Content_Types].xml", `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>`},
		{"_rels/.rels", `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>`},
		{"word/document.xml", `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body><w:p><w:r><w:t>` + xmlEscape(text) + `</w:t></w:r></w:p></w:body></w:document>`},
	}
	var b bytes.Buffer
	zw := zip.NewWriter(&b)
	for _, f := range files {
		w, err := zw.Create(f.name)
		if err != nil {
			panic(err) // writing to a bytes.Buffer cannot fail
		}
		if _, err := w.Write([]byte(f.body)); err != nil {
			panic(err)
		}
	}
	if err := zw.Close(); err != nil {
		panic(err)
	}
	return b.Bytes()
}

func xmlEscape(s string) string {
	var b bytes.Buffer
	for _, r := range s {
		switch r {
		case '&':
			b.WriteString("&amp;")
		case '<':
			b.WriteString("&lt;")
		case '>':
			b.WriteString("&gt;")
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// BombPDF returns a valid one-page PDF whose page content is a Flate
// stream decoding to about decoded bytes (white space after one line of
// text): a few hundred KiB on disk for hundreds of MiB decoded.
func BombPDF(decoded int) []byte {
	// One MiB of spaces after a window full of spaces deflates to the
	// same bytes every time: it is compressed once and repeated, and the
	// zlib trailer's checksum is computed over what it stands for.
	text := []byte("BT /F1 24 Tf 72 770 Td (Expanding) Tj ET\n")
	chunk := bytes.Repeat([]byte{' '}, 1<<20)
	var raw bytes.Buffer
	fw, _ := flate.NewWriter(&raw, flate.BestCompression)
	fw.Write(text)
	fw.Write(chunk)
	fw.Flush()
	head := bytes.Clone(raw.Bytes())
	raw.Reset()
	fw.Write(chunk)
	fw.Flush()
	repeat := bytes.Clone(raw.Bytes())
	var z bytes.Buffer
	z.Write([]byte{0x78, 0xda})
	z.Write(head)
	sum := adler32.New()
	sum.Write(text)
	sum.Write(chunk)
	for n := 1 << 20; n < decoded; n += len(chunk) {
		z.Write(repeat)
		sum.Write(chunk)
	}
	z.Write([]byte{0x03, 0x00}) // an empty final fixed block
	z.Write(sum.Sum(nil))
	return PDFOf([]string{
		"<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Resources << /Font << /F1 5 0 R >> >> /Contents 4 0 R >>",
		fmt.Sprintf("<< /Length %d /Filter /FlateDecode >>\nstream\n%s\nendstream", z.Len(), z.Bytes()),
		"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
	})
}
