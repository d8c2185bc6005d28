package app

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"regexp"
	"strings"
)

// No credentials in logs (docs/security.md, "Security notes"). A database URL is
// logged with its password replaced by xxxxx (RedactDSN), and every log
// record passes through redactHandler, which replaces the configured
// secrets (the database password, the SMTP password, the OIDC client
// secret, the DocuSeal key and webhook secret, the first administrator's
// password) wherever they appear: in a message, an attribute or an error
// a library wrote, whatever its wording.

// redacted replaces a secret in logs and messages.
const redacted = "xxxxx"

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
			return kvPassword.ReplaceAllString(urlUserinfo.ReplaceAllString(dsn, "${1}"+redacted+"@"), "${1}"+redacted)
		}
		if q := u.Query(); q.Has("password") {
			q.Set("password", redacted)
			u.RawQuery = q.Encode()
		}
		return u.Redacted()
	}
	if strings.Contains(low, "password") {
		return kvPassword.ReplaceAllString(dsn, "${1}"+redacted)
	}
	return dsn
}

// dsnPassword returns the password a database address carries, if any.
func dsnPassword(dsn string) string {
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

// secretsOf lists the configured secrets a log must never show. Values
// shorter than 4 characters are left out: replacing them would blank
// ordinary words and numbers, and such a secret protects nothing.
func secretsOf(o Options) []string {
	var out []string
	for _, s := range []string{dsnPassword(o.DB), o.SMTPPassword, o.OIDCClientSecret, o.DocuSealAPIKey,
		o.DocuSealWebhookSecret, o.AdminPassword} {
		if len(s) >= 4 {
			out = append(out, s)
			if e := url.QueryEscape(s); e != s {
				out = append(out, e)
			}
			if e := url.PathEscape(s); e != s {
				out = append(out, e)
			}
		}
	}
	return out
}

// scrub replaces every secret in s.
func scrub(s string, secrets []string) string {
	for _, sec := range secrets {
		if strings.Contains(s, sec) {
			s = strings.ReplaceAll(s, sec, redacted)
		}
	}
	return s
}

// redactText masks what looks like a password in free text: the user
// info of any URL and key=value passwords (a library's message quoting a
// connection string).
func redactText(s string) string {
	return kvPassword.ReplaceAllString(urlUserinfo.ReplaceAllString(s, "${1}"+redacted+"@"), "${1}"+redacted)
}

// RedactError returns err with the configured secrets and any database
// password replaced in its text (for the error run prints on the way
// out); nil stays nil.
func RedactError(err error, o Options) error {
	if err == nil {
		return nil
	}
	msg := err.Error()
	clean := redactText(scrub(msg, secretsOf(o)))
	if clean == msg {
		return err
	}
	return &redactedError{msg: clean, err: err}
}

type redactedError struct {
	msg string
	err error
}

func (e *redactedError) Error() string { return e.msg }

// Is lets errors.Is see the cause (flag.ErrHelp and the like) without
// exposing its text.
func (e *redactedError) Is(target error) bool { return errors.Is(e.err, target) }

// redactHandler scrubs the configured secrets from every record.
type redactHandler struct {
	h       slog.Handler
	secrets []string
}

func newRedactHandler(h slog.Handler, secrets []string) slog.Handler {
	if len(secrets) == 0 {
		return h
	}
	return &redactHandler{h: h, secrets: secrets}
}

func (r *redactHandler) Enabled(ctx context.Context, l slog.Level) bool { return r.h.Enabled(ctx, l) }

func (r *redactHandler) Handle(ctx context.Context, rec slog.Record) error {
	out := slog.NewRecord(rec.Time, rec.Level, scrub(rec.Message, r.secrets), rec.PC)
	rec.Attrs(func(a slog.Attr) bool {
		out.AddAttrs(r.attr(a))
		return true
	})
	return r.h.Handle(ctx, out)
}

func (r *redactHandler) WithAttrs(as []slog.Attr) slog.Handler {
	clean := make([]slog.Attr, len(as))
	for i, a := range as {
		clean[i] = r.attr(a)
	}
	return &redactHandler{h: r.h.WithAttrs(clean), secrets: r.secrets}
}

func (r *redactHandler) WithGroup(name string) slog.Handler {
	return &redactHandler{h: r.h.WithGroup(name), secrets: r.secrets}
}

// attr scrubs one attribute: strings, errors and anything printed with
// fmt, inside groups too.
func (r *redactHandler) attr(a slog.Attr) slog.Attr {
	v := a.Value.Resolve()
	switch v.Kind() {
	case slog.KindString:
		return slog.String(a.Key, scrub(v.String(), r.secrets))
	case slog.KindGroup:
		g := v.Group()
		clean := make([]any, len(g))
		for i, x := range g {
			clean[i] = r.attr(x)
		}
		return slog.Group(a.Key, clean...)
	case slog.KindAny:
		s := fmt.Sprint(v.Any())
		if c := scrub(s, r.secrets); c != s {
			return slog.String(a.Key, c)
		}
	}
	return slog.Attr{Key: a.Key, Value: v}
}
