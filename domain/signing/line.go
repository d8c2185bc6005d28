package signing

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Lengths at which evidence values are cut (in characters, the ellipsis
// included): enough for any real value, short enough that no value can
// fill a certificate page.
const (
	MaxNameLen     = 80  // names, typed names, roles, the firm
	MaxEmailLen    = 100 // email addresses
	MaxAddressLen  = 64  // IP addresses
	MaxFileNameLen = 120 // file and contract names
	MaxTextLen     = 300 // user agents, decline reasons, event texts
)

// ellipsis ends a value that was cut. Three dots rather than U+2026: the
// standard PDF fonts show Latin-1 only.
const ellipsis = "..."

// Line turns any value into one line of literal text, at most max
// characters long, for a PDF (the stamp, the audit certificate, the
// signature dictionary). Nothing in it can start another line or field
// wherever it is laid out: line breaks, tabs and other control
// characters, Unicode format characters (the bidirectional overrides and
// isolates, zero-width characters) and line or paragraph separators
// become spaces; a backslash becomes '/', since PDF text layouts read
// "\n" as a line break; runs of white space become one space; and a
// value longer than max is cut, ending with "...".
func Line(s string, max int) string {
	var b strings.Builder
	b.Grow(min(len(s), 4*max))
	space := false
	n := 0
	for _, r := range s {
		switch {
		case r == utf8.RuneError, r == '\\':
			if r == '\\' {
				r = '/'
			} else {
				r = '?'
			}
		case unicode.IsSpace(r) || unicode.IsControl(r) || unicode.In(r, unicode.Cf, unicode.Zl, unicode.Zp, unicode.Co, unicode.Cs):
			space = n > 0
			continue
		}
		if space {
			b.WriteByte(' ')
			n++
			space = false
		}
		b.WriteRune(r)
		n++
		if n > max+len(ellipsis) {
			break // enough to know it is cut
		}
	}
	out := b.String()
	if utf8.RuneCountInString(out) <= max {
		return out
	}
	if max <= len(ellipsis) {
		return ellipsis[:max]
	}
	runes := []rune(out)[:max-len(ellipsis)]
	return strings.TrimRight(string(runes), " ") + ellipsis
}
