package remuneration

import (
	"errors"
	"testing"
	"time"

	"github.com/matryer/is"

	"counsel/domain"
	"counsel/domain/decimal"
)

var dec = decimal.MustParse

func day(s string) time.Time {
	t, err := time.Parse(time.DateOnly, s)
	if err != nil {
		panic(err)
	}
	return t
}

func ptr[T any](v T) *T { return &v }

func fieldErrors(t *testing.T, err error) map[string][]string {
	t.Helper()
	var e *domain.Error
	if !errors.As(err, &e) || e.Code != domain.EINVALID {
		t.Fatalf("want an EINVALID *domain.Error, got %v", err)
	}
	return e.Fields
}

func TestCompute(t *testing.T) {
	t.Parallel()
	tests := []struct {
		fte, inc                            string
		cost, kpi, kpiBillable, kpiInvoiced string
	}{
		{"1", "150000.00", "75.91", "600000.00", "525000.00", "450000.00"},
		{"0.5", "150000.00", "151.82", "300000.00", "262500.00", "225000.00"},
		{"0.3333", "98765.43", "149.96", "131674.07", "115214.81", "98755.55"},
		{"0.75", "123456.78", "83.30", "370370.34", "324074.05", "277777.76"},
		// 3.5 × 0.01 = 0.035: half a cent rounds away from zero.
		{"1", "0.01", "0.00", "0.04", "0.04", "0.03"},
		{"0.0001", "1", "5.06", "0.00", "0.00", "0.00"},
		{"1", "0", "0.00", "0.00", "0.00", "0.00"},
	}
	for _, tt := range tests {
		t.Run(tt.fte+"×"+tt.inc, func(t *testing.T) {
			is := is.New(t)
			r := Compute(Remuneration{FTELoad: dec(tt.fte), RemunerationIncSuper: dec(tt.inc), RemunerationDate: day("2026-01-01")}, nil, nil)
			is.Equal(r.CostPerHour.StringFixed(2), tt.cost)        // costPerHour
			is.Equal(r.KPI.StringFixed(2), tt.kpi)                 // kpi
			is.Equal(r.KPIBillable.StringFixed(2), tt.kpiBillable) // kpiBillable
			is.Equal(r.KPIInvoiced.StringFixed(2), tt.kpiInvoiced) // kpiInvoiced
			for _, v := range []decimal.Decimal{r.CostPerHour, r.KPI, r.KPIBillable, r.KPIInvoiced} {
				is.Equal(v.Places(), int32(2)) // carried to cents, ready for Scaled(2)
			}
			is.True(r.PQY == nil) // no admission date
		})
	}
}

func TestComputeKeepsInputsAndFillsPQY(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	in := Remuneration{ID: 7, StaffID: 3, FTELoad: dec("1"), RemunerationIncSuper: dec("150000.00"),
		BillingRate: dec("400"), BillablePercentage: dec("80"), RemunerationDate: day("2021-01-01"), CommencementDate: day("2020-01-01")}
	r := Compute(in, ptr(day("2020-01-01")), nil)
	is.Equal(r.ID, int64(7))                  // id kept
	is.Equal(r.BillingRate.String(), "400")   // inputs kept
	is.True(r.PQY != nil)                     // admission known
	is.Equal(r.PQY.StringFixed(2), "1.00")    // 366 days
	is.True(in.PQY == nil && in.KPI.IsZero()) // the argument is a copy
}

func TestComputeZeroFTE(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	r := Compute(Remuneration{RemunerationIncSuper: dec("1000")}, nil, nil)
	is.True(r.CostPerHour.IsZero()) // no division by zero
}

func TestNormalize(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	r := Remuneration{FTELoad: dec("0.33335"), RemunerationIncSuper: dec("1000.005"), BillingRate: dec("-0.005"), BillablePercentage: dec("99.999")}
	r.Normalize()
	is.Equal(r.FTELoad.String(), "0.3334")                     // fteLoad to 4 places
	is.Equal(r.RemunerationIncSuper.StringFixed(2), "1000.01") // money to cents
	is.Equal(r.BillingRate.StringFixed(2), "-0.01")            // away from zero, then Validate refuses it
	is.Equal(r.BillablePercentage.StringFixed(2), "100.00")    // percentage to 2 places
}

func validRemuneration() Remuneration {
	return Remuneration{
		StaffID:              3,
		FTELoad:              dec("1"),
		RemunerationIncSuper: dec("150000.00"),
		BillingRate:          dec("450"),
		BillablePercentage:   dec("85"),
		RemunerationDate:     day("2026-01-01"),
		CommencementDate:     day("2025-07-01"),
	}
}

func TestValidateRemuneration(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		change func(r *Remuneration)
		field  string
		msg    string
	}{
		{"valid", func(r *Remuneration) {}, "", ""},
		{"fte at most 1", func(r *Remuneration) { r.FTELoad = dec("1.00") }, "", ""},
		{"small fte", func(r *Remuneration) { r.FTELoad = dec("0.0001") }, "", ""},
		{"zero rates", func(r *Remuneration) { r.BillingRate = dec("0"); r.RemunerationIncSuper = dec("0") }, "", ""},
		{"percentage bounds", func(r *Remuneration) { r.BillablePercentage = dec("100") }, "", ""},
		{"zero percentage", func(r *Remuneration) { r.BillablePercentage = decimal.Decimal{} }, "", ""},
		{"termination on commencement", func(r *Remuneration) { r.TerminationDate = ptr(r.CommencementDate) }, "", ""},
		{"no staff", func(r *Remuneration) { r.StaffID = 0 }, "staffId", "staffId is required"},
		{"zero fte", func(r *Remuneration) { r.FTELoad = dec("0") }, "fteLoad", "fteLoad must be greater than 0 and at most 1"},
		{"missing fte", func(r *Remuneration) { r.FTELoad = decimal.Decimal{} }, "fteLoad", "fteLoad must be greater than 0 and at most 1"},
		{"fte rounds to zero", func(r *Remuneration) { r.FTELoad = dec("0.00004") }, "fteLoad", "fteLoad must be greater than 0 and at most 1"},
		{"fte above 1", func(r *Remuneration) { r.FTELoad = dec("1.0001") }, "fteLoad", "fteLoad must be greater than 0 and at most 1"},
		{"negative fte", func(r *Remuneration) { r.FTELoad = dec("-0.5") }, "fteLoad", "fteLoad must be greater than 0 and at most 1"},
		{"percentage above 100", func(r *Remuneration) { r.BillablePercentage = dec("100.01") }, "billablePercentage", "billablePercentage must be between 0 and 100"},
		{"negative percentage", func(r *Remuneration) { r.BillablePercentage = dec("-1") }, "billablePercentage", "billablePercentage must be between 0 and 100"},
		{"negative rate", func(r *Remuneration) { r.BillingRate = dec("-0.01") }, "billingRate", "billingRate must not be negative"},
		{"huge rate", func(r *Remuneration) { r.BillingRate = dec("1e15") }, "billingRate", "billingRate must be less than 1000000000000000"},
		{"negative pay", func(r *Remuneration) { r.RemunerationIncSuper = dec("-1") }, "remunerationIncSuper", "remunerationIncSuper must not be negative"},
		{"huge pay", func(r *Remuneration) { r.RemunerationIncSuper = dec("1e20") }, "remunerationIncSuper", "remunerationIncSuper must be less than 1000000000000000"},
		{"no remuneration date", func(r *Remuneration) { r.RemunerationDate = time.Time{} }, "remunerationDate", "remunerationDate is required"},
		{"no commencement date", func(r *Remuneration) { r.CommencementDate = time.Time{} }, "commencementDate", "commencementDate is required"},
		{"termination before commencement", func(r *Remuneration) { r.TerminationDate = ptr(day("2025-06-30")) }, "terminationDate", "terminationDate must not be before commencementDate"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			r := validRemuneration()
			tt.change(&r)
			err := r.Validate()
			if tt.field == "" {
				is.NoErr(err) // valid
				return
			}
			f := fieldErrors(t, err)
			is.Equal(len(f), 1)                     // one field
			is.Equal(f[tt.field], []string{tt.msg}) // message
		})
	}
}

func TestValidateEmptyRemuneration(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	var r Remuneration
	f := fieldErrors(t, r.Validate())
	for _, field := range []string{"staffId", "fteLoad", "remunerationDate", "commencementDate"} {
		is.Equal(len(f[field]), 1) // each required field reported
	}
	is.Equal(len(f), 4) // nothing else
}

func TestPQY(t *testing.T) {
	t.Parallel()
	admitted := day("2020-01-01")
	tests := []struct {
		name        string
		admission   *time.Time
		at          time.Time
		adjustments []Period
		want        string // "" for nil
	}{
		{"no admission date", nil, day("2026-01-01"), nil, ""},
		{"zero admission date", ptr(time.Time{}), day("2026-01-01"), nil, ""},
		{"one leap year", &admitted, day("2021-01-01"), nil, "1.00"},
		{"ten years", ptr(day("2015-03-10")), day("2025-03-10"), nil, "10.00"},
		{"at admission", &admitted, admitted, nil, "0.00"},
		{"before admission", &admitted, day("2019-06-01"), nil, "0.00"},
		{"half a year rounds down", &admitted, admitted.AddDate(0, 0, 184), nil, "0.50"}, // 184 / 365.25 = 0.5038
		{"rounds up", &admitted, admitted.AddDate(0, 0, 185), nil, "0.51"},               // 185 / 365.25 = 0.5065
		{"one day", &admitted, admitted.AddDate(0, 0, 1), nil, "0.00"},                   // 0.0027
		{"two days", &admitted, admitted.AddDate(0, 0, 2), nil, "0.01"},                  // 0.0055
		{
			// 366 days less February 2020 (29 days, end day included).
			"one adjustment", &admitted, day("2021-01-01"),
			[]Period{{day("2020-02-01"), day("2020-02-29")}}, "0.92", // 337 / 365.25 = 0.9227
		},
		{
			// 2020-02-01..02-29 and 02-15..03-15 overlap: 44 days, not 58.
			"overlapping adjustments", &admitted, day("2021-01-01"),
			[]Period{{day("2020-02-01"), day("2020-02-29")}, {day("2020-02-15"), day("2020-03-15")}}, "0.88", // 322 / 365.25 = 0.8816
		},
		{
			"nested and repeated adjustments", &admitted, day("2021-01-01"),
			[]Period{{day("2020-02-15"), day("2020-03-15")}, {day("2020-02-01"), day("2020-03-31")}, {day("2020-02-01"), day("2020-03-31")}, {day("2020-03-01"), day("2020-03-01")}},
			"0.84", // 366 - 60 = 306 / 365.25 = 0.8378
		},
		{
			"adjacent adjustments", &admitted, day("2021-01-01"),
			[]Period{{day("2020-03-01"), day("2020-03-31")}, {day("2020-02-01"), day("2020-02-29")}}, "0.84", // 306 days
		},
		{
			"adjustments outside the span", &admitted, day("2021-01-01"),
			[]Period{{day("2019-01-01"), day("2019-12-31")}, {day("2021-01-01"), day("2021-06-30")}, {day("2030-01-01"), day("2030-01-02")}}, "1.00",
		},
		{
			// 2019-12-01..2020-01-10 counts 2020-01-01..01-10 (10 days);
			// 2020-12-25..2021-01-05 counts 2020-12-25..12-31 (7 days).
			"adjustments partly outside", &admitted, day("2021-01-01"),
			[]Period{{day("2019-12-01"), day("2020-01-10")}, {day("2020-12-25"), day("2021-01-05")}}, "0.96", // 349 / 365.25 = 0.9555
		},
		{
			"adjustment covering everything", &admitted, day("2021-01-01"),
			[]Period{{day("2010-01-01"), day("2030-01-01")}}, "0.00",
		},
		{
			"backwards period covers nothing", &admitted, day("2021-01-01"),
			[]Period{{day("2020-06-30"), day("2020-06-01")}}, "1.00",
		},
		{
			// Admitted 2020-01-01 09:30 in Sydney is 2019-12-31 UTC, so the
			// span to 2020-12-31 is 366 UTC days; times of day are ignored.
			"UTC calendar days", ptr(time.Date(2020, 1, 1, 9, 30, 0, 0, time.FixedZone("AEDT", 11*3600))),
			time.Date(2020, 12, 31, 23, 59, 0, 0, time.UTC), nil, "1.00",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			got := PQY(tt.admission, tt.at, tt.adjustments)
			if tt.want == "" {
				is.True(got == nil) // no admission date, no PQY
				return
			}
			is.True(got != nil)                   // PQY known
			is.Equal(got.StringFixed(2), tt.want) // years
			is.Equal(got.Places(), int32(2))      // two decimals
		})
	}
}

func TestPQEAdjustment(t *testing.T) {
	t.Parallel()
	valid := PQEAdjustment{StaffID: 3, Name: "Parental leave", StartDate: day("2020-02-01"), EndDate: day("2020-02-29")}
	tests := []struct {
		name   string
		change func(a *PQEAdjustment)
		fields map[string][]string
	}{
		{"valid", func(a *PQEAdjustment) {}, nil},
		{"one day", func(a *PQEAdjustment) { a.EndDate = a.StartDate }, nil},
		{"no staff", func(a *PQEAdjustment) { a.StaffID = 0 }, map[string][]string{"staffId": {"staffId is required"}}},
		{"no name", func(a *PQEAdjustment) { a.Name = "  " }, map[string][]string{"name": {"name is required"}}},
		{"no start", func(a *PQEAdjustment) { a.StartDate = time.Time{} }, map[string][]string{"startDate": {"startDate is required"}}},
		{"no end", func(a *PQEAdjustment) { a.EndDate = time.Time{} }, map[string][]string{"endDate": {"endDate is required"}}},
		{"end before start", func(a *PQEAdjustment) { a.EndDate = day("2020-01-31") }, map[string][]string{"endDate": {"endDate must not be before startDate"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			a := valid
			tt.change(&a)
			err := a.Validate()
			if tt.fields == nil {
				is.NoErr(err) // valid
				return
			}
			is.Equal(fieldErrors(t, err), tt.fields) // field messages
		})
	}
}

func TestPQEAdjustmentPeriods(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	a := PQEAdjustment{Name: "  Career break ", StartDate: day("2020-02-01"), EndDate: day("2020-02-29")}
	a.Normalize()
	is.Equal(a.Name, "Career break")                                               // trimmed
	is.Equal(a.Period(), Period{Start: day("2020-02-01"), End: day("2020-02-29")}) // period
	is.Equal(Periods([]PQEAdjustment{a, a}), []Period{a.Period(), a.Period()})     // periods
	is.Equal(len(Periods(nil)), 0)                                                 // none
}

func BenchmarkPQY(b *testing.B) {
	admitted := day("2000-01-01")
	var adj []Period
	for i := range 50 {
		s := admitted.AddDate(0, i*3, 0)
		adj = append(adj, Period{s, s.AddDate(0, 2, 0)})
	}
	for b.Loop() {
		_ = PQY(&admitted, day("2026-01-01"), adj)
	}
}
