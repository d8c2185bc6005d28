package app_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	ics "github.com/arran4/golang-ical"
	"github.com/matryer/is"

	"counsel/app/apptest"
	"counsel/domain/account"
)

// calendarGet reads a feed URL (made under the server's public URL) from
// the test server.
func calendarGet(t *testing.T, s *apptest.Server, feedURL string) *apptest.Response {
	t.Helper()
	i := strings.Index(feedURL, "/calendar/")
	if i < 0 {
		t.Fatalf("feed URL %q has no /calendar/ path", feedURL)
	}
	return s.Do(t, "GET", feedURL[i:], "", nil)
}

// TestCalendarFeed: the personal feed holds, per owned contract with an
// end date, an all-day event on the end date and one on the notice date,
// read back with an RFC 5545 parser; the token is a secret URL replaced
// by a new POST and turned off by DELETE, deactivation or deletion.
func TestCalendarFeed(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	s := apptest.New(t)
	uid, tok := s.User(t, account.ContractCreate, account.ContractEdit, account.ContractView)
	_, other := s.User(t, account.ContractCreate, account.ContractView)

	lease := contractCreate(t, s, tok, map[string]any{"contractName": "Office lease, level 3", "endDate": "2027-06-30", "noticeDays": 90, "autoRenew": true})
	contractCreate(t, s, tok, map[string]any{"contractName": "No end", "noticeDays": 10})
	contractCreate(t, s, other, map[string]any{"contractName": "Not mine", "endDate": "2027-01-01"})

	r := s.Do(t, "POST", "/api/account/calendar", tok, nil).Expect(t, 200, "make feed")
	is.Equal(r.Header.Get("Cache-Control"), "no-store")
	var made struct{ URL string }
	r.JSON(t, &made)
	is.True(strings.HasSuffix(made.URL, ".ics"))
	token := strings.TrimSuffix(made.URL[strings.LastIndex(made.URL, "/")+1:], ".ics")
	is.Equal(len(token), 43) // 256 bits in base64url

	feed := calendarGet(t, s, made.URL).Expect(t, 200, "feed")
	is.True(strings.HasPrefix(feed.Header.Get("Content-Type"), "text/calendar"))
	cal, err := ics.ParseCalendar(strings.NewReader(string(feed.Body)))
	is.NoErr(err) // RFC 5545
	events := cal.Events()
	is.Equal(len(events), 2) // the end and the notice date of the one owned contract with an end date
	byUID := map[string]*ics.VEvent{}
	for _, e := range events {
		byUID[e.Id()] = e
	}
	uuid := lease["contractUUId"].(string)
	end, notice := byUID["contract-"+uuid+"-end@counsel"], byUID["contract-"+uuid+"-notice@counsel"]
	is.True(end != nil && notice != nil) // UIDs stable per contract and kind
	start, err := end.GetAllDayStartAt()
	is.NoErr(err)
	is.Equal(start.Format("2006-01-02"), "2027-06-30")
	start, err = notice.GetAllDayStartAt()
	is.NoErr(err)
	is.Equal(start.Format("2006-01-02"), "2027-04-01")                                                // 90 days before the end
	is.Equal(end.GetProperty(ics.ComponentPropertyDtStart).ICalParameters["VALUE"], []string{"DATE"}) // all-day
	is.Equal(notice.GetProperty(ics.ComponentPropertySummary).Value, "Notice due: Office lease, level 3")
	desc := notice.GetProperty(ics.ComponentPropertyDescription).Value
	is.True(strings.Contains(desc, "Status: Draft"))
	is.True(strings.Contains(desc, "Auto-renews: yes"))
	is.True(strings.Contains(desc, fmt.Sprintf("/console/contracts/%d", contractID(lease))))
	modified, err := end.GetLastModifiedAt()
	is.NoErr(err)
	is.Equal(modified.UTC().Format(time.RFC3339), lease["updatedAt"])

	// A change moves the events; the UIDs stay.
	s.Do(t, "PUT", fmt.Sprintf("/api/contracts/%d", contractID(lease)), tok, map[string]any{"noticeDays": 30}).Expect(t, 200, "change")
	cal, err = ics.ParseCalendar(strings.NewReader(string(calendarGet(t, s, made.URL).Expect(t, 200, "feed").Body)))
	is.NoErr(err)
	for _, e := range cal.Events() {
		if e.Id() == "contract-"+uuid+"-notice@counsel" {
			start, _ := e.GetAllDayStartAt()
			is.Equal(start.Format("2006-01-02"), "2027-05-31")
		}
	}

	// Unknown, malformed and replaced tokens are 404s.
	s.Do(t, "GET", "/calendar/"+strings.Repeat("A", 43)+".ics", "", nil).Expect(t, 404, "unknown")
	s.Do(t, "GET", "/calendar/short.ics", "", nil).Expect(t, 404, "malformed")
	var again struct{ URL string }
	s.Do(t, "POST", "/api/account/calendar", tok, nil).Expect(t, 200, "new feed").JSON(t, &again)
	is.True(again.URL != made.URL)
	calendarGet(t, s, made.URL).Expect(t, 404, "replaced")
	calendarGet(t, s, again.URL).Expect(t, 200, "new")
	s.Do(t, "DELETE", "/api/account/calendar", tok, nil).Expect(t, 204, "off")
	calendarGet(t, s, again.URL).Expect(t, 404, "revoked")
	s.Do(t, "DELETE", "/api/account/calendar", tok, nil).Expect(t, 204, "off again")

	// Deactivating the user turns the feed off for good; so does deletion.
	s.Do(t, "POST", "/api/account/calendar", tok, nil).Expect(t, 200, "feed").JSON(t, &again)
	admin := s.Admin(t)
	s.Do(t, "PUT", fmt.Sprintf("/api/users/%d", uid), admin, map[string]any{"active": false}).Expect(t, 200, "deactivate")
	calendarGet(t, s, again.URL).Expect(t, 404, "deactivated")
	s.Do(t, "PUT", fmt.Sprintf("/api/users/%d", uid), admin, map[string]any{"active": true}).Expect(t, 200, "reactivate")
	calendarGet(t, s, again.URL).Expect(t, 404, "still off after reactivation")

	var third struct{ URL string }
	s.Do(t, "POST", "/api/account/calendar", other, nil).Expect(t, 200, "other's feed").JSON(t, &third)
	calendarGet(t, s, third.URL).Expect(t, 200, "other's feed")
	otherID := int64(0)
	var me struct{ ID int64 }
	s.Do(t, "GET", "/api/me", other, nil).Expect(t, 200, "me").JSON(t, &me)
	otherID = me.ID
	s.Do(t, "DELETE", fmt.Sprintf("/api/users/%d", otherID), admin, nil).Expect(t, 204, "delete")
	calendarGet(t, s, third.URL).Expect(t, 404, "deleted")

	// Without credentials the account routes refuse.
	is.Equal(s.Do(t, "POST", "/api/account/calendar", "", nil).Status, http.StatusUnauthorized)
}
