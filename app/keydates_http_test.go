package app_test

import (
	"fmt"
	"net/url"
	"testing"

	"github.com/matryer/is"

	"counsel/app/apptest"
	"counsel/domain/account"
)

// TestContractOwner: ownerId defaults to the creator, may be given on
// create or update (ContractEdit) and must name an active user; the list
// filters by it (docs/decisions.md §16).
func TestContractOwner(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	s := apptest.New(t)
	creatorID, creator := s.User(t, account.ContractCreate, account.ContractEdit, account.ContractView)
	otherID, _ := s.User(t, account.ContractView)
	goneID, _ := s.User(t)
	inactiveID, _ := s.User(t)
	admin := s.Admin(t)
	s.Do(t, "DELETE", fmt.Sprintf("/api/users/%d", goneID), admin, nil).Expect(t, 204, "delete user")
	s.Do(t, "PUT", fmt.Sprintf("/api/users/%d", inactiveID), admin, map[string]any{"active": false}).Expect(t, 200, "deactivate user")

	mine := contractCreate(t, s, creator, map[string]any{"contractName": "Mine"})
	is.Equal(mine["ownerId"], float64(creatorID)) // the creator by default
	theirs := contractCreate(t, s, creator, map[string]any{"contractName": "Theirs", "ownerId": otherID})
	is.Equal(theirs["ownerId"], float64(otherID))

	for _, tt := range []struct {
		name  string
		owner any
		msg   string
	}{
		{"unknown user", 999999, "ownerId must be an active user"},
		{"deleted user", goneID, "ownerId must be an active user"},
		{"inactive user", inactiveID, "ownerId must be an active user"},
		{"not an integer", "x", "ownerId must be an integer"},
		{"zero", 0, "ownerId must be a positive integer"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			r := s.Do(t, "POST", "/api/contracts", creator, map[string]any{"contractName": "X", "ownerId": tt.owner}).Expect(t, 400, "create")
			_, errs := contractProblem(t, r)
			is.Equal(errs["ownerId"], []string{tt.msg})
			r = s.Do(t, "PUT", fmt.Sprintf("/api/contracts/%d", contractID(mine)), creator, map[string]any{"ownerId": tt.owner}).Expect(t, 400, "update")
			_, errs = contractProblem(t, r)
			is.Equal(errs["ownerId"], []string{tt.msg})
		})
	}
	r := s.Do(t, "PUT", fmt.Sprintf("/api/contracts/%d", contractID(mine)), creator, map[string]any{"ownerId": nil}).Expect(t, 400, "null owner")
	_, errs := contractProblem(t, r)
	is.Equal(errs["ownerId"], []string{"ownerId cannot be null"})

	// Handing over: the history names the field; the list follows.
	moved := s.Do(t, "PUT", fmt.Sprintf("/api/contracts/%d", contractID(mine)), creator, map[string]any{"ownerId": otherID}).Expect(t, 200, "hand over").Map(t)
	is.Equal(moved["ownerId"], float64(otherID))
	var hist struct {
		Items []struct{ Action, Details string }
	}
	s.Do(t, "GET", fmt.Sprintf("/api/contracts/%d/history", contractID(mine)), creator, nil).Expect(t, 200, "history").JSON(t, &hist)
	is.Equal(hist.Items[0].Action, "updated")
	is.Equal(hist.Items[0].Details, "changed ownerId")

	// An owner deactivated later stays when the body sends it back.
	s.Do(t, "PUT", fmt.Sprintf("/api/users/%d", otherID), admin, map[string]any{"active": false}).Expect(t, 200, "deactivate owner")
	s.Do(t, "PUT", fmt.Sprintf("/api/contracts/%d", contractID(mine)), creator, map[string]any{"ownerId": otherID, "contractName": "Mine!"}).Expect(t, 200, "same owner")

	var page struct {
		Count int64
		Items []map[string]any
	}
	s.Do(t, "GET", fmt.Sprintf("/api/contracts?ownerid=%d", otherID), creator, nil).Expect(t, 200, "list by owner").JSON(t, &page)
	is.Equal(page.Count, int64(2))
	is.Equal(page.Items[0]["ownerId"], float64(otherID))
	s.Do(t, "GET", fmt.Sprintf("/api/contracts?OwnerId=%d", creatorID), creator, nil).Expect(t, 200, "list by owner").JSON(t, &page)
	is.Equal(page.Count, int64(0))
	r = s.Do(t, "GET", "/api/contracts?OwnerId=me", creator, nil).Expect(t, 400, "bad owner filter")
	_, errs = contractProblem(t, r)
	is.Equal(errs["OwnerId"], []string{"OwnerId must be an integer"})

	// Without ContractEdit the owner cannot be changed.
	_, viewer := s.User(t, account.ContractView)
	s.Do(t, "PUT", fmt.Sprintf("/api/contracts/%d", contractID(theirs)), viewer, map[string]any{"ownerId": creatorID}).Expect(t, 403, "no ContractEdit")
}

// TestContractKeyDates: noticeDays, autoRenew and the derived noticeDate
// in the DTOs, the inputs and the NoticeDate filters.
func TestContractKeyDates(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	s := apptest.New(t)
	_, tok := s.User(t, account.ContractCreate, account.ContractEdit, account.ContractView)

	c := contractCreate(t, s, tok, map[string]any{"contractName": "Lease", "endDate": "2027-06-30", "noticeDays": 90, "autoRenew": true})
	is.Equal(c["noticeDays"], float64(90))
	is.Equal(c["autoRenew"], true)
	is.Equal(c["noticeDate"], "2027-04-01T00:00:00Z") // 90 days before 30 June
	plain := contractCreate(t, s, tok, map[string]any{"contractName": "Plain", "endDate": "2027-01-15T12:00:00+02:00"})
	is.Equal(plain["noticeDays"], nil)
	is.Equal(plain["autoRenew"], false)                   // the default
	is.Equal(plain["noticeDate"], "2027-01-15T10:00:00Z") // the end date without noticeDays
	none := contractCreate(t, s, tok, map[string]any{"contractName": "Open", "noticeDays": 30})
	is.Equal(none["noticeDate"], nil) // no end date, no notice date

	for _, tt := range []struct {
		body map[string]any
		msg  string
	}{
		{map[string]any{"noticeDays": -1}, "noticeDays must be between 0 and 3650"},
		{map[string]any{"noticeDays": 3651}, "noticeDays must be between 0 and 3650"},
		{map[string]any{"noticeDays": 99999999999999999}, "noticeDays must be between 0 and 3650"},
		{map[string]any{"noticeDays": 1.5}, "noticeDays must be an integer"},
		{map[string]any{"noticeDays": "30"}, "noticeDays must be an integer"},
		{map[string]any{"autoRenew": nil}, "autoRenew must be true or false, not null"},
	} {
		r := s.Do(t, "PUT", fmt.Sprintf("/api/contracts/%d", contractID(c)), tok, tt.body).Expect(t, 400, fmt.Sprint(tt.body))
		_, errs := contractProblem(t, r)
		for k := range tt.body {
			is.Equal(errs[k], []string{tt.msg})
		}
	}
	// A change of noticeDays or endDate moves the notice date; null clears
	// noticeDays.
	u := s.Do(t, "PUT", fmt.Sprintf("/api/contracts/%d", contractID(c)), tok, map[string]any{"noticeDays": 0, "autoRenew": false}).Expect(t, 200, "update").Map(t)
	is.Equal(u["noticeDate"], "2027-06-30T00:00:00Z")
	is.Equal(u["autoRenew"], false)
	u = s.Do(t, "PUT", fmt.Sprintf("/api/contracts/%d", contractID(c)), tok, map[string]any{"noticeDays": 30, "endDate": "2027-12-31"}).Expect(t, 200, "update").Map(t)
	is.Equal(u["noticeDate"], "2027-12-01T00:00:00Z")
	u = s.Do(t, "PUT", fmt.Sprintf("/api/contracts/%d", contractID(c)), tok, map[string]any{"noticeDays": nil}).Expect(t, 200, "clear").Map(t)
	is.Equal(u["noticeDays"], nil)
	is.Equal(u["noticeDate"], "2027-12-31T00:00:00Z")
	u = s.Do(t, "PUT", fmt.Sprintf("/api/contracts/%d", contractID(c)), tok, map[string]any{"noticeDays": 3650}).Expect(t, 200, "ten years").Map(t)
	is.Equal(u["noticeDate"], "2018-01-02T00:00:00Z")
	s.Do(t, "PUT", fmt.Sprintf("/api/contracts/%d", contractID(c)), tok, map[string]any{"noticeDays": 30}).Expect(t, 200, "back")

	list := func(q string) []any {
		var page struct {
			Count int64
			Items []map[string]any
		}
		s.Do(t, "GET", "/api/contracts?SortBy=contractName&SortDesc=false&"+q, tok, nil).Expect(t, 200, q).JSON(t, &page)
		var names []any
		for _, it := range page.Items {
			names = append(names, it["contractName"])
		}
		is.Equal(page.Count, int64(len(names)))
		return names
	}
	is.Equal(list("NoticeDateFrom=2027-01-15T10:00:00Z"), []any{"Lease", "Plain"}) // both ends inclusive
	is.Equal(list("noticedatefrom=2027-01-16&NoticeDateTo=2027-12-01"), []any{"Lease"})
	is.Equal(list("NoticeDateTo=2027-01-15T10:00:00Z"), []any{"Plain"})
	is.Equal(list("NoticeDateTo=2027-01-15T09:59:59Z"), []any(nil))
	var page struct{ Items []map[string]any }
	s.Do(t, "GET", "/api/contracts?ContractName=x&Search=Lease", tok, nil).Expect(t, 200, "list").JSON(t, &page)
	is.Equal(page.Items[0]["noticeDate"], "2027-12-01T00:00:00Z")
	is.Equal(page.Items[0]["autoRenew"], false)
	r := s.Do(t, "GET", "/api/contracts?NoticeDateFrom=2027-02-01&NoticeDateTo=2027-01-01", tok, nil).Expect(t, 400, "reversed")
	_, errs := contractProblem(t, r)
	is.Equal(errs["NoticeDateTo"], []string{"NoticeDateTo must not be before NoticeDateFrom"})
	r = s.Do(t, "GET", "/api/contracts?NoticeDateFrom="+url.QueryEscape("next week"), tok, nil).Expect(t, 400, "bad date")
	_, errs = contractProblem(t, r)
	is.Equal(errs["NoticeDateFrom"], []string{"NoticeDateFrom must be an RFC 3339 date-time or a yyyy-mm-dd date"})
}
