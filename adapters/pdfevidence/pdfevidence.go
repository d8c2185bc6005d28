// Package pdfevidence makes and checks the signed evidence of the
// embedded signer (docs/decisions.md §13). It implements ports.PDFEvidence.
//
// pdfcpu stamps each PDF's last page, lays out the audit certificate and
// merges the stamped documents and the certificate into one PDF.
// smallstep/pkcs7 makes the detached CMS signature (SHA-256, with the ESS
// signing-certificate-v2 attribute). The signature dictionary, its
// /ByteRange and the incremental update that carries them are written
// here: a signature field on the first page, 16 KiB reserved for the CMS
// in /Contents, /SubFilter /adbe.pkcs7.detached. Verifying reads only
// the file's tail and hashes the signed ranges from the reader, so a
// 20 MiB upload is never held in memory; the CMS is checked by this
// package on its DER (cms.go), never by a library's Verify: detached,
// signed attributes with content type id-data, a messageDigest compared
// here with the ranges' SHA-256, signing-certificate-v2 naming the
// certificate, and the signature checked with this server's certificate.
package pdfevidence

import (
	"bytes"
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"math/big"
	"sync"
	"time"

	"github.com/pdfcpu/pdfcpu/pkg/api"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/model"

	"counsel/ports"
)

// Evidence makes and verifies signed evidence with one signing identity.
type Evidence struct {
	key     crypto.Signer
	cert    *x509.Certificate
	chain   []*x509.Certificate // cert first
	certPEM []byte
	now     func() time.Time
	// produce lets one evidence be made at a time: pdfcpu keeps
	// package-level caches, and each run holds its files in memory.
	produce sync.Mutex
}

var _ ports.PDFEvidence = (*Evidence)(nil)

// pdfcpu reads a configuration directory by default; Counsel keeps no
// state outside its database and data folder.
var disableConfigDir sync.Once

func config() *model.Configuration {
	disableConfigDir.Do(api.DisableConfigDir)
	conf := model.NewDefaultConfiguration()
	// A classic cross-reference table, so the signature's incremental
	// update can continue it with another classic section.
	conf.WriteXRefStream = false
	conf.WriteObjectStream = false
	conf.ValidationMode = model.ValidationRelaxed
	return conf
}

// New returns the evidence maker of a certificate (PEM: the certificate,
// then any chain) and its private key (PEM: PKCS #8, SEC 1 EC or PKCS #1
// RSA). now is the clock of signing times; nil is time.Now.
func New(certPEM, keyPEM []byte, now func() time.Time) (*Evidence, error) {
	var chain []*x509.Certificate
	rest := certPEM
	for {
		var b *pem.Block
		b, rest = pem.Decode(rest)
		if b == nil {
			break
		}
		if b.Type != "CERTIFICATE" {
			continue
		}
		c, err := x509.ParseCertificate(b.Bytes)
		if err != nil {
			return nil, fmt.Errorf("pdfevidence: certificate: %w", err)
		}
		chain = append(chain, c)
	}
	if len(chain) == 0 {
		return nil, errors.New("pdfevidence: no CERTIFICATE block in the certificate PEM")
	}
	key, err := parseKey(keyPEM)
	if err != nil {
		return nil, err
	}
	type publicKey interface{ Equal(crypto.PublicKey) bool }
	if pk, ok := key.Public().(publicKey); !ok || !pk.Equal(chain[0].PublicKey) {
		return nil, errors.New("pdfevidence: the private key does not belong to the certificate")
	}
	if now == nil {
		now = time.Now
	}
	var out bytes.Buffer
	for _, c := range chain {
		pem.Encode(&out, &pem.Block{Type: "CERTIFICATE", Bytes: c.Raw})
	}
	return &Evidence{key: key, cert: chain[0], chain: chain, certPEM: out.Bytes(), now: now}, nil
}

func parseKey(keyPEM []byte) (crypto.Signer, error) {
	rest := keyPEM
	for {
		var b *pem.Block
		b, rest = pem.Decode(rest)
		if b == nil {
			return nil, errors.New("pdfevidence: no private key block in the key PEM")
		}
		var k any
		var err error
		switch b.Type {
		case "PRIVATE KEY":
			k, err = x509.ParsePKCS8PrivateKey(b.Bytes)
		case "EC PRIVATE KEY":
			k, err = x509.ParseECPrivateKey(b.Bytes)
		case "RSA PRIVATE KEY":
			k, err = x509.ParsePKCS1PrivateKey(b.Bytes)
		default:
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("pdfevidence: private key: %w", err)
		}
		switch k := k.(type) {
		case *ecdsa.PrivateKey:
			return k, nil
		case *rsa.PrivateKey:
			return k, nil
		}
		return nil, fmt.Errorf("pdfevidence: private key of type %T: want ECDSA or RSA", k)
	}
}

// NewIdentity creates a self-signed ECDSA P-256 signing certificate with
// subject CN cn, valid for ten years from now, and returns it and its
// key as PEM (CERTIFICATE, PRIVATE KEY).
func NewIdentity(cn string, now time.Time, rnd io.Reader) (certPEM, keyPEM []byte, err error) {
	if rnd == nil {
		rnd = rand.Reader
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rnd)
	if err != nil {
		return nil, nil, fmt.Errorf("pdfevidence: key: %w", err)
	}
	serial := make([]byte, 16)
	if _, err := io.ReadFull(rnd, serial); err != nil {
		return nil, nil, fmt.Errorf("pdfevidence: serial: %w", err)
	}
	serial[0] &= 0x7f
	now = now.UTC().Truncate(time.Second)
	tpl := &x509.Certificate{
		SerialNumber:          new(big.Int).SetBytes(serial),
		Subject:               pkix.Name{CommonName: cn},
		NotBefore:             now.Add(-time.Hour),
		NotAfter:              now.AddDate(10, 0, 0),
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageContentCommitment,
		BasicConstraintsValid: true,
	}
	der, err := x509.CreateCertificate(rnd, tpl, tpl, key.Public(), key)
	if err != nil {
		return nil, nil, fmt.Errorf("pdfevidence: certificate: %w", err)
	}
	k, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return nil, nil, fmt.Errorf("pdfevidence: key: %w", err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}),
		pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: k}), nil
}

// CertificatePEM implements ports.PDFEvidence.
func (e *Evidence) CertificatePEM() []byte { return e.certPEM }
