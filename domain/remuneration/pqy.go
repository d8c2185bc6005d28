package remuneration

import (
	"cmp"
	"slices"
	"strings"
	"time"

	"counsel/domain"
	"counsel/domain/decimal"
)

// Period is a span of UTC calendar days with both ends included: a PQE
// adjustment from 2020-01-01 to 2020-01-31 covers 31 days. Times of day
// are ignored after converting to UTC.
type Period struct {
	Start time.Time
	End   time.Time
}

// PQY returns the post-qualification years at the time at: the number of
// days from the admission date to at, less the days covered by the
// adjustment periods, over 365.25, rounded half away from zero to two
// places.
//
// Days are UTC calendar days: the span is the days from admission's date
// up to, not including, at's date (admitted 2020-01-01, at 2021-01-01 is
// 366 days). Each period is clipped to that span and days covered by
// several periods count once; a period ending before it starts covers
// nothing. When at is on or before the admission date the result is 0.
// Without an admission date (nil or the zero time) the result is nil.
func PQY(admission *time.Time, at time.Time, adjustments []Period) *decimal.Decimal {
	if admission == nil || admission.IsZero() {
		return nil
	}
	from, to := dayNumber(*admission), dayNumber(at)
	days := int64(0)
	if to > from {
		days = to - from - coveredDays(from, to, adjustments)
	}
	// 365.25 = 36525 / 100.
	y := decimal.FromInt(days).QuoRound(decimal.New(36525, 2), PQYPlaces)
	return &y
}

// coveredDays counts the days of [from, to) covered by at least one
// period.
func coveredDays(from, to int64, periods []Period) int64 {
	type span struct{ start, end int64 } // half-open day range
	spans := make([]span, 0, len(periods))
	for _, p := range periods {
		s, e := max(dayNumber(p.Start), from), min(dayNumber(p.End)+1, to)
		if s < e {
			spans = append(spans, span{s, e})
		}
	}
	slices.SortFunc(spans, func(a, b span) int { return cmp.Compare(a.start, b.start) })
	var total int64
	cur := span{start: from, end: from}
	for _, s := range spans {
		if s.start > cur.end {
			total += cur.end - cur.start
			cur = s
		} else if s.end > cur.end {
			cur.end = s.end
		}
	}
	return total + cur.end - cur.start
}

// dayNumber is the number of the UTC calendar day of t (days since
// 1970-01-01).
func dayNumber(t time.Time) int64 {
	u := t.UTC()
	return time.Date(u.Year(), u.Month(), u.Day(), 0, 0, 0, 0, time.UTC).Unix() / 86400
}

// PQEAdjustment is a period that does not count towards a staff member's
// post-qualification experience (parental leave, a career break).
type PQEAdjustment struct {
	ID        int64
	StaffID   int64
	Name      string
	Details   string
	StartDate time.Time
	EndDate   time.Time // inclusive: the last day of the period
}

// Normalize trims the name.
func (a *PQEAdjustment) Normalize() { a.Name = strings.TrimSpace(a.Name) }

// Validate checks the adjustment. It returns nil or an EINVALID
// *domain.Error whose Fields are keyed by the JSON field names (staffId,
// name, startDate, endDate). A zero time counts as a missing date.
func (a *PQEAdjustment) Validate() error {
	f := domain.FieldErrors{}
	if a.StaffID <= 0 {
		f.Add("staffId", "staffId is required")
	}
	if strings.TrimSpace(a.Name) == "" {
		f.Add("name", "name is required")
	}
	if a.StartDate.IsZero() {
		f.Add("startDate", "startDate is required")
	}
	if a.EndDate.IsZero() {
		f.Add("endDate", "endDate is required")
	}
	if !a.StartDate.IsZero() && !a.EndDate.IsZero() && a.EndDate.Before(a.StartDate) {
		f.Add("endDate", "endDate must not be before startDate")
	}
	return f.Err()
}

// Period returns the days the adjustment covers.
func (a *PQEAdjustment) Period() Period { return Period{Start: a.StartDate, End: a.EndDate} }

// Periods returns the periods of adjustments, for PQY and Compute.
func Periods(adjustments []PQEAdjustment) []Period {
	ps := make([]Period, len(adjustments))
	for i := range adjustments {
		ps[i] = adjustments[i].Period()
	}
	return ps
}
