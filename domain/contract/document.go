package contract

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"io"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"counsel/domain"
)

// Document limits (docs/decisions.md §5.4).
const (
	// MaxDocumentSize is the largest document, in bytes: 20 MiB.
	MaxDocumentSize = 20 << 20
	// MaxDocuments is the most documents one contract holds, so listing
	// them is bounded work.
	MaxDocuments = 100
	// MaxFileNameLength is the longest kept file name, in characters.
	MaxFileNameLength = 200
)

// Media types of the accepted documents.
const (
	ContentTypePDF  = "application/pdf"
	ContentTypeDOCX = "application/vnd.openxmlformats-officedocument.wordprocessingml.document"
)

// Document kinds (docs/decisions.md §13): an uploaded original, or the signed
// evidence of a completed signing, which cannot be removed.
const (
	KindOriginal = "original"
	KindSigned   = "signed" // the combined, digitally signed PDF
	KindAudit    = "audit"  // the audit certificate
)

// Document is a file attached to a contract. Its metadata and checksum
// are its row; its bytes are stored under StorageKey beside the row, in
// the same database.
type Document struct {
	ID          int64
	ContractID  int64
	FileName    string
	ContentType string // ContentTypePDF or ContentTypeDOCX, from the content
	Size        int64
	SHA256      string // lower-case hex
	UploadedAt  time.Time
	UploadedBy  int64 // user id
	StorageKey  string
	// Kind is KindOriginal, KindSigned or KindAudit; "" reads as
	// KindOriginal.
	Kind string
}

// ErrOutForSignature is the message of a removal refused while the
// contract is out for signature.
const ErrOutForSignature = "documents cannot be removed while the contract is out for signature (WaitingForClientSignature): the signers are reading them"

// RemovableFrom is the one rule of removing a document from a contract in
// status, whoever asks (the API, the console): refused (ECONFLICT, with
// the reason) while the contract is out for signature
// (WaitingForClientSignature), since the signers are reading its
// documents, and for signed evidence at any time (Removable).
func (d Document) RemovableFrom(status Status) error {
	if status == WaitingForClientSignature {
		return &domain.Error{Code: domain.ECONFLICT, Message: ErrOutForSignature}
	}
	return d.Removable()
}

// Removable refuses to remove signed evidence: ECONFLICT.
func (d Document) Removable() error {
	if d.Kind == KindSigned || d.Kind == KindAudit {
		return domain.Errorf(domain.ECONFLICT, "document %d is signed evidence (%s) and cannot be removed", d.ID, d.Kind)
	}
	return nil
}

// errUnsupported is the 415 of a file that is neither PDF nor DOCX.
func errUnsupported() error {
	return domain.Errorf(domain.EUNSUPPORTED, "only PDF and DOCX documents are accepted (recognised by their content, not their name)")
}

// SniffDocument recognises a document by its content: a PDF starts with
// "%PDF-"; a DOCX is a zip archive whose central directory names
// word/document.xml (in any case, as OPC part names compare). It returns the media type, or EUNSUPPORTED for
// anything else. The zip directory is scanned entry by entry without
// building it in memory, so a hostile archive with a huge directory costs
// a read, not an allocation per entry.
func SniffDocument(r io.ReaderAt, size int64) (string, error) {
	head := make([]byte, 5)
	if size < int64(len(head)) {
		return "", errUnsupported()
	}
	if _, err := r.ReadAt(head, 0); err != nil {
		return "", err
	}
	switch {
	case string(head) == "%PDF-":
		return ContentTypePDF, nil
	case string(head[:4]) == "PK\x03\x04":
		ok, err := zipHasEntry(r, size, "word/document.xml")
		if err != nil {
			return "", err
		}
		if ok {
			return ContentTypeDOCX, nil
		}
	}
	return "", errUnsupported()
}

// Zip record signatures and sizes (PKWARE APPNOTE 4.3).
const (
	zipEOCDSig       = "PK\x05\x06"
	zipEOCDLen       = 22
	zip64LocatorSig  = "PK\x06\x07"
	zip64LocatorLen  = 20
	zip64EOCDSig     = "PK\x06\x06"
	zip64EOCDLen     = 56
	zipCentralSig    = "PK\x01\x02"
	zipCentralLen    = 46
	zipMaxCommentLen = 0xffff
)

// zipHasEntry reports whether the zip archive in r names entry in its
// central directory. A malformed archive is simply not a DOCX (false);
// only a failing reader is an error.
func zipHasEntry(r io.ReaderAt, size int64, entry string) (bool, error) {
	tail := min(size, zipEOCDLen+zipMaxCommentLen)
	buf := make([]byte, tail)
	if _, err := r.ReadAt(buf, size-tail); err != nil && err != io.EOF {
		return false, err
	}
	i := bytes.LastIndex(buf, []byte(zipEOCDSig))
	if i < 0 || len(buf)-i < zipEOCDLen {
		return false, nil
	}
	eocd := buf[i : i+zipEOCDLen]
	entries := int64(binary.LittleEndian.Uint16(eocd[10:]))
	dirSize := int64(binary.LittleEndian.Uint32(eocd[12:]))
	dirOff := int64(binary.LittleEndian.Uint32(eocd[16:]))
	if entries == 0xffff || dirSize == 0xffffffff || dirOff == 0xffffffff {
		// Zip64: the real values are in the zip64 end record, found
		// through the locator just before the end record.
		locPos := size - tail + int64(i) - zip64LocatorLen
		if locPos < 0 {
			return false, nil
		}
		loc := make([]byte, zip64LocatorLen)
		if _, err := r.ReadAt(loc, locPos); err != nil {
			return false, nil
		}
		if string(loc[:4]) != zip64LocatorSig {
			return false, nil
		}
		recPos := int64(binary.LittleEndian.Uint64(loc[8:]))
		if recPos < 0 || recPos > size-zip64EOCDLen {
			return false, nil
		}
		rec := make([]byte, zip64EOCDLen)
		if _, err := r.ReadAt(rec, recPos); err != nil || string(rec[:4]) != zip64EOCDSig {
			return false, nil
		}
		entries = int64(binary.LittleEndian.Uint64(rec[32:]))
		dirSize = int64(binary.LittleEndian.Uint64(rec[40:]))
		dirOff = int64(binary.LittleEndian.Uint64(rec[48:]))
	}
	if dirOff < 0 || dirSize < 0 || dirOff > size || dirSize > size-dirOff {
		return false, nil
	}
	br := bufio.NewReader(io.NewSectionReader(r, dirOff, dirSize))
	hdr := make([]byte, zipCentralLen)
	name := make([]byte, 0, len(entry))
	for n := int64(0); n < entries; n++ {
		if _, err := io.ReadFull(br, hdr); err != nil || string(hdr[:4]) != zipCentralSig {
			return false, nil
		}
		nameLen := int(binary.LittleEndian.Uint16(hdr[28:]))
		skip := int(binary.LittleEndian.Uint16(hdr[30:])) + int(binary.LittleEndian.Uint16(hdr[32:]))
		if nameLen == len(entry) {
			name = name[:nameLen]
			if _, err := io.ReadFull(br, name); err != nil {
				return false, nil
			}
			// OPC part names compare case-insensitively.
			if strings.EqualFold(string(name), entry) {
				return true, nil
			}
		} else {
			skip += nameLen
		}
		if _, err := br.Discard(skip); err != nil {
			return false, nil
		}
	}
	return false, nil
}

// CleanFileName makes a client's file name safe to keep and to show: the
// last path element only (either slash), without control or invisible
// formatting characters (such as the right-to-left override that disguises
// an extension), trimmed, and at most MaxFileNameLength characters with
// the extension kept. An empty result becomes "document" with the
// extension of contentType.
func CleanFileName(name, contentType string) string {
	if i := strings.LastIndexAny(name, `/\`); i >= 0 {
		name = name[i+1:]
	}
	name = strings.Map(func(r rune) rune {
		if r == utf8.RuneError || unicode.IsControl(r) || unicode.Is(unicode.Cf, r) {
			return -1
		}
		return r
	}, name)
	name = strings.TrimSpace(name)
	if name == "." || name == ".." {
		name = ""
	}
	if n := utf8.RuneCountInString(name); n > MaxFileNameLength {
		ext := ""
		if i := strings.LastIndexByte(name, '.'); i > 0 && utf8.RuneCountInString(name[i:]) <= 10 {
			ext = name[i:]
		}
		stem := []rune(strings.TrimSuffix(name, ext))
		name = string(stem[:MaxFileNameLength-utf8.RuneCountInString(ext)]) + ext
	}
	if name == "" {
		name = "document"
		switch contentType {
		case ContentTypePDF:
			name += ".pdf"
		case ContentTypeDOCX:
			name += ".docx"
		}
	}
	return name
}

// CheckRoomForDocument is the MaxDocuments rule: a contract already
// holding n documents takes no more (ECONFLICT). Stores count and call it
// in the transaction that adds the document, so two uploads at once
// cannot both take the last place.
func CheckRoomForDocument(n int) error {
	if n >= MaxDocuments {
		return domain.Errorf(domain.ECONFLICT, "a contract holds at most %d documents; remove one first", MaxDocuments)
	}
	return nil
}
