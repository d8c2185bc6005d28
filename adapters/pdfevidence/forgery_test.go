package pdfevidence_test

import (
	"bytes"
	"crypto"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/asn1"
	"encoding/pem"
	"fmt"
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/matryer/is"
	"github.com/smallstep/pkcs7"

	"counsel/adapters/pdfevidence"
	"counsel/adapters/pdfevidence/pdfforge"
	"counsel/ports/porttest"
)

// identity is an evidence maker with its certificate and key in hand, so
// tests can sign what a forger could not.
type identity struct {
	e    *pdfevidence.Evidence
	cert *x509.Certificate
	key  crypto.Signer
}

func newIdentity(t testing.TB, cn string) identity {
	t.Helper()
	certPEM, keyPEM, err := pdfevidence.NewIdentity(cn, at, nil)
	if err != nil {
		t.Fatal(err)
	}
	e, err := pdfevidence.New(certPEM, keyPEM, nil)
	if err != nil {
		t.Fatal(err)
	}
	cb, _ := pem.Decode(certPEM)
	cert, err := x509.ParseCertificate(cb.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	kb, _ := pem.Decode(keyPEM)
	key, err := x509.ParsePKCS8PrivateKey(kb.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	return identity{e: e, cert: cert, key: key.(crypto.Signer)}
}

// cmsConfig chooses what a test signature made with a real key holds.
type cmsConfig struct {
	noDetach, noAttrs, noSigningCert bool
	content                          []byte // signed instead of the ByteRange bytes
}

// signCMS signs with id's key as the producer does, varied by cfg.
func signCMS(t testing.TB, id identity, cfg cmsConfig) func([]byte) ([]byte, error) {
	return func(signed []byte) ([]byte, error) {
		if cfg.content != nil {
			signed = cfg.content
		}
		sd, err := pkcs7.NewSignedData(signed)
		if err != nil {
			return nil, err
		}
		sd.SetDigestAlgorithm(pkcs7.OIDDigestAlgorithmSHA256)
		var sc pkcs7.SignerInfoConfig
		if !cfg.noSigningCert {
			h := sha256.Sum256(id.cert.Raw)
			sc.ExtraSignedAttributes = []pkcs7.Attribute{{
				Type:  asn1.ObjectIdentifier{1, 2, 840, 113549, 1, 9, 16, 2, 47},
				Value: struct{ Certs []struct{ CertHash []byte } }{Certs: []struct{ CertHash []byte }{{CertHash: h[:]}}},
			}}
		}
		if cfg.noAttrs {
			err = sd.SignWithoutAttr(id.cert, id.key, sc)
		} else {
			err = sd.AddSigner(id.cert, id.key, sc)
		}
		if err != nil {
			return nil, err
		}
		if !cfg.noDetach {
			sd.Detach()
		}
		return sd.Finish()
	}
}

// must is the forged PDF, or the test stops.
func must(t testing.TB) func([]byte, error) []byte {
	return func(b []byte, err error) []byte {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
}

// TestForgedEvidenceIsNotValid builds, from one genuine signed PDF and
// what a forger can otherwise make, files that claim any contract, signer
// and date; none may verify.
func TestForgedEvidenceIsNotValid(t *testing.T) {
	t.Parallel()
	id := newIdentity(t, "Counsel")
	genuine, _ := produce(t, id.e, 1, 1)
	other, _ := produce(t, id.e, 2, 1)
	stranger := newIdentity(t, "Someone Else")
	base := porttest.MinimalPDF(1)
	pdf := must(t)
	sigOf := func(b []byte) func([]byte) ([]byte, error) {
		return func([]byte) ([]byte, error) { return pdfforge.SignatureOf(b) }
	}
	whole := pdfforge.WholeFile

	t.Run("the control: the test's own signing verifies", func(t *testing.T) {
		is := is.New(t)
		v, err := verify(t, id.e, pdf(pdfforge.SigPDF(base, pdfforge.Summary, whole, signCMS(t, id, cmsConfig{}))))
		is.NoErr(err)
		is.True(v.Valid) // a detached CMS with every attribute, over the whole file
		is.Equal(v.ContractUUID, pdfforge.SummaryContractUUID)
	})

	cases := []struct {
		name   string
		pdf    []byte
		reason string
	}{
		{"a genuine signature repackaged as attached content without signed attributes",
			pdf(pdfforge.Forge(genuine, base, pdfforge.Summary)), "detached"},
		{"a genuine signature of another file (messageDigest does not match)",
			pdf(pdfforge.SigPDF(base, pdfforge.Summary, whole, sigOf(other))), "changed"},
		{"the server's key over other bytes (messageDigest does not match)",
			pdf(pdfforge.SigPDF(base, pdfforge.Summary, whole, signCMS(t, id, cmsConfig{content: []byte("something else")}))), "changed"},
		{"a ByteRange with a gap",
			pdf(pdfforge.SigPDF(base, pdfforge.Summary, func(b, c, n int) [4]int { return [4]int{0, b - 40, c, n - c} }, signCMS(t, id, cmsConfig{}))), "malformed"},
		{"a ByteRange that leaves the end unsigned",
			pdf(pdfforge.SigPDF(base, pdfforge.Summary, func(b, c, n int) [4]int { return [4]int{0, b, c, n - c - 30} }, signCMS(t, id, cmsConfig{}))), "whole file"},
		{"encapsulated content beside signed attributes",
			pdf(pdfforge.SigPDF(base, pdfforge.Summary, whole, signCMS(t, id, cmsConfig{noDetach: true}))), "detached"},
		{"no signed attributes, detached",
			pdf(pdfforge.SigPDF(base, pdfforge.Summary, whole, signCMS(t, id, cmsConfig{noAttrs: true}))), "attributes"},
		{"no signing-certificate-v2",
			pdf(pdfforge.SigPDF(base, pdfforge.Summary, whole, signCMS(t, id, cmsConfig{noSigningCert: true}))), "attributes"},
		{"another key",
			pdf(pdfforge.SigPDF(base, pdfforge.Summary, whole, signCMS(t, stranger, cmsConfig{}))), "certificate"},
		{"another key claiming the server's certificate",
			pdf(pdfforge.SigPDF(base, pdfforge.Summary, whole, signCMS(t, identity{cert: id.cert, key: stranger.key}, cmsConfig{}))), "changed"},
		{"an appended incremental update", appendUpdate(genuine), "whole file"},
		{"an appended update with a new summary and the genuine signature stretched over it",
			pdf(pdfforge.SigPDF(genuine, pdfforge.Summary, whole, sigOf(genuine))), "changed"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			is := is.New(t)
			v, err := verify(t, id.e, tc.pdf)
			is.NoErr(err)
			is.True(!v.Valid)                              // forged evidence never verifies
			is.True(strings.Contains(v.Reason, tc.reason)) // and says why
			is.Equal(v.ContractUUID, "")                   // nothing is claimed for it
			is.True(v.SignedAt == nil)
		})
	}
}

// appendUpdate appends an incremental update replacing the catalog.
func appendUpdate(pdf []byte) []byte {
	out := bytes.Clone(pdf)
	at := len(out)
	out = append(out, "1 0 obj\n<</Type/Catalog/Pages 2 0 R/Forged true>>\nendobj\n"...)
	xref := len(out)
	out = fmt.Appendf(out, "xref\n1 1\n%010d 00000 n \ntrailer\n<</Size 3/Root 1 0 R>>\nstartxref\n%d\n%%%%EOF\n", at, xref)
	return out
}

// TestFirmRSACertificate: evidence signed with a firm's own RSA
// certificate (COUNSEL_PDF_CERT) verifies, and only with it.
func TestFirmRSACertificate(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	is.NoErr(err)
	tpl := &x509.Certificate{SerialNumber: big.NewInt(7), Subject: pkix.Name{CommonName: "Firm"},
		NotBefore: at.Add(-time.Hour), NotAfter: at.AddDate(1, 0, 0), KeyUsage: x509.KeyUsageDigitalSignature}
	der, err := x509.CreateCertificate(rand.Reader, tpl, tpl, key.Public(), key)
	is.NoErr(err)
	certPEM := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
	keyPEM := pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(key)})
	e, err := pdfevidence.New(certPEM, keyPEM, nil)
	is.NoErr(err)
	combined, _ := produce(t, e, 1, 1)
	v, err := verify(t, e, combined)
	is.NoErr(err)
	is.True(v.Valid) // the firm's RSA signature
	forged := must(t)(pdfforge.Forge(combined, porttest.MinimalPDF(1), pdfforge.Summary))
	v, err = verify(t, e, forged)
	is.NoErr(err)
	is.True(!v.Valid) // and its forgery is not
}
