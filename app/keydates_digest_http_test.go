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
	"counsel/domain/account"
	"counsel/domain/mail"
)

// Key-date digests (docs/decisions.md §16). The service's own start run
// happens in the background while a test sets up; every contract is
// created with its notice date beyond the largest threshold, so that run
// finds nothing whenever it happens, and the tests then move the fake
// clock and run the job themselves (App.KeyDates.Run). A run that meets
// another (the start run, or other instances) sends each digest once.

// digestAt is the fake clock's start plus days whole days: the notice
// dates below are counted from apptest.Start (21 November 2026, 09:30
// UTC).
func digestAt(days int) time.Time { return apptest.Start.AddDate(0, 0, days) }

// keyDateContract creates a contract for owner with a notice date
// noticeIn days after apptest.Start's day (endDate that day plus 10 days,
// noticeDays 10), moves it to status (it is not digital, so any status
// may follow any), and returns its id.
func keyDateContract(t *testing.T, s *apptest.Server, tok string, owner int64, name string, noticeIn int, autoRenew bool, status string) int64 {
	t.Helper()
	end := time.Date(2026, 11, 21, 0, 0, 0, 0, time.UTC).AddDate(0, 0, noticeIn+10)
	c := contractCreate(t, s, tok, map[string]any{"contractName": name, "ownerId": owner, "endDate": end.Format("2006-01-02"),
		"noticeDays": 10, "autoRenew": autoRenew})
	id := contractID(c)
	if status != "Draft" {
		s.Do(t, "PUT", fmt.Sprintf("/api/contracts/%d", id), tok, map[string]any{"status": status}).Expect(t, 200, "status "+status)
	}
	return id
}

// runDigests runs the key-date job once at the fake clock's time and
// waits until every digest it queued reached the relay; it returns the
// digests received so far by recipient.
func runDigests(t *testing.T, s *apptest.Server, sink *smtptest.Sink) map[string][]smtptest.Parsed {
	t.Helper()
	if _, err := s.App.KeyDates.Run(context.Background()); err != nil {
		t.Fatalf("key-date job: %v", err)
	}
	return sentDigests(t, s, sink)
}

// sentDigests waits until every digest in the outbox of s was sent and
// the relay holds as many, and returns those by recipient.
func sentDigests(t *testing.T, s *apptest.Server, sink *smtptest.Sink) map[string][]smtptest.Parsed {
	t.Helper()
	admin := s.Admin(t) // the fake clock may have moved past the last token's lifetime
	var out map[string][]smtptest.Parsed
	queued, n := 0, 0
	eventually(t, 10*time.Second, "digests sent", func() bool {
		queued = 0
		for _, it := range mails(t, s, admin, "?Limit=100").Items {
			if it["kind"] != mail.KindKeyDateDigest {
				continue
			}
			if it["status"] != "sent" {
				return false
			}
			queued++
		}
		out, n = map[string][]smtptest.Parsed{}, 0
		for _, m := range sink.Messages() {
			p, err := m.Parse()
			if err != nil {
				t.Fatal(err)
			}
			if strings.HasPrefix(p.Subject, "Notice date") {
				out[m.To[0]] = append(out[m.To[0]], p)
				n++
			}
		}
		return n == queued // a digest queued and sent between the two reads: look again
	})
	return out
}

func userEmail(t *testing.T, s *apptest.Server, id int64) string {
	t.Helper()
	var u struct{ Email string }
	s.Do(t, "GET", fmt.Sprintf("/api/users/%d", id), s.Admin(t), nil).Expect(t, 200, "user").JSON(t, &u)
	return u.Email
}

func digestServer(t *testing.T, change ...func(*app.Config)) (*apptest.Server, *smtptest.Sink) {
	sink := smtptest.New(t)
	s := apptest.New(t, append([]func(*app.Config){func(c *app.Config) { c.SMTPAddr, c.SMTPFrom = sink.Addr(), "counsel@example.com" }}, change...)...)
	return s, sink
}

// TestKeyDateDigests: each owner of live contracts gets one digest
// listing every contract whose notice date came within 90, 30 or 7 days,
// with the notice date, the end date, auto-renewal and a console link;
// each threshold once; contracts that are not live, and notice dates
// beyond the thresholds or passed, are left out; a second run the same
// day sends nothing.
func TestKeyDateDigests(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	s, sink := digestServer(t)
	_, tok := s.User(t, account.ContractCreate, account.ContractEdit, account.ContractView)
	annID, _ := s.User(t, account.ContractView)
	bobID, _ := s.User(t, account.ContractView)
	ann, bob := userEmail(t, s, annID), userEmail(t, s, bobID)

	// Notice dates 100 days after the start: none is within 90 days yet.
	lease := keyDateContract(t, s, tok, annID, "Office lease", 100, true, "Signed")
	supply := keyDateContract(t, s, tok, annID, "Supply agreement", 100, false, "ContractDesign")
	keyDateContract(t, s, tok, annID, "Another supply", 130, false, "WaitingForClientSignature")
	for _, st := range []string{"Draft", "Expired", "Terminated", "Archived"} {
		keyDateContract(t, s, tok, annID, st+" contract", 100, false, st)
	}
	licence := keyDateContract(t, s, tok, bobID, "Software licence", 100, false, "Declined")

	got := runDigests(t, s, sink)
	is.Equal(len(got), 0) // 100 days: nothing due

	// 90 days before: one digest each, Ann's listing both of hers.
	s.Clock.Set(digestAt(10))
	start := time.Now()
	got = runDigests(t, s, sink)
	t.Logf("job run to SMTP: %s", sink.Messages()[len(sink.Messages())-1].At.Sub(start))
	is.Equal(len(got[ann]), 1)
	is.Equal(len(got[bob]), 1)
	d := got[ann][0]
	is.Equal(d.Subject, "Notice dates coming up: 2 contracts")
	t.Logf("key-date digest:\nSubject: %s\n\n%s\n--- HTML ---\n%s", d.Subject, d.Text, d.HTML)
	for _, want := range []string{
		"- Office lease\n  Notice by: Mon 1 Mar 2027 (within 90 days: 90 days left)\n  End date: Thu 11 Mar 2027\n  Renews automatically: yes, unless notice is given by the notice date\n  Status: Signed\n  " +
			fmt.Sprintf("%s/console/contracts/%d\n", s.Config.PublicURL, lease),
		"- Supply agreement\n  Notice by: Mon 1 Mar 2027 (within 90 days: 90 days left)",
		"Renews automatically: no\n  Status: ContractDesign\n  " + fmt.Sprintf("%s/console/contracts/%d\n", s.Config.PublicURL, supply),
	} {
		if !strings.Contains(d.Text, want) {
			t.Errorf("the digest lacks %q:\n%s", want, d.Text)
		}
	}
	for _, left := range []string{"Another supply", "Draft contract", "Expired contract", "Terminated contract", "Archived contract"} {
		is.True(!strings.Contains(d.Text, left)) // not due, or not live
	}
	is.True(strings.Contains(d.HTML, fmt.Sprintf(`href="%s/console/contracts/%d"`, s.Config.PublicURL, lease)))
	is.Equal(got[bob][0].Subject, "Notice date coming up: Software licence")
	is.True(strings.Contains(got[bob][0].Text, fmt.Sprintf("/console/contracts/%d", licence)))

	// Later the same day, and the next day: nothing new.
	s.Clock.Set(digestAt(10).Add(14 * time.Hour))
	got = runDigests(t, s, sink)
	is.Equal(len(got[ann])+len(got[bob]), 2)
	s.Clock.Set(digestAt(11))
	got = runDigests(t, s, sink)
	is.Equal(len(got[ann])+len(got[bob]), 2)

	// 40 days later: the third contract crosses 90 days, alone.
	s.Clock.Set(digestAt(40))
	got = runDigests(t, s, sink)
	is.Equal(len(got[ann]), 2)
	is.Equal(got[ann][1].Subject, "Notice date coming up: Another supply")

	// 30 and 7 days before: once each; then nothing, up to and past
	// the notice date.
	for i, day := range []int{70, 93} {
		s.Clock.Set(digestAt(day))
		got = runDigests(t, s, sink)
		is.Equal(len(got[ann]), 3+i)
		is.Equal(len(got[bob]), 2+i)
		want := map[int]string{70: "(within 30 days: 30 days left)", 93: "(within 7 days: 7 days left)"}[day]
		is.True(strings.Contains(got[ann][2+i].Text, want))
		is.True(strings.Contains(got[bob][1+i].Text, want))
	}
	s.Clock.Set(digestAt(94))
	got = runDigests(t, s, sink)
	is.Equal(len(got[ann])+len(got[bob]), 7)
	s.Clock.Set(digestAt(100)) // the notice day of three; the third crosses 30 days
	got = runDigests(t, s, sink)
	is.Equal(len(got[ann]), 5)
	is.Equal(len(got[bob]), 3)
	is.True(strings.Contains(got[ann][4].Text, "- Another supply\n  Notice by: Wed 31 Mar 2027 (within 30 days: 30 days left)"))
	s.Clock.Set(digestAt(101)) // passed
	got = runDigests(t, s, sink)
	is.Equal(len(got[ann])+len(got[bob]), 8)
	s.Clock.Set(digestAt(123))
	got = runDigests(t, s, sink)
	is.Equal(len(got[ann]), 6)
	is.True(strings.Contains(got[ann][5].Text, "(within 7 days: 7 days left)"))

	var page mailPage
	s.Do(t, "GET", "/api/system/mail?Limit=100", s.Admin(t), nil).Expect(t, 200, "outbox").JSON(t, &page)
	is.Equal(page.Items[0]["kind"], "keyDateDigest")
}

// TestKeyDateDigestRearm: changing endDate or noticeDays re-arms the
// thresholds not yet reached with the new date (they are announced again
// when reached), never those still passed; autoRenew or a name change
// re-arms nothing; a change that brings a contract within a new
// threshold is announced by the next run, the same day.
func TestKeyDateDigestRearm(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	s, sink := digestServer(t)
	ownerID, tok := s.User(t, account.ContractCreate, account.ContractEdit, account.ContractView)
	owner := userEmail(t, s, ownerID)
	id := keyDateContract(t, s, tok, ownerID, "Lease", 120, true, "Signed")
	put := func(body map[string]any) {
		t.Helper()
		s.Do(t, "PUT", fmt.Sprintf("/api/contracts/%d", id), s.Login(t, owner, "password-123").AccessToken, body).Expect(t, 200, "update")
	}

	s.Clock.Set(digestAt(100)) // 20 days before the notice date: 90 and 30 at once
	got := runDigests(t, s, sink)
	is.Equal(len(got[owner]), 1)
	is.True(strings.Contains(got[owner][0].Text, "(within 30 days: 20 days left)"))

	// Sixty days more: 80 days left, so 30 (and 7) are re-armed, 90 is
	// still passed.
	put(map[string]any{"endDate": "2027-05-30"}) // notice 2027-05-20: 80 days after 2027-03-01
	put(map[string]any{"autoRenew": false, "contractName": "Office lease"})
	got = runDigests(t, s, sink)
	is.Equal(len(got[owner]), 1) // nothing re-announced at once
	s.Clock.Set(digestAt(150))   // 30 days left: announced again
	got = runDigests(t, s, sink)
	is.Equal(len(got[owner]), 2)
	is.True(strings.Contains(got[owner][1].Text, "- Office lease\n  Notice by: Thu 20 May 2027 (within 30 days: 30 days left)\n  End date: Sun 30 May 2027\n  Renews automatically: no\n"))

	// A notice date brought within 7 days is announced the same day.
	put(map[string]any{"noticeDays": 35}) // notice 2027-04-25: 5 days left
	got = runDigests(t, s, sink)
	is.Equal(len(got[owner]), 3)
	is.True(strings.Contains(got[owner][2].Text, "(within 7 days: 5 days left)"))
	got = runDigests(t, s, sink)
	is.Equal(len(got[owner]), 3) // and once

	// Without an end date every threshold is re-armed; setting one again
	// announces the tightest crossed.
	put(map[string]any{"endDate": nil})
	put(map[string]any{"endDate": "2027-05-30", "noticeDays": 10}) // 30 days left again
	got = runDigests(t, s, sink)
	is.Equal(len(got[owner]), 4)
	is.True(strings.Contains(got[owner][3].Text, "(within 30 days: 30 days left)"))

	// A contract handed to an inactive owner, or no longer live, is left.
	s.Clock.Set(digestAt(173)) // 7 days left
	put(map[string]any{"status": "Terminated"})
	got = runDigests(t, s, sink)
	is.Equal(len(got[owner]), 4)
	put(map[string]any{"status": "Signed"}) // live again: its 7 days are due
	got = runDigests(t, s, sink)
	is.Equal(len(got[owner]), 5)
}

// TestKeyDateDigestInactiveOwner: an inactive owner gets no digest, and
// nothing is recorded, so the owner it is handed to gets it.
func TestKeyDateDigestInactiveOwner(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	s, sink := digestServer(t)
	_, tok := s.User(t, account.ContractCreate, account.ContractEdit, account.ContractView)
	goneID, _ := s.User(t)
	nextID, _ := s.User(t)
	id := keyDateContract(t, s, tok, goneID, "Lease", 100, false, "Signed")
	s.Do(t, "PUT", fmt.Sprintf("/api/users/%d", goneID), s.Admin(t), map[string]any{"active": false}).Expect(t, 200, "deactivate")
	s.Clock.Set(digestAt(10))
	got := runDigests(t, s, sink)
	is.Equal(len(got), 0)
	s.Do(t, "PUT", fmt.Sprintf("/api/contracts/%d", id), s.Login(t, apptest.AdminEmail, apptest.AdminPassword).AccessToken,
		map[string]any{"ownerId": nextID}).Expect(t, 200, "hand over")
	got = runDigests(t, s, sink)
	is.Equal(len(got[userEmail(t, s, nextID)]), 1)
}

// TestKeyDateDigestRestart: a restarted service (its start run, then
// later runs) sends nothing already sent, and its start run sends what
// came due while it was down.
func TestKeyDateDigestRestart(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	first, sink := digestServer(t)
	ownerID, tok := first.User(t, account.ContractCreate, account.ContractEdit, account.ContractView)
	owner := userEmail(t, first, ownerID)
	keyDateContract(t, first, tok, ownerID, "Lease", 100, false, "Signed")
	keyDateContract(t, first, tok, ownerID, "NDA", 100, false, "Signed")
	first.Clock.Set(digestAt(10))
	got := runDigests(t, first, sink)
	is.Equal(len(got[owner]), 1)
	restart := func(prev *apptest.Server) *apptest.Server {
		prev.Server.Close()
		is.NoErr(prev.App.Close())
		return apptest.New(t, func(c *app.Config) {
			c.DB, c.DataDir, c.Clock = first.Config.DB, first.Config.DataDir, first.Clock
			c.SMTPAddr, c.SMTPFrom = sink.Addr(), "counsel@example.com"
		})
	}

	next := restart(first)
	got = runDigests(t, next, sink)
	is.Equal(len(got[owner]), 1) // neither the start run nor this one resent it

	// Down while the 30-day threshold came: the start run sends it.
	first.Clock.Set(digestAt(70))
	last := restart(next)
	eventually(t, 10*time.Second, "the start run's digest", func() bool { return len(sentDigests(t, last, sink)[owner]) == 2 })
	got = runDigests(t, last, sink)
	is.Equal(len(got[owner]), 2) // once
	is.True(strings.Contains(got[owner][1].Text, "(within 30 days: 30 days left)"))
}

// TestKeyDateDigestEveryInterval: the job runs by itself every
// COUNSEL_KEY_DATE_INTERVAL.
func TestKeyDateDigestEveryInterval(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	s, sink := digestServer(t, func(c *app.Config) { c.KeyDateInterval = time.Second })
	ownerID, tok := s.User(t, account.ContractCreate, account.ContractEdit, account.ContractView)
	owner := userEmail(t, s, ownerID)
	keyDateContract(t, s, tok, ownerID, "Lease", 100, true, "Signed")
	s.Clock.Set(digestAt(93))
	eventually(t, 10*time.Second, "a digest without a run asked for", func() bool { return len(sentDigests(t, s, sink)[owner]) == 1 })
	time.Sleep(1500 * time.Millisecond) // another round or two
	got := sentDigests(t, s, sink)
	is.Equal(len(got[owner]), 1) // once
	is.True(strings.Contains(got[owner][0].Text, "(within 7 days: 7 days left)"))
}

// TestKeyDateDigestOnceAcrossInstances: three instances on one
// PostgreSQL database running the job at once send each owner's digest
// once, listing all of that owner's contracts.
func TestKeyDateDigestOnceAcrossInstances(t *testing.T) {
	pgtest.Skip(t) // several instances share a PostgreSQL database; SQLite has one process per file
	is := is.New(t)
	sink := smtptest.New(t)
	clock := apptest.NewClock(apptest.Start)
	s := instances(t, 3, func(c *app.Config) {
		c.SMTPAddr, c.SMTPFrom, c.Clock = sink.Addr(), "counsel@example.com", clock
	})
	_, tok := s[0].User(t, account.ContractCreate, account.ContractEdit, account.ContractView)
	const owners, each = 6, 3
	var emails []string
	for o := range owners {
		id, _ := s[0].User(t, account.ContractView)
		emails = append(emails, userEmail(t, s[0], id))
		for c := range each {
			keyDateContract(t, s[0], tok, id, fmt.Sprintf("Contract %d.%d", o, c), 100, false, "Signed")
		}
	}
	for round, day := range []int{10, 70} {
		clock.Set(digestAt(day))
		var wg sync.WaitGroup
		for i := range 3 * 3 { // three runs on each instance at once
			wg.Add(1)
			go func() {
				defer wg.Done()
				if _, err := s[i%3].App.KeyDates.Run(context.Background()); err != nil {
					t.Errorf("run on instance %d: %v", i%3, err)
				}
			}()
		}
		wg.Wait()
		got := sentDigests(t, s[1], sink)
		time.Sleep(200 * time.Millisecond) // room for a duplicate to arrive
		got = sentDigests(t, s[2], sink)
		var counts []int
		for _, e := range emails {
			counts = append(counts, len(got[e]))
			is.Equal(len(got[e]), round+1) // one digest per owner and threshold
			is.Equal(got[e][round].Subject, fmt.Sprintf("Notice dates coming up: %d contracts", each))
		}
		sort.Ints(counts)
		t.Logf("round %d: digests per owner %v", round, counts)
	}
}
