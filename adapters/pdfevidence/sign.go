package pdfevidence

import (
	"bytes"
	"crypto/sha256"
	"encoding/asn1"
	"encoding/hex"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"unicode/utf16"

	"github.com/pdfcpu/pdfcpu/pkg/api"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/types"
	"github.com/smallstep/pkcs7"

	"counsel/domain/signing"
)

// Signature layout.
const (
	// contentsBytes is the room reserved for the CMS signature: 16 KiB,
	// written as 32 KiB of hex digits.
	contentsBytes = 16 << 10
	// byteRangeWidth is the room for the /ByteRange value: four numbers
	// of up to 10 digits, brackets and spaces.
	byteRangeWidth = 1 + 4*11
	// summaryKey names the sealed summary in the signature dictionary.
	summaryKey = "/CounselEvidence"
	fieldName  = "Counsel evidence"
)

// oidSigningCertificateV2 is the ESS signing-certificate-v2 attribute
// (RFC 5035), which binds the signature to the signer's certificate.
var oidSigningCertificateV2 = asn1.ObjectIdentifier{1, 2, 840, 113549, 1, 9, 16, 2, 47}

type essCertIDv2 struct {
	// hashAlgorithm is omitted: its default is SHA-256.
	CertHash []byte
}

type signingCertificateV2 struct {
	Certs []essCertIDv2
}

// sign appends to pdf (a complete file with a classic cross-reference
// table) an incremental update with a signature field on the first page
// and its signature dictionary, and signs everything but the /Contents
// value.
func (e *Evidence) sign(pdf, summary []byte, ev signing.Evidence) ([]byte, error) {
	ctx, err := api.ReadContext(bytes.NewReader(pdf), config())
	if err != nil {
		return nil, fmt.Errorf("pdfevidence: read combined PDF: %w", err)
	}
	xt := ctx.XRefTable
	if xt.Root == nil || xt.Size == nil {
		return nil, fmt.Errorf("pdfevidence: combined PDF has no catalog")
	}
	prev, err := lastStartXref(pdf)
	if err != nil {
		return nil, err
	}
	if err := xt.EnsurePageCount(); err != nil {
		return nil, fmt.Errorf("pdfevidence: page count: %w", err)
	}
	catalog, err := xt.Catalog()
	if err != nil {
		return nil, fmt.Errorf("pdfevidence: catalog: %w", err)
	}
	page, pageRef, _, err := xt.PageDict(1, false)
	if err != nil || pageRef == nil {
		return nil, fmt.Errorf("pdfevidence: first page: %v", err)
	}
	size := *xt.Size
	sigNum, fieldNum := size, size+1
	fieldRef := *types.NewIndirectRef(fieldNum, 0)

	page = page.Clone().(types.Dict)
	annots := types.Array{}
	if a, err := xt.DereferenceArray(page["Annots"]); err == nil && a != nil {
		annots = append(annots, a...)
	}
	page["Annots"] = append(annots, fieldRef)

	catalog = catalog.Clone().(types.Dict)
	form := types.Dict{}
	if f, err := xt.DereferenceDict(catalog["AcroForm"]); err == nil && f != nil {
		form = f.Clone().(types.Dict)
	}
	fields := types.Array{}
	if a, err := xt.DereferenceArray(form["Fields"]); err == nil && a != nil {
		fields = append(fields, a...)
	}
	form["Fields"] = append(fields, fieldRef)
	form["SigFlags"] = types.Integer(3)
	catalog["AcroForm"] = form

	var b bytes.Buffer
	b.Write(pdf)
	if pdf[len(pdf)-1] != '\n' {
		b.WriteByte('\n')
	}
	offsets := map[int]int{}
	obj := func(num, gen int, body string) {
		offsets[num] = b.Len()
		fmt.Fprintf(&b, "%d %d obj\n%s\nendobj\n", num, gen, body)
	}
	obj(pageRef.ObjectNumber.Value(), pageRef.GenerationNumber.Value(), page.PDFString())
	obj(xt.Root.ObjectNumber.Value(), xt.Root.GenerationNumber.Value(), catalog.PDFString())

	// The signature dictionary, with room for /ByteRange and /Contents.
	offsets[sigNum] = b.Len()
	fmt.Fprintf(&b, "%d 0 obj\n<</Type/Sig/Filter/Adobe.PPKLite/SubFilter/adbe.pkcs7.detached/ByteRange", sigNum)
	byteRangeAt := b.Len()
	b.Write(bytes.Repeat([]byte{' '}, byteRangeWidth))
	b.WriteString("/Contents")
	contentsAt := b.Len()
	b.WriteByte('<')
	b.Write(bytes.Repeat([]byte{'0'}, 2*contentsBytes))
	b.WriteByte('>')
	contentsEnd := b.Len()
	signedAt := e.now().UTC()
	fmt.Fprintf(&b, "/M(D:%s)/Name%s/Reason%s%s<%s>>>\nendobj\n", signedAt.Format("20060102150405Z"),
		pdfText(signing.Line(ev.FirmName, signing.MaxNameLen)),
		pdfText("Signed evidence of contract "+signing.Line(ev.ContractUUID, signing.MaxNameLen)), summaryKey, hex.EncodeToString(summary))
	obj(fieldNum, 0, fmt.Sprintf("<</Type/Annot/Subtype/Widget/FT/Sig/T%s/V %d 0 R/F 132/Rect[0 0 0 0]/P %s>>",
		pdfText(fieldName), sigNum, pageRef.PDFString()))

	xref := b.Len()
	b.WriteString("xref\n")
	nums := slices.Sorted(maps.Keys(offsets))
	for _, num := range nums {
		gen := 0
		switch num {
		case pageRef.ObjectNumber.Value():
			gen = pageRef.GenerationNumber.Value()
		case xt.Root.ObjectNumber.Value():
			gen = xt.Root.GenerationNumber.Value()
		}
		fmt.Fprintf(&b, "%d 1\n%010d %05d n \n", num, offsets[num], gen)
	}
	trailer := types.Dict{"Size": types.Integer(size + 2), "Root": *xt.Root, "Prev": types.Integer(prev)}
	if xt.Info != nil {
		trailer["Info"] = *xt.Info
	}
	if len(xt.ID) == 2 {
		trailer["ID"] = xt.ID
	}
	fmt.Fprintf(&b, "trailer\n%s\nstartxref\n%d\n%%%%EOF\n", trailer.PDFString(), xref)

	out := b.Bytes()
	br := fmt.Sprintf("[0 %d %d %d]", contentsAt, contentsEnd, len(out)-contentsEnd)
	if len(br) > byteRangeWidth {
		return nil, fmt.Errorf("pdfevidence: combined PDF too large to sign")
	}
	copy(out[byteRangeAt:], br)

	der, err := e.cms(out[:contentsAt], out[contentsEnd:])
	if err != nil {
		return nil, err
	}
	if len(der) > contentsBytes {
		return nil, fmt.Errorf("pdfevidence: signature of %d bytes does not fit the %d reserved", len(der), contentsBytes)
	}
	hex.Encode(out[contentsAt+1:], der)
	return out, nil
}

// cms makes the detached CMS signature of the two signed ranges.
func (e *Evidence) cms(head, tail []byte) ([]byte, error) {
	content := make([]byte, 0, len(head)+len(tail))
	content = append(append(content, head...), tail...)
	sd, err := pkcs7.NewSignedData(content)
	if err != nil {
		return nil, fmt.Errorf("pdfevidence: cms: %w", err)
	}
	sd.SetDigestAlgorithm(pkcs7.OIDDigestAlgorithmSHA256)
	certHash := sha256.Sum256(e.cert.Raw)
	cfg := pkcs7.SignerInfoConfig{ExtraSignedAttributes: []pkcs7.Attribute{{
		Type: oidSigningCertificateV2, Value: signingCertificateV2{Certs: []essCertIDv2{{CertHash: certHash[:]}}},
	}}}
	if err := sd.AddSignerChain(e.cert, e.key, e.chain[1:], cfg); err != nil {
		return nil, fmt.Errorf("pdfevidence: cms signer: %w", err)
	}
	sd.Detach()
	der, err := sd.Finish()
	if err != nil {
		return nil, fmt.Errorf("pdfevidence: cms: %w", err)
	}
	return der, nil
}

// lastStartXref reads the offset after the last "startxref".
func lastStartXref(pdf []byte) (int, error) {
	i := bytes.LastIndex(pdf, []byte("startxref"))
	if i < 0 {
		return 0, fmt.Errorf("pdfevidence: combined PDF has no startxref")
	}
	rest := bytes.TrimLeft(pdf[i+len("startxref"):], " \r\n")
	j := 0
	for j < len(rest) && rest[j] >= '0' && rest[j] <= '9' {
		j++
	}
	n, err := strconv.Atoi(string(rest[:j]))
	if err != nil {
		return 0, fmt.Errorf("pdfevidence: combined PDF startxref: %w", err)
	}
	return n, nil
}

// pdfText writes s as a PDF text string: UTF-16BE with a byte-order
// mark, in hex, so no character needs escaping.
func pdfText(s string) string {
	u := utf16.Encode([]rune(s))
	b := make([]byte, 2+2*len(u))
	b[0], b[1] = 0xfe, 0xff
	for i, c := range u {
		b[2+2*i], b[3+2*i] = byte(c>>8), byte(c)
	}
	return "<" + hex.EncodeToString(b) + ">"
}
