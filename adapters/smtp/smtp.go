// Package smtp sends email (plain text, an optional HTML alternative,
// attachments) through an SMTP relay with net/smtp, with a deadline on
// the whole conversation.
package smtp

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/base64"
	"fmt"
	"mime"
	"mime/multipart"
	"mime/quotedprintable"
	"net"
	netsmtp "net/smtp"
	"net/textproto"
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

// Mailer implements ports.Mailer and ports.MailSender: the one sender of
// every email (one-time codes directly, everything else from the outbox).
type Mailer struct{ cfg Config }

var (
	_ ports.Mailer     = (*Mailer)(nil)
	_ ports.MailSender = (*Mailer)(nil)
)

// New returns a Mailer.
func New(cfg Config) *Mailer {
	if cfg.Timeout <= 0 {
		cfg.Timeout = 15 * time.Second
	}
	return &Mailer{cfg: cfg}
}

// clean strips line breaks so a header value cannot inject headers.
func clean(s string) string { return strings.NewReplacer("\r", " ", "\n", " ").Replace(s) }

// Send implements ports.Mailer: a plain-text message, through SendMail
// (the one way this package sends).
func (m *Mailer) Send(ctx context.Context, to, subject, body string) error {
	return m.SendMail(ctx, ports.Mail{To: to, Subject: subject, Text: body})
}

// SendMail implements ports.MailSender: the message as MIME (plain text,
// with its HTML alternative and attachments when it has them).
func (m *Mailer) SendMail(ctx context.Context, mail ports.Mail) error {
	msg, err := Compose(m.cfg.From, mail, time.Now())
	if err != nil {
		return err
	}
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
	if err := c.Rcpt(mail.To); err != nil {
		return fmt.Errorf("smtp: rcpt: %w", err)
	}
	w, err := c.Data()
	if err != nil {
		return fmt.Errorf("smtp: data: %w", err)
	}
	if _, err := w.Write(msg); err != nil {
		return fmt.Errorf("smtp: write: %w", err)
	}
	if err := w.Close(); err != nil {
		return fmt.Errorf("smtp: end data: %w", err)
	}
	return c.Quit()
}

// Compose writes mail from from as an RFC 5322 message with CRLF line
// ends: text/plain alone, or multipart/alternative with the HTML part,
// inside multipart/mixed with the attachments (base64). Header values
// are single lines, words outside ASCII encoded (RFC 2047).
func Compose(from string, mail ports.Mail, now time.Time) ([]byte, error) {
	var b bytes.Buffer
	header := func(k, v string) { fmt.Fprintf(&b, "%s: %s\r\n", k, v) }
	header("From", clean(from))
	header("To", clean(mail.To))
	header("Subject", mime.QEncoding.Encode("utf-8", clean(mail.Subject)))
	header("Date", now.UTC().Format(time.RFC1123Z))
	header("MIME-Version", "1.0")
	body, ctype, err := composeBody(mail)
	if err != nil {
		return nil, err
	}
	header("Content-Type", ctype)
	if !strings.HasPrefix(ctype, "multipart/") {
		header("Content-Transfer-Encoding", "quoted-printable")
	}
	b.WriteString("\r\n")
	b.Write(body)
	return b.Bytes(), nil
}

// composeBody returns the body and its Content-Type.
func composeBody(mail ports.Mail) ([]byte, string, error) {
	text := qp(mail.Text)
	if mail.HTML == "" && len(mail.Attachments) == 0 {
		return text, "text/plain; charset=utf-8", nil
	}
	var alt bytes.Buffer
	altType := "text/plain; charset=utf-8"
	altBody := text
	if mail.HTML != "" {
		w := multipart.NewWriter(&alt)
		for _, p := range []struct {
			ctype string
			body  []byte
		}{{"text/plain; charset=utf-8", text}, {"text/html; charset=utf-8", qp(mail.HTML)}} {
			pw, err := w.CreatePart(textproto.MIMEHeader{"Content-Type": {p.ctype}, "Content-Transfer-Encoding": {"quoted-printable"}})
			if err != nil {
				return nil, "", err
			}
			pw.Write(p.body)
		}
		w.Close()
		altType, altBody = "multipart/alternative; boundary="+w.Boundary(), alt.Bytes()
	}
	if len(mail.Attachments) == 0 {
		return altBody, altType, nil
	}
	var mixed bytes.Buffer
	w := multipart.NewWriter(&mixed)
	h := textproto.MIMEHeader{"Content-Type": {altType}}
	if !strings.HasPrefix(altType, "multipart/") {
		h.Set("Content-Transfer-Encoding", "quoted-printable")
	}
	pw, err := w.CreatePart(h)
	if err != nil {
		return nil, "", err
	}
	pw.Write(altBody)
	for _, a := range mail.Attachments {
		ctype := a.ContentType
		if ctype == "" {
			ctype = "application/octet-stream"
		}
		name := mime.QEncoding.Encode("utf-8", clean(a.Name))
		pw, err := w.CreatePart(textproto.MIMEHeader{
			"Content-Type":              {mime.FormatMediaType(ctype, map[string]string{"name": a.Name})},
			"Content-Disposition":       {mime.FormatMediaType("attachment", map[string]string{"filename": a.Name})},
			"Content-Transfer-Encoding": {"base64"},
		})
		if err != nil {
			return nil, "", fmt.Errorf("attachment %s: %w", name, err)
		}
		enc := base64.StdEncoding.EncodeToString(a.Data)
		for len(enc) > 76 {
			pw.Write([]byte(enc[:76] + "\r\n"))
			enc = enc[76:]
		}
		pw.Write([]byte(enc + "\r\n"))
	}
	w.Close()
	return mixed.Bytes(), "multipart/mixed; boundary=" + w.Boundary(), nil
}

// qp encodes s as quoted-printable with CRLF line ends.
func qp(s string) []byte {
	var b bytes.Buffer
	w := quotedprintable.NewWriter(&b)
	w.Write([]byte(strings.ReplaceAll(strings.ReplaceAll(s, "\r\n", "\n"), "\n", "\r\n")))
	w.Close()
	return b.Bytes()
}
