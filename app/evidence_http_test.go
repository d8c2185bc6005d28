package app_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"crypto/x509"
	"encoding/asn1"
	"encoding/hex"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/netip"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/matryer/is"
	"github.com/smallstep/pkcs7"

	"counsel/adapters/pdfevidence"
	"counsel/adapters/pdfevidence/pdfforge"
	"counsel/app"
	"counsel/app/apptest"
	"counsel/domain/signing"
	"counsel/ports"
	"counsel/ports/porttest"
)

// evidenceSigner is a signer of the evidence tests and how their request
// reaches the server.
type evidenceSigner struct {
	name, email, agent, forwardedFor, wantIP string
}

var evidenceSigners = []evidenceSigner{
	// Through a trusted proxy (127.0.0.1 is trusted below): the address
	// the proxy names is the signer's.
	{"Ana Silva", "ana@example.com", "EvidenceTest/1.0 (Ana's laptop)", "203.0.113.7", "203.0.113.7"},
	{"Bo Chen", "bo@example.com", "EvidenceTest/2.0 (Bo's phone)", "", "127.0.0.1"},
}

// evidenceContract makes a contract with two PDFs and a DOCX, submits
// it to the evidence signers and returns its id and the documents' SHA-256.
func evidenceContract(t testing.TB, s *apptest.Server, tok string) (int64, []string, signingSubmission) {
	t.Helper()
	id := contractID(contractCreate(t, s, tok, map[string]any{"contractName": "Office lease"}))
	var docs []int64
	var hashes []string
	for _, f := range []struct {
		name string
		b    []byte
	}{{"lease.pdf", porttest.MinimalPDF(2)}, {"annex.pdf", porttest.MinimalPDF(3)}, {"terms.docx", contractDOCX(t)}} {
		r := contractUpload(t, s, tok, id, f.name, f.b)
		if r.Status != 201 {
			t.Fatalf("upload %s: %d %s", f.name, r.Status, r.Body)
		}
		m := r.Map(t)
		docs = append(docs, int64(m["id"].(float64)))
		hashes = append(hashes, m["sha256"].(string))
	}
	var subs []map[string]any
	for _, p := range evidenceSigners {
		subs = append(subs, map[string]any{"name": p.name, "email": p.email})
	}
	r := s.Do(t, "POST", fmt.Sprintf("/api/contracts/signing/%d/submitForSigning", id), tok, map[string]any{
		"documentIds": docs, "submitters": subs, "sendEmail": false,
	})
	return id, hashes, signingSubmissionOf(t, r)
}

// evidenceSign signs through the HTML form as p would.
func evidenceSign(t testing.TB, s *apptest.Server, link string, p evidenceSigner) {
	t.Helper()
	send := func(method, u string, body io.Reader) *apptest.Response {
		req, err := http.NewRequest(method, u, body)
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("User-Agent", p.agent)
		if p.forwardedFor != "" {
			req.Header.Set("X-Forwarded-For", p.forwardedFor)
		}
		if body != nil {
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		}
		return s.Send(t, req)
	}
	r := send("GET", link, nil)
	m := signingFormToken.FindStringSubmatch(string(r.Body))
	if r.Status != 200 || m == nil {
		t.Fatalf("signing page: %d %s", r.Status, r.Body)
	}
	form := url.Values{"token": {strings.ReplaceAll(m[1], "&#43;", "+")}, "name": {p.name}, "consent": {"yes"}}
	if r = send("POST", link+"/sign", strings.NewReader(form.Encode())); r.Status != 200 {
		t.Fatalf("sign: %d %s", r.Status, r.Body)
	}
}

// evidenceSubmission reads the contract's one submission.
func evidenceSubmission(t testing.TB, s *apptest.Server, tok string, id int64) signingSubmission {
	t.Helper()
	r := s.Do(t, "GET", fmt.Sprintf("/api/contracts/%d/submissions", id), tok, nil).Expect(t, 200, "submissions")
	var page struct{ Items []signingSubmission }
	r.JSON(t, &page)
	if len(page.Items) != 1 {
		t.Fatalf("submissions: %s", r.Body)
	}
	return page.Items[0]
}

type evidenceDocument struct {
	ID     int64
	Kind   string
	SHA256 string
}

func evidenceDocuments(t testing.TB, s *apptest.Server, tok string, id int64) []evidenceDocument {
	t.Helper()
	return listItems[evidenceDocument](t, s, tok, fmt.Sprintf("/api/contracts/%d/documents", id), "documents")
}

func evidenceKinds(docs []evidenceDocument) map[string]int {
	n := map[string]int{}
	for _, d := range docs {
		n[d.Kind]++
	}
	return n
}

// evidenceGet downloads a link without credentials.
func evidenceGet(t testing.TB, s *apptest.Server, link string) []byte {
	t.Helper()
	req, err := http.NewRequest("GET", link, nil)
	if err != nil {
		t.Fatal(err)
	}
	r := s.Send(t, req)
	if r.Status != 200 {
		t.Fatalf("GET %s: %d %s", link, r.Status, r.Body)
	}
	return r.Body
}

// evidenceVerify posts a file to /api/signing/verify.
func evidenceVerify(t testing.TB, s *apptest.Server, name string, content io.Reader) *apptest.Response {
	t.Helper()
	body, ct := contractMultipart("file", name, content)
	req, err := http.NewRequest("POST", s.URL+"/api/signing/verify", body)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", ct)
	return s.Send(t, req)
}

type evidenceVerification struct {
	Valid           bool
	CounselDocument bool
	ContractUUID    *string `json:"contractUUId"`
	SignedAt        *string
	Signers         []struct{ Name, Email, SignedAt string }
	SHA256          string
	Reason          string
}

// checkSignatureInGo verifies the combined PDF's signature with pkcs7
// alone against the published certificate: the /ByteRange covers the
// whole file but /Contents, and the CMS signs those bytes.
func checkSignatureInGo(t *testing.T, pdf []byte, cert *x509.Certificate) {
	is := is.New(t)
	m := regexp.MustCompile(`/ByteRange\s*\[\s*(\d+) (\d+) (\d+) (\d+)\s*\]`).FindAllSubmatch(pdf, -1)
	is.Equal(len(m), 1) // one signature
	var br [4]int
	for i := range br {
		br[i], _ = strconv.Atoi(string(m[0][i+1]))
	}
	is.Equal(br[0], 0)
	is.Equal(br[2]+br[3], len(pdf)) // covers the whole file
	all, err := hex.DecodeString(string(pdf[br[1]+1 : br[2]-1]))
	is.NoErr(err) // /Contents is hex
	var raw asn1.RawValue
	_, err = asn1.Unmarshal(all, &raw) // the CMS, then zero padding
	is.NoErr(err)
	der := raw.FullBytes
	p7, err := pkcs7.Parse(der)
	is.NoErr(err)
	p7.Content = append(append([]byte{}, pdf[:br[1]]...), pdf[br[2]:]...)
	is.NoErr(p7.Verify())                   // the signature verifies
	is.True(p7.GetOnlySigner().Equal(cert)) // made with the published certificate
	pool := x509.NewCertPool()
	pool.AddCert(cert)
	is.NoErr(p7.VerifyWithChain(pool)) // and chains to it when it is trusted
}

func TestSignedEvidence(t *testing.T) {
	t.Parallel()
	s := apptest.New(t, func(c *app.Config) {
		c.TrustedProxies = []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}
		c.FirmName = "Smith & Partners"
	})
	is := is.New(t)
	tok := s.Admin(t)
	id, hashes, sub := evidenceContract(t, s, tok)
	is.True(sub.AuditLogURL == nil) // nothing before completion
	for i, p := range evidenceSigners {
		evidenceSign(t, s, sub.Submitters[i].EmbedSrc, p)
	}

	is.Equal(signingContractGet(t, s, tok, id)["status"], "Signed")
	done := evidenceSubmission(t, s, tok, id)
	is.True(done.AuditLogURL != nil && done.CombinedDocumentURL != nil) // evidence linked
	combined := evidenceGet(t, s, *done.CombinedDocumentURL)
	audit := evidenceGet(t, s, *done.AuditLogURL)
	combinedSHA := fmt.Sprintf("%x", sha256.Sum256(combined))

	t.Run("documents list the evidence by kind", func(t *testing.T) {
		is := is.New(t)
		docs := evidenceDocuments(t, s, tok, id)
		is.Equal(evidenceKinds(docs), map[string]int{"original": 3, "signed": 1, "audit": 1})
		for _, d := range docs {
			if d.Kind == "signed" {
				is.Equal(d.SHA256, combinedSHA) // the link serves the stored file
			}
		}
	})
	t.Run("history has signingCompleted with the SHA-256", func(t *testing.T) {
		is := is.New(t)
		n := 0
		for _, e := range signingHistory(t, s, tok, id) {
			if e.Action == "signingCompleted" {
				n++
				is.True(strings.Contains(e.Details, combinedSHA))
				is.Equal(e.ActorName, "signing provider")
			}
		}
		is.Equal(n, 1)
	})
	t.Run("the signature verifies in Go against the published certificate", func(t *testing.T) {
		is := is.New(t)
		r := s.Do(t, "GET", "/.well-known/counsel-signing.pem", "", nil)
		is.Equal(r.Status, 200)
		block, _ := pem.Decode(r.Body)
		is.True(block != nil)
		cert, err := x509.ParseCertificate(block.Bytes)
		is.NoErr(err)
		is.Equal(cert.Subject.CommonName, "Smith & Partners") // COUNSEL_FIRM_NAME
		is.True(cert.NotAfter.Sub(cert.NotBefore) > 9*365*24*time.Hour)
		checkSignatureInGo(t, combined, cert)
	})
	t.Run("pdfsig reports it valid and covering the document", func(t *testing.T) {
		if _, err := exec.LookPath("pdfsig"); err != nil {
			t.Skip("pdfsig not found: install poppler-utils to run this test")
		}
		is := is.New(t)
		out := evidencePoppler(t, "pdfsig", combined)
		is.True(strings.Contains(out, "Signature is Valid"))                               // valid
		is.True(strings.Contains(out, "Total document signed"))                            // whole file
		is.True(strings.Contains(out, "Signer Certificate Common Name: Smith & Partners")) // our certificate
	})
	t.Run("pdftotext shows the signers and the hashes", func(t *testing.T) {
		if _, err := exec.LookPath("pdftotext"); err != nil {
			t.Skip("pdftotext not found: install poppler-utils to run this test")
		}
		is := is.New(t)
		cert := evidencePoppler(t, "pdftotext", audit)
		for _, p := range evidenceSigners {
			for _, want := range []string{p.name, p.email, p.agent, "IP address: " + p.wantIP} {
				is.True(strings.Contains(cert, want)) // the certificate names it
			}
		}
		for _, h := range hashes {
			is.True(strings.Contains(cert, h)) // every original's hash, the DOCX's too
		}
		is.True(strings.Contains(cert, "terms.docx"))
		whole := evidencePoppler(t, "pdftotext", combined)
		is.True(strings.Contains(whole, "/s/ Ana Silva")) // the stamp
		is.True(strings.Contains(whole, "AUDIT CERTIFICATE"))
	})
	t.Run("verify answers valid, and not after one changed byte", func(t *testing.T) {
		is := is.New(t)
		r := evidenceVerify(t, s, "signed.pdf", bytes.NewReader(combined))
		is.Equal(r.Status, 200)
		var v evidenceVerification
		r.JSON(t, &v)
		is.True(v.Valid)
		is.True(v.CounselDocument)
		is.Equal(*v.ContractUUID, signingContractGet(t, s, tok, id)["contractUUId"])
		is.Equal(len(v.Signers), 2)
		is.Equal(v.Signers[1].Email, "bo@example.com")
		is.Equal(v.SHA256, combinedSHA)

		bad := bytes.Clone(combined)
		bad[100] ^= 0x20 // inside the first signed range
		r = evidenceVerify(t, s, "signed.pdf", bytes.NewReader(bad))
		is.Equal(r.Status, 200)
		v = evidenceVerification{}
		r.JSON(t, &v)
		is.True(!v.Valid)
		is.True(v.Reason != "")
		is.True(v.ContractUUID == nil) // nothing is claimed for a changed file
	})
	t.Run("bad input to verify", func(t *testing.T) {
		other, key, err := pdfevidence.NewIdentity("Someone Else", time.Now(), nil)
		if err != nil {
			t.Fatal(err)
		}
		foreign, err := pdfevidence.New(other, key, nil)
		if err != nil {
			t.Fatal(err)
		}
		var foreignPDF, foreignAudit bytes.Buffer
		ev := signing.Evidence{ContractUUID: "x", CompletedAt: time.Now(), Documents: []signing.EvidenceDocument{{FileName: "a.pdf", PDF: true}}}
		if err := foreign.Produce(context.Background(), ev, []ports.EvidencePDF{{Index: 0, Body: bytes.NewReader(porttest.MinimalPDF(1))}}, &foreignPDF, &foreignAudit); err != nil {
			t.Fatal(err)
		}
		cases := []struct {
			name   string
			body   io.Reader
			status int
			reason string
		}{
			{"not a PDF", strings.NewReader("just some text"), 415, ""},
			{"a DOCX", bytes.NewReader(contractDOCX(t)), 415, ""},
			{"a PDF without a signature", bytes.NewReader(porttest.MinimalPDF(1)), 200, "no PDF signature"},
			{"a PDF signed by another certificate", &foreignPDF, 200, "certificate"},
			{"20 MiB + 1", io.MultiReader(strings.NewReader("%PDF-1.7\n"), &zeros{n: 20<<20 + 1 - 9}), 413, ""},
		}
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				is := is.New(t)
				r := evidenceVerify(t, s, "file.pdf", tc.body)
				is.Equal(r.Status, tc.status)
				if tc.status != 200 {
					is.Equal(r.Header.Get("Content-Type"), "application/problem+json")
					return
				}
				var v evidenceVerification
				r.JSON(t, &v)
				is.True(!v.Valid)
				is.True(strings.Contains(v.Reason, tc.reason))
			})
		}
	})
	t.Run("evidence cannot be deleted", func(t *testing.T) {
		is := is.New(t)
		for _, d := range evidenceDocuments(t, s, tok, id) {
			if d.Kind == "original" {
				continue
			}
			r := s.Do(t, "DELETE", fmt.Sprintf("/api/contracts/%d/documents/%d", id, d.ID), tok, nil)
			is.Equal(r.Status, 409) // signed evidence stays
		}
		is.Equal(evidenceKinds(evidenceDocuments(t, s, tok, id))["signed"], 1)
	})
	t.Run("a changed link is a 404", func(t *testing.T) {
		is := is.New(t)
		req, _ := http.NewRequest("GET", strings.Replace(*done.AuditLogURL, "sig=", "sig=x", 1), nil)
		is.Equal(s.Send(t, req).Status, 404)
	})
	t.Run("the verify page", func(t *testing.T) {
		is := is.New(t)
		r := s.Do(t, "GET", "/verify", "", nil)
		is.Equal(r.Status, 200)
		is.True(strings.Contains(string(r.Body), `type="file"`))
		body, ct := contractMultipart("file", "signed.pdf", bytes.NewReader(combined))
		req, _ := http.NewRequest("POST", s.URL+"/verify", body)
		req.Header.Set("Content-Type", ct)
		r = s.Send(t, req)
		is.Equal(r.Status, 200)
		is.True(strings.Contains(string(r.Body), "<h2>Valid</h2>"))
		is.True(strings.Contains(string(r.Body), "ana@example.com"))
		// Times are RFC 3339 UTC, never a Go struct's fields.
		rfc3339 := regexp.MustCompile(`\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ`)
		is.Equal(len(rfc3339.FindAll(r.Body, -1)), 1+len(evidenceSigners)) // signed at, and each signer's time
		is.True(!regexp.MustCompile(`\{\d+ \d+ `).Match(r.Body))           // no {wall ext loc}
	})
	t.Run("a forgery from this genuine signature is not valid", func(t *testing.T) {
		forged, err := pdfforge.Forge(combined, porttest.MinimalPDF(1), pdfforge.Summary)
		if err != nil {
			t.Fatal(err)
		}
		is := is.New(t)
		r := evidenceVerify(t, s, "forged.pdf", bytes.NewReader(forged))
		is.Equal(r.Status, 200)
		var v evidenceVerification
		r.JSON(t, &v)
		is.True(!v.Valid)              // the API refuses it
		is.True(v.ContractUUID == nil) // and claims nothing of it
		is.True(v.SignedAt == nil)
		is.Equal(len(v.Signers), 0)
		is.True(strings.Contains(v.Reason, "detached"))

		body, ct := contractMultipart("file", "forged.pdf", bytes.NewReader(forged))
		req, _ := http.NewRequest("POST", s.URL+"/verify", body)
		req.Header.Set("Content-Type", ct)
		r = s.Send(t, req)
		is.Equal(r.Status, 200)
		is.True(strings.Contains(string(r.Body), "<h2>Not valid</h2>")) // the page too
		is.True(!strings.Contains(string(r.Body), "mallory@example.com"))
		is.True(!strings.Contains(string(r.Body), pdfforge.SummaryContractUUID))
	})
}

// evidencePoppler runs pdfsig or pdftotext on b and returns its output.
func evidencePoppler(t *testing.T, tool string, b []byte) string {
	t.Helper()
	f := filepath.Join(t.TempDir(), "doc.pdf")
	if err := os.WriteFile(f, b, 0o600); err != nil {
		t.Fatal(err)
	}
	args := []string{f}
	if tool == "pdftotext" {
		args = []string{"-layout", f, "-"}
	}
	out, err := exec.Command(tool, args...).CombinedOutput()
	if err != nil && tool == "pdftotext" {
		t.Fatalf("pdftotext: %v %s", err, out)
	}
	return string(out)
}

// failingEvidence makes evidence fail: the process "crashes" between the
// last signature's commit and its evidence.
type failingEvidence struct{ ports.PDFEvidence }

func (failingEvidence) Produce(context.Context, signing.Evidence, []ports.EvidencePDF, io.Writer, io.Writer) error {
	return errors.New("simulated crash before the evidence was written")
}

func TestSignedEvidenceAfterCrash(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	first := apptest.New(t, func(c *app.Config) {
		c.WrapEvidence = func(e ports.PDFEvidence) ports.PDFEvidence { return failingEvidence{e} }
	})
	tok := first.Admin(t)
	id, _, sub := evidenceContract(t, first, tok)
	for i, p := range evidenceSigners {
		evidenceSign(t, first, sub.Submitters[i].EmbedSrc, p)
	}
	is.Equal(signingContractGet(t, first, tok, id)["status"], "Signed")
	is.Equal(evidenceKinds(evidenceDocuments(t, first, tok, id)), map[string]int{"original": 3}) // no evidence yet
	is.True(evidenceSubmission(t, first, tok, id).CombinedDocumentURL == nil)
	// The crash: the first instance stops, and with it the job lock its
	// background runner may hold on PostgreSQL (a dead process's session
	// ends; a live App would keep the lock and the next would wait).
	first.Server.Close()
	is.NoErr(first.App.Close()) // stop the first instance

	// The next start, on the same database and documents, makes it.
	next := apptest.New(t, func(c *app.Config) { c.DB, c.DataDir = first.Config.DB, first.Config.DataDir })
	tok = next.Admin(t)
	deadline := time.Now().Add(20 * time.Second)
	for evidenceKinds(evidenceDocuments(t, next, tok, id))["signed"] == 0 {
		if time.Now().After(deadline) {
			t.Fatal("the evidence was not made after the restart")
		}
		time.Sleep(50 * time.Millisecond)
	}
	n, err := next.App.Signing.ProduceEvidence(context.Background())
	is.NoErr(err)
	is.Equal(n, 0)                                                                                                       // nothing left pending
	is.Equal(evidenceKinds(evidenceDocuments(t, next, tok, id)), map[string]int{"original": 3, "signed": 1, "audit": 1}) // exactly once
	completed := 0
	for _, e := range signingHistory(t, next, tok, id) {
		if e.Action == "signingCompleted" {
			completed++
		}
	}
	is.Equal(completed, 1)
	done := evidenceSubmission(t, next, tok, id)
	is.True(done.CombinedDocumentURL != nil && done.AuditLogURL != nil)
	r := evidenceVerify(t, next, "signed.pdf", bytes.NewReader(evidenceGet(t, next, *done.CombinedDocumentURL)))
	var v evidenceVerification
	r.JSON(t, &v)
	is.True(v.Valid)
}

// TestPDFBombIsRefused: an upload whose streams decode past 256 MiB is a
// 413 problem saying so, and nothing of it is kept; one under the limit
// is accepted.
func TestPDFBombIsRefused(t *testing.T) {
	t.Parallel()
	s := apptest.New(t)
	tok := s.Admin(t)
	id := contractID(contractCreate(t, s, tok, map[string]any{"contractName": "Bomb"}))
	is := is.New(t)
	bomb := porttest.BombPDF(257 << 20)
	is.True(len(bomb) < 2<<20) // small on the wire
	r := contractUpload(t, s, tok, id, "bomb.pdf", bomb)
	is.Equal(r.Status, 413)
	is.Equal(r.Header.Get("Content-Type"), "application/problem+json")
	is.True(strings.Contains(r.Map(t)["detail"].(string), "decode to more than 256 MiB")) // the detail says why
	is.Equal(len(evidenceDocuments(t, s, tok, id)), 0)                                    // nothing kept

	r = contractUpload(t, s, tok, id, "big.pdf", porttest.BombPDF(200<<20))
	is.Equal(r.Status, 201) // under the limit
}

// countingFailure is evidence that always fails, counting its attempts.
type countingFailure struct {
	ports.PDFEvidence
	n *atomic.Int64
}

func (f countingFailure) Produce(context.Context, signing.Evidence, []ports.EvidencePDF, io.Writer, io.Writer) error {
	f.n.Add(1)
	return errors.New("simulated failure of the evidence")
}

// TestSignedEvidenceGivenUp: evidence that keeps failing is tried six
// times (the first, then five retries with backoff), then given up: the
// contract stays Signed and its history says so; later runs and restarts
// do not try again.
func TestSignedEvidenceGivenUp(t *testing.T) {
	t.Parallel()
	var attempts atomic.Int64
	s := apptest.New(t, func(c *app.Config) {
		c.WrapEvidence = func(e ports.PDFEvidence) ports.PDFEvidence { return countingFailure{e, &attempts} }
	})
	is := is.New(t)
	tok := s.Admin(t)
	id, _, sub := evidenceContract(t, s, tok)
	for i, p := range evidenceSigners {
		evidenceSign(t, s, sub.Submitters[i].EmbedSrc, p)
	}
	is.Equal(attempts.Load(), int64(1)) // in the flow that made it Signed

	n, err := s.App.Signing.ProduceEvidence(context.Background())
	is.NoErr(err)
	is.Equal(n, 0)
	is.Equal(attempts.Load(), int64(2)) // the first retry at the next run
	n, err = s.App.Signing.ProduceEvidence(context.Background())
	is.NoErr(err)
	is.Equal(attempts.Load(), int64(2)) // the next waits its backoff
	for range 10 {
		s.Clock.Advance(25 * time.Hour)
		_, err := s.App.Signing.ProduceEvidence(context.Background())
		is.NoErr(err)
	}
	is.Equal(attempts.Load(), int64(6)) // six attempts in all, then given up
	tok = s.Admin(t)                    // the clock moved past the token's life

	is.Equal(signingContractGet(t, s, tok, id)["status"], "Signed") // the contract stays Signed
	given := 0
	for _, e := range signingHistory(t, s, tok, id) {
		if strings.Contains(e.Details, "could not be made after 6 attempts") {
			given++
			is.Equal(e.Action, "signingEvent")
		}
	}
	is.Equal(given, 1)                                                                       // the history says so, once
	is.Equal(evidenceKinds(evidenceDocuments(t, s, tok, id)), map[string]int{"original": 3}) // and no evidence
	is.True(evidenceSubmission(t, s, tok, id).CombinedDocumentURL == nil)
}
