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
