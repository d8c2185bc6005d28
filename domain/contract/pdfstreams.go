package contract

import (
	"bufio"
	"bytes"
	"compress/lzw"
	"compress/zlib"
	"encoding/ascii85"
	"errors"
	"io"
	"strconv"

	"counsel/domain"
)

// MaxPDFDecodedSize is the most a PDF's streams may decode to, in total:
// 256 MiB. Evidence is made from accepted documents only, so this bounds
// what making it decodes.
const MaxPDFDecodedSize = 256 << 20

// errPDFTooLarge is the 413 of a PDF whose streams decode past
// MaxPDFDecodedSize.
func errPDFTooLarge(limit int64) error {
	return domain.Errorf(domain.ETOOLARGE, "the PDF's streams would decode to more than %d MiB in total (a compressed file that expands this much cannot be processed)", limit>>20)
}

// CheckPDFStreams refuses (ETOOLARGE) a PDF whose streams would decode to
// more than limit bytes in total. Every stream of the file is found by its
// "stream" keyword (so streams the cross-reference table hides count too)
// and decoded through its filters as a stream into a counter: a stream
// is never held decoded, and decoding stops as soon as the total passes
// the limit. Flate, LZW (by the lengths of its table entries), run-length,
// ASCIIHex and ASCII85 are decoded; other filters (images, encryption)
// count their encoded length. A stream that fails to decode counts what
// it produced until then. Only a failing reader is another error.
func CheckPDFStreams(r io.ReaderAt, size, limit int64) error {
	if size > MaxDocumentSize {
		return domain.Errorf(domain.ETOOLARGE, "the file is larger than %d MiB", MaxDocumentSize>>20)
	}
	var pdf []byte
	if l, ok := r.(interface{ Bytes() ([]byte, error) }); ok { // a spooled upload lends its bytes
		b, err := l.Bytes()
		if err != nil {
			return err
		}
		pdf = b[:min(int64(len(b)), size)]
	} else {
		pdf = make([]byte, size)
		if _, err := r.ReadAt(pdf, 0); err != nil && !errors.Is(err, io.EOF) {
			return err
		}
	}
	var total int64
	for at := 0; ; {
		i := bytes.Index(pdf[at:], []byte("stream"))
		if i < 0 {
			return nil
		}
		kw := at + i
		at = kw + len("stream")
		if kw >= 3 && string(pdf[kw-3:kw]) == "end" {
			continue
		}
		start, ok := streamStart(pdf, at)
		if !ok {
			continue
		}
		dict, ok := dictBefore(pdf, kw)
		if !ok {
			continue
		}
		end := streamEnd(pdf, dict, start)
		data := pdf[start:end]
		at = end
		n := decodedLength(data, filters(dict), limit-total)
		total += n
		if total > limit {
			return errPDFTooLarge(limit)
		}
	}
}

// streamStart is where a stream's data begins after its keyword: past
// CRLF or LF.
func streamStart(pdf []byte, at int) (int, bool) {
	switch {
	case bytes.HasPrefix(pdf[at:], []byte("\r\n")):
		return at + 2, true
	case bytes.HasPrefix(pdf[at:], []byte("\n")), bytes.HasPrefix(pdf[at:], []byte("\r")):
		return at + 1, true
	}
	return 0, false
}

// dictBefore returns the dictionary that ends just before the stream
// keyword at kw, found by balancing << and >> backwards (at most 64 KiB).
func dictBefore(pdf []byte, kw int) ([]byte, bool) {
	end := len(bytes.TrimRight(pdf[:kw], " \t\r\n\f\x00"))
	if end < 2 || string(pdf[end-2:end]) != ">>" {
		return nil, false
	}
	depth := 0
	for i := end - 1; i > 0 && end-i < 64<<10; i-- {
		switch {
		case pdf[i] == '>' && pdf[i-1] == '>':
			depth++
			i--
		case pdf[i] == '<' && pdf[i-1] == '<':
			depth--
			i--
			if depth == 0 {
				return pdf[i:end], true
			}
		}
	}
	return nil, false
}

// streamEnd is where the data of the stream starting at start ends: its
// direct /Length when "endstream" follows it, else the next "endstream".
func streamEnd(pdf, dict []byte, start int) int {
	if n, ok := directLength(dict); ok && n >= 0 && n <= int64(len(pdf)-start) {
		after := bytes.TrimLeft(pdf[start+int(n):], " \t\r\n\f\x00")
		if bytes.HasPrefix(after, []byte("endstream")) {
			return start + int(n)
		}
	}
	if j := bytes.Index(pdf[start:], []byte("endstream")); j >= 0 {
		return start + j
	}
	return len(pdf)
}

// directLength reads "/Length n" unless it is a reference "n g R".
func directLength(dict []byte) (int64, bool) {
	i := bytes.Index(dict, []byte("/Length"))
	if i < 0 {
		return 0, false
	}
	f := bytes.Fields(dict[i+len("/Length"):])
	if len(f) == 0 {
		return 0, false
	}
	num := bytes.TrimRight(f[0], "/>")
	if len(f) >= 3 && bytes.HasPrefix(f[2], []byte("R")) {
		return 0, false
	}
	n, err := strconv.ParseInt(string(num), 10, 64)
	return n, err == nil
}

// filters reads the names of /Filter: one name or an array of names.
func filters(dict []byte) []string {
	i := bytes.Index(dict, []byte("/Filter"))
	if i < 0 {
		return nil
	}
	rest := bytes.TrimLeft(dict[i+len("/Filter"):], " \t\r\n\f\x00")
	var names []string
	readName := func(b []byte) (string, []byte) {
		b = bytes.TrimLeft(b, " \t\r\n\f\x00")
		if len(b) == 0 || b[0] != '/' {
			return "", nil
		}
		j := 1
		for j < len(b) && !bytes.ContainsRune([]byte(" \t\r\n\f\x00/[]<>()"), rune(b[j])) {
			j++
		}
		return string(b[1:j]), b[j:]
	}
	if len(rest) > 0 && rest[0] == '[' {
		rest = rest[1:]
		for len(names) < 8 {
			var n string
			n, rest = readName(rest)
			if n == "" {
				break
			}
			names = append(names, n)
		}
		return names
	}
	if n, _ := readName(rest); n != "" {
		names = append(names, n)
	}
	return names
}

// decodedLength is how many bytes data decodes to through the filters,
// counting at most budget+1.
func decodedLength(data []byte, names []string, budget int64) int64 {
	var r io.Reader = bytes.NewReader(data)
	for i, name := range names {
		last := i == len(names)-1
		switch name {
		case "FlateDecode", "Fl":
			zr, err := zlib.NewReader(r)
			if err != nil {
				return 0
			}
			r = zr
		case "LZWDecode", "LZW":
			if last {
				return lzwLength(bufio.NewReader(r), budget)
			}
			r = lzw.NewReader(r, lzw.MSB, 8)
		case "RunLengthDecode", "RL":
			if last {
				return runLengthLength(bufio.NewReader(r), budget)
			}
			r = &runLengthReader{r: bufio.NewReader(r)}
		case "ASCII85Decode", "A85":
			r = ascii85.NewDecoder(&untilReader{r: bufio.NewReader(r), end: '~'})
		case "ASCIIHexDecode", "AHx":
			r = &hexReader{r: bufio.NewReader(r)}
		default:
			// Images and encryption: what pdfcpu stamps and merges
			// keeps them encoded.
			if i == 0 {
				return int64(len(data))
			}
			return 0
		}
	}
	n, _ := io.CopyN(io.Discard, r, budget+1)
	return n
}

// lzwLength counts the output of PDF LZW data (early change 1) from the
// lengths of its table entries, without producing it.
func lzwLength(r io.ByteReader, budget int64) int64 {
	const clear, eod = 256, 257
	var lengths [4096]int64
	var total int64
	width, next, prev := 9, 258, -1
	var acc uint32
	bits := 0
	for total <= budget {
		for bits < width {
			c, err := r.ReadByte()
			if err != nil {
				return total
			}
			acc = acc<<8 | uint32(c)
			bits += 8
		}
		code := int(acc>>(bits-width)) & (1<<width - 1)
		bits -= width
		switch {
		case code == clear:
			width, next, prev = 9, 258, -1
			continue
		case code == eod:
			return total
		case code < 256:
			lengths[code] = 1
		}
		var n int64
		switch {
		case code < 256 || code < next && lengths[code] > 0:
			n = lengths[code]
		case code == next && prev >= 0:
			n = lengths[prev] + 1
		default:
			return total // corrupt
		}
		total += n
		if prev >= 0 && next < len(lengths) {
			lengths[next] = lengths[prev] + 1
			next++
		}
		prev = code
		if next+1 >= 1<<width && width < 12 {
			width++
		}
	}
	return total
}

// runLengthLength counts the output of RunLengthDecode data.
func runLengthLength(r io.ByteReader, budget int64) int64 {
	var total int64
	for total <= budget {
		c, err := r.ReadByte()
		if err != nil || c == 128 {
			return total
		}
		if c < 128 {
			for k := 0; k <= int(c); k++ {
				if _, err := r.ReadByte(); err != nil {
					return total
				}
				total++
			}
			continue
		}
		if _, err := r.ReadByte(); err != nil {
			return total
		}
		total += 257 - int64(c)
	}
	return total
}

// runLengthReader decodes RunLengthDecode data.
type runLengthReader struct {
	r        *bufio.Reader
	rep      byte
	run, lit int
	eod      bool
}

func (d *runLengthReader) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) {
		switch {
		case d.run > 0:
			p[n] = d.rep
			d.run--
			n++
		case d.lit > 0:
			c, err := d.r.ReadByte()
			if err != nil {
				return n, io.EOF
			}
			p[n] = c
			d.lit--
			n++
		default:
			if d.eod {
				return n, io.EOF
			}
			c, err := d.r.ReadByte()
			if err != nil || c == 128 {
				d.eod = true
				continue
			}
			if c < 128 {
				d.lit = int(c) + 1
				continue
			}
			if d.rep, err = d.r.ReadByte(); err != nil {
				d.eod = true
				continue
			}
			d.run = 257 - int(c)
		}
	}
	return n, nil
}

// untilReader reads up to the byte end.
type untilReader struct {
	r   *bufio.Reader
	end byte
}

func (u *untilReader) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) {
		c, err := u.r.ReadByte()
		if err != nil || c == u.end {
			return n, io.EOF
		}
		p[n] = c
		n++
	}
	return n, nil
}

// hexReader decodes ASCIIHexDecode data: hex digits, white space ignored,
// up to '>'.
type hexReader struct {
	r   *bufio.Reader
	eod bool
}

func (h *hexReader) Read(p []byte) (int, error) {
	n := 0
	var hi byte
	half := false
	for n < len(p) && !h.eod {
		c, err := h.r.ReadByte()
		if err != nil || c == '>' {
			h.eod = true
			break
		}
		var v byte
		switch {
		case c >= '0' && c <= '9':
			v = c - '0'
		case c >= 'a' && c <= 'f':
			v = c - 'a' + 10
		case c >= 'A' && c <= 'F':
			v = c - 'A' + 10
		default:
			continue
		}
		if !half {
			hi, half = v, true
			continue
		}
		p[n] = hi<<4 | v
		n++
		half = false
	}
	if half && n < len(p) {
		p[n] = hi << 4
		n++
	}
	if n == 0 && h.eod {
		return 0, io.EOF
	}
	return n, nil
}
