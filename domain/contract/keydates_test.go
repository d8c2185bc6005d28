package contract_test

import (
	"errors"
	"testing"
	"time"

	"github.com/matryer/is"

	"counsel/domain"
	"counsel/domain/contract"
)

func TestNoticeDate(t *testing.T) {
	end := time.Date(2027, 3, 31, 0, 0, 0, 0, time.UTC)
	days := func(n int) *int { return &n }
	for _, tt := range []struct {
		name string
		end  *time.Time
		days *int
		want *time.Time
	}{
		{"no end date", nil, days(30), nil},
		{"no notice days: the end date", &end, nil, &end},
		{"zero days: the end date", &end, days(0), &end},
		{"30 days before", &end, days(30), ptr(time.Date(2027, 3, 1, 0, 0, 0, 0, time.UTC))},
		{"across a leap day", ptr(time.Date(2028, 3, 1, 0, 0, 0, 0, time.UTC)), days(1), ptr(time.Date(2028, 2, 29, 0, 0, 0, 0, time.UTC))},
	} {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			c := contract.Contract{EndDate: tt.end, NoticeDays: tt.days}
			got := c.NoticeDate()
			if tt.want == nil {
				is.True(got == nil)
				return
			}
			is.True(got != nil)
			is.True(got.Equal(*tt.want)) // the notice date
		})
	}
}

func TestValidateKeyDates(t *testing.T) {
	for _, n := range []int{-1, 3651} {
		is := is.New(t)
		c := contract.Contract{Name: "x", Type: contract.Other, Status: contract.Draft, NoticeDays: &n}
		err := c.Validate()
		is.Equal(domain.ErrorCode(err), domain.EINVALID)
		var de *domain.Error
		is.True(errors.As(err, &de))
		is.Equal(de.Fields["noticeDays"], []string{"noticeDays must be between 0 and 3650"})
	}
	for _, n := range []int{0, 3650} {
		c := contract.Contract{Name: "x", Type: contract.Other, Status: contract.Draft, NoticeDays: &n}
		is.New(t).NoErr(c.Validate()) // the bounds are allowed
	}
}

func TestIsLive(t *testing.T) {
	for _, tt := range []struct {
		status  contract.Status
		digital bool
		want    bool
	}{
		{contract.Signed, true, true},
		{contract.Signed, false, true},
		{contract.ContractDesign, false, true},
		{contract.WaitingForClientSignature, false, true},
		{contract.Declined, false, true},
		{contract.ContractDesign, true, false},
		{contract.Draft, false, false},
		{contract.Expired, false, false},
		{contract.Terminated, false, false},
		{contract.Archived, false, false},
	} {
		c := contract.Contract{Status: tt.status}
		if tt.digital {
			c.DigitalContractID = "t1"
		}
		is.New(t).Equal(c.IsLive(), tt.want) // status and digital
	}
}

func TestApplyKeyDatesAndOwner(t *testing.T) {
	is := is.New(t)
	end := time.Date(2027, 1, 1, 0, 0, 0, 0, time.UTC)
	c := contract.Contract{Name: "x", Type: contract.Other, Status: contract.Draft, EndDate: &end, OwnerID: 1}
	before := c
	owner, renew := int64(2), true
	res, err := c.Apply(contract.Edit{OwnerID: &owner, NoticeDays: contract.Some(60), AutoRenew: &renew})
	is.NoErr(err)
	is.Equal(res.Fields, []string{"ownerId", "noticeDays", "autoRenew"})
	is.Equal(c.OwnerID, int64(2))
	is.True(c.AutoRenew)
	is.True(contract.KeyDatesChanged(before, c)) // 60 days' notice moves the notice date
	after := c
	_, err = c.Apply(contract.Edit{AutoRenew: new(bool)})
	is.NoErr(err)
	is.True(!contract.KeyDatesChanged(after, c)) // autoRenew alone moves no date
	_, err = c.Apply(contract.Edit{NoticeDays: contract.Optional[int]{Set: true}})
	is.NoErr(err)
	is.True(c.NoticeDays == nil) // null clears it
}

func ptr[T any](v T) *T { return &v }

func TestParseKeyDateReminders(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want []int
		err  bool
	}{
		{contract.DefaultKeyDateReminders, []int{7, 30, 90}, false},
		{" 60 , 1,0", []int{0, 1, 60}, false},
		{"3650", []int{3650}, false},
		{"", nil, true},
		{"90,,7", nil, true},
		{"90,30,", nil, true},
		{"-1", nil, true},
		{"3651", nil, true},
		{"7d", nil, true},
		{"1.5", nil, true},
		{"30,30", nil, true},
		{"1,2,3,4,5,6,7,8,9,10,11", nil, true},
	} {
		t.Run(tt.in, func(t *testing.T) {
			is := is.New(t)
			got, err := contract.ParseKeyDateReminders(tt.in)
			is.Equal(err != nil, tt.err) // refused or not
			is.Equal(got, tt.want)
		})
	}
}

func TestDaysLeft(t *testing.T) {
	day := func(d int, h int) time.Time { return time.Date(2027, 1, d, h, 0, 0, 0, time.UTC) }
	is := is.New(t)
	is.Equal(contract.DaysLeft(day(1, 23), day(2, 0)), 1)                                                      // whole UTC days, not hours
	is.Equal(contract.DaysLeft(day(2, 0), day(2, 23)), 0)                                                      // the same day
	is.Equal(contract.DaysLeft(day(3, 0), day(2, 23)), -1)                                                     // passed
	is.Equal(contract.DaysLeft(day(1, 23), time.Date(2027, 1, 2, 1, 0, 0, 0, time.FixedZone("x", 3*3600))), 0) // 1 Jan 22:00 UTC
}

func TestKeyDateDue(t *testing.T) {
	now := time.Date(2027, 1, 1, 15, 0, 0, 0, time.UTC)
	in := func(days int) time.Time { return now.AddDate(0, 0, days).Add(-10 * time.Hour) } // 05:00 UTC that day
	th := []int{7, 30, 90}
	for _, tt := range []struct {
		name      string
		left      int
		announced []int
		listed    int
		record    []int
		ok        bool
	}{
		{"beyond every threshold", 91, nil, 0, nil, false},
		{"on the 90-day threshold", 90, nil, 90, []int{90}, true},
		{"90 announced, before 30", 31, []int{90}, 0, nil, false},
		{"30 crossed", 30, []int{90}, 30, []int{30}, true},
		{"first seen within 20 days: both, listed once at 30", 20, nil, 30, []int{30, 90}, true},
		{"7 crossed", 7, []int{30, 90}, 7, []int{7}, true},
		{"the notice day itself", 0, []int{30, 90}, 7, []int{7}, true},
		{"all announced", 3, []int{7, 30, 90}, 0, nil, false},
		{"passed", -1, nil, 0, nil, false},
		{"tightest announced, looser not (thresholds changed)", 20, []int{30}, 0, nil, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			listed, record, ok := contract.KeyDateDue(now, in(tt.left), th, tt.announced)
			is.Equal(ok, tt.ok)         // listed or not
			is.Equal(listed, tt.listed) // the threshold named
			is.Equal(record, tt.record) // what is recorded
		})
	}
}

func TestKeyDatesRearmBelow(t *testing.T) {
	is := is.New(t)
	now := time.Date(2027, 1, 1, 15, 0, 0, 0, time.UTC)
	notice := now.AddDate(0, 0, 45)
	is.Equal(contract.KeyDatesRearmBelow(now, &notice), 45) // 7 and 30 re-armed, 90 (passed) kept
	is.True(contract.KeyDatesRearmBelow(now, nil) > contract.MaxNoticeDays)
	past := now.AddDate(0, 0, -3)
	is.Equal(contract.KeyDatesRearmBelow(now, &past), -3) // nothing re-armed
}

func TestLiveStatuses(t *testing.T) {
	is := is.New(t)
	is.Equal(contract.LiveStatuses(true), []contract.Status{contract.Signed})
	is.Equal(contract.LiveStatuses(false), []contract.Status{contract.ContractDesign, contract.WaitingForClientSignature, contract.Signed, contract.Declined})
}
