package signing

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/matryer/is"
)

func TestLine(t *testing.T) {
	t.Parallel()
	cases := []struct{ name, in, want string }{
		{"plain", "Ana Silva", "Ana Silva"},
		{"a newline", "Ana\nIP address: 6.6.6.6", "Ana IP address: 6.6.6.6"},
		{"CR LF and tabs", "Ana\r\n\tSilva", "Ana Silva"},
		{"a literal backslash-n", `Ana\nIP address: 6.6.6.6`, "Ana/nIP address: 6.6.6.6"},
		{"line and paragraph separators", "Ana\u2028IP\u2029x\u0085y", "Ana IP x y"},
		{"bidi overrides and isolates", "Ana\u202eevil\u202c\u2066x\u2069\u200f", "Ana evil x"},
		{"zero-width and BOM", "A\u200bn\ufeffa", "A n a"},
		{"controls", "a\x00b\x1bc\x7fd", "a b c d"},
		{"runs of spaces and trimming", "  a    b  ", "a b"},
		{"invalid UTF-8", "a\xffb", "a?b"},
		{"not Latin-1 stays (the layout decides)", "Zoë 李", "Zoë 李"},
		{"empty", "", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			is.New(t).Equal(Line(tc.in, 80), tc.want)
		})
	}
	t.Run("long values are cut with an ellipsis", func(t *testing.T) {
		is := is.New(t)
		got := Line(strings.Repeat("é", 500), 20)
		is.Equal(utf8.RuneCountInString(got), 20)
		is.True(strings.HasSuffix(got, "..."))
		is.Equal(Line(strings.Repeat("x", 20), 20), strings.Repeat("x", 20)) // exactly max is kept
		is.Equal(Line("abcdef", 2), "..")
	})
}

func FuzzLine(f *testing.F) {
	for _, s := range []string{"Ana\nIP address: 6.6.6.6", `a\nb`, "\u202e", "x\r\ny", strings.Repeat("ab ", 100)} {
		f.Add(s, 40)
	}
	f.Fuzz(func(t *testing.T, s string, max int) {
		if max < 0 || max > 1000 {
			return
		}
		got := Line(s, max)
		if utf8.RuneCountInString(got) > max {
			t.Fatalf("%q is longer than %d", got, max)
		}
		if strings.ContainsAny(got, "\n\r\\\t\u2028\u2029\u202e\u2066") || strings.Contains(got, "  ") {
			t.Fatalf("%q can break a line", got)
		}
		if got != Line(got, max) {
			t.Fatalf("Line is not idempotent on %q", got)
		}
	})
}
