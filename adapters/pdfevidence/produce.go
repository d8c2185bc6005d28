package pdfevidence

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/pdfcpu/pdfcpu/pkg/api"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/types"

	"counsel/domain"
	"counsel/domain/contract"
	"counsel/domain/signing"
	"counsel/ports"
)

// linesPerPage is how many 9-point lines of the certificate fit an A4
// page between its margins and the page-number footer.
const linesPerPage = 64

// stampStyle places the stamp at the bottom left of the last page, on
// top of the content, in dark blue.
const stampStyle = "font:Helvetica, points:8, pos:bl, off:36 30, scale:1 abs, rot:0, fillcolor:#1a237e, opacity:1"

// Produce implements ports.PDFEvidence.
func (e *Evidence) Produce(ctx context.Context, ev signing.Evidence, pdfs []ports.EvidencePDF, combined, audit io.Writer) error {
	e.produce.Lock()
	defer e.produce.Unlock()
	ev.Documents = slices.Clone(ev.Documents) // Excluded is marked on a copy
	conf := config()
	stamp := latin1(strings.Join(ev.StampLines(), "\n"))
	// The stamp is the text of a watermark, where a backslash-n breaks
	// a line: a typed name cannot add one.
	stamp = strings.ReplaceAll(stamp, `\`, "/")
	stamp = strings.ReplaceAll(stamp, "\n", `\n`)
	var parts []io.ReadSeeker
	for _, p := range pdfs {
		if err := ctx.Err(); err != nil {
			return err
		}
		var out bytes.Buffer
		if tooLargeToStamp(p.Body) {
			if p.Index >= 0 && p.Index < len(ev.Documents) {
				ev.Documents[p.Index].Excluded, ev.Documents[p.Index].TooLarge = true, true
			}
			continue
		}
		if err := stampLast(p.Body, &out, stamp); err != nil {
			if p.Index >= 0 && p.Index < len(ev.Documents) {
				ev.Documents[p.Index].Excluded = true
			}
			continue
		}
		parts = append(parts, bytes.NewReader(out.Bytes()))
	}
	cert, err := certificate(ev)
	if err != nil {
		return err
	}
	if _, err := audit.Write(cert); err != nil {
		return fmt.Errorf("pdfevidence: write certificate: %w", err)
	}
	parts = append(parts, bytes.NewReader(cert))
	var merged bytes.Buffer
	if err := api.MergeRaw(parts, &merged, false, conf); err != nil {
		return fmt.Errorf("pdfevidence: merge: %w", err)
	}
	summary, err := json.Marshal(toWire(ev.Summary()))
	if err != nil {
		return fmt.Errorf("pdfevidence: summary: %w", err)
	}
	signed, err := e.sign(merged.Bytes(), summary, ev)
	if err != nil {
		return err
	}
	if _, err := combined.Write(signed); err != nil {
		return fmt.Errorf("pdfevidence: write combined PDF: %w", err)
	}
	return nil
}

// maxStampDecoded is the most a PDF's streams may decode to for it to be
// stamped and combined. pdfcpu holds what it decodes, several times over
// (about three times the decoded size at its peak), so this keeps making
// evidence under 512 MB of memory for any accepted upload (at most
// contract.MaxPDFDecodedSize decoded). A larger one is listed in the
// certificate with its hash, as a DOCX is.
const maxStampDecoded = 96 << 20

// tooLargeToStamp reports whether the PDF in r decodes to more than
// maxStampDecoded, counting without holding what it decodes. r is
// rewound.
func tooLargeToStamp(r io.ReadSeeker) bool {
	size, err := r.Seek(0, io.SeekEnd)
	if err != nil {
		return false
	}
	defer r.Seek(0, io.SeekStart)
	ra, ok := r.(io.ReaderAt)
	if !ok {
		if _, err := r.Seek(0, io.SeekStart); err != nil {
			return false
		}
		b, err := io.ReadAll(io.LimitReader(r, contract.MaxDocumentSize+1))
		if err != nil {
			return false
		}
		ra, size = bytes.NewReader(b), int64(len(b))
	}
	return domain.ErrorCode(contract.CheckPDFStreams(ra, size, maxStampDecoded)) == domain.ETOOLARGE
}

// stampLast stamps the last page of the PDF in r into w. pdfcpu turns its
// own panics into errors; a panic elsewhere on a hostile file is one too.
func stampLast(r io.ReadSeeker, w io.Writer, text string) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("pdfevidence: stamp: %v", p)
		}
	}()
	// A watermark keeps state of the file it was applied to: one each.
	wm, err := api.TextWatermark(text, stampStyle, true, false, types.POINTS)
	if err != nil {
		return fmt.Errorf("pdfevidence: stamp: %w", err)
	}
	return api.AddWatermarks(r, w, []string{"l"}, wm, config())
}

// certificate lays out the audit certificate: the domain's lines, on as
// many A4 pages as they need, with page numbers.
func certificate(ev signing.Evidence) ([]byte, error) {
	lines := ev.CertificateLines()
	pages := map[string]any{}
	for i, n := 0, 1; i < len(lines); i, n = i+linesPerPage, n+1 {
		end := min(i+linesPerPage, len(lines))
		text := latin1(strings.Join(lines[i:end], "\n"))
		pages[fmt.Sprint(n)] = map[string]any{"content": map[string]any{"text": []any{map[string]any{
			"value": text, "pos": []int{40, 40}, "font": map[string]any{"name": "Helvetica", "size": 9},
		}}}}
	}
	doc := map[string]any{
		"paper": "A4", "origin": "UpperLeft",
		"footer": map[string]any{"font": map[string]any{"name": "Helvetica", "size": 8}, "center": "Audit certificate - page %p of %P", "height": 20},
		"pages":  pages,
	}
	j, err := json.Marshal(doc)
	if err != nil {
		return nil, fmt.Errorf("pdfevidence: certificate layout: %w", err)
	}
	var out bytes.Buffer
	if err := api.Create(nil, bytes.NewReader(j), &out, config()); err != nil {
		return nil, fmt.Errorf("pdfevidence: certificate: %w", err)
	}
	return out.Bytes(), nil
}

// latin1 replaces what the standard PDF fonts cannot show (outside
// Latin-1) with '?', and controls but line breaks with spaces.
func latin1(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r == '\n':
			return r
		case r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0):
			return ' '
		case r > 0xff:
			return '?'
		}
		return r
	}, s)
}
