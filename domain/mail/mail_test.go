package mail_test

import (
	"strings"
	"testing"

	"github.com/matryer/is"

	"counsel/domain/mail"
)

func TestOwnerNotice(t *testing.T) {
	l := mail.Links{PublicURL: "https://counsel.example/"}
	c := mail.Contract{ID: 7, Name: "Lease\r\nBcc: x", Status: "Declined"}
	for _, tt := range []struct {
		o       mail.Outcome
		subject string
		text    string
	}{
		{mail.Declined, "Declined: Lease Bcc: x", "Reason: no reason given"},
		{mail.Expired, "Signing expired: Lease Bcc: x", "expired before every party signed"},
		{mail.Completed, "Signed by every party: Lease Bcc: x", "Every party has signed"},
	} {
		is := is.New(t)
		m := mail.OwnerNotice(l, c, tt.o, "", "  ")
		is.Equal(m.Kind, mail.KindOwnerNotice)
		is.Equal(m.Subject, tt.subject) // one line
		is.True(strings.Contains(m.Text, tt.text))
		is.True(strings.Contains(m.Text, "https://counsel.example/console/contracts/7"))
		is.True(strings.Contains(m.HTML, `href="https://counsel.example/console/contracts/7"`))
	}
	m := mail.OwnerNotice(l, mail.Contract{ID: 1, Name: "<b>x</b>"}, mail.Declined, "a@b.example", "<script>")
	is.New(t).True(!strings.Contains(m.HTML, "<script>") && !strings.Contains(m.HTML, "<b>x</b>")) // escaped
}
