package porttest

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/matryer/is"

	"counsel/domain/contract"
	"counsel/ports"
)

// KeyDatesSuite holds every engine to ports.KeyDateStore: which live
// contracts are due, that a threshold is recorded and listed once (also
// by concurrent digests), that the digest's mail is written with the
// records, and that ports.RearmKeyDates forgets the thresholds not yet
// reached.
func KeyDatesSuite(t *testing.T, s Stores) {
	ctx := context.Background()
	is := is.New(t)
	ann := bootstrap(t, s)
	bob := seedUser(t, s, "bob@example.com")
	thresholds := []int{7, 30, 90}
	now := T0.Add(5 * time.Hour) // 15:00 UTC: days are UTC days
	n := 0
	add := func(name string, owner int64, status contract.Status, digital bool, noticeIn int) int64 {
		t.Helper()
		n++
		end := contract.Day(now).AddDate(0, 0, noticeIn+10).Add(9 * time.Hour)
		days := 10
		c := contract.Contract{UUID: fmt.Sprintf("5d1c3b2a-0000-4000-8000-%012d", n), Name: name, Type: contract.Other,
			Status: status, EndDate: &end, NoticeDays: &days, OwnerID: owner, AutoRenew: n%2 == 0, CreatedAt: T0, UpdatedAt: T0}
		if digital {
			c.DigitalContractID = fmt.Sprintf("tpl-%d", n)
		}
		got, err := s.Contracts.CreateContract(ctx, c, created(ann, T0))
		if err != nil {
			t.Fatalf("create %s: %v", name, err)
		}
		return got.ID
	}
	lease := add("Lease", ann, contract.Signed, false, 20)
	nda := add("NDA", ann, contract.ContractDesign, false, 5)
	add("Draft", ann, contract.Draft, false, 5)
	supply := add("Supply", bob, contract.Declined, false, 90)
	add("Digital in design", bob, contract.ContractDesign, true, 5)
	signedDigital := add("Digital signed", bob, contract.Signed, true, 0)
	beyond := add("Beyond 90 days", ann, contract.Signed, false, 91)
	add("Passed", ann, contract.Signed, false, -1)
	add("Expired", ann, contract.Expired, false, 3)
	add("Terminated", ann, contract.Terminated, false, 3)
	add("Archived", ann, contract.Archived, false, 3)

	due := func(at time.Time) []ports.DueKeyDate {
		t.Helper()
		from, to := contract.KeyDateWindow(at, thresholds)
		ds, err := s.KeyDates.DueKeyDates(ctx, from, to, thresholds)
		if err != nil {
			t.Fatalf("due: %v", err)
		}
		return ds
	}
	ids := func(ds []ports.DueKeyDate) []int64 {
		var out []int64
		for _, d := range ds {
			out = append(out, d.ContractID)
		}
		return out
	}
	plan := func(at time.Time, ds []ports.DueKeyDate) []ports.KeyDateAnnouncement {
		var out []ports.KeyDateAnnouncement
		for _, d := range ds {
			if listed, record, ok := contract.KeyDateDue(at, d.NoticeDate, thresholds, d.Announced); ok {
				out = append(out, ports.KeyDateAnnouncement{Due: d, Listed: listed, Record: record})
			}
		}
		return out
	}
	rows := func() int64 {
		t.Helper()
		n, err := s.Rows(ctx, "key_date_announcements")
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	mails := func() int64 {
		t.Helper()
		n, err := s.Rows(ctx, "mail_outbox")
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	announce := func(as []ports.KeyDateAnnouncement) (won []ports.KeyDateAnnouncement, err error) {
		ctx, fx := ports.WithEffects(ctx)
		listed, err := s.KeyDates.AnnounceKeyDates(ctx, as, func(w []ports.KeyDateAnnouncement) error {
			won = w
			fx.Add(ports.Mail{To: w[0].Due.OwnerEmail, Subject: "digest", Kind: "keyDateDigest", Text: "x"})
			return nil
		})
		if err == nil && listed != len(won) {
			t.Errorf("AnnounceKeyDates reports %d listed, its digest was given %d", listed, len(won))
		}
		return won, err
	}

	// Live contracts of active owners within 90 days, by owner then
	// notice date; drafts, digital ones not Signed, ended ones, passed
	// and far notice dates are not candidates.
	ds := due(now)
	is.Equal(ids(ds), []int64{nda, lease, signedDigital, supply})
	is.Equal(ds[0].OwnerEmail, "admin@example.com")
	is.Equal(ds[0].OwnerName, "Ada Admin")
	is.Equal(ds[0].Status, contract.ContractDesign)
	is.True(ds[1].EndDate != nil && ds[1].NoticeDate.Equal(ds[1].EndDate.AddDate(0, 0, -10)))
	is.Equal(ds[2].Digital, true)
	is.Equal(len(ds[0].Announced), 0)

	// One owner's digest records every crossed threshold and is written
	// with its mail; a second run finds nothing due for that owner.
	annPlan := plan(now, ds[:2])
	is.Equal(annPlan[0].Listed, 7)
	is.Equal(annPlan[0].Record, []int{7, 30, 90})
	is.Equal(annPlan[1].Listed, 30)
	won, err := announce(annPlan)
	is.NoErr(err)
	is.Equal(len(won), 2)      // both listed
	is.Equal(rows(), int64(5)) // 7, 30, 90 and 30, 90
	is.Equal(mails(), int64(1))
	is.Equal(ids(due(now)), []int64{signedDigital, supply})
	won, err = announce(annPlan) // the same digest again: nothing won, no mail
	is.NoErr(err)
	is.Equal(len(won), 0)
	is.Equal(mails(), int64(1))

	// A digest that fails records nothing.
	boom := errors.New("boom")
	bobPlan := plan(now, due(now))
	listed, err := s.KeyDates.AnnounceKeyDates(ctx, bobPlan, func([]ports.KeyDateAnnouncement) error { return boom })
	is.True(errors.Is(err, boom))
	is.Equal(listed, 0)
	is.Equal(rows(), int64(5))

	// Concurrent digests of the same contracts (instances): one wins.
	var wins atomic.Int64
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			w, err := announce(bobPlan)
			if err != nil {
				t.Errorf("concurrent announce: %v", err)
			}
			if len(w) > 0 {
				wins.Add(1)
				if len(w) != 2 {
					t.Errorf("a digest won %d of 2", len(w))
				}
			}
		}()
	}
	wg.Wait()
	is.Equal(wins.Load(), int64(1)) // one digest, with both contracts
	is.Equal(len(due(now)), 0)
	is.Equal(mails(), int64(2))

	// Days later the 7-day threshold of the lease comes, and the 90-day
	// one of the contract that was beyond 90 days.
	later := now.AddDate(0, 0, 13)
	ds = due(later)
	is.Equal(ids(ds), []int64{lease, beyond})
	is.Equal(ds[0].Announced, []int{30, 90})
	p := plan(later, ds)
	is.Equal(p[0].Listed, 7)
	is.Equal(p[0].Record, []int{7})

	// A contract changed since it was read is left out.
	stale := p[0]
	stale.Due.NoticeDate = stale.Due.NoticeDate.Add(time.Hour)
	w, err := announce([]ports.KeyDateAnnouncement{stale})
	is.NoErr(err)
	is.Equal(len(w), 0)
	moved := p[0]
	moved.Due.OwnerID = bob
	w, err = announce([]ports.KeyDateAnnouncement{moved})
	is.NoErr(err)
	is.Equal(len(w), 0)

	// Moving the notice date re-arms, in the change's transaction, the
	// thresholds not yet reached (here 30 and 7 when 45 days remain);
	// 90 stays announced.
	ctx2, fx := ports.WithEffects(ctx)
	_, err = s.Contracts.UpdateContract(ctx2, lease, func(c *contract.Contract) ([]contract.AuditEntry, error) {
		end := contract.Day(now).AddDate(0, 0, 55)
		c.EndDate = &end
		fx.Add(ports.RearmKeyDates{ContractID: c.ID, Below: contract.KeyDatesRearmBelow(now, c.NoticeDate())})
		return nil, nil
	})
	is.NoErr(err)
	is.Equal(rows(), int64(8)) // 5, the signed digital's 7, 30, 90 and the supply's 90, less the lease's 30
	ds = due(now.AddDate(0, 0, 15))
	is.Equal(ids(ds), []int64{lease, beyond})
	is.Equal(ds[0].Announced, []int{90})

	// Rows go with their contract.
	_, err = s.Contracts.DeleteContract(ctx, lease, func(contract.Contract) ([]contract.AuditEntry, error) { return nil, nil })
	is.NoErr(err)
	is.Equal(rows(), int64(7))
}

// KeyDatePlanWindow is the window of notice dates and the thresholds
// whose candidate query the engines' plan tests explain: a digest on
// 1 January 2027 with the thresholds 7, 30 and 90 days.
func KeyDatePlanWindow() (from, to time.Time, thresholds []int) {
	thresholds = []int{7, 30, 90}
	from, to = contract.KeyDateWindow(time.Date(2027, 1, 1, 9, 0, 0, 0, time.UTC), thresholds)
	return from, to, thresholds
}
