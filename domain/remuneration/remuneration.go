// Package remuneration holds staff remunerations, the figures computed from
// them (cost per hour and the KPI targets), and post-qualification years
// (PQY) with the PQE adjustments that discount periods from them.
//
// All arithmetic is exact (package decimal); computed figures are rounded
// to cents half away from zero. Dates are counted as UTC calendar days.
package remuneration

import (
	"time"

	"counsel/domain"
	"counsel/domain/decimal"
)

// Figures of the remuneration rules (docs/decisions.md §4).
const (
	// HoursPerYear is a full-time year: a 38-hour week times 52.
	HoursPerYear = 1976
	// MoneyPlaces is the number of fraction digits of money: amounts are
	// kept and computed figures rounded to cents.
	MoneyPlaces = 2
	// FTEPlaces is the number of fraction digits an fteLoad keeps.
	FTEPlaces = 4
	// PercentPlaces is the number of fraction digits billablePercentage
	// keeps.
	PercentPlaces = 2
	// PQYPlaces is the number of fraction digits of post-qualification
	// years.
	PQYPlaces = 2
	// MaxMoneyDigits bounds money inputs below 10^15 so that the KPIs
	// (four times as much) still fit an int64 of cents.
	MaxMoneyDigits = 15
)

// Remuneration is one pay record of a staff member. The inputs are the
// first group of fields; CostPerHour, KPI, KPIBillable, KPIInvoiced and PQY
// are computed once, at creation, by Compute, and kept with the record.
type Remuneration struct {
	ID      int64
	StaffID int64

	// FTELoad is the fraction of full time worked: 0 < FTELoad <= 1.
	FTELoad              decimal.Decimal
	RemunerationIncSuper decimal.Decimal // yearly, including superannuation
	BillingRate          decimal.Decimal // per hour
	BillablePercentage   decimal.Decimal // 0..100

	RemunerationDate time.Time
	CommencementDate time.Time
	TerminationDate  *time.Time

	// Outputs.
	CostPerHour decimal.Decimal
	KPI         decimal.Decimal
	KPIBillable decimal.Decimal
	KPIInvoiced decimal.Decimal
	// PQY is the post-qualification years at RemunerationDate; nil when
	// the staff member has no admission date.
	PQY *decimal.Decimal
}

// Normalize rounds the inputs half away from zero to the places they are
// kept with: money to cents (MoneyPlaces), fteLoad to FTEPlaces and
// billablePercentage to PercentPlaces. More places are rounded, not
// refused, so a client's 0.33333 becomes 0.3333. Call it before Validate,
// which checks the rounded values.
func (r *Remuneration) Normalize() {
	r.FTELoad = r.FTELoad.Round(FTEPlaces)
	r.RemunerationIncSuper = r.RemunerationIncSuper.Round(MoneyPlaces)
	r.BillingRate = r.BillingRate.Round(MoneyPlaces)
	r.BillablePercentage = r.BillablePercentage.Round(PercentPlaces)
}

// Validate checks the inputs. It returns nil or an EINVALID *domain.Error
// whose Fields are keyed by the JSON field names (staffId, fteLoad,
// remunerationIncSuper, billingRate, billablePercentage, remunerationDate,
// commencementDate, terminationDate). Values are checked as Normalize
// would round them, so an fteLoad that rounds to 0 is refused. Whether the
// staff member exists is the caller's question (a 404, not a 400).
func (r *Remuneration) Validate() error {
	f := domain.FieldErrors{}
	if r.StaffID <= 0 {
		f.Add("staffId", "staffId is required")
	}
	fte := r.FTELoad.Round(FTEPlaces)
	if fte.Sign() <= 0 || fte.Cmp(decimal.FromInt(1)) > 0 {
		f.Add("fteLoad", "fteLoad must be greater than 0 and at most 1")
	}
	checkMoney(f, "remunerationIncSuper", r.RemunerationIncSuper)
	checkMoney(f, "billingRate", r.BillingRate)
	pct := r.BillablePercentage.Round(PercentPlaces)
	if pct.Sign() < 0 || pct.Cmp(decimal.FromInt(100)) > 0 {
		f.Add("billablePercentage", "billablePercentage must be between 0 and 100")
	}
	if r.RemunerationDate.IsZero() {
		f.Add("remunerationDate", "remunerationDate is required")
	}
	if r.CommencementDate.IsZero() {
		f.Add("commencementDate", "commencementDate is required")
	}
	if r.TerminationDate != nil && !r.CommencementDate.IsZero() && r.TerminationDate.Before(r.CommencementDate) {
		f.Add("terminationDate", "terminationDate must not be before commencementDate")
	}
	return f.Err()
}

// checkMoney records an error unless v, rounded to cents, is in
// [0, 10^MaxMoneyDigits).
func checkMoney(f domain.FieldErrors, field string, v decimal.Decimal) {
	v = v.Round(MoneyPlaces)
	if v.Sign() < 0 {
		f.Add(field, field+" must not be negative")
	} else if v.Cmp(decimal.New(1, -MaxMoneyDigits)) >= 0 {
		f.Add(field, field+" must be less than 1000000000000000")
	}
}

// Compute returns r with its outputs filled in from its inputs:
//
//	costPerHour = remunerationIncSuper / (fteLoad × 1976)
//	kpi         = 4   × fteLoad × remunerationIncSuper
//	kpiBillable = 3.5 × fteLoad × remunerationIncSuper
//	kpiInvoiced = 3   × fteLoad × remunerationIncSuper
//
// each rounded to cents half away from zero from the exact value, and PQY
// at r.RemunerationDate from the staff member's admission date (nil when
// unknown) and PQE adjustment periods. An fteLoad that is not positive
// (which Validate refuses) gives a costPerHour of 0 rather than a division
// by zero.
func Compute(r Remuneration, admission *time.Time, adjustments []Period) Remuneration {
	base := r.FTELoad.Mul(r.RemunerationIncSuper)
	r.KPI = base.Mul(decimal.FromInt(4)).Round(MoneyPlaces)
	r.KPIBillable = base.Mul(decimal.New(35, 1)).Round(MoneyPlaces)
	r.KPIInvoiced = base.Mul(decimal.FromInt(3)).Round(MoneyPlaces)
	if r.FTELoad.Sign() > 0 {
		r.CostPerHour = r.RemunerationIncSuper.QuoRound(r.FTELoad.Mul(decimal.FromInt(HoursPerYear)), MoneyPlaces)
	} else {
		r.CostPerHour = decimal.New(0, MoneyPlaces)
	}
	r.PQY = PQY(admission, r.RemunerationDate, adjustments)
	return r
}
