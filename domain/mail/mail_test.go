package mail_test

import (
	"strings"
	"testing"
	"time"

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

func TestKeyDateDigest(t *testing.T) {
	is := is.New(t)
	l := mail.Links{PublicURL: "https://counsel.example"}
	notice := time.Date(2027, 4, 1, 0, 0, 0, 0, time.UTC)
	end := time.Date(2027, 6, 30, 0, 0, 0, 0, time.UTC)
	items := []mail.KeyDate{
		{Contract: mail.Contract{ID: 7, Name: "Office\nlease", Status: "Signed", EndDate: &end, NoticeDate: &notice, AutoRenew: true}, Threshold: 7, DaysLeft: 5},
		{Contract: mail.Contract{ID: 9, Name: "<NDA>", Status: "ContractDesign", EndDate: &end, NoticeDate: &end}, Threshold: 90, DaysLeft: 0},
	}
	m := mail.KeyDateDigest(l, "Ann\r\nBcc: x", items, []int{7, 30, 90})
	is.Equal(m.Kind, mail.KindKeyDateDigest)
	is.Equal(m.Subject, "Notice dates coming up: 2 contracts")
	for _, s := range []string{
		"Hello Ann Bcc: x,",
		"- Office lease\n  Notice by: Thu 1 Apr 2027 (within 7 days: 5 days left)\n  End date: Wed 30 Jun 2027\n  Renews automatically: yes, unless notice is given by the notice date\n  Status: Signed\n  https://counsel.example/console/contracts/7\n",
		"- <NDA>\n  Notice by: Wed 30 Jun 2027 (within 90 days: today is the last day)",
		"Renews automatically: no",
		"within 90, 30 and 7 days",
	} {
		is.True(strings.Contains(m.Text, s)) // the text part
	}
	is.True(strings.Contains(m.HTML, `<a href="https://counsel.example/console/contracts/9"><strong>&lt;NDA&gt;</strong></a>`)) // escaped, linked
	is.True(!strings.Contains(m.HTML, "<NDA>"))
	one := mail.KeyDateDigest(l, "", items[:1], []int{30})
	is.Equal(one.Subject, "Notice date coming up: Office lease") // one line
	is.True(strings.HasPrefix(one.Text, "The notice dates of this contract you own"))
	is.True(strings.Contains(one.Text, "within 30 days;"))
}
