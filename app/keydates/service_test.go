package keydates_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/matryer/is"

	"counsel/app/keydates"
	"counsel/domain/contract"
	"counsel/domain/mail"
	"counsel/ports"
	"counsel/ports/porttest"
)

// fakeStore hands out due contracts and fails the digests of one owner.
type fakeStore struct {
	due     []ports.DueKeyDate
	failFor int64
	mails   []ports.Mail
}

func (f *fakeStore) DueKeyDates(context.Context, time.Time, time.Time, []int) ([]ports.DueKeyDate, error) {
	return f.due, nil
}

func (f *fakeStore) AnnounceKeyDates(ctx context.Context, as []ports.KeyDateAnnouncement, digest func([]ports.KeyDateAnnouncement) error) (int, error) {
	if as[0].Due.OwnerID == f.failFor {
		return 0, errors.New("database gone")
	}
	if err := digest(as); err != nil {
		return 0, err
	}
	pending, _ := ports.EffectsOf(ctx).Pending()
	for _, e := range pending {
		f.mails = append(f.mails, e.(ports.Mail))
	}
	return len(as), nil
}

// TestRunOwnerByOwner: one digest per owner with the contracts the
// domain finds due (not live ones and those already announced left out);
// an owner whose digest fails does not stop the others and is named.
func TestRunOwnerByOwner(t *testing.T) {
	is := is.New(t)
	now := time.Date(2027, 1, 1, 9, 0, 0, 0, time.UTC)
	in := func(days int) time.Time { return contract.Day(now).AddDate(0, 0, days) }
	f := &fakeStore{failFor: 1, due: []ports.DueKeyDate{
		{ContractID: 1, OwnerID: 1, OwnerEmail: "a@example.com", Name: "A", Status: contract.Signed, NoticeDate: in(20)},
		{ContractID: 2, OwnerID: 2, OwnerEmail: "b@example.com", OwnerName: "Bea", Name: "B1", Status: contract.Signed, NoticeDate: in(5)},
		{ContractID: 3, OwnerID: 2, OwnerEmail: "b@example.com", Name: "B2", Status: contract.ContractDesign, NoticeDate: in(30), AutoRenew: true},
		{ContractID: 4, OwnerID: 2, OwnerEmail: "b@example.com", Name: "B3 digital", Status: contract.ContractDesign, Digital: true, NoticeDate: in(30)},
		{ContractID: 5, OwnerID: 2, OwnerEmail: "b@example.com", Name: "B4 announced", Status: contract.Signed, NoticeDate: in(30), Announced: []int{30, 90}},
		{ContractID: 6, OwnerID: 3, OwnerEmail: "c@example.com", Name: "C announced", Status: contract.Signed, NoticeDate: in(60), Announced: []int{90}},
	}}
	job := keydates.New(keydates.Deps{Store: f, Clock: porttest.NewClock(now), Links: mail.Links{PublicURL: "https://counsel.example"}, Thresholds: []int{90, 7, 30}})
	n, err := job.Run(context.Background())
	is.Equal(n, 1) // Bea's digest
	is.True(err != nil && strings.Contains(err.Error(), "digest of owner 1: database gone"))
	is.Equal(len(f.mails), 1)
	m := f.mails[0]
	is.Equal(m.To, "b@example.com")
	is.Equal(m.Kind, mail.KindKeyDateDigest)
	is.Equal(m.Subject, "Notice dates coming up: 2 contracts")
	is.True(strings.Contains(m.Text, "Hello Bea,"))
	is.True(strings.Contains(m.Text, "- B1\n  Notice by: Wed 6 Jan 2027 (within 7 days: 5 days left)"))
	is.True(strings.Contains(m.Text, "- B2\n  Notice by: Sun 31 Jan 2027 (within 30 days: 30 days left)"))
	is.True(!strings.Contains(m.Text, "B3") && !strings.Contains(m.Text, "B4")) // not live; announced
	is.True(strings.Contains(m.Text, "within 90, 30 and 7 days"))               // the thresholds, sorted
}
