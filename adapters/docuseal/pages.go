package docuseal

import (
	"archive/zip"
	"bytes"
	"compress/zlib"
	"encoding/xml"
	"io"
	"regexp"
	"strconv"
)

// DocuSeal places fields by page number, and the signature belongs on the
// last page, so the adapter counts pages. It does not parse PDFs fully: it
// counts page objects, which is right for the PDFs people sign and
// conservative otherwise (never less than 1).

const (
	// maxInflatePerStream and maxInflateTotal bound the work spent
	// decompressing object streams of a hostile or huge PDF.
	maxInflatePerStream = 4 << 20
	maxInflateTotal     = 32 << 20
)

var (
	// objHeader finds "12 0 obj" headers of top-level PDF objects.
	objHeader = regexp.MustCompile(`(\d+)\s+\d+\s+obj\b`)
	// pageType matches a page object's type entry, not the page tree's
	// "/Type /Pages".
	pageType = regexp.MustCompile(`/Type\s*/Page(?:[^A-Za-z0-9]|$)`)
	// objStmType marks an object stream, where PDF 1.5+ files keep pages.
	objStmType = regexp.MustCompile(`/Type\s*/ObjStm\b`)
)

// lastPage returns the 1-based number of the document's last page.
func lastPage(content []byte, kind string) int {
	if kind == "docx" {
		return docxPages(content)
	}
	return pdfPages(content)
}

// pdfPages counts the page objects of a PDF: those written as top-level
// objects (each object number once, so incremental updates that rewrite a
// page do not count it twice), else those inside object streams.
func pdfPages(b []byte) int {
	pages := map[string]bool{}
	locs := objHeader.FindAllSubmatchIndex(b, -1)
	for i, loc := range locs {
		end := len(b)
		if i+1 < len(locs) {
			end = locs[i+1][0]
		}
		obj := b[loc[1]:end]
		// Only the object's dictionary counts, not its stream data.
		if s := bytes.Index(obj, []byte("stream")); s >= 0 {
			obj = obj[:s]
		}
		if pageType.Match(obj) {
			pages[string(b[loc[2]:loc[3]])] = true
		}
	}
	if len(pages) > 0 {
		return len(pages)
	}
	if n := objectStreamPages(b, locs); n > 0 {
		return n
	}
	return 1
}

// objectStreamPages inflates the object streams of a PDF and counts the page
// objects in them.
func objectStreamPages(b []byte, locs [][]int) int {
	count, budget := 0, maxInflateTotal
	for i, loc := range locs {
		end := len(b)
		if i+1 < len(locs) {
			end = locs[i+1][0]
		}
		obj := b[loc[1]:end]
		s := bytes.Index(obj, []byte("stream"))
		if s < 0 || !objStmType.Match(obj[:s]) {
			continue
		}
		data := obj[s+len("stream"):]
		data = bytes.TrimLeft(data, "\r\n")
		if e := bytes.Index(data, []byte("endstream")); e >= 0 {
			data = data[:e]
		}
		zr, err := zlib.NewReader(bytes.NewReader(data))
		if err != nil {
			continue
		}
		limit := min(maxInflatePerStream, budget)
		plain, _ := io.ReadAll(io.LimitReader(zr, int64(limit)))
		zr.Close()
		budget -= len(plain)
		count += len(pageType.FindAll(plain, -1))
		if budget <= 0 {
			break
		}
	}
	return count
}

// docxPages reads the page count Word stores in docProps/app.xml. A DOCX has
// no pages until rendered, so this is Word's last rendering; without it the
// fields go on page 1.
func docxPages(b []byte) int {
	zr, err := zip.NewReader(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		return 1
	}
	for _, f := range zr.File {
		if f.Name != "docProps/app.xml" {
			continue
		}
		rc, err := f.Open()
		if err != nil {
			return 1
		}
		defer rc.Close()
		var props struct {
			Pages string `xml:"Pages"`
		}
		if xml.NewDecoder(io.LimitReader(rc, 1<<20)).Decode(&props) != nil {
			return 1
		}
		if n, err := strconv.Atoi(props.Pages); err == nil && n > 0 && n < 100000 {
			return n
		}
		return 1
	}
	return 1
}
