package app

import (
	"bytes"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"testing"

	"github.com/matryer/is"
)

func TestRedactHandler(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	o := Options{DB: "postgres://u:db-secret-1@h/d", SMTPPassword: "smtp secret/2", OIDCClientSecret: "abc"}
	var buf bytes.Buffer
	log := slog.New(newRedactHandler(slog.NewTextHandler(&buf, nil), secretsOf(o)))
	log.With("dsn", "db-secret-1").WithGroup("g").Info("failed: smtp secret/2",
		"err", errors.New("cannot parse `postgres://u:db-secret-1@h/d`"),
		"escaped", "smtp+secret%2F2", slog.Group("in", "v", fmt.Sprint([]string{"db-secret-1"})), "short", "abc")
	out := buf.String()
	is.True(!strings.Contains(out, "db-secret-1"))   // the database password
	is.True(!strings.Contains(out, "smtp secret/2")) // the SMTP password
	is.True(!strings.Contains(out, "smtp+secret"))   // also URL-escaped
	is.True(strings.Contains(out, "xxxxx"))          // replaced
	is.True(strings.Contains(out, "short=abc"))      // three characters are no secret worth blanking words for

	err := RedactError(fmt.Errorf("open: %w", errors.New("failed to connect to host=h password=hunter22")), o)
	is.True(!strings.Contains(err.Error(), "hunter22")) // a key=value password in a driver's message
	is.True(!strings.Contains(RedactError(errors.New("x db-secret-1"), o).Error(), "db-secret-1"))
	base := errors.New("cause db-secret-1")
	is.True(errors.Is(RedactError(base, o), base)) // the cause is still there for errors.Is
}

// TestRedactHandlerPlainRecords covers records of plain strings and
// numbers, which pass through unchanged unless one holds a secret.
func TestRedactHandlerPlainRecords(t *testing.T) {
	t.Parallel()
	secrets := secretsOf(Options{SMTPPassword: "smtp-secret-9"})
	tests := []struct {
		name      string
		msg       string
		args      []any
		want, not string
	}{
		{"clean", "request", []any{"method", "GET", "status", 200, "ok", true}, "method=GET status=200 ok=true", "xxxxx"},
		{"in a string", "request", []any{"request_id", "smtp-secret-9", "status", 200}, "request_id=xxxxx status=200", "smtp-secret-9"},
		{"in the message", "sent smtp-secret-9", []any{"n", 1}, `msg="sent xxxxx" n=1`, "smtp-secret-9"},
		{"in a value printed with fmt", "m", []any{"v", []string{"smtp-secret-9"}}, "v=[xxxxx]", "smtp-secret-9"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			var buf bytes.Buffer
			slog.New(newRedactHandler(newTextHandler(&buf, nil), secrets)).Info(tt.msg, tt.args...)
			is.True(strings.Contains(buf.String(), tt.want)) // the line as written
			is.True(!strings.Contains(buf.String(), tt.not)) // nothing to hide shown
		})
	}
}
