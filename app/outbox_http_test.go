package app_test

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/matryer/is"

	"counsel/adapters/postgres/pgtest"
	"counsel/adapters/smtp/smtptest"
	"counsel/app"
	"counsel/app/apptest"
	"counsel/app/outbox"
	"counsel/domain/account"
	"counsel/domain/contract"
	"counsel/ports"
)

// mailDTOFields is the exact field set of an outbox item (docs/decisions.md §16).
var mailDTOFields = []string{"id", "to", "subject", "kind", "status", "createdAt", "sentAt", "error"}

// queueMail queues ms in the outbox of s the way every use case does: as
// effects of a change, written by the engine's write transaction (here a
// contract update that changes nothing else).
func queueMail(t testing.TB, s *apptest.Server, contractID int64, ms ...ports.Mail) {
	t.Helper()
	ctx, fx := ports.WithEffects(context.Background())
	for _, m := range ms {
		fx.Add(m)
	}
	if _, err := s.App.Stores().Contracts.UpdateContract(ctx, contractID, func(*contract.Contract) ([]contract.AuditEntry, error) { return nil, nil }); err != nil {
		t.Fatal(err)
	}
}

type mailPage struct {
	Count   int64
	HasNext bool
	Items   []map[string]any
}

func mails(t testing.TB, s *apptest.Server, tok, query string) mailPage {
	t.Helper()
	var p mailPage
	s.Do(t, "GET", "/api/system/mail"+query, tok, nil).Expect(t, 200, "mail").JSON(t, &p)
	return p
}

// eventually polls cond for up to d.
func eventually(t testing.TB, d time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within %s", what, d)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// TestMailOutboxKept: without SMTP, queued mail is kept and listed to
// system administrators only, newest first, paged.
func TestMailOutboxKept(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	s := apptest.New(t)
	admin := s.Admin(t)
	c := contractCreate(t, s, admin, map[string]any{"contractName": "Lease"})
	queueMail(t, s, contractID(c), ports.Mail{To: "a@example.com", Subject: "First", Kind: "test", Text: "one"},
		ports.Mail{To: "b@example.com", Subject: "Second", Kind: "test", Text: "two", HTML: "<p>two</p>"})
	eventually(t, 2*time.Second, "kept", func() bool {
		p := mails(t, s, admin, "")
		return p.Count == 2 && p.Items[0]["status"] == "kept" && p.Items[1]["status"] == "kept"
	})
	p := mails(t, s, admin, "?limit=1")
	is.Equal(p.Count, int64(2))
	is.True(p.HasNext)
	is.Equal(contractKeys(p.Items[0]), contractSorted(mailDTOFields))
	is.Equal(p.Items[0]["subject"], "Second") // newest first
	is.Equal(p.Items[0]["to"], "b@example.com")
	is.Equal(p.Items[0]["kind"], "test")
	is.Equal(p.Items[0]["sentAt"], nil)
	is.Equal(p.Items[0]["error"], "")
	p = mails(t, s, admin, "?Limit=1&Offset=1")
	is.Equal(p.Items[0]["subject"], "First")
	is.True(!p.HasNext)

	_, user := s.User(t, account.UsersView, account.UsersEdit, account.ContractView)
	r := s.Do(t, "GET", "/api/system/mail", user, nil).Expect(t, 403, "not an administrator")
	is.Equal(r.Header.Get("Content-Type"), "application/problem+json")
	s.Do(t, "GET", "/api/system/mail", "", nil).Expect(t, 401, "anonymous")
	s.Do(t, "GET", "/api/system/mail?Limit=-1", admin, nil).Expect(t, 400, "bad limit")
}

// TestMailOutboxSends: with SMTP, a queued message reaches the relay
// within a second of the commit, with its HTML part and attachments; a
// relay that refuses is retried after the backoff; one that refuses for
// 24 hours makes the message failed.
func TestMailOutboxSends(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	sink := smtptest.New(t)
	s := apptest.New(t, func(c *app.Config) { c.SMTPAddr, c.SMTPFrom = sink.Addr(), "counsel@example.com" })
	admin := s.Admin(t)
	c := contractCreate(t, s, admin, map[string]any{"contractName": "Lease"})

	start := time.Now()
	queueMail(t, s, contractID(c), ports.Mail{To: "owner@example.com", Subject: "Signed: Lease", Kind: "signingCompleted",
		Text: "All signed.\n", HTML: "<p>All signed.</p>", Attachments: []ports.Attachment{{Name: "Lease.pdf", ContentType: "application/pdf", Data: []byte("%PDF-1.7 x")}}})
	select {
	case <-sink.Got():
	case <-time.After(time.Second):
		t.Fatal("the message did not reach the relay within 1 s of the commit")
	}
	latency := sink.Messages()[0].At.Sub(start)
	t.Logf("commit to SMTP: %s", latency)
	msg, err := sink.Messages()[0].Parse()
	is.NoErr(err)
	is.Equal(msg.Subject, "Signed: Lease")
	is.Equal(msg.Text, "All signed.\n")
	is.Equal(msg.HTML, "<p>All signed.</p>")
	is.Equal(msg.Attachments["Lease.pdf"], []byte("%PDF-1.7 x"))
	eventually(t, time.Second, "marked sent", func() bool { return mails(t, s, admin, "").Items[0]["status"] == "sent" })
	is.Equal(mails(t, s, admin, "").Items[0]["sentAt"], s.Clock.Now().UTC().Format(time.RFC3339))

	// A refusal: retried after 30 s (the fake clock's), then sent.
	sink.FailNext(1)
	queueMail(t, s, contractID(c), ports.Mail{To: "x@example.com", Subject: "Retry me", Kind: "test", Text: "x"})
	eventually(t, 2*time.Second, "first attempt failed", func() bool {
		it := mails(t, s, admin, "").Items[0]
		return it["status"] == "pending" && strings.Contains(it["error"].(string), "451")
	})
	s.Clock.Advance(outbox.Backoff(1) - time.Second)
	_, err = s.App.Outbox.RunOnce(context.Background())
	is.NoErr(err)
	is.Equal(len(sink.Messages()), 1) // not yet due
	s.Clock.Advance(time.Second)
	s.App.Outbox.Wake()
	eventually(t, 2*time.Second, "retried", func() bool { return mails(t, s, admin, "").Items[0]["status"] == "sent" })
	is.Equal(len(sink.Messages()), 2)
	is.Equal(mails(t, s, admin, "").Items[0]["error"], "")

	// A relay that refuses for a day: retried with growing pauses, then failed.
	sink.FailNext(1000)
	queueMail(t, s, contractID(c), ports.Mail{To: "y@example.com", Subject: "Give up", Kind: "test", Text: "y"})
	attempts := 0
	for i := 1; ; i++ {
		admin = s.Admin(t) // the fake clock moves past access tokens' lifetime
		eventually(t, 2*time.Second, "attempt", func() bool {
			it := mails(t, s, admin, "").Items[0]
			return it["status"] == "failed" || it["error"] != ""
		})
		it := mails(t, s, admin, "").Items[0]
		attempts = i
		if it["status"] == "failed" {
			break
		}
		is.True(i < 30) // a day of doubling pauses capped at 2 h is about 17 attempts
		s.Exec(t, "UPDATE mail_outbox SET error = '' WHERE id = "+fmt.Sprint(it["id"]))
		s.Clock.Advance(outbox.Backoff(i))
		s.App.Outbox.Wake()
	}
	t.Logf("gave up after %d attempts", attempts)
	is.True(attempts > 5)
	it := mails(t, s, admin, "").Items[0]
	is.True(strings.Contains(it["error"].(string), "451"))
	is.Equal(it["sentAt"], nil)
}

func TestBackoff(t *testing.T) {
	is := is.New(t)
	is.Equal(outbox.Backoff(1), 30*time.Second)
	is.Equal(outbox.Backoff(2), time.Minute)
	is.Equal(outbox.Backoff(5), 8*time.Minute)
	is.Equal(outbox.Backoff(9), 2*time.Hour)
	is.Equal(outbox.Backoff(50), 2*time.Hour)
}

// TestMailOutboxOnceAcrossInstances: three instances on one PostgreSQL
// database send every queued message exactly once, and mail queued on
// one is sent within a second whichever instance claims it.
func TestMailOutboxOnceAcrossInstances(t *testing.T) {
	pgtest.Skip(t) // several instances share a PostgreSQL database; SQLite has one process per file
	is := is.New(t)
	sink := smtptest.New(t)
	s := instances(t, 3, func(c *app.Config) { c.SMTPAddr, c.SMTPFrom = sink.Addr(), "counsel@example.com" })
	admin := s[0].Admin(t)
	c := contractCreate(t, s[0], admin, map[string]any{"contractName": "Lease"})
	const n = 60
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			queueMail(t, s[i%3], contractID(c), ports.Mail{To: fmt.Sprintf("r%d@example.com", i), Subject: fmt.Sprintf("Message %d", i), Kind: "test", Text: "x"})
		}()
	}
	wg.Wait()
	eventually(t, 5*time.Second, "all sent", func() bool { return len(sink.Messages()) >= n })
	time.Sleep(300 * time.Millisecond) // room for a duplicate to arrive
	var subjects []string
	for _, m := range sink.Messages() {
		p, err := m.Parse()
		is.NoErr(err)
		subjects = append(subjects, p.Subject)
	}
	sort.Strings(subjects)
	is.Equal(len(subjects), n) // each once
	for i := 1; i < len(subjects); i++ {
		is.True(subjects[i] != subjects[i-1]) // no message twice
	}
	eventually(t, 2*time.Second, "recorded", func() bool {
		p := mails(t, s[1], admin, "?Limit=100")
		for _, it := range p.Items {
			if it["status"] != "sent" {
				return false
			}
		}
		return p.Count == n
	})

	// One more, queued on the third instance: sent within a second.
	before := len(sink.Messages())
	start := time.Now()
	queueMail(t, s[2], contractID(c), ports.Mail{To: "late@example.com", Subject: "Late", Kind: "test", Text: "x"})
	eventually(t, time.Second, "sent", func() bool { return len(sink.Messages()) > before })
	t.Logf("commit to SMTP with three instances: %s", sink.Messages()[before].At.Sub(start))
}
