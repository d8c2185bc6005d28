package pdfevidence_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/matryer/is"

	"counsel/adapters/pdfevidence"
	"counsel/adapters/pdfevidence/pdfforge"
	"counsel/domain"
	"counsel/domain/signing"
	"counsel/ports"
	"counsel/ports/porttest"
)

var at = time.Date(2026, 11, 21, 9, 30, 0, 0, time.UTC)

func newEvidence(t testing.TB, cn string) *pdfevidence.Evidence {
	t.Helper()
	certPEM, keyPEM, err := pdfevidence.NewIdentity(cn, at, nil)
	if err != nil {
		t.Fatal(err)
	}
	e, err := pdfevidence.New(certPEM, keyPEM, func() time.Time { return at })
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func sampleEvidence(docs int) signing.Evidence {
	signed := at.Add(time.Hour)
	ev := signing.Evidence{
		FirmName: "Smith & Partners", ContractUUID: "6f1c2a4e-0000-4000-8000-000000000001", ContractName: "Lease (unit 4)",
		SubmissionID: "7", CompletedAt: signed,
		Signers: []signing.EvidenceSigner{
			{Name: "Ana Silva", Email: "ana@example.com", Role: "Tenant", SignedName: "Ana Silva", IP: "203.0.113.9", UserAgent: "Mozilla/5.0 (X11) Firefox/140.0", SentAt: &at, OpenedAt: &at, SignedAt: &signed},
			{Name: "Bo Chen", Email: "bo@example.com", Role: "Landlord", SignedName: "Bo Chen", IP: "198.51.100.7", UserAgent: "curl/8.0", SentAt: &at, OpenedAt: &at, SignedAt: &signed},
		},
		Events: []signing.EvidenceEvent{{At: at, Text: "submitted for signing"}, {At: signed, Text: "every party has signed"}},
	}
	for i := 0; i < docs; i++ {
		ev.Documents = append(ev.Documents, signing.EvidenceDocument{FileName: "doc.pdf", ContentType: "application/pdf", Size: 100, SHA256: strings.Repeat("ab", 32), PDF: true})
	}
	return ev
}

func produce(t testing.TB, e *pdfevidence.Evidence, docs, pages int) (combined, audit []byte) {
	t.Helper()
	ev := sampleEvidence(docs)
	var pdfs []ports.EvidencePDF
	for i := 0; i < docs; i++ {
		pdfs = append(pdfs, ports.EvidencePDF{Index: i, Body: bytes.NewReader(porttest.MinimalPDF(pages))})
	}
	var c, a bytes.Buffer
	if err := e.Produce(context.Background(), ev, pdfs, &c, &a); err != nil {
		t.Fatal(err)
	}
	return c.Bytes(), a.Bytes()
}

func verify(t testing.TB, e *pdfevidence.Evidence, b []byte) (signing.Verification, error) {
	t.Helper()
	return e.Verify(context.Background(), bytes.NewReader(b), int64(len(b)))
}

func TestProduceAndVerify(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	e := newEvidence(t, "Smith & Partners")
	combined, audit := produce(t, e, 2, 3)
	is.True(bytes.HasPrefix(audit, []byte("%PDF-"))) // certificate is a PDF

	v, err := verify(t, e, combined)
	is.NoErr(err)
	is.True(v.Valid) // signed evidence verifies
	is.Equal(v.ContractUUID, "6f1c2a4e-0000-4000-8000-000000000001")
	is.Equal(len(v.Signers), 2)
	is.Equal(v.Signers[0].Email, "ana@example.com")

	t.Run("one changed byte", func(t *testing.T) {
		is := is.New(t)
		for _, pos := range []int{10, len(combined) / 2, len(combined) - 20} {
			bad := bytes.Clone(combined)
			bad[pos] ^= 0x01
			v, err := verify(t, e, bad)
			is.NoErr(err)
			is.True(!v.Valid) // changed byte
			is.True(v.Reason != "")
		}
	})
	t.Run("appended bytes", func(t *testing.T) {
		is := is.New(t)
		v, err := verify(t, e, append(bytes.Clone(combined), "\n% more\n"...))
		is.NoErr(err)
		is.True(!v.Valid)
		is.True(strings.Contains(v.Reason, "whole file"))
	})
	t.Run("another certificate", func(t *testing.T) {
		is := is.New(t)
		other := newEvidence(t, "Someone Else")
		v, err := verify(t, other, combined)
		is.NoErr(err)
		is.True(!v.Valid)
		is.True(strings.Contains(v.Reason, "certificate"))
	})
	t.Run("no signature", func(t *testing.T) {
		is := is.New(t)
		v, err := verify(t, e, porttest.MinimalPDF(1))
		is.NoErr(err)
		is.True(!v.Valid)
		is.True(strings.Contains(v.Reason, "no PDF signature"))
	})
	t.Run("not a PDF", func(t *testing.T) {
		is := is.New(t)
		_, err := verify(t, e, []byte("PK\x03\x04 hello"))
		is.Equal(domain.ErrorCode(err), domain.EUNSUPPORTED)
	})
}

func TestUnreadablePDFIsListedNotCombined(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	e := newEvidence(t, "Counsel")
	ev := sampleEvidence(2)
	pdfs := []ports.EvidencePDF{
		{Index: 0, Body: bytes.NewReader([]byte("%PDF-1.4\nnot really a pdf"))},
		{Index: 1, Body: bytes.NewReader(porttest.MinimalPDF(1))},
	}
	var c, a bytes.Buffer
	is.NoErr(e.Produce(context.Background(), ev, pdfs, &c, &a))
	v, err := verify(t, e, c.Bytes())
	is.NoErr(err)
	is.True(v.Valid)
	if txt, ok := pdftotext(t, a.Bytes()); ok {
		is.True(strings.Contains(txt, "could not be read as a PDF")) // the certificate says so
	}
}

func TestNewRefusesAMismatchedKey(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	cert, _, err := pdfevidence.NewIdentity("A", at, nil)
	is.NoErr(err)
	_, key, err := pdfevidence.NewIdentity("B", at, nil)
	is.NoErr(err)
	_, err = pdfevidence.New(cert, key, nil)
	is.True(err != nil) // key of another certificate
	_, err = pdfevidence.New([]byte("junk"), key, nil)
	is.True(err != nil) // no certificate
}

// TestPopplerAgrees checks the signature with poppler's pdfsig and the
// certificate's text with pdftotext, when they are installed.
func TestPopplerAgrees(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("pdfsig"); err != nil {
		t.Skip("pdfsig not found: install poppler-utils to run this test")
	}
	is := is.New(t)
	e := newEvidence(t, "Smith & Partners")
	combined, _ := produce(t, e, 2, 2)
	out := pdfsig(t, combined)
	is.True(strings.Contains(out, "Signature Validation: Signature is Valid"))         // pdfsig: valid
	is.True(strings.Contains(out, "Total document signed"))                            // whole file
	is.True(strings.Contains(out, "Signer Certificate Common Name: Smith & Partners")) // our certificate
	bad := bytes.Clone(combined)
	bad[200] ^= 1                                                    // in the first signed range
	is.True(!strings.Contains(pdfsig(t, bad), "Signature is Valid")) // pdfsig sees the change
}

// pdfsig runs poppler's pdfsig on b.
func pdfsig(t testing.TB, b []byte) string {
	t.Helper()
	f := filepath.Join(t.TempDir(), "signed.pdf")
	if err := os.WriteFile(f, b, 0o600); err != nil {
		t.Fatal(err)
	}
	out, _ := exec.Command("pdfsig", f).CombinedOutput()
	return string(out)
}

// pdftotext returns the text of b, or false when pdftotext is missing.
func pdftotext(t testing.TB, b []byte) (string, bool) {
	t.Helper()
	if _, err := exec.LookPath("pdftotext"); err != nil {
		t.Log("pdftotext not found: install poppler-utils to check the certificate's text")
		return "", false
	}
	f := filepath.Join(t.TempDir(), "doc.pdf")
	if err := os.WriteFile(f, b, 0o600); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("pdftotext", "-layout", f, "-").Output()
	if err != nil {
		t.Fatalf("pdftotext: %v", err)
	}
	return string(out), true
}

func BenchmarkEvidence(b *testing.B) {
	e := newEvidence(b, "Counsel")
	b.ReportAllocs()
	for b.Loop() {
		produce(b, e, 3, 10)
	}
}

// BenchmarkVerify20MiB verifies a signed PDF of 20 MiB read from disk:
// the whole file but the signature is hashed.
func BenchmarkVerify20MiB(b *testing.B) {
	e := newEvidence(b, "Counsel")
	signed, err := e.SignRaw(bigPDF(20<<20-40<<10), sampleEvidence(1))
	if err != nil {
		b.Fatal(err)
	}
	f := filepath.Join(b.TempDir(), "big.pdf")
	if err := os.WriteFile(f, signed, 0o600); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		fh, err := os.Open(f)
		if err != nil {
			b.Fatal(err)
		}
		st, err := fh.Stat()
		if err != nil {
			b.Fatal(err)
		}
		v, err := e.Verify(context.Background(), fh, st.Size())
		fh.Close()
		if err != nil || !v.Valid {
			b.Fatalf("verify: %v %+v", err, v)
		}
	}
}

// bigPDF is a one-page PDF of about n bytes: the bulk is a stream of
// pseudo-random bytes that no page uses.
func bigPDF(n int) []byte {
	bulk := make([]byte, n)
	x := uint32(2463534242)
	for i := range bulk {
		x ^= x << 13
		x ^= x >> 17
		x ^= x << 5
		bulk[i] = byte(x)
	}
	content := "BT /F1 24 Tf 72 770 Td (Large) Tj ET"
	objs := []string{
		"<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Resources << /Font << /F1 5 0 R >> >> /Contents 4 0 R >>",
		fmt.Sprintf("<< /Length %d >>\nstream\n%s\nendstream", len(content), content),
		"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
		fmt.Sprintf("<< /Length %d >>\nstream\n%s\nendstream", len(bulk), bulk),
	}
	return porttest.PDFOf(objs)
}

func FuzzVerify(f *testing.F) {
	e := newEvidence(f, "Counsel")
	combined, _ := produce(f, e, 1, 1)
	f.Add(combined)
	f.Add(porttest.MinimalPDF(1))
	f.Add([]byte("%PDF-1.7\n/ByteRange [0 10 20 5] /Contents <3003020100>"))
	f.Add([]byte("%PDF-/ByteRange[0 1 2 3]"))
	// The forgery of a genuine signature repackaged as attached content.
	if forged, err := pdfforge.Forge(combined, porttest.MinimalPDF(1), pdfforge.Summary); err == nil {
		f.Add(forged)
	} else {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		v, err := e.Verify(context.Background(), bytes.NewReader(b), int64(len(b)))
		if err != nil && domain.ErrorCode(err) != domain.EUNSUPPORTED {
			t.Fatalf("verify: %v", err)
		}
		if v.Valid && !bytes.Equal(b, combined) {
			t.Fatalf("a changed file verified")
		}
	})
}

// TestTextInEvidenceIsData: values with line breaks, literal "\n",
// controls and bidi characters add no line or field to the certificate
// or the stamp, as pdftotext reads them.
func TestTextInEvidenceIsData(t *testing.T) {
	t.Parallel()
	e := newEvidence(t, "Counsel")
	ev := sampleEvidence(1)
	inject := "\nIP address: 6.6.6.6"
	ev.ContractName = "Lease" + inject
	ev.Documents[0].FileName = `doc\nIP address: 6.6.6.6.pdf`
	ev.Signers[0].SignedName = `Ana Silva\nIP address: 6.6.6.6`
	ev.Signers[0].Name = "Ana\u202e" + inject
	ev.Signers[0].Email = "ana@example.com\r" + inject
	ev.Signers[0].Role = "Tenant\u2028IP address: 6.6.6.6"
	ev.Signers[0].UserAgent = "Mozilla/5.0" + inject + `\n   Signed: 1999-01-01`
	ev.Signers[0].IP = "203.0.113.9\x00" + inject
	declined := at.Add(time.Minute)
	ev.Signers[1].SignedAt, ev.Signers[1].DeclinedAt = nil, &declined
	ev.Signers[1].DeclineReason = "no\\nIP address: 6.6.6.6\n" + strings.Repeat("long ", 200)
	ev.Events = append(ev.Events, signing.EvidenceEvent{At: at, Text: "note" + inject})
	var c, a bytes.Buffer
	is := is.New(t)
	is.NoErr(e.Produce(context.Background(), ev, []ports.EvidencePDF{{Index: 0, Body: bytes.NewReader(porttest.MinimalPDF(1))}}, &c, &a))
	cert, ok := pdftotext(t, a.Bytes())
	if !ok {
		t.Skip("pdftotext not found: install poppler-utils to run this test")
	}
	fieldAt := regexp.MustCompile(`(?m)^\s*(IP address|Signed): `)
	is.Equal(len(fieldAt.FindAllString(cert, -1)), 2+1) // one IP address line per signer, one Signed line
	is.True(!regexp.MustCompile(`(?m)^\s*IP address: 6\.6\.6\.6`).MatchString(cert))
	is.True(strings.Contains(cert, "Typed signature: Ana Silva/nIP address: 6.6.6.6")) // the value, literally, on its line
	is.True(strings.Contains(cert, "..."))                                             // the long reason is cut
	whole, _ := pdftotext(t, c.Bytes())
	is.True(!regexp.MustCompile(`(?m)^\s*IP address: 6\.6\.6\.6`).MatchString(whole)) // nor in the stamp
	is.True(strings.Contains(whole, "/s/ Ana Silva/nIP address: 6.6.6.6 (ana@example.com IP address: 6.6.6.6), Tenant IP address: 6.6.6.6, signed"))
}
