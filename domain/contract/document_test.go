package contract

import (
	"archive/zip"
	"bytes"
	"strings"
	"testing"

	"github.com/matryer/is"

	"counsel/domain"
)

// zipOf builds a zip archive holding the named (empty) entries.
func zipOf(t testing.TB, names ...string) []byte {
	var buf bytes.Buffer
	w := zip.NewWriter(&buf)
	for _, n := range names {
		f, err := w.CreateHeader(&zip.FileHeader{Name: n, Method: zip.Deflate})
		if err != nil {
			t.Fatal(err)
		}
		f.Write([]byte("<w:document/>"))
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func sniff(b []byte) (string, error) { return SniffDocument(bytes.NewReader(b), int64(len(b))) }

func TestSniffDocument(t *testing.T) {
	t.Parallel()
	docx := zipOf(t, "[Content_Types].xml", "_rels/.rels", "word/document.xml", "word/styles.xml")
	withComment := func() []byte {
		var buf bytes.Buffer
		w := zip.NewWriter(&buf)
		w.SetComment(strings.Repeat("c", 60000))
		f, _ := w.Create("word/document.xml")
		f.Write([]byte("x"))
		w.Close()
		return buf.Bytes()
	}()
	tests := []struct {
		name string
		data []byte
		want string // "" for refused
	}{
		{"pdf", []byte("%PDF-1.7\n%\xe2\xe3\xcf\xd3\n1 0 obj\n"), ContentTypePDF},
		{"docx", docx, ContentTypeDOCX},
		{"docx with a long comment", withComment, ContentTypeDOCX},
		{"docx entry first", zipOf(t, "word/document.xml"), ContentTypeDOCX},
		{"text named .pdf", []byte("just some text that is not a pdf"), ""},
		{"empty", nil, ""},
		{"short", []byte("%PDF"), ""},
		{"pdf magic not at start", []byte(" %PDF-1.7"), ""},
		{"zip without document", zipOf(t, "[Content_Types].xml", "xl/workbook.xml"), ""},
		{"zip with similar names", zipOf(t, "word/document.xml.bak", "xword/document.xml", "word/document.xm"), ""},
		{"part name in another case", zipOf(t, "Word/Document.XML"), ContentTypeDOCX},
		{"truncated docx", docx[:len(docx)/2], ""},
		{"zip signature only", []byte("PK\x03\x04garbage"), ""},
		{"png", []byte("\x89PNG\r\n\x1a\n\x00\x00"), ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			got, err := sniff(tt.data)
			if tt.want == "" {
				is.Equal(domain.ErrorCode(err), domain.EUNSUPPORTED) // 415
				return
			}
			is.NoErr(err)          // accepted
			is.Equal(got, tt.want) // media type
		})
	}
}

func TestSniffZip64(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	// A zip64 directory written by hand: local header, central entry,
	// zip64 end record, locator, and an end record pointing at them.
	name := "word/document.xml"
	var b bytes.Buffer
	b.WriteString("PK\x03\x04")
	b.Write(make([]byte, 26))
	dirOff := b.Len()
	central := make([]byte, 46)
	copy(central, "PK\x01\x02")
	central[28] = byte(len(name))
	b.Write(central)
	b.WriteString(name)
	dirSize := b.Len() - dirOff
	recOff := b.Len()
	rec := make([]byte, 56)
	copy(rec, "PK\x06\x06")
	le64 := func(p []byte, v uint64) {
		for i := 0; i < 8; i++ {
			p[i] = byte(v >> (8 * i))
		}
	}
	le64(rec[32:], 1)
	le64(rec[40:], uint64(dirSize))
	le64(rec[48:], uint64(dirOff))
	b.Write(rec)
	loc := make([]byte, 20)
	copy(loc, "PK\x06\x07")
	le64(loc[8:], uint64(recOff))
	b.Write(loc)
	end := make([]byte, 22)
	copy(end, "PK\x05\x06")
	for i := 10; i < 20; i++ {
		end[i] = 0xff
	}
	b.Write(end)
	got, err := sniff(b.Bytes())
	is.NoErr(err)                  // zip64 read
	is.Equal(got, ContentTypeDOCX) // recognised
}

// FuzzSniffDocument checks that no input makes the sniffer panic or
// accept something that does not start like a PDF or a zip.
func FuzzSniffDocument(f *testing.F) {
	f.Add([]byte("%PDF-1.4"))
	f.Add(zipOf(f, "word/document.xml"))
	f.Add([]byte("PK\x03\x04\x00\x00PK\x05\x06\x00\x00\x00\x00\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\x00\x00"))
	f.Fuzz(func(t *testing.T, data []byte) {
		ct, err := sniff(data)
		if err != nil {
			if domain.ErrorCode(err) != domain.EUNSUPPORTED {
				t.Fatalf("unexpected error %v", err)
			}
			return
		}
		if ct == ContentTypePDF && !bytes.HasPrefix(data, []byte("%PDF-")) || ct == ContentTypeDOCX && !bytes.HasPrefix(data, []byte("PK\x03\x04")) {
			t.Fatalf("accepted %q as %s", data, ct)
		}
	})
}

func TestCleanFileName(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("é", 300) + ".docx"
	tests := []struct{ in, ct, want string }{
		{"contract.pdf", ContentTypePDF, "contract.pdf"},
		{"  Vertrag für Müller.docx ", ContentTypeDOCX, "Vertrag für Müller.docx"},
		{"../../etc/passwd", ContentTypePDF, "passwd"},
		{`C:\Users\me\lease.pdf`, ContentTypePDF, "lease.pdf"},
		{"evil\r\nX-Header: 1.pdf", ContentTypePDF, "evilX-Header: 1.pdf"},
		{"invoice\u202Efdp.exe", ContentTypePDF, "invoicefdp.exe"},
		{"bad\xffutf8.pdf", ContentTypePDF, "badutf8.pdf"},
		{"", ContentTypePDF, "document.pdf"},
		{"..", ContentTypeDOCX, "document.docx"},
		{"dir/", ContentTypeDOCX, "document.docx"},
		{long, ContentTypeDOCX, strings.Repeat("é", 195) + ".docx"},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			is := is.New(t)
			is.Equal(CleanFileName(tt.in, tt.ct), tt.want) // cleaned
		})
	}
}
