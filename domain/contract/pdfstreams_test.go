package contract

import (
	"bytes"
	"compress/zlib"
	"fmt"
	"strings"
	"testing"

	"github.com/matryer/is"

	"counsel/domain"
)

// pdfWithStream is a one-page PDF with one more object: a stream with the
// given filter entry and data.
func pdfWithStream(filter string, data []byte) []byte {
	var b bytes.Buffer
	b.WriteString("%PDF-1.7\n1 0 obj\n<< /Type /Catalog /Pages 2 0 R >>\nendobj\n2 0 obj\n<< /Type /Pages /Kids [3 0 R] /Count 1 >>\nendobj\n")
	b.WriteString("3 0 obj\n<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Contents 4 0 R >>\nendobj\n")
	fmt.Fprintf(&b, "4 0 obj\n<< /Length %d %s >>\nstream\n", len(data), filter)
	b.Write(data)
	b.WriteString("\nendstream\nendobj\ntrailer\n<< /Root 1 0 R >>\n%%EOF\n")
	return b.Bytes()
}

// zeros compresses n zero bytes with zlib.
func zeros(t testing.TB, n int) []byte {
	t.Helper()
	var b bytes.Buffer
	w, _ := zlib.NewWriterLevel(&b, zlib.BestCompression)
	chunk := make([]byte, 1<<20)
	for n > 0 {
		k := min(n, len(chunk))
		w.Write(chunk[:k])
		n -= k
	}
	w.Close()
	return b.Bytes()
}

func TestCheckPDFStreams(t *testing.T) {
	t.Parallel()
	const limit = 8 << 20
	rl := bytes.Repeat([]byte{129, 'x'}, (limit/128)+10) // each pair decodes to 128 bytes
	cases := []struct {
		name   string
		pdf    []byte
		refuse bool
	}{
		{"a small PDF", pdfWithStream("", []byte("BT ET")), false},
		{"flate under the limit", pdfWithStream("/Filter /FlateDecode", zeros(t, limit-1000)), false},
		{"a flate bomb", pdfWithStream("/Filter /FlateDecode", zeros(t, limit+1)), true},
		{"a flate bomb behind ASCIIHex", pdfWithStream("/Filter [/ASCIIHexDecode /FlateDecode]",
			[]byte(fmt.Sprintf("%x>", zeros(t, limit+1)))), true},
		{"a run-length bomb", pdfWithStream("/Filter /RunLengthDecode", rl), true},
		{"a run-length bomb with an indirect length", bytes.Replace(pdfWithStream("/Filter/RunLengthDecode", rl), []byte(fmt.Sprintf("/Length %d ", len(rl))), []byte("/Length 9 0 R "), 1), true},
		{"an LZW bomb", pdfWithStream("/Filter /LZWDecode", lzwBomb(limit)), true},
		{"many streams adding up", bytes.Repeat(pdfWithStream("/Filter /FlateDecode", zeros(t, limit/4)), 5), true},
		{"corrupt flate", pdfWithStream("/Filter /FlateDecode", []byte("not zlib at all")), false},
		{"an image counts its encoded size", pdfWithStream("/Filter /DCTDecode", make([]byte, 1000)), false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			is := is.New(t)
			err := CheckPDFStreams(bytes.NewReader(tc.pdf), int64(len(tc.pdf)), limit)
			if !tc.refuse {
				is.NoErr(err)
				return
			}
			is.Equal(domain.ErrorCode(err), domain.ETOOLARGE) // 413
			is.True(strings.Contains(domain.ErrorMessage(err), "would decode to more than 8 MiB"))
		})
	}
}

// lzwBomb is PDF LZW data (9-bit codes only, so no width change) whose
// codes each repeat a longer run of 'a': about n bytes decoded.
func lzwBomb(n int) []byte {
	var codes []int
	codes = append(codes, 256, 'a')
	total, length, next := 1, 1, 258
	for total <= n {
		if next+1 >= 511 { // stay at 9 bits: clear the table
			codes = append(codes, 256, 'a')
			total++
			length, next = 1, 258
			continue
		}
		codes = append(codes, next) // KwKwK: the previous string and its first byte
		length++
		total += length
		next++
	}
	codes = append(codes, 257)
	var out []byte
	var acc uint64
	bits := 0
	for _, c := range codes {
		acc = acc<<9 | uint64(c)
		bits += 9
		for bits >= 8 {
			out = append(out, byte(acc>>(bits-8)))
			bits -= 8
		}
	}
	if bits > 0 {
		out = append(out, byte(acc<<(8-bits)))
	}
	return out
}

func FuzzCheckPDFStreams(f *testing.F) {
	f.Add(pdfWithStream("/Filter /FlateDecode", zeros(f, 1000)))
	f.Add(pdfWithStream("/Filter [/A85 /LZW /RL]", []byte("abc~>")))
	f.Add([]byte("%PDF-<<>>stream\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		err := CheckPDFStreams(bytes.NewReader(b), int64(len(b)), 1<<20)
		if err != nil && domain.ErrorCode(err) != domain.ETOOLARGE {
			t.Fatalf("unexpected error %v", err)
		}
	})
}
