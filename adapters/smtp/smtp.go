// Package smtp sends plain-text email through an SMTP relay with net/smtp,
// with a deadline on the whole conversation.
package smtp

import (
	"context"
	"crypto/tls"
	"fmt"
	"net"
	netsmtp "net/smtp"
	"strings"
	"time"

	"counsel/ports"
)

// Config names the relay.
type Config struct {
	Addr     string // host:port
	From     string
	Username string // empty: no authentication
	Password string
	Timeout  time.Duration // default 15 s
}

// Mailer implements ports.Mailer.
type Mailer struct{ cfg Config }

var _ ports.Mailer = (*Mailer)(nil)

// New returns a Mailer.
func New(cfg Config) *Mailer {
	if cfg.Timeout <= 0 {
		cfg.Timeout = 15 * time.Second
	}
	return &Mailer{cfg: cfg}
}

// clean strips line breaks so a header value cannot inject headers.
func clean(s string) string { return strings.NewReplacer("\r", " ", "\n", " ").Replace(s) }

// Send implements ports.Mailer.
func (m *Mailer) Send(ctx context.Context, to, subject, body string) error {
	ctx, cancel := context.WithTimeout(ctx, m.cfg.Timeout)
	defer cancel()
	var d net.Dialer
	conn, err := d.DialContext(ctx, "tcp", m.cfg.Addr)
	if err != nil {
		return fmt.Errorf("smtp: dial: %w", err)
	}
	defer conn.Close()
	if dl, ok := ctx.Deadline(); ok {
		conn.SetDeadline(dl)
	}
	host, _, _ := net.SplitHostPort(m.cfg.Addr)
	c, err := netsmtp.NewClient(conn, host)
	if err != nil {
		return fmt.Errorf("smtp: hello: %w", err)
	}
	defer c.Close()
	if ok, _ := c.Extension("STARTTLS"); ok {
		if err := c.StartTLS(&tls.Config{ServerName: host}); err != nil {
			return fmt.Errorf("smtp: starttls: %w", err)
		}
	}
	if m.cfg.Username != "" {
		if err := c.Auth(netsmtp.PlainAuth("", m.cfg.Username, m.cfg.Password, host)); err != nil {
			return fmt.Errorf("smtp: auth: %w", err)
		}
	}
	if err := c.Mail(m.cfg.From); err != nil {
		return fmt.Errorf("smtp: from: %w", err)
	}
	if err := c.Rcpt(to); err != nil {
		return fmt.Errorf("smtp: rcpt: %w", err)
	}
	w, err := c.Data()
	if err != nil {
		return fmt.Errorf("smtp: data: %w", err)
	}
	msg := "From: " + clean(m.cfg.From) + "\r\nTo: " + clean(to) + "\r\nSubject: " + clean(subject) +
		"\r\nMIME-Version: 1.0\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n" +
		strings.ReplaceAll(body, "\n", "\r\n") + "\r\n"
	if _, err := w.Write([]byte(msg)); err != nil {
		return fmt.Errorf("smtp: write: %w", err)
	}
	if err := w.Close(); err != nil {
		return fmt.Errorf("smtp: end data: %w", err)
	}
	return c.Quit()
}
