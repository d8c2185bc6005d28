package smtp_test

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/matryer/is"

	"counsel/adapters/smtp"
	"counsel/adapters/smtp/smtptest"
	"counsel/ports"
)

// TestSendMail: a message with an HTML part and attachments reaches a
// relay as MIME a mail client reads back part by part.
func TestSendMail(t *testing.T) {
	is := is.New(t)
	sink := smtptest.New(t)
	m := smtp.New(smtp.Config{Addr: sink.Addr(), From: "counsel@example.com"})
	pdf := bytes.Repeat([]byte("%PDF-1.7 \x00\xff"), 100)
	err := m.SendMail(context.Background(), ports.Mail{To: "signer@example.com", Subject: "Signé: Lease\r\nBcc: evil@example.com",
		Text: "Hello Zoë,\nline two with a long line " + strings.Repeat("x", 100) + "\n.\n", HTML: "<p>Hello Zoë</p>",
		Attachments: []ports.Attachment{{Name: "lease signed.pdf", ContentType: "application/pdf", Data: pdf}, {Name: "audit.pdf", Data: []byte("a")}}})
	is.NoErr(err)
	msgs := sink.Messages()
	is.Equal(len(msgs), 1)
	is.Equal(msgs[0].To, []string{"signer@example.com"})
	p, err := msgs[0].Parse()
	is.NoErr(err)
	is.Equal(p.Subject, "Signé: Lease  Bcc: evil@example.com") // one header line: no injection
	is.Equal(p.Header.Get("Bcc"), "")
	is.Equal(p.Text, "Hello Zoë,\nline two with a long line "+strings.Repeat("x", 100)+"\n.\n")
	is.Equal(p.HTML, "<p>Hello Zoë</p>")
	is.Equal(p.Attachments["lease signed.pdf"], pdf)
	is.Equal(p.Attachments["audit.pdf"], []byte("a"))

	// Plain text alone is one text/plain part; the relay refusing is an error.
	is.NoErr(m.Send(context.Background(), "a@example.com", "Code", "123456"))
	p, err = sink.Messages()[1].Parse()
	is.NoErr(err)
	is.Equal(strings.TrimRight(p.Text, "\n"), "123456") // the DATA terminator ends the last line
	is.True(strings.HasPrefix(p.Header.Get("Content-Type"), "text/plain"))
	sink.FailNext(1)
	is.True(m.Send(context.Background(), "a@example.com", "Code", "1") != nil)
}
