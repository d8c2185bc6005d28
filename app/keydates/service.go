// Package keydates is the key-date digest job (docs/decisions.md §16):
// each owner of live contracts whose notice date came within one of the
// configured thresholds (days before the notice date) since the last
// digest gets one email listing them.
//
// A run reads the candidates in one query (ports.KeyDateStore.DueKeyDates,
// by index), decides for each with the domain's rule
// (contract.KeyDateDue: the thresholds crossed on today's UTC day, less
// those announced), and for each owner records the thresholds and queues
// the digest in one transaction (AnnounceKeyDates), so that a threshold is
// announced once however many instances run the job, and a crash leaves
// either both or neither. Days are UTC days, so time alone crosses
// thresholds once a day: the first run of a day sends that day's digests
// and later runs send nothing unless a change (a new date, a contract
// becoming live, a new owner) crossed a threshold since.
package keydates

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"counsel/domain/contract"
	"counsel/domain/mail"
	"counsel/ports"
)

// Deps are what the job needs.
type Deps struct {
	Store ports.KeyDateStore
	Clock ports.Clock
	// Links make the console links of the digest (COUNSEL_PUBLIC_URL).
	Links mail.Links
	// Thresholds are COUNSEL_KEY_DATE_REMINDERS, ascending.
	Thresholds []int
}

// Service is the key-date digest job.
type Service struct{ d Deps }

// New returns the job.
func New(d Deps) *Service {
	d.Thresholds = slices.Sorted(slices.Values(d.Thresholds))
	return &Service{d: d}
}

// Run queues today's digests and returns how many it queued. An owner
// whose digest fails is left for the next run and the others are still
// sent; the failures are returned together, each naming its owner.
func (s *Service) Run(ctx context.Context) (int, error) {
	if len(s.d.Thresholds) == 0 {
		return 0, nil
	}
	now := s.d.Clock.Now()
	from, to := contract.KeyDateWindow(now, s.d.Thresholds)
	ds, err := s.d.Store.DueKeyDates(ctx, from, to, s.d.Thresholds)
	if err != nil {
		return 0, err
	}
	sent := 0
	var errs []error
	for len(ds) > 0 {
		n := 1
		for n < len(ds) && ds[n].OwnerID == ds[0].OwnerID {
			n++
		}
		ok, err := s.digest(ctx, now, ds[:n])
		if err != nil {
			if ctx.Err() != nil {
				return sent, ctx.Err()
			}
			errs = append(errs, err)
		} else if ok {
			sent++
		}
		ds = ds[n:]
	}
	return sent, errors.Join(errs...)
}

// digest announces what is due of one owner's candidates ds and queues
// their digest with the records; ok reports whether one was queued.
func (s *Service) digest(ctx context.Context, now time.Time, ds []ports.DueKeyDate) (bool, error) {
	var as []ports.KeyDateAnnouncement
	for _, d := range ds {
		if !contract.LiveStatus(d.Status, d.Digital) {
			continue
		}
		if listed, record, due := contract.KeyDateDue(now, d.NoticeDate, s.d.Thresholds, d.Announced); due {
			as = append(as, ports.KeyDateAnnouncement{Due: d, Listed: listed, Record: record})
		}
	}
	if len(as) == 0 {
		return false, nil
	}
	ctx, fx := ports.WithEffects(ctx)
	listed, err := s.d.Store.AnnounceKeyDates(ctx, as, func(won []ports.KeyDateAnnouncement) error {
		items := make([]mail.KeyDate, len(won))
		for i, a := range won {
			notice := a.Due.NoticeDate
			items[i] = mail.KeyDate{Contract: mail.Contract{ID: a.Due.ContractID, Name: a.Due.Name, Status: a.Due.Status.String(),
				EndDate: a.Due.EndDate, NoticeDate: &notice, AutoRenew: a.Due.AutoRenew},
				Threshold: a.Listed, DaysLeft: contract.DaysLeft(now, notice)}
		}
		m := mail.KeyDateDigest(s.d.Links, ds[0].OwnerName, items, s.d.Thresholds)
		fx.Add(ports.Mail{To: ds[0].OwnerEmail, Subject: m.Subject, Kind: m.Kind, Text: m.Text, HTML: m.HTML})
		return nil
	})
	if err != nil {
		return false, fmt.Errorf("digest of owner %d: %w", ds[0].OwnerID, err)
	}
	return listed > 0, nil
}
