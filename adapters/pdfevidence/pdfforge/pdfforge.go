// Package pdfforge builds the forged evidence PDFs the tests of the
// evidence verifier (adapters/pdfevidence) and of the HTTP verification
// route must refuse. It is used by tests only.
package pdfforge

import (
	"bytes"
	"encoding/asn1"
	"encoding/hex"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// Summary is a sealed summary a forger wants the verifier to report.
const Summary = `{"contractUUId":"00000000-0000-4000-8000-0000000f0a9e","contractName":"Forged",` +
	`"signedAt":"2020-01-01T00:00:00Z","signers":[{"name":"Mallory","email":"mallory@example.com","signedAt":"2020-01-01T00:00:00Z"}]}`

// SummaryContractUUID is the contractUUId of Summary.
const SummaryContractUUID = "00000000-0000-4000-8000-0000000f0a9e"

// The CMS structures (RFC 5652) a forger takes apart and puts together.
type contentInfo struct {
	ContentType asn1.ObjectIdentifier
	Content     asn1.RawValue `asn1:"tag:0"`
}

type signedData struct {
	Version          int
	DigestAlgorithms asn1.RawValue
	Encap            encap
	Certificates     asn1.RawValue `asn1:"optional,tag:0"`
	SignerInfos      []signerInfo  `asn1:"set"`
}

type encap struct {
	Type    asn1.ObjectIdentifier
	Content asn1.RawValue `asn1:"optional,tag:0"`
}

type signerInfo struct {
	Version   int
	SID       asn1.RawValue
	DigestAlg asn1.RawValue
	Attrs     asn1.RawValue `asn1:"optional,tag:0"`
	SigAlg    asn1.RawValue
	Signature []byte
}

var byteRangeRE = regexp.MustCompile(`/ByteRange\s*\[\s*(\d+) (\d+) (\d+) (\d+)\s*\]`)

// SignatureOf returns the CMS (DER) of a signed PDF's last signature.
func SignatureOf(pdf []byte) ([]byte, error) {
	m := byteRangeRE.FindAllSubmatch(pdf, -1)
	if len(m) == 0 {
		return nil, errors.New("pdfforge: no /ByteRange")
	}
	last := m[len(m)-1]
	b, _ := strconv.Atoi(string(last[2]))
	c, _ := strconv.Atoi(string(last[3]))
	if b < 0 || c > len(pdf) || c-b < 2 {
		return nil, errors.New("pdfforge: /ByteRange out of the file")
	}
	all, err := hex.DecodeString(string(pdf[b+1 : c-1]))
	if err != nil {
		return nil, fmt.Errorf("pdfforge: /Contents: %w", err)
	}
	var raw asn1.RawValue
	if _, err := asn1.Unmarshal(all, &raw); err != nil {
		return nil, fmt.Errorf("pdfforge: CMS: %w", err)
	}
	return raw.FullBytes, nil
}

// AttachedForgery repackages a genuine detached signature: its signed
// attributes become the CMS's own (attached) content, and the signer
// keeps the genuine signature value but no signed attributes. A verifier
// that leaves the digest check to a CMS library's Verify sees a valid
// signature by the server's certificate over content the CMS carries.
func AttachedForgery(genuine []byte) ([]byte, error) {
	var ci contentInfo
	if _, err := asn1.Unmarshal(genuine, &ci); err != nil {
		return nil, err
	}
	var sd signedData
	if _, err := asn1.Unmarshal(ci.Content.Bytes, &sd); err != nil {
		return nil, err
	}
	if len(sd.SignerInfos) != 1 || len(sd.SignerInfos[0].Attrs.FullBytes) == 0 {
		return nil, errors.New("pdfforge: want one signer with signed attributes")
	}
	si := sd.SignerInfos[0]
	content := bytes.Clone(si.Attrs.FullBytes)
	content[0] = 0x31 // [0] IMPLICIT becomes the SET OF it was signed as
	octets, err := asn1.Marshal(content)
	if err != nil {
		return nil, err
	}
	sd.Encap.Content = asn1.RawValue{Class: asn1.ClassContextSpecific, Tag: 0, IsCompound: true, Bytes: octets}
	si.Attrs = asn1.RawValue{}
	sd.SignerInfos = []signerInfo{si}
	sdDER, err := asn1.Marshal(sd)
	if err != nil {
		return nil, err
	}
	ci.Content = asn1.RawValue{Class: asn1.ClassContextSpecific, Tag: 0, IsCompound: true, Bytes: sdDER}
	return asn1.Marshal(ci)
}

// WholeFile is the /ByteRange of a signature covering all but /Contents.
func WholeFile(b, c, n int) [4]int { return [4]int{0, b, c, n - c} }

// SigPDF appends to base a signature dictionary with the summary, a
// /ByteRange chosen by br from the offsets of the /Contents value and the
// file's length, and as /Contents the CMS sign makes of the bytes that
// /ByteRange names.
func SigPDF(base []byte, summary string, br func(b, c, n int) [4]int, sign func(signed []byte) ([]byte, error)) ([]byte, error) {
	var buf bytes.Buffer
	buf.Write(base)
	buf.WriteString("\n99 0 obj\n<</Type/Sig/Filter/Adobe.PPKLite/SubFilter/adbe.pkcs7.detached/ByteRange")
	brAt := buf.Len()
	buf.WriteString(strings.Repeat(" ", 45))
	buf.WriteString("/Contents")
	b := buf.Len()
	buf.WriteString("<" + strings.Repeat("0", 2*16384) + ">")
	c := buf.Len()
	fmt.Fprintf(&buf, "/CounselEvidence<%x>>>\nendobj\n%%%%EOF\n", summary)
	out := buf.Bytes()
	r := br(b, c, len(out))
	copy(out[brAt:], fmt.Sprintf("[%d %d %d %d]", r[0], r[1], r[2], r[3]))
	var signed []byte
	signed = append(signed, out[r[0]:r[0]+r[1]]...)
	signed = append(signed, out[r[2]:min(len(out), r[2]+r[3])]...)
	der, err := sign(signed)
	if err != nil {
		return nil, err
	}
	if 2*len(der) > c-b-2 {
		return nil, fmt.Errorf("pdfforge: CMS of %d bytes does not fit", len(der))
	}
	hex.Encode(out[b+1:], der)
	return out, nil
}

// Forge builds, from one genuine signed PDF, an arbitrary PDF with its
// signature repackaged (AttachedForgery) and a summary of the forger's
// choosing, covering the whole forged file.
func Forge(genuine, base []byte, summary string) ([]byte, error) {
	sig, err := SignatureOf(genuine)
	if err != nil {
		return nil, err
	}
	forged, err := AttachedForgery(sig)
	if err != nil {
		return nil, err
	}
	return SigPDF(base, summary, WholeFile, func([]byte) ([]byte, error) { return forged, nil })
}
