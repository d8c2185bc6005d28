package app_test

import (
	"bytes"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/matryer/is"

	"counsel/adapters/postgres/pgtest"
	"counsel/adapters/smtp/smtptest"
	"counsel/app"
	"counsel/app/apptest"
	"counsel/domain/account"
)

// The reminder job runs every COUNSEL_SIGNING_REMINDER_INTERVAL (here its
// least, 1s) of real time and decides by the service's fake clock, which
// the tests move: a reminder is due once the clock is moved, and arrives
// within a tick or two. Waits are generous (a loaded 2-core machine);
// "no more" is checked after more than two ticks.
const (
	reminderArrival = 10 * time.Second
	reminderQuiet   = 2500 * time.Millisecond
)

// remindersServer is a service whose embedded signer reminds every
// second, at most max times, and mails through sink.
func remindersServer(t *testing.T, sink *smtptest.Sink, max int, change ...func(*app.Config)) *apptest.Server {
	return apptest.New(t, append([]func(*app.Config){func(c *app.Config) {
		c.SMTPAddr, c.SMTPFrom = sink.Addr(), "counsel@example.com"
		c.SigningReminderInterval, c.SigningReminderMax = time.Second, max
	}}, change...)...)
}

// emailedSubmit submits contract id for signing by emails with the
// invitations emailed (and an expiry when expireAt is not nil).
func emailedSubmit(t testing.TB, s *apptest.Server, tok string, id int64, docs []int64, order string, expireAt *time.Time, emails ...string) signingSubmission {
	t.Helper()
	var subs []map[string]any
	for i, e := range emails {
		subs = append(subs, map[string]any{"name": fmt.Sprintf("Signer %c", 'A'+i), "email": e})
	}
	body := map[string]any{"documentIds": docs, "submitters": subs, "order": order, "sendEmail": true}
	if expireAt != nil {
		body["expireAt"] = expireAt.UTC().Format(time.RFC3339)
	}
	return signingSubmissionOf(t, s.Do(t, "POST", fmt.Sprintf("/api/contracts/signing/%d/submitForSigning", id), tok, body))
}

// received lists the parsed messages of sink whose subject starts with
// prefix, by recipient.
func received(t testing.TB, sink *smtptest.Sink, prefix string) map[string][]smtptest.Parsed {
	t.Helper()
	out := map[string][]smtptest.Parsed{}
	for _, m := range sink.Messages() {
		p, err := m.Parse()
		if err != nil {
			t.Fatal(err)
		}
		if strings.HasPrefix(p.Subject, prefix) {
			out[m.To[0]] = append(out[m.To[0]], p)
		}
	}
	return out
}

// counts is how many messages each recipient has.
func counts(m map[string][]smtptest.Parsed) map[string]int {
	out := map[string]int{}
	for k, v := range m {
		out[k] = len(v)
	}
	return out
}

// waitCounts waits until the reminders received are want.
func waitCounts(t *testing.T, sink *smtptest.Sink, want map[string]int) {
	t.Helper()
	eventually(t, reminderArrival, fmt.Sprintf("reminders %v", want), func() bool {
		return fmt.Sprint(counts(received(t, sink, "Reminder: "))) == fmt.Sprint(want)
	})
}

// reminderEntries lists the signingReminderSent entries of a contract's
// history, oldest first.
func reminderEntries(t testing.TB, s *apptest.Server, tok string, id int64) []signingHistoryEntry {
	t.Helper()
	var out []signingHistoryEntry
	h := signingHistory(t, s, tok, id)
	for i := len(h) - 1; i >= 0; i-- {
		if h[i].Action == "signingReminderSent" {
			out = append(out, h[i])
		}
	}
	return out
}

// TestSigningReminders: a signer who has neither signed nor declined is
// reminded with their link every interval after the invitation, at most
// max times, each reminder a signingReminderSent history entry; signing,
// declining, completion and expiry stop them.
func TestSigningReminders(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	sink := smtptest.New(t)
	s := remindersServer(t, sink, 2)
	admin := s.Admin(t)

	id, doc := signingContract(t, s, admin, "Framework agreement", 1)
	start := time.Now()
	sub := emailedSubmit(t, s, admin, id, []int64{doc}, "random", nil, "carol@client.example", "dave@client.example")
	eventually(t, reminderArrival, "invitations", func() bool {
		return fmt.Sprint(counts(received(t, sink, "Please sign: "))) == "map[carol@client.example:1 dave@client.example:1]"
	})
	t.Logf("submission to both invitations at the SMTP server: %s", time.Since(start))
	time.Sleep(reminderQuiet)
	is.Equal(len(received(t, sink, "Reminder: ")), 0) // none before the interval

	s.Clock.Advance(time.Second)
	waitCounts(t, sink, map[string]int{"carol@client.example": 1, "dave@client.example": 1})
	m := received(t, sink, "Reminder: ")["carol@client.example"][0]
	is.Equal(m.Subject, "Reminder: please sign Framework agreement")
	is.True(strings.Contains(m.Text, sub.Submitters[0].EmbedSrc))              // her own link
	is.True(!strings.Contains(m.Text, sub.Submitters[1].EmbedSrc))             // no one else's
	is.True(strings.Contains(m.HTML, `href="`+sub.Submitters[0].EmbedSrc+`"`)) // in the HTML part too
	t.Logf("reminder:\nSubject: %s\n\n%s", m.Subject, m.Text)

	signingSign(t, s, sub.Submitters[0].EmbedSrc, "Carol Client")
	s.Clock.Advance(time.Second)
	waitCounts(t, sink, map[string]int{"carol@client.example": 1, "dave@client.example": 2}) // she signed: none for her
	s.Clock.Advance(time.Second)
	time.Sleep(reminderQuiet)
	s.Clock.Advance(time.Hour)
	time.Sleep(reminderQuiet)
	is.Equal(counts(received(t, sink, "Reminder: ")), map[string]int{"carol@client.example": 1, "dave@client.example": 2}) // max 2
	admin = s.Admin(t)                                                                                                     // the clock moved past the access token's life

	entries := reminderEntries(t, s, admin, id)
	is.Equal(len(entries), 3) // one per reminder
	is.True(strings.Contains(entries[0].Details, "carol@client.example") || strings.Contains(entries[1].Details, "carol@client.example"))
	is.True(strings.Contains(entries[2].Details, "reminder 2 emailed to dave@client.example"))
	is.Equal(entries[2].ActorName, "signing provider")

	t.Run("declined", func(t *testing.T) {
		is := is.New(t)
		id, doc := signingContract(t, s, admin, "Declined deal", 1)
		sub := emailedSubmit(t, s, admin, id, []int64{doc}, "random", nil, "erin@client.example", "frank@client.example")
		_, _, token := signingPage(t, s, sub.Submitters[0].EmbedSrc)
		is.Equal(signingForm(t, s, sub.Submitters[0].EmbedSrc, "decline", url.Values{"token": {token}, "reason": {"No"}}).Status, 200)
		s.Clock.Advance(10 * time.Second)
		time.Sleep(reminderQuiet)
		r := received(t, sink, "Reminder: ")
		is.Equal(len(r["erin@client.example"])+len(r["frank@client.example"]), 0) // the submission is over
		is.Equal(len(reminderEntries(t, s, admin, id)), 0)
	})
	t.Run("expired", func(t *testing.T) {
		is := is.New(t)
		id, doc := signingContract(t, s, admin, "Lapsing deal", 1)
		exp := s.Clock.Now().Add(1500 * time.Millisecond)
		emailedSubmit(t, s, admin, id, []int64{doc}, "random", &exp, "gina@client.example")
		s.Clock.Advance(2 * time.Second) // the reminder would be due, but the submission has expired
		time.Sleep(reminderQuiet)
		is.Equal(len(received(t, sink, "Reminder: ")["gina@client.example"]), 0)
		s.Do(t, "GET", fmt.Sprintf("/api/contracts/%d/submissions", id), admin, nil).Expect(t, 200, "submissions") // reading applies the expiry
		is.Equal(signingContractGet(t, s, admin, id)["status"], "Expired")
	})
	t.Run("completed", func(t *testing.T) {
		is := is.New(t)
		id, doc := signingContract(t, s, admin, "Quick deal", 1)
		sub := emailedSubmit(t, s, admin, id, []int64{doc}, "random", nil, "hank@client.example")
		signingSign(t, s, sub.Submitters[0].EmbedSrc, "Hank")
		s.Clock.Advance(10 * time.Second)
		time.Sleep(reminderQuiet)
		is.Equal(len(received(t, sink, "Reminder: ")["hank@client.example"]), 0)
	})
}

// TestSigningRemindNow: POST .../remind reminds every signer who may sign
// now; a signer reminded within the hour is skipped, and with every such
// signer cooling down the answer is 429 with Retry-After.
func TestSigningRemindNow(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	sink := smtptest.New(t)
	s := remindersServer(t, sink, 0) // no automatic reminders
	admin := s.Admin(t)
	_, viewer := s.User(t, account.ContractView)

	id, doc := signingContract(t, s, admin, "Supply agreement", 1)
	sub := emailedSubmit(t, s, admin, id, []int64{doc}, "random", nil, "ivy@client.example", "jack@client.example")
	path := fmt.Sprintf("/api/contracts/%d/submissions/%s/remind", id, sub.ID)

	s.Do(t, "POST", path, viewer, nil).Expect(t, 403, "ContractView cannot remind")
	var res struct {
		Reminded    []string
		CoolingDown []struct {
			Email      string
			RetryAfter int
		}
	}
	r := s.Do(t, "POST", path, admin, nil).Expect(t, 200, "remind")
	r.JSON(t, &res)
	sort.Strings(res.Reminded)
	is.Equal(res.Reminded, []string{"ivy@client.example", "jack@client.example"})
	is.Equal(len(res.CoolingDown), 0)
	is.True(bytes.Contains(r.Body, []byte(`"coolingDown":[]`))) // an empty list, not null
	waitCounts(t, sink, map[string]int{"ivy@client.example": 1, "jack@client.example": 1})

	r = s.Do(t, "POST", path, admin, nil).Expect(t, 429, "cooling down")
	is.Equal(r.Header.Get("Retry-After"), "3600")
	is.Equal(r.Header.Get("Content-Type"), "application/problem+json")

	signingSign(t, s, sub.Submitters[0].EmbedSrc, "Ivy")
	s.Clock.Advance(45 * time.Minute)
	admin = s.Admin(t) // the clock moved past the access token's life
	r = s.Do(t, "POST", path, admin, nil).Expect(t, 429, "still cooling")
	is.Equal(r.Header.Get("Retry-After"), "900")
	s.Clock.Advance(15 * time.Minute)
	admin = s.Admin(t)
	s.Do(t, "POST", path, admin, nil).Expect(t, 200, "again").JSON(t, &res)
	is.Equal(res.Reminded, []string{"jack@client.example"}) // not the one who signed
	waitCounts(t, sink, map[string]int{"ivy@client.example": 1, "jack@client.example": 2})

	entries := reminderEntries(t, s, admin, id)
	is.Equal(len(entries), 3)
	is.Equal(entries[2].ActorName, "Admin") // the caller
	is.True(strings.Contains(entries[2].Details, "jack@client.example"))

	// Unknown, foreign, non-digital: 404; over: 409.
	other, otherDoc := signingContract(t, s, admin, "Other", 1)
	otherSub := emailedSubmit(t, s, admin, other, []int64{otherDoc}, "random", nil, "kim@client.example")
	s.Do(t, "POST", fmt.Sprintf("/api/contracts/%d/submissions/%s/remind", id, otherSub.ID), admin, nil).Expect(t, 404, "another contract's submission")
	s.Do(t, "POST", fmt.Sprintf("/api/contracts/%d/submissions/999999/remind", id), admin, nil).Expect(t, 404, "unknown submission")
	s.Do(t, "POST", fmt.Sprintf("/api/contracts/999999/submissions/%s/remind", sub.ID), admin, nil).Expect(t, 404, "unknown contract")
	plain := contractID(contractCreate(t, s, admin, map[string]any{"contractName": "Paper only"}))
	s.Do(t, "POST", fmt.Sprintf("/api/contracts/%d/submissions/%s/remind", plain, sub.ID), admin, nil).Expect(t, 404, "not digital")
	signingSign(t, s, sub.Submitters[1].EmbedSrc, "Jack")
	s.Do(t, "POST", path, admin, nil).Expect(t, 409, "completed")
}

// TestSigningRemindDocuSeal: DocuSeal reminds its own signers: 501.
func TestSigningRemindDocuSeal(t *testing.T) {
	t.Parallel()
	s, _ := docusealFixture(t)
	admin := s.Admin(t)
	id, doc := signingContract(t, s, admin, "Remote", 1)
	sub := signingSubmissionOf(t, signingSubmit(t, s, admin, id, []int64{doc}, "", "lee@client.example"))
	s.Do(t, "POST", fmt.Sprintf("/api/contracts/%d/submissions/%s/remind", id, sub.ID), admin, nil).Expect(t, 501, "docuseal")
}

// TestSigningCompletionCopies: when the last signer signs, every signer
// and the owner get the signed PDF and the audit certificate attached;
// past the attachment limit, signed links that open without a session,
// expire, and cannot be altered.
func TestSigningCompletionCopies(t *testing.T) {
	t.Parallel()
	t.Run("attached", func(t *testing.T) {
		is := is.New(t)
		sink := smtptest.New(t)
		s := remindersServer(t, sink, 0)
		admin := s.Admin(t)
		id, doc := signingContract(t, s, admin, "Share purchase", 2)
		sub := emailedSubmit(t, s, admin, id, []int64{doc}, "preserved", nil, "mia@client.example", "ned@client.example")
		signingSign(t, s, sub.Submitters[0].EmbedSrc, "Mia")
		time.Sleep(200 * time.Millisecond)
		is.Equal(len(received(t, sink, "Signed copy: ")), 0) // not before the last signature
		start := time.Now()
		signingSign(t, s, sub.Submitters[1].EmbedSrc, "Ned")
		var copies map[string][]smtptest.Parsed
		eventually(t, reminderArrival, "signed copies", func() bool {
			copies = received(t, sink, "Signed copy: ")
			return len(copies) >= 3
		})
		t.Logf("last signature to the three signed copies at the SMTP server: %s", time.Since(start))
		time.Sleep(200 * time.Millisecond)
		copies = received(t, sink, "Signed copy: ")
		is.Equal(counts(copies), map[string]int{"mia@client.example": 1, "ned@client.example": 1, apptest.AdminEmail: 1}) // each once
		var docs struct {
			Items []struct {
				ID          int64
				Kind        string
				FileName    string
				ContentType string
			}
		}
		s.Do(t, "GET", fmt.Sprintf("/api/contracts/%d/documents", id), admin, nil).Expect(t, 200, "documents").JSON(t, &docs)
		for who, ms := range copies {
			m := ms[0]
			is.Equal(m.Subject, "Signed copy: Share purchase")
			is.Equal(len(m.Attachments), 2) // the signed PDF and the certificate
			for _, d := range docs.Items {
				if d.Kind != "signed" && d.Kind != "audit" {
					continue
				}
				b, ok := m.Attachments[d.FileName]
				is.True(ok) // attached under the stored file name
				stored := s.Do(t, "GET", fmt.Sprintf("/api/contracts/%d/documents/%d/content", id, d.ID), admin, nil).Expect(t, 200, "download")
				is.True(bytes.Equal(b, stored.Body)) // the very bytes stored
			}
			is.True(strings.Contains(m.Text, "are attached"))
			is.Equal(strings.Contains(m.Text, "/console/contracts/"), who == apptest.AdminEmail) // the contract's link for the owner
		}
		t.Logf("completion (attached):\nSubject: %s\n\n%s", copies["ned@client.example"][0].Subject, copies["ned@client.example"][0].Text)
	})
	t.Run("linked past the limit", func(t *testing.T) {
		is := is.New(t)
		sink := smtptest.New(t)
		s := remindersServer(t, sink, 0, func(c *app.Config) { c.MailAttachLimit = 1 })
		admin := s.Admin(t)
		id, doc := signingContract(t, s, admin, "Big bundle", 1)
		sub := emailedSubmit(t, s, admin, id, []int64{doc}, "random", nil, "olga@client.example")
		signingSign(t, s, sub.Submitters[0].EmbedSrc, "Olga")
		var m smtptest.Parsed
		eventually(t, reminderArrival, "signed copy", func() bool {
			ms := received(t, sink, "Signed copy: ")["olga@client.example"]
			if len(ms) > 0 {
				m = ms[0]
			}
			return len(ms) > 0
		})
		is.Equal(len(m.Attachments), 0) // too large: links instead
		t.Logf("completion (linked):\nSubject: %s\n\n%s", m.Subject, m.Text)
		links := regexp.MustCompile(`(?m)^(Signed document|Audit certificate): (\S+)$`).FindAllStringSubmatch(m.Text, -1)
		is.Equal(len(links), 2)
		for _, l := range links {
			req, err := http.NewRequest("GET", l[2], nil)
			is.NoErr(err)
			r := s.Send(t, req) // no session
			is.Equal(r.Status, 200)
			is.True(bytes.HasPrefix(r.Body, []byte("%PDF")))

			u, err := url.Parse(l[2])
			is.NoErr(err)
			q := u.Query()
			q.Set("expires", fmt.Sprint(s.Clock.Now().Add(365*24*time.Hour).Unix())) // a longer life, same signature
			u.RawQuery = q.Encode()
			req, _ = http.NewRequest("GET", u.String(), nil)
			is.Equal(s.Send(t, req).Status, 404) // altered
		}
		s.Clock.Advance(7*24*time.Hour + time.Minute)
		req, _ := http.NewRequest("GET", links[0][2], nil)
		is.Equal(s.Send(t, req).Status, 404) // expired
	})
}

// TestSigningRemindersOnceAcrossInstances: three instances on one
// PostgreSQL database send each reminder once.
func TestSigningRemindersOnceAcrossInstances(t *testing.T) {
	pgtest.Skip(t)
	is := is.New(t)
	sink := smtptest.New(t)
	s := instances(t, 3, func(c *app.Config) {
		c.SMTPAddr, c.SMTPFrom = sink.Addr(), "counsel@example.com"
		c.SigningReminderInterval, c.SigningReminderMax = time.Second, 2
	})
	admin := s[0].Admin(t)
	advance := func(d time.Duration) {
		for _, x := range s {
			x.Clock.Advance(d)
		}
	}
	var subs []signingSubmission
	var ids []int64
	for i := range 3 {
		id, doc := signingContract(t, s[i], admin, fmt.Sprintf("Deal %d", i), 1)
		ids = append(ids, id)
		subs = append(subs, emailedSubmit(t, s[i], admin, id, []int64{doc}, "random", nil,
			fmt.Sprintf("p%d@client.example", i), fmt.Sprintf("q%d@client.example", i)))
	}
	want := func(n int) map[string]int {
		out := map[string]int{}
		for i := range 3 {
			out[fmt.Sprintf("p%d@client.example", i)], out[fmt.Sprintf("q%d@client.example", i)] = n, n
		}
		return out
	}
	advance(time.Second)
	waitCounts(t, sink, want(1))
	advance(time.Second)
	waitCounts(t, sink, want(2))
	advance(time.Hour)
	time.Sleep(reminderQuiet)
	is.Equal(counts(received(t, sink, "Reminder: ")), want(2)) // each reminder once, max 2
	admin = s[1].Admin(t)
	for _, id := range ids {
		is.Equal(len(reminderEntries(t, s[1], admin, id)), 4) // one entry per reminder
	}
}
