package sqlrow

import (
	"database/sql"
	"time"

	"counsel/domain"
	"counsel/domain/decimal"
	"counsel/domain/remuneration"
	"counsel/domain/user"
)

// RemunerationCols are read by ScanRemuneration, followed by UserCols of
// the staff member, from RemunerationJoin.
const RemunerationCols = `r.id, r.staff_id, r.fte_load, r.remuneration_inc_super, r.billing_rate, r.billable_percentage,
	r.remuneration_date, r.commencement_date, r.termination_date,
	r.cost_per_hour, r.kpi, r.kpi_billable, r.kpi_invoiced, r.pqy, ` + UserCols

// RemunerationJoin is the FROM clause of RemunerationCols.
const RemunerationJoin = `remunerations r JOIN users u ON u.id = r.staff_id LEFT JOIN offices o ON o.id = u.office_id`

// ScanRemuneration reads RemunerationCols; ENOTFOUND ("remuneration")
// for no row.
func ScanRemuneration(tc Times, row Scanner) (user.StaffRemuneration, error) {
	var sr user.StaffRemuneration
	r := &sr.Remuneration
	var fte, inc, rate, pct, cost, kpi, kpiB, kpiI int64
	var pqy sql.NullInt64
	dest, finish := UserDest(tc, &sr.Staff)
	err := row.Scan(append([]any{&r.ID, &r.StaffID, &fte, &inc, &rate, &pct,
		Time(tc, &r.RemunerationDate), Time(tc, &r.CommencementDate), NullTime(tc, &r.TerminationDate),
		&cost, &kpi, &kpiB, &kpiI, &pqy}, dest...)...)
	if err != nil {
		return sr, IfNoRows(err, "remuneration")
	}
	finish()
	r.FTELoad, r.RemunerationIncSuper, r.BillingRate = decimal.FromScaled(fte, FTEPlaces), Money(inc), Money(rate)
	r.BillablePercentage = decimal.FromScaled(pct, PercentPlaces)
	r.CostPerHour, r.KPI, r.KPIBillable, r.KPIInvoiced = Money(cost), Money(kpi), Money(kpiB), Money(kpiI)
	if pqy.Valid {
		v := decimal.FromScaled(pqy.Int64, PQYPlaces)
		r.PQY = &v
	}
	return sr, nil
}

// InsertRemunerationSQL inserts RemunerationArgs (an engine may append
// a RETURNING clause).
const InsertRemunerationSQL = `INSERT INTO remunerations (staff_id, fte_load, remuneration_inc_super, billing_rate,
	billable_percentage, cost_per_hour, kpi, kpi_billable, kpi_invoiced, pqy,
	remuneration_date, commencement_date, termination_date, created_at)
	VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`

// RemunerationArgs are the values of InsertRemunerationSQL for r created
// at now, and the stored billing rate, which the staff member takes when r
// is the latest (LatestRateSQL).
func RemunerationArgs(tc Times, r remuneration.Remuneration, now time.Time) (args []any, billingRate int64, err error) {
	vals := []struct {
		field  string
		v      decimal.Decimal
		places int32
	}{
		{"fteLoad", r.FTELoad, FTEPlaces}, {"remunerationIncSuper", r.RemunerationIncSuper, CentPlaces},
		{"billingRate", r.BillingRate, CentPlaces}, {"billablePercentage", r.BillablePercentage, PercentPlaces},
		{"costPerHour", r.CostPerHour, CentPlaces}, {"kpi", r.KPI, CentPlaces},
		{"kpiBillable", r.KPIBillable, CentPlaces}, {"kpiInvoiced", r.KPIInvoiced, CentPlaces},
	}
	args = []any{r.StaffID}
	for _, v := range vals {
		n, err := Scaled(v.field, v.v, v.places)
		if err != nil {
			return nil, 0, err
		}
		args = append(args, n)
	}
	billingRate = args[3].(int64)
	var pqy any
	if r.PQY != nil {
		if pqy, err = Scaled("pqy", *r.PQY, PQYPlaces); err != nil {
			return nil, 0, err
		}
	}
	args = append(args, pqy, tc.Arg(r.RemunerationDate), tc.Arg(r.CommencementDate), NullArg(tc, r.TerminationDate), tc.Arg(now))
	return args, billingRate, nil
}

// LatestRateSQL gives the staff member the billing rate of a new
// remuneration (billing rate, now, staff id twice, its date). The new
// record has the greatest id, so it is the latest unless another has a
// later remunerationDate.
const LatestRateSQL = `UPDATE users SET billing_rate = ?, updated_at = ?
	WHERE id = ? AND NOT EXISTS (SELECT 1 FROM remunerations WHERE staff_id = ? AND remuneration_date > ?)`

// RemunerationByIDSQL reads one remuneration.
const RemunerationByIDSQL = `SELECT ` + RemunerationCols + ` FROM ` + RemunerationJoin + ` WHERE r.id = ?`

// LatestRemunerationSQL reads a staff member's latest remuneration.
const LatestRemunerationSQL = `SELECT ` + RemunerationCols + ` FROM ` + RemunerationJoin + `
	WHERE r.staff_id = ? ORDER BY r.remuneration_date DESC, r.id DESC LIMIT 1`

// CountRemunerationsSQL counts the remunerations of the users a
// UserWhere condition (appended) selects.
const CountRemunerationsSQL = `SELECT count(*) FROM remunerations r JOIN users u ON u.id = r.staff_id WHERE `

// RemunerationsPage returns the statement of a page of remunerations of
// the users where selects (arguments: where's, limit, offset).
func RemunerationsPage(where string) string {
	return `SELECT ` + RemunerationCols + ` FROM ` + RemunerationJoin + ` WHERE ` + where + `
		ORDER BY r.remuneration_date DESC, r.id DESC LIMIT ? OFFSET ?`
}

// AdjustmentCols are read by ScanAdjustment, from AdjustmentJoin.
const AdjustmentCols = `a.id, a.staff_id, a.name, a.details, a.start_date, a.end_date, ` + UserCols

// AdjustmentJoin is the FROM clause of AdjustmentCols.
const AdjustmentJoin = `pqe_adjustments a JOIN users u ON u.id = a.staff_id LEFT JOIN offices o ON o.id = u.office_id`

// ScanAdjustment reads AdjustmentCols; ENOTFOUND ("PQE adjustment") for
// no row.
func ScanAdjustment(tc Times, row Scanner) (user.StaffAdjustment, error) {
	var sa user.StaffAdjustment
	a := &sa.PQEAdjustment
	dest, finish := UserDest(tc, &sa.Staff)
	err := row.Scan(append([]any{&a.ID, &a.StaffID, &a.Name, &a.Details, Time(tc, &a.StartDate), Time(tc, &a.EndDate)}, dest...)...)
	if err != nil {
		return sa, IfNoRows(err, "PQE adjustment")
	}
	finish()
	return sa, nil
}

// InsertAdjustmentSQL inserts AdjustmentArgs (an engine may append a
// RETURNING clause).
const InsertAdjustmentSQL = `INSERT INTO pqe_adjustments (staff_id, name, details, start_date, end_date, created_at)
	VALUES (?, ?, ?, ?, ?, ?)`

// AdjustmentArgs are the values of InsertAdjustmentSQL for a created at
// now.
func AdjustmentArgs(tc Times, a remuneration.PQEAdjustment, now time.Time) []any {
	return []any{a.StaffID, a.Name, a.Details, tc.Arg(a.StartDate), tc.Arg(a.EndDate), tc.Arg(now)}
}

// AdjustmentByIDSQL reads one PQE adjustment.
const AdjustmentByIDSQL = `SELECT ` + AdjustmentCols + ` FROM ` + AdjustmentJoin + ` WHERE a.id = ?`

// AdjustmentsPageSQL reads a page of a staff member's PQE adjustments
// (staff id, limit, offset), latest first.
const AdjustmentsPageSQL = `SELECT ` + AdjustmentCols + ` FROM ` + AdjustmentJoin + `
	WHERE a.staff_id = ? ORDER BY a.start_date DESC, a.id DESC LIMIT ? OFFSET ?`

// AsStaff turns a user's ENOTFOUND into the staff member's.
func AsStaff(err error) error {
	if domain.ErrorCode(err) == domain.ENOTFOUND {
		return NotFound("staff member")
	}
	return err
}

// NoRemuneration turns a remuneration's ENOTFOUND into the answer for a
// staff member who has none.
func NoRemuneration(err error) error {
	if domain.ErrorCode(err) == domain.ENOTFOUND {
		return &domain.Error{Code: domain.ENOTFOUND, Message: "the staff member has no remuneration"}
	}
	return err
}
