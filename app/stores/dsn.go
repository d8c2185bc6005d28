package stores

import (
	"net/url"
	"regexp"
	"strings"
)

// A database address is logged and printed with its password replaced
// by Redacted (RedactDSN); the composition root's log redaction uses the
// same patterns for passwords in free text (RedactText).

// Redacted replaces a secret in logs and messages.
const Redacted = "xxxxx"

var (
	// kvPassword is a password in a key=value connection string, quoted
	// ('...' with \' escapes) or bare.
	kvPassword = regexp.MustCompile(`(?i)(\bpassword\s*=\s*)('(?:[^'\\]|\\.)*'|[^\s]*)`)
	// urlUserinfo is the user:password@ of a URL that did not parse.
	urlUserinfo = regexp.MustCompile(`(://[^:/@\s]*:)[^@\s]*@`)
)

// RedactDSN returns a database address fit for a log: a postgres:// URL
// with its password (in the user info or a password parameter) replaced
// by xxxxx, the same in a key=value connection string; a SQLite path is
// returned as is.
func RedactDSN(dsn string) string {
	low := strings.ToLower(dsn)
	if strings.Contains(low, "://") {
		u, err := url.Parse(dsn)
		if err != nil {
			return RedactText(dsn)
		}
		if q := u.Query(); q.Has("password") {
			q.Set("password", Redacted)
			u.RawQuery = q.Encode()
		}
		return u.Redacted()
	}
	if strings.Contains(low, "password") {
		return kvPassword.ReplaceAllString(dsn, "${1}"+Redacted)
	}
	return dsn
}

// DSNPassword returns the password a database address carries, if any.
func DSNPassword(dsn string) string {
	if strings.Contains(dsn, "://") {
		if u, err := url.Parse(dsn); err == nil {
			if pw, ok := u.User.Password(); ok {
				return pw
			}
			return u.Query().Get("password")
		}
		if m := urlUserinfo.FindStringSubmatchIndex(dsn); m != nil {
			return dsn[m[3] : m[1]-1]
		}
	}
	if m := kvPassword.FindStringSubmatch(dsn); m != nil {
		pw := m[2]
		if strings.HasPrefix(pw, "'") && strings.HasSuffix(pw, "'") && len(pw) >= 2 {
			pw = strings.ReplaceAll(pw[1:len(pw)-1], `\'`, `'`)
		}
		return pw
	}
	return ""
}

// RedactText masks what looks like a password in free text: the user
// info of any URL and key=value passwords (a library's message quoting a
// connection string).
func RedactText(s string) string {
	return kvPassword.ReplaceAllString(urlUserinfo.ReplaceAllString(s, "${1}"+Redacted+"@"), "${1}"+Redacted)
}
