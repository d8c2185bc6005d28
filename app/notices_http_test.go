package app_test

import (
	"fmt"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/matryer/is"

	"counsel/adapters/docuseal/docusealtest"
	"counsel/adapters/smtp/smtptest"
	"counsel/app"
	"counsel/app/apptest"
	"counsel/domain/account"
)

// ownerMail waits up to a second for the sink to hold n messages to to
// and returns them parsed.
func ownerMail(t *testing.T, sink *smtptest.Sink, to string, n int) []smtptest.Parsed {
	t.Helper()
	var out []smtptest.Parsed
	eventually(t, 2*time.Second, fmt.Sprintf("%d messages to %s", n, to), func() bool {
		out = out[:0]
		for _, m := range sink.Messages() {
			if len(m.To) == 1 && m.To[0] == to {
				p, err := m.Parse()
				if err != nil {
					t.Fatal(err)
				}
				out = append(out, p)
			}
		}
		return len(out) >= n
	})
	time.Sleep(50 * time.Millisecond) // room for a duplicate
	return out
}

// TestOwnerNoticesEmbedded: the owner (not the one who sent the contract
// for signing) is emailed when a signer declines, with the reason, and
// when every party has signed, each notice once.
func TestOwnerNoticesEmbedded(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	sink := smtptest.New(t)
	s := apptest.New(t, func(c *app.Config) { c.SMTPAddr, c.SMTPFrom = sink.Addr(), "counsel@example.com" })
	admin := s.Admin(t)
	ownerID, _ := s.User(t, account.ContractView)
	var owner struct{ Email string }
	s.Do(t, "GET", fmt.Sprintf("/api/users/%d", ownerID), admin, nil).Expect(t, 200, "owner").JSON(t, &owner)

	id, doc := signingContract(t, s, admin, "Consulting agreement", 1)
	s.Do(t, "PUT", fmt.Sprintf("/api/contracts/%d", id), admin, map[string]any{"ownerId": ownerID}).Expect(t, 200, "hand over")
	sub := signingSubmissionOf(t, signingSubmit(t, s, admin, id, []int64{doc}, "random", "carol@client.example"))
	_, _, token := signingPage(t, s, sub.Submitters[0].EmbedSrc)
	r := signingForm(t, s, sub.Submitters[0].EmbedSrc, "decline", url.Values{"token": {token}, "reason": {"Clause 4 <caps> the liability"}})
	is.Equal(r.Status, 200)
	got := ownerMail(t, sink, owner.Email, 1)
	is.Equal(len(got), 1)
	is.Equal(got[0].Subject, "Declined: Consulting agreement")
	is.True(strings.Contains(got[0].Text, `carol@client.example declined to sign "Consulting agreement".`))
	is.True(strings.Contains(got[0].Text, "Reason: Clause 4 <caps> the liability"))
	is.True(strings.Contains(got[0].Text, fmt.Sprintf("%s/console/contracts/%d", s.Config.PublicURL, id)))
	is.True(strings.Contains(got[0].HTML, "Clause 4 &lt;caps&gt; the liability")) // escaped in HTML
	t.Logf("owner notice (declined):\nSubject: %s\n\n%s\n--- HTML ---\n%s", got[0].Subject, got[0].Text, got[0].HTML)

	s.Do(t, "PUT", fmt.Sprintf("/api/contracts/%d", id), admin, map[string]any{"status": "Draft"}).Expect(t, 200, "revise")
	sub = signingSubmissionOf(t, signingSubmit(t, s, admin, id, []int64{doc}, "preserved", "carol@client.example"))
	signingSign(t, s, sub.Submitters[0].EmbedSrc, "Carol Example")
	got = ownerMail(t, sink, owner.Email, 3)
	is.Equal(len(got), 3) // each notice once, and the signed copy (docs/decisions.md §16)
	subjects := map[string]smtptest.Parsed{}
	for _, m := range got[1:] {
		subjects[m.Subject] = m
	}
	notice := subjects["Signed by every party: Consulting agreement"]
	is.True(strings.Contains(notice.Text, `Every party has signed "Consulting agreement".`))
	copyMail := subjects["Signed copy: Consulting agreement"]
	is.Equal(len(copyMail.Attachments), 2) // the signed PDF and the audit certificate

	var page mailPage
	s.Do(t, "GET", "/api/system/mail?Limit=100", admin, nil).Expect(t, 200, "outbox").JSON(t, &page)
	kinds := map[string]int{}
	for _, it := range page.Items {
		if it["to"] == owner.Email {
			kinds[it["kind"].(string)]++
			is.Equal(it["status"], "sent")
		}
	}
	is.Equal(kinds, map[string]int{"ownerNotice": 2, "signingCompleted": 1})
}

// TestOwnerNoticesDocuSeal: with DocuSeal the owner is told of a decline
// (webhook, once however often it is delivered; or found by reading the
// submission) and of an expiry.
func TestOwnerNoticesDocuSeal(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	sink := smtptest.New(t)
	s, ds, _ := docusealServer(t, nil, func(c *app.Config, _ *docusealtest.Server) {
		c.SMTPAddr, c.SMTPFrom = sink.Addr(), "counsel@example.com"
	})
	admin := s.Admin(t)
	const adminEmail = apptest.AdminEmail

	id, doc := signingContract(t, s, admin, "Supply deal", 1)
	sub := signingSubmissionOf(t, signingSubmit(t, s, admin, id, []int64{doc}, "", "erin@client.example"))
	is.NoErr(ds.Decline(sub.ID, "erin@client.example", "The fee schedule is missing"))
	header, body, err := ds.Webhook("form.declined", sub.ID, "erin@client.example")
	is.NoErr(err)
	is.Equal(docusealWebhook(t, s, header, body).Status, 200)
	is.Equal(docusealWebhook(t, s, header, body).Status, 200) // delivered twice
	got := ownerMail(t, sink, adminEmail, 1)
	is.Equal(len(got), 1) // once
	is.Equal(got[0].Subject, "Declined: Supply deal")
	is.True(strings.Contains(got[0].Text, "Reason: The fee schedule is missing"))

	id2, doc2 := signingContract(t, s, admin, "Unseen decline", 1)
	sub2 := signingSubmissionOf(t, signingSubmit(t, s, admin, id2, []int64{doc2}, "", "erin@client.example"))
	is.NoErr(ds.Decline(sub2.ID, "erin@client.example", "Wrong party")) // no webhook: found by reading
	submissionsOf(t, s, admin, id2)
	got = ownerMail(t, sink, adminEmail, 2)
	is.Equal(got[1].Subject, "Declined: Unseen decline")
	is.True(strings.Contains(got[1].Text, "Reason: Wrong party"))

	id3, doc3 := signingContract(t, s, admin, "Lapsed", 1)
	sub3 := signingSubmissionOf(t, signingSubmit(t, s, admin, id3, []int64{doc3}, "", "erin@client.example"))
	is.NoErr(ds.Expire(sub3.ID))
	header, body, err = ds.Webhook("submission.expired", sub3.ID, "")
	is.NoErr(err)
	is.Equal(docusealWebhook(t, s, header, body).Status, 200)
	got = ownerMail(t, sink, adminEmail, 3)
	is.Equal(len(got), 3)
	is.Equal(got[2].Subject, "Signing expired: Lapsed")
	is.True(strings.Contains(got[2].Text, "expired before every party signed"))
}
