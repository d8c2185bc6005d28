package app

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"strings"

	"counsel/app/stores"
)

// No credentials in logs (docs/security.md, "Security notes"). A database URL is
// logged with its password replaced by xxxxx (RedactDSN), and every log
// record passes through redactHandler, which replaces the configured
// secrets (the database password, the SMTP password, the OIDC client
// secret, the DocuSeal key and webhook secret, the first administrator's
// password) wherever they appear: in a message, an attribute or an error
// a library wrote, whatever its wording.

// redacted replaces a secret in logs and messages.
const redacted = stores.Redacted

// RedactDSN returns a database address fit for a log (stores.RedactDSN).
func RedactDSN(dsn string) string { return stores.RedactDSN(dsn) }

// secretsOf lists the configured secrets a log must never show. Values
// shorter than 4 characters are left out: replacing them would blank
// ordinary words and numbers, and such a secret protects nothing.
func secretsOf(o Options) []string {
	var out []string
	for _, s := range []string{stores.DSNPassword(o.DB), o.SMTPPassword, o.OIDCClientSecret, o.DocuSealAPIKey,
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

// RedactError returns err with the configured secrets and any database
// password replaced in its text (for the error run prints on the way
// out); nil stays nil.
func RedactError(err error, o Options) error {
	if err == nil {
		return nil
	}
	msg := err.Error()
	clean := stores.RedactText(scrub(msg, secretsOf(o)))
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
	if r.clean(rec) {
		return r.h.Handle(ctx, rec)
	}
	out := slog.NewRecord(rec.Time, rec.Level, scrub(rec.Message, r.secrets), rec.PC)
	rec.Attrs(func(a slog.Attr) bool {
		out.AddAttrs(r.attr(a))
		return true
	})
	return r.h.Handle(ctx, out)
}

// clean reports whether rec shows no secret as it is: its message and
// attributes are plain strings and numbers without one (anything else is
// scrubbed by rebuilding the record).
func (r *redactHandler) clean(rec slog.Record) bool {
	if r.contains(rec.Message) {
		return false
	}
	ok := true
	rec.Attrs(func(a slog.Attr) bool {
		switch a.Value.Kind() {
		case slog.KindString:
			ok = !r.contains(a.Value.String())
		case slog.KindInt64, slog.KindUint64, slog.KindFloat64, slog.KindBool, slog.KindDuration, slog.KindTime:
		default:
			ok = false
		}
		return ok
	})
	return ok
}

// contains reports whether s holds a secret.
func (r *redactHandler) contains(s string) bool {
	for _, sec := range r.secrets {
		if strings.Contains(s, sec) {
			return true
		}
	}
	return false
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
