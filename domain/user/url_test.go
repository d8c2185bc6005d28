package user_test

import (
	"net/url"
	"strings"
	"testing"

	"counsel/domain/user"

	"github.com/matryer/is"
)

func TestValidURL(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in string
		ok bool
	}{
		{"", true},
		{"https://example.com", true},
		{"http://example.com/a/b.png?x=1#top", true},
		{"HTTPS://Example.com/pic.jpg", true},
		{"https://example.com:8443/p", true},
		{"javascript:alert(1)", false},
		{"JavaScript:alert(1)", false},
		{" javascript:alert(1)", false},
		{"java\tscript:alert(1)", false},
		{"data:text/html,<script>alert(1)</script>", false},
		{"vbscript:msgbox(1)", false},
		{"file:///etc/passwd", false},
		{"ftp://example.com/x", false},
		{"//example.com/x", false},
		{"/relative/path", false},
		{"example.com", false},
		{"https:example.com", false},
		{"https:///path", false},
		{"https://user:pw@example.com", false},
		{"https://bank.example@evil.example", false},
		{"https://exa mple.com", false},
		{"https://example.com/\x00", false},
		{"https:\\\\evil.example", false},
		{"http://", false},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			is := is.New(t)
			is.Equal(user.ValidURL(tt.in), tt.ok) // accepted only when absolute http(s)
		})
	}
}

// FuzzValidURL: whatever is accepted is empty or parses as an absolute
// http(s) URL with a host, no user info and no space or control byte.
func FuzzValidURL(f *testing.F) {
	for _, s := range []string{"", "https://example.com/x", "javascript:alert(1)", "http://a@b", "https://exa mple.com", "data:,x", "HTTP://X.Y"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if !user.ValidURL(s) || s == "" {
			return
		}
		u, err := url.Parse(s)
		if err != nil {
			t.Fatalf("accepted %q that does not parse: %v", s, err)
		}
		if sc := strings.ToLower(u.Scheme); sc != "http" && sc != "https" {
			t.Fatalf("accepted %q with scheme %q", s, u.Scheme)
		}
		if u.Host == "" || u.User != nil || strings.ContainsAny(s, " \t\r\n\x00") {
			t.Fatalf("accepted %q: host %q, user %v", s, u.Host, u.User)
		}
	})
}
