package mail_test

import (
	"strings"
	"testing"
	"time"

	"github.com/matryer/is"

	"counsel/domain/mail"
)

func TestSigningMessages(t *testing.T) {
	exp := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	s := mail.Signer{Name: "Ann\r\nBcc: x", Email: "ann@example.com", Title: "Lease\nBcc: y <b>", Link: "https://c.example/sign/abc", ExpireAt: &exp}
	t.Run("invitation", func(t *testing.T) {
		is := is.New(t)
		m := mail.Invitation(s, mail.CustomMessage{})
		is.Equal(m.Kind, mail.KindSigningInvitation)
		is.Equal(m.Subject, "Please sign: Lease Bcc: y <b>") // one line
		is.True(strings.Contains(m.Text, "Hello Ann Bcc: x,"))
		is.True(strings.Contains(m.Text, "https://c.example/sign/abc"))
		is.True(strings.Contains(m.Text, "The link works until 1 May 2026 12:00 UTC."))
		is.True(strings.Contains(m.HTML, "Lease Bcc: y &lt;b&gt;")) // escaped
		custom := mail.Invitation(s, mail.CustomMessage{Subject: "Sign {{template.name}}", Body: "Dear {{submitter.email}}"})
		is.Equal(custom.Subject, "Sign Lease Bcc: y <b>")
		is.Equal(custom.Text, "Dear ann@example.com\n\nhttps://c.example/sign/abc\n") // the link appended
		is.Equal(custom.HTML, "")                                                     // the sender's text only
	})
	t.Run("reminder", func(t *testing.T) {
		is := is.New(t)
		m := mail.Reminder(mail.Signer{Email: "bo@example.com", Title: "NDA", Link: "https://c.example/sign/x"})
		is.Equal(m.Kind, mail.KindSigningReminder)
		is.Equal(m.Subject, "Reminder: please sign NDA")
		is.True(strings.Contains(m.Text, "Hello bo@example.com,")) // the email when there is no name
		is.True(strings.Contains(m.Text, `"NDA" is still waiting for your signature`))
		is.True(strings.Contains(m.HTML, `href="https://c.example/sign/x"`))
		is.True(!strings.Contains(m.Text, "works until")) // no expiry
	})
	t.Run("completion", func(t *testing.T) {
		is := is.New(t)
		m := mail.Completion(mail.SignedCopy{Name: "Ann", Email: "ann@example.com", Title: "NDA", Attached: true})
		is.Equal(m.Kind, mail.KindSigningCompleted)
		is.Equal(m.Subject, "Signed copy: NDA")
		is.True(strings.Contains(m.Text, "are attached"))
		is.True(!strings.Contains(m.Text, "Open the contract"))
		m = mail.Completion(mail.SignedCopy{Name: "Ann", Title: "NDA", SignedURL: "https://c.example/s", AuditURL: "https://c.example/a",
			LinksUntil: exp, ContractLink: "https://c.example/console/contracts/3"})
		is.True(strings.Contains(m.Text, "Signed document: https://c.example/s\nAudit certificate: https://c.example/a"))
		is.True(strings.Contains(m.Text, "which work until 1 May 2026 12:00 UTC"))
		is.True(strings.Contains(m.Text, "Open the contract: https://c.example/console/contracts/3"))
		is.True(strings.Contains(m.HTML, `href="https://c.example/a"`))
	})
}
