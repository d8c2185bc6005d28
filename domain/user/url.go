package user

import (
	"net/url"
	"strings"

	"counsel/domain"
)

// ValidURL reports whether s may be stored in a URL field
// (docs/decisions.md §12): empty, or an absolute http or https URL with a
// host. Clients render these fields as links and images, so any other
// scheme (javascript:, data:, vbscript:, file:) could run script or
// reach local files; user info ("https://bank.example@evil.example")
// misleads the reader, and spaces or control characters can split the
// attribute a client writes the URL into.
func ValidURL(s string) bool {
	if s == "" {
		return true
	}
	if strings.IndexFunc(s, func(r rune) bool { return r <= ' ' || r == 0x7f || r == '\\' }) >= 0 {
		return false
	}
	u, err := url.Parse(s)
	if err != nil || u.Opaque != "" || u.User != nil || u.Hostname() == "" {
		return false
	}
	scheme := strings.ToLower(u.Scheme)
	return (scheme == "http" || scheme == "https") && strings.HasPrefix(strings.ToLower(s), scheme+"://")
}

// checkURL adds a field error when v is not a valid URL field value.
func checkURL(f domain.FieldErrors, field, v string) {
	if !ValidURL(v) {
		f.Add(field, field+" must be an absolute http or https URL, or empty")
	}
}
