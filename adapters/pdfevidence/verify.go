package pdfevidence

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"

	"counsel/domain"
	"counsel/domain/signing"
)

// tailBytes is how much of a file's end is searched for its last
// signature dictionary: the update this package writes is about 33 KiB
// plus the first page's and the catalog's dictionaries.
const tailBytes = 256 << 10

// Reasons of a verification, as the API shows them.
const (
	reasonValid      = "the signature verifies, covers the whole file and was made with this server's certificate"
	reasonNoSig      = "the file carries no PDF signature"
	reasonBroken     = "the signature is malformed"
	reasonPartial    = "the signature does not cover the whole file: it was changed after signing"
	reasonChanged    = "the file was changed after it was signed: the signed bytes do not match the signature"
	reasonForeign    = "the signature was not made with this server's certificate"
	reasonNotCounsel = "the signature carries no Counsel evidence summary"
	// The CMS itself.
	reasonAttached      = "the signature is not detached: it carries content of its own instead of signing the file"
	reasonSigners       = "the signature has more than one signer"
	reasonAlgorithm     = "the signature does not use SHA-256 with the certificate's key algorithm"
	reasonNoAttributes  = "the signature lacks the signed attributes evidence requires (content type id-data, message digest, signing certificate)"
	reasonCertAttribute = "the signature's signing-certificate attribute does not name this server's certificate"
)

// Verify implements ports.PDFEvidence.
func (e *Evidence) Verify(ctx context.Context, r io.ReaderAt, size int64) (v signing.Verification, err error) {
	head := make([]byte, 5)
	if size < 5 {
		return v, notPDF()
	}
	if _, err := r.ReadAt(head, 0); err != nil {
		return v, fmt.Errorf("pdfevidence: read: %w", err)
	}
	if string(head) != "%PDF-" {
		return v, notPDF()
	}
	// The CMS parser meets hostile input here: any panic is a broken
	// signature, never a crash.
	defer func() {
		if p := recover(); p != nil {
			v, err = signing.Verification{Reason: reasonBroken}, nil
		}
	}()
	return e.verify(ctx, r, size)
}

func notPDF() error {
	return domain.Errorf(domain.EUNSUPPORTED, "the file is not a PDF (it does not start with %%PDF-)")
}

func (e *Evidence) verify(ctx context.Context, r io.ReaderAt, size int64) (signing.Verification, error) {
	invalid := func(reason string) (signing.Verification, error) { return signing.Verification{Reason: reason}, nil }
	start := max(0, size-tailBytes)
	tail := make([]byte, size-start)
	if _, err := r.ReadAt(tail, start); err != nil && !errors.Is(err, io.EOF) {
		return signing.Verification{}, fmt.Errorf("pdfevidence: read tail: %w", err)
	}
	at := bytes.LastIndex(tail, []byte("/ByteRange"))
	if at < 0 {
		return invalid(reasonNoSig)
	}
	br, ok := parseByteRange(tail[at+len("/ByteRange"):])
	if !ok {
		return invalid(reasonBroken)
	}
	a, b, c, d := br[0], br[1], br[2], br[3]
	if a != 0 || b <= 0 || c <= b || d < 0 || c-b > 2*contentsBytes+2 || c > size {
		return invalid(reasonBroken)
	}
	if c+d != size {
		return invalid(reasonPartial)
	}
	if !contentsKeyBefore(r, b, start, at) {
		return invalid(reasonBroken)
	}
	der, ok := readContents(r, b, c)
	if !ok {
		return invalid(reasonBroken)
	}
	h := sha256.New()
	for _, rg := range [][2]int64{{0, b}, {c, d}} {
		if err := ctx.Err(); err != nil {
			return signing.Verification{}, err
		}
		if _, err := io.Copy(h, io.NewSectionReader(r, rg[0], rg[1])); err != nil {
			return signing.Verification{}, fmt.Errorf("pdfevidence: hash signed range: %w", err)
		}
	}
	// The CMS is checked here, byte by byte, against the digest of the
	// ranges and this server's certificate: a CMS library's Verify
	// checks its own idea of the content (without signed attributes,
	// the content inside the CMS), which a forger supplies.
	if v := checkCMS(der, h.Sum(nil), e.cert); v != "" {
		return invalid(string(v))
	}
	summary, ok := sealedSummary(tail, at)
	if !ok {
		return invalid(reasonNotCounsel)
	}
	s := fromWire(summary)
	signedAt := s.SignedAt
	return signing.Verification{Valid: true, ContractUUID: s.ContractUUID, SignedAt: &signedAt, Signers: s.Signers, Reason: reasonValid}, nil
}

// contentsKeyBefore reports whether the hex string at offset b is the
// value of the /Contents key of the signature dictionary whose
// /ByteRange is at file offset start+at: the only bytes left unsigned are
// that dictionary's signature value.
func contentsKeyBefore(r io.ReaderAt, b, start int64, at int) bool {
	byteRangeAt := start + int64(at)
	// In this package's layout /Contents follows /ByteRange's value
	// within the same dictionary.
	if b < byteRangeAt || b-byteRangeAt > 128 {
		return false
	}
	buf := make([]byte, b-byteRangeAt)
	if _, err := r.ReadAt(buf, byteRangeAt); err != nil {
		return false
	}
	rest := buf[len("/ByteRange"):]
	if _, ok := parseByteRange(rest); !ok {
		return false
	}
	rest = bytes.TrimLeft(rest, " \r\n\t")
	rest = rest[bytes.IndexByte(rest, ']')+1:]
	return string(bytes.TrimSpace(rest)) == "/Contents"
}

// parseByteRange reads "[a b c d]" after optional white space.
func parseByteRange(s []byte) ([4]int64, bool) {
	var out [4]int64
	s = bytes.TrimLeft(s, " \r\n\t")
	if len(s) == 0 || s[0] != '[' {
		return out, false
	}
	end := bytes.IndexByte(s, ']')
	if end < 0 || end > 64 {
		return out, false
	}
	fields := bytes.Fields(s[1:end])
	if len(fields) != 4 {
		return out, false
	}
	for i, f := range fields {
		n, err := strconv.ParseInt(string(f), 10, 64)
		if err != nil {
			return out, false
		}
		out[i] = n
	}
	return out, true
}

// readContents reads the hex string between offsets b and c, "<...>", and
// returns the DER it holds. Everything after the DER must be zero
// padding, so no byte of the file goes unchecked.
func readContents(r io.ReaderAt, b, c int64) ([]byte, bool) {
	buf := make([]byte, c-b)
	if _, err := r.ReadAt(buf, b); err != nil && !errors.Is(err, io.EOF) {
		return nil, false
	}
	if len(buf) < 4 || buf[0] != '<' || buf[len(buf)-1] != '>' || (len(buf)-2)%2 != 0 {
		return nil, false
	}
	raw := make([]byte, (len(buf)-2)/2)
	if _, err := hex.Decode(raw, buf[1:len(buf)-1]); err != nil {
		return nil, false
	}
	n, ok := derLength(raw)
	if !ok {
		return nil, false
	}
	for _, z := range raw[n:] {
		if z != 0 {
			return nil, false
		}
	}
	return raw[:n], true
}

// derLength is the length of the DER element at the start of b.
func derLength(b []byte) (int, bool) {
	if len(b) < 2 || b[0] != 0x30 {
		return 0, false
	}
	l := int(b[1])
	hdr := 2
	if l&0x80 != 0 {
		k := l & 0x7f
		if k == 0 || k > 3 || len(b) < 2+k {
			return 0, false
		}
		l = 0
		for _, x := range b[2 : 2+k] {
			l = l<<8 | int(x)
		}
		hdr += k
	}
	if hdr+l > len(b) {
		return 0, false
	}
	return hdr + l, true
}

// sealedSummary finds the summary in the signature dictionary around
// tail[at] (its /ByteRange): between the object's start and "endobj".
func sealedSummary(tail []byte, at int) (summaryWire, bool) {
	var w summaryWire
	start := bytes.LastIndex(tail[:at], []byte(" obj"))
	end := bytes.Index(tail[at:], []byte("endobj"))
	if start < 0 || end < 0 {
		return w, false
	}
	dict := tail[start : at+end]
	i := bytes.Index(dict, []byte(summaryKey+"<"))
	if i < 0 {
		return w, false
	}
	rest := dict[i+len(summaryKey)+1:]
	j := bytes.IndexByte(rest, '>')
	if j < 0 {
		return w, false
	}
	raw := make([]byte, hex.DecodedLen(j))
	if _, err := hex.Decode(raw, rest[:j]); err != nil {
		return w, false
	}
	if err := json.Unmarshal(raw, &w); err != nil || w.ContractUUID == "" {
		return w, false
	}
	return w, true
}
