package contract

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Key-date reminders (docs/decisions.md §16). Days are UTC calendar days:
// a contract's notice day is the UTC date of its notice date, and a
// threshold of T days is crossed on the day T days before the notice day
// (daysLeft <= T). A contract is due in a digest when its notice day is
// today or later, it has crossed a threshold, and the tightest threshold
// it has crossed was not yet announced.

// DefaultKeyDateReminders is COUNSEL_KEY_DATE_REMINDERS' default.
const DefaultKeyDateReminders = "90,30,7"

// MaxKeyDateReminders bounds how many thresholds may be configured.
const MaxKeyDateReminders = 10

// ParseKeyDateReminders reads a comma-separated list of thresholds in
// days (each 0..MaxNoticeDays, no repeats, at least one, at most
// MaxKeyDateReminders) and returns them in ascending order.
func ParseKeyDateReminders(s string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			return nil, fmt.Errorf("want comma-separated whole days, got an empty entry in %q", s)
		}
		n, err := strconv.Atoi(f)
		if err != nil || n < 0 || n > MaxNoticeDays {
			return nil, fmt.Errorf("want whole days between 0 and %d, got %q", MaxNoticeDays, f)
		}
		if slices.Contains(out, n) {
			return nil, fmt.Errorf("%d days is listed twice", n)
		}
		out = append(out, n)
	}
	if len(out) > MaxKeyDateReminders {
		return nil, fmt.Errorf("want at most %d thresholds, got %d", MaxKeyDateReminders, len(out))
	}
	slices.Sort(out)
	return out, nil
}

// Day is the UTC calendar day of t, as midnight UTC.
func Day(t time.Time) time.Time {
	y, m, d := t.UTC().Date()
	return time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
}

// DaysLeft is the number of whole UTC days from the day of now to the
// notice day of notice (0: notice is due today; negative: passed).
func DaysLeft(now, notice time.Time) int {
	return int(Day(notice).Sub(Day(now)).Hours() / 24)
}

// KeyDateWindow is the range of notice dates that may be due on the day
// of now with thresholds (ascending): from the start of that day to the
// start of the day after its largest threshold, the end excluded.
func KeyDateWindow(now time.Time, thresholds []int) (from, to time.Time) {
	from = Day(now)
	return from, from.AddDate(0, 0, thresholds[len(thresholds)-1]+1)
}

// KeyDateDue decides, on the day of now, what a digest says of a contract
// whose notice date is notice, given the thresholds (ascending) and
// those already announced for it: ok when it is listed, with the tightest
// threshold crossed (listed) and every crossed threshold not yet
// announced (record), which the digest records as announced. A contract
// whose notice day has passed, that crossed no threshold, or whose
// tightest crossed threshold was announced, is not listed.
func KeyDateDue(now, notice time.Time, thresholds, announced []int) (listed int, record []int, ok bool) {
	left := DaysLeft(now, notice)
	if left < 0 {
		return 0, nil, false
	}
	listed = -1
	for _, t := range thresholds {
		if left > t {
			continue
		}
		if listed < 0 {
			listed = t
		}
		if !slices.Contains(announced, t) {
			record = append(record, t)
		}
	}
	if listed < 0 || slices.Contains(announced, listed) {
		return 0, nil, false
	}
	return listed, record, true
}

// KeyDatesRearmBelow is what a change of a contract's notice date to
// notice re-arms on the day of now: the announced thresholds of fewer
// days than the result are not yet reached with the new date and may be
// announced again. Without a notice date every threshold is re-armed.
func KeyDatesRearmBelow(now time.Time, notice *time.Time) int {
	if notice == nil {
		return math.MaxInt32
	}
	return DaysLeft(now, *notice)
}

// LiveStatus reports whether a contract in status s, digital or not, is
// live (Contract.IsLive).
func LiveStatus(s Status, digital bool) bool {
	c := Contract{Status: s}
	if digital {
		c.DigitalContractID = "digital"
	}
	return c.IsLive()
}

// LiveStatuses are the statuses in which a contract is live (IsLive) when
// digital, and when not: the candidates the stores select before
// LiveStatus decides.
func LiveStatuses(digital bool) []Status {
	var out []Status
	for s := Draft; s <= Archived; s++ {
		if LiveStatus(s, digital) {
			out = append(out, s)
		}
	}
	return out
}
