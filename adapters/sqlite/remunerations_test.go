package sqlite_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/matryer/is"

	"counsel/domain"
	"counsel/domain/decimal"
	"counsel/domain/remuneration"
	"counsel/domain/user"
)

var dec = decimal.MustParse

func day(s string) time.Time {
	t, err := time.Parse(time.DateOnly, s)
	if err != nil {
		panic(err)
	}
	return t
}

func rem(staffID int64, date, rate string) remuneration.Remuneration {
	return remuneration.Remuneration{StaffID: staffID, FTELoad: dec("0.75"), RemunerationIncSuper: dec("123456.78"),
		BillingRate: dec(rate), BillablePercentage: dec("85.5"), RemunerationDate: day(date), CommencementDate: day("2020-01-01")}
}

func TestRemunerationStore(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	db := open(t)
	us := db.Stores().Users
	s := db.Stores().Remunerations
	office, _ := us.CreateOffice(ctx, user.Office{Name: "Sydney", Active: true})
	jane, err := us.CreateUser(ctx, newUser("Jane", "Doe", "jane@example.com", func(u *user.User) {
		u.AdmissionDate, u.OfficeID = ptr(day("2010-01-01")), office.ID
	}), "", nil)
	is.NoErr(err) // staff member
	bob, err := us.CreateUser(ctx, newUser("Bob", "Roe", "bob@example.com"), "", nil)
	is.NoErr(err) // another, without an admission date

	_, err = s.CreatePQEAdjustment(ctx, remuneration.PQEAdjustment{StaffID: jane.ID, Name: "Leave", StartDate: day("2012-01-01"), EndDate: day("2012-12-31")})
	is.NoErr(err) // an adjustment before the remuneration
	var gotAdmission *time.Time
	var gotPeriods []remuneration.Period
	compute := func(r remuneration.Remuneration, adm *time.Time, ps []remuneration.Period) remuneration.Remuneration {
		gotAdmission, gotPeriods = adm, ps
		return remuneration.Compute(r, adm, ps)
	}
	term := day("2027-06-30")
	in := rem(jane.ID, "2026-01-01", "450.00")
	in.TerminationDate = &term
	r1, err := s.CreateRemuneration(ctx, in, compute)
	is.NoErr(err)                                                 // create
	is.True(gotAdmission.Equal(day("2010-01-01")))                // compute sees the admission date
	is.Equal(len(gotPeriods), 1)                                  // and the adjustments
	is.True(r1.ID > 0)                                            // new id
	is.Equal(r1.FTELoad.String(), "0.75")                         // fte exact
	is.Equal(r1.RemunerationIncSuper.StringFixed(2), "123456.78") // money exact
	is.Equal(r1.BillablePercentage.String(), "85.5")              // percentage exact
	is.Equal(r1.CostPerHour.StringFixed(2), "83.30")              // computed
	is.Equal(r1.KPI.StringFixed(2), "370370.34")                  // computed
	is.Equal(r1.KPIBillable.StringFixed(2), "324074.05")          // computed
	is.Equal(r1.KPIInvoiced.StringFixed(2), "277777.76")          // computed
	is.Equal(r1.PQY.StringFixed(2), "15.00")                      // 16 years less one
	is.True(r1.TerminationDate.Equal(term))                       // termination date
	is.Equal(r1.Staff.FullName(), "Jane Doe")                     // staff joined
	is.Equal(r1.Staff.Office.Name, "Sydney")                      // with office
	p, _ := us.Profile(ctx, jane.ID, false)
	is.Equal(p.BillingRate.StringFixed(2), "450.00") // the latest sets the billing rate
	is.Equal(p.Latest.ID, r1.ID)                     // and is the profile's latest

	older, err := s.CreateRemuneration(ctx, rem(jane.ID, "2025-01-01", "300.00"), remuneration.Compute)
	is.NoErr(err) // an older record, created later
	p, _ = us.Profile(ctx, jane.ID, false)
	is.Equal(p.BillingRate.StringFixed(2), "450.00") // not the latest: billing rate kept
	latest, err := s.LatestRemuneration(ctx, jane.ID)
	is.NoErr(err)              // latest
	is.Equal(latest.ID, r1.ID) // by remunerationDate, not id
	same, err := s.CreateRemuneration(ctx, rem(jane.ID, "2026-01-01", "475.00"), remuneration.Compute)
	is.NoErr(err) // same date, greater id
	latest, _ = s.LatestRemuneration(ctx, jane.ID)
	is.Equal(latest.ID, same.ID) // ties go to the greater id
	p, _ = us.Profile(ctx, jane.ID, false)
	is.Equal(p.BillingRate.StringFixed(2), "475.00") // and set the billing rate
	b1, err := s.CreateRemuneration(ctx, rem(bob.ID, "2025-06-01", "200"), remuneration.Compute)
	is.NoErr(err)          // bob's
	is.True(b1.PQY == nil) // no admission date: no PQY

	got, err := s.Remuneration(ctx, older.ID)
	is.NoErr(err)                                  // by id
	is.Equal(got.Remuneration, older.Remuneration) // as created
	_, err = s.Remuneration(ctx, 999)
	is.Equal(code(err), domain.ENOTFOUND) // unknown
	_, err = s.CreateRemuneration(ctx, rem(999, "2026-01-01", "1"), remuneration.Compute)
	is.Equal(code(err), domain.ENOTFOUND) // unknown staff member
	_, err = s.LatestRemuneration(ctx, 999)
	is.Equal(code(err), domain.ENOTFOUND) // unknown staff member
	_, err = s.LatestRemuneration(ctx, 1)
	is.Equal(code(err), domain.ENOTFOUND) // no remuneration

	ids := func(rs []user.StaffRemuneration) []int64 {
		out := []int64{}
		for _, r := range rs {
			out = append(out, r.ID)
		}
		return out
	}
	all, count, err := s.Remunerations(ctx, user.Filter{Limit: 100})
	is.NoErr(err)                                                // list
	is.Equal(count, int64(4))                                    // all
	is.Equal(ids(all), []int64{same.ID, r1.ID, b1.ID, older.ID}) // newest first, then id descending
	page, count, err := s.Remunerations(ctx, user.Filter{Limit: 2, Offset: 3})
	is.NoErr(err)                          // last page
	is.Equal(ids(page), []int64{older.ID}) // one left
	is.Equal(count, int64(4))              // count unchanged
	bobs, count, err := s.Remunerations(ctx, user.Filter{Limit: 100, Search: "ROE"})
	is.NoErr(err)                       // filtered by the staff member
	is.Equal(ids(bobs), []int64{b1.ID}) // bob's only
	is.Equal(count, int64(1))           // counted alike

	is.NoErr(us.DeleteUser(ctx, bob.ID, day("2026-02-01"), nil)) // delete bob
	got, err = s.Remuneration(ctx, b1.ID)
	is.NoErr(err)                  // the record stays
	is.Equal(got.Staff.ID, bob.ID) // with its staff member
	_, err = s.LatestRemuneration(ctx, bob.ID)
	is.Equal(code(err), domain.ENOTFOUND) // a deleted staff member is unknown
	_, count, _ = s.Remunerations(ctx, user.Filter{Limit: 100})
	is.Equal(count, int64(3)) // and left out of the list
}

func TestPQEAdjustmentStore(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	db := open(t)
	us := db.Stores().Users
	s := db.Stores().Remunerations
	jane, _ := us.CreateUser(ctx, newUser("Jane", "Doe", "jane@example.com"), "", nil)
	var ids []int64
	for i, start := range []string{"2020-01-01", "2022-01-01", "2021-01-01", "2022-01-01"} {
		a, err := s.CreatePQEAdjustment(ctx, remuneration.PQEAdjustment{StaffID: jane.ID, Name: fmt.Sprintf("A%d", i),
			Details: "details", StartDate: day(start), EndDate: day(start).AddDate(0, 3, 0)})
		is.NoErr(err)                               // create
		is.Equal(a.Staff.Email, "jane@example.com") // with staff
		ids = append(ids, a.ID)
	}
	list, count, err := s.PQEAdjustments(ctx, jane.ID, 3, 0)
	is.NoErr(err)             // list
	is.Equal(count, int64(4)) // all counted
	got := []int64{}
	for _, a := range list {
		got = append(got, a.ID)
	}
	is.Equal(got, []int64{ids[3], ids[1], ids[2]})    // newest start first, then id descending
	is.Equal(list[0].Details, "details")              // fields kept
	is.True(list[0].EndDate.Equal(day("2022-04-01"))) // end date kept
	rest, _, err := s.PQEAdjustments(ctx, jane.ID, 3, 3)
	is.NoErr(err)                // second page
	is.Equal(rest[0].ID, ids[0]) // the oldest
	none, count, err := s.PQEAdjustments(ctx, jane.ID, 3, 10)
	is.NoErr(err)                         // past the end
	is.True(len(none) == 0 && count == 4) // empty page, full count
	p, _ := us.Profile(ctx, jane.ID, false)
	is.Equal(len(p.Adjustments), 4) // the profile's periods
	_, _, err = s.PQEAdjustments(ctx, 999, 10, 0)
	is.Equal(code(err), domain.ENOTFOUND) // unknown staff member
	_, err = s.CreatePQEAdjustment(ctx, remuneration.PQEAdjustment{StaffID: 999, Name: "x", StartDate: day("2020-01-01"), EndDate: day("2020-01-01")})
	is.Equal(code(err), domain.ENOTFOUND) // unknown staff member
}
