package http

import (
	"fmt"
	"net/http"
	"strings"
	"time"

	ics "github.com/arran4/golang-ical"

	"counsel/ports"
)

// The personal calendar feed (docs/decisions.md §16): the caller makes or
// revokes their feed URL; calendar applications read the feed by its
// secret token, without signing in.

// The API reference entries of the calendar routes (routes.go).
var (
	opCreateCalendar = op{summary: "Make your personal calendar feed: answers its secret URL ({COUNSEL_PUBLIC_URL}/calendar/{token}.ics), replacing any earlier one, which stops working",
		tag: "account", resp: object(js{"url": str()}, "url"), headers: []string{"Cache-Control"}}
	opRemoveCalendar = op{summary: "Turn your calendar feed off (nothing when it is off)", tag: "account", ok: 204}
	opCalendarFeed   = op{summary: "A personal calendar feed (RFC 5545): all-day events for the end date and the notice date of every contract the feed's user owns, with the contract's name, status and console link. An unknown, replaced or revoked token, or a user deactivated, deleted or without ContractView, is a 404",
		tag: "account", respType: "text/calendar", resp: str(), errs: []int{404}}
)

type calendarDTO struct {
	URL string `json:"url"`
}

func (s *server) handleCreateCalendar() http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		u, err := s.svc.Calendar.CreateCalendarFeed(r.Context())
		if err != nil {
			s.fail(w, r, err)
			return
		}
		w.Header().Set("Cache-Control", "no-store")
		encode(w, http.StatusOK, calendarDTO{URL: u})
	}
}

func (s *server) handleRemoveCalendar() http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		s.reply(w, r, http.StatusNoContent, nil, s.svc.Calendar.RemoveCalendarFeed(r.Context()))
	}
}

func (s *server) handleCalendarFeed() http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		feed, err := s.svc.Calendar.CalendarFeed(r.Context(), muxVars(r)["token"])
		if err != nil {
			s.fail(w, r, err)
			return
		}
		w.Header().Set("Content-Type", "text/calendar; charset=utf-8")
		w.Header().Set("Cache-Control", "private, no-store")
		w.Header().Set("Content-Disposition", `inline; filename="counsel.ics"`)
		_, _ = w.Write([]byte(renderCalendar(feed)))
	}
}

// renderCalendar writes feed as an RFC 5545 calendar: per contract an
// all-day event on its end date and one on its notice date, each with a
// UID stable per contract and kind, LAST-MODIFIED (and DTSTAMP) the
// contract's last change.
func renderCalendar(feed ports.CalendarFeed) string {
	cal := ics.NewCalendar()
	cal.SetMethod(ics.MethodPublish)
	cal.SetProductId("-//Counsel//Contract key dates//EN")
	cal.SetName("Counsel: my contracts")
	cal.SetXWRCalName("Counsel: my contracts")
	for _, c := range feed.Contracts {
		link := fmt.Sprintf("%s/contracts/%d", feed.ConsoleURL, c.ID)
		renew := "no"
		if c.AutoRenew {
			renew = "yes"
		}
		desc := fmt.Sprintf("Status: %s\nAuto-renews: %s\n%s", c.Status, renew, link)
		add := func(kind, title string, day time.Time) {
			e := cal.AddEvent(fmt.Sprintf("contract-%s-%s@counsel", c.UUID, kind))
			e.SetDtStampTime(c.UpdatedAt.UTC())
			e.SetLastModifiedAt(c.UpdatedAt.UTC())
			d := day.UTC()
			e.SetAllDayStartAt(d)
			e.SetAllDayEndAt(d.AddDate(0, 0, 1))
			e.SetSummary(title + ": " + oneLine(c.Name))
			e.SetDescription(desc)
			e.SetURL(link)
			e.SetProperty(ics.ComponentPropertyTransp, "TRANSPARENT")
		}
		add("end", "Ends", *c.EndDate)
		if nd := c.NoticeDate(); nd != nil {
			add("notice", "Notice due", *nd)
		}
	}
	return cal.Serialize()
}

// oneLine keeps a summary on one line.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
