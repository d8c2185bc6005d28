package pdfevidence

import (
	"bytes"
	"context"
	"crypto"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"

	"github.com/smallstep/pkcs7"

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
	der, ok := readContents(r, b, c)
	if !ok {
		return invalid(reasonBroken)
	}
	p7, err := pkcs7.Parse(der)
	if err != nil || len(p7.Signers) != 1 {
		return invalid(reasonBroken)
	}
	signer := p7.GetOnlySigner()
	if signer == nil {
		return invalid(reasonBroken)
	}
	if !bytes.Equal(signer.Raw, e.cert.Raw) {
		return invalid(reasonForeign)
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
	// The ranges were hashed from the reader; the library checks that
	// digest against the signed attributes and the signature.
	p7.Hasher = digest(h.Sum(nil))
	if err := p7.Verify(); err != nil {
		var mismatch *pkcs7.MessageDigestMismatchError
		if errors.As(err, &mismatch) {
			return invalid(reasonChanged)
		}
		return invalid(reasonBroken)
	}
	summary, ok := sealedSummary(tail, at)
	if !ok {
		return invalid(reasonNotCounsel)
	}
	s := fromWire(summary)
	signedAt := s.SignedAt
	return signing.Verification{Valid: true, ContractUUID: s.ContractUUID, SignedAt: &signedAt, Signers: s.Signers, Reason: reasonValid}, nil
}

// digest is a pkcs7.Hasher that answers a digest computed beforehand.
type digest []byte

func (d digest) Hash(crypto.Hash, io.Reader) ([]byte, error) { return d, nil }

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
