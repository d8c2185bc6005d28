package postgres

import (
	"context"
	"fmt"
	"time"

	"counsel/domain"
	"counsel/domain/decimal"
	"counsel/domain/remuneration"
	"counsel/domain/user"
	"counsel/ports"
)

// RemunerationStore implements ports.RemunerationStore.
type RemunerationStore struct{ db *DB }

var _ ports.RemunerationStore = (*RemunerationStore)(nil)

// NewRemunerationStore returns the remuneration store of db.
func NewRemunerationStore(db *DB) *RemunerationStore { return &RemunerationStore{db: db} }

const remunerationCols = `r.id, r.staff_id, r.fte_load, r.remuneration_inc_super, r.billing_rate, r.billable_percentage,
	r.remuneration_date, r.commencement_date, r.termination_date,
	r.cost_per_hour, r.kpi, r.kpi_billable, r.kpi_invoiced, r.pqy, ` + userCols

const remunerationJoin = `remunerations r JOIN users u ON u.id = r.staff_id LEFT JOIN offices o ON o.id = u.office_id`

func scanRemuneration(row interface{ Scan(...any) error }) (user.StaffRemuneration, error) {
	var sr user.StaffRemuneration
	r := &sr.Remuneration
	var fte, inc, rate, pct, cost, kpi, kpiB, kpiI int64
	var pqy *int64
	dest, finish := userDest(&sr.Staff)
	err := row.Scan(append([]any{&r.ID, &r.StaffID, &fte, &inc, &rate, &pct, &r.RemunerationDate, &r.CommencementDate, &r.TerminationDate,
		&cost, &kpi, &kpiB, &kpiI, &pqy}, dest...)...)
	if noRows(err) {
		return sr, notFound("remuneration")
	} else if err != nil {
		return sr, err
	}
	finish()
	money := func(v int64) decimal.Decimal { return decimal.FromScaled(v, centPlaces) }
	r.FTELoad, r.RemunerationIncSuper, r.BillingRate = decimal.FromScaled(fte, ftePlaces), money(inc), money(rate)
	r.BillablePercentage = decimal.FromScaled(pct, percentPlaces)
	r.RemunerationDate, r.CommencementDate, r.TerminationDate = utc(r.RemunerationDate), utc(r.CommencementDate), utcp(r.TerminationDate)
	r.CostPerHour, r.KPI, r.KPIBillable, r.KPIInvoiced = money(cost), money(kpi), money(kpiB), money(kpiI)
	if pqy != nil {
		v := decimal.FromScaled(*pqy, pqyPlaces)
		r.PQY = &v
	}
	return sr, nil
}

func staffNotFound() error { return notFound("staff member") }

func staffExists(ctx context.Context, x q, staffID int64) error {
	err := userExists(ctx, x, staffID)
	if domain.ErrorCode(err) == domain.ENOTFOUND {
		return staffNotFound()
	}
	return err
}

// staffAdmission returns an undeleted staff member's admission date and
// PQE adjustment periods, locking the staff member's row so that two
// remunerations created at once see each other's effect on the rate.
func staffAdmission(ctx context.Context, x q, staffID int64) (*time.Time, []remuneration.Period, error) {
	var admission *time.Time
	var starts, ends []time.Time
	err := x.row(ctx, `SELECT u.admission_date,
		coalesce((SELECT array_agg(start_date ORDER BY id) FROM pqe_adjustments WHERE staff_id = u.id), '{}'),
		coalesce((SELECT array_agg(end_date ORDER BY id) FROM pqe_adjustments WHERE staff_id = u.id), '{}')
		FROM users u WHERE u.id = ? AND u.deleted_at IS NULL FOR UPDATE`, staffID).Scan(&admission, &starts, &ends)
	if noRows(err) {
		return nil, nil, staffNotFound()
	} else if err != nil {
		return nil, nil, err
	}
	return utcp(admission), periods(starts, ends), nil
}

// CreateRemuneration implements ports.RemunerationStore.
func (s *RemunerationStore) CreateRemuneration(ctx context.Context, in remuneration.Remuneration,
	compute func(remuneration.Remuneration, *time.Time, []remuneration.Period) remuneration.Remuneration) (user.StaffRemuneration, error) {
	var out user.StaffRemuneration
	err := s.db.profileTx(ctx, func(x q) error {
		admission, periods, err := staffAdmission(ctx, x, in.StaffID)
		if err != nil {
			return err
		}
		r := compute(in, admission, periods)
		vals := []struct {
			field  string
			v      decimal.Decimal
			places int32
		}{
			{"fteLoad", r.FTELoad, ftePlaces}, {"remunerationIncSuper", r.RemunerationIncSuper, centPlaces},
			{"billingRate", r.BillingRate, centPlaces}, {"billablePercentage", r.BillablePercentage, percentPlaces},
			{"costPerHour", r.CostPerHour, centPlaces}, {"kpi", r.KPI, centPlaces},
			{"kpiBillable", r.KPIBillable, centPlaces}, {"kpiInvoiced", r.KPIInvoiced, centPlaces},
		}
		args := []any{r.StaffID}
		for _, v := range vals {
			n, err := scaled(v.field, v.v, v.places)
			if err != nil {
				return err
			}
			args = append(args, n)
		}
		billingRate := args[3]
		var pqy any
		if r.PQY != nil {
			if pqy, err = scaled("pqy", *r.PQY, pqyPlaces); err != nil {
				return err
			}
		}
		now := s.db.Now()
		args = append(args, pqy, r.RemunerationDate, r.CommencementDate, nullTime(r.TerminationDate), now)
		var id int64
		if err := x.row(ctx, `INSERT INTO remunerations (staff_id, fte_load, remuneration_inc_super, billing_rate,
			billable_percentage, cost_per_hour, kpi, kpi_billable, kpi_invoiced, pqy,
			remuneration_date, commencement_date, termination_date, created_at)
			VALUES (`+placeholders(len(args))+`) RETURNING id`, args...).Scan(&id); err != nil {
			return err
		}
		if _, err := x.exec(ctx, `UPDATE users SET billing_rate = ?, updated_at = ?
			WHERE id = ? AND NOT EXISTS (SELECT 1 FROM remunerations WHERE staff_id = ? AND remuneration_date > ?)`,
			billingRate, now, r.StaffID, r.StaffID, r.RemunerationDate); err != nil {
			return err
		}
		out, err = scanRemuneration(x.row(ctx, `SELECT `+remunerationCols+` FROM `+remunerationJoin+` WHERE r.id = ?`, id))
		return err
	})
	return out, err
}

// Remuneration implements ports.RemunerationStore.
func (s *RemunerationStore) Remuneration(ctx context.Context, id int64) (user.StaffRemuneration, error) {
	return scanRemuneration(s.db.read().row(ctx, `SELECT `+remunerationCols+` FROM `+remunerationJoin+` WHERE r.id = ?`, id))
}

// LatestRemuneration implements ports.RemunerationStore.
func (s *RemunerationStore) LatestRemuneration(ctx context.Context, staffID int64) (user.StaffRemuneration, error) {
	var out user.StaffRemuneration
	err := s.db.readTx(ctx, func(x q) error {
		if err := staffExists(ctx, x, staffID); err != nil {
			return err
		}
		var err error
		out, err = scanRemuneration(x.row(ctx, `SELECT `+remunerationCols+` FROM `+remunerationJoin+`
			WHERE r.staff_id = ? ORDER BY r.remuneration_date DESC, r.id DESC LIMIT 1`, staffID))
		if domain.ErrorCode(err) == domain.ENOTFOUND {
			return &domain.Error{Code: domain.ENOTFOUND, Message: "the staff member has no remuneration"}
		}
		return err
	})
	return out, err
}

// Remunerations implements ports.RemunerationStore.
func (s *RemunerationStore) Remunerations(ctx context.Context, f user.Filter) ([]user.StaffRemuneration, int64, error) {
	where, args := userWhere(f)
	var count int64
	out := []user.StaffRemuneration{}
	err := s.db.readTx(ctx, func(x q) error {
		if err := x.row(ctx, `SELECT count(*) FROM remunerations r JOIN users u ON u.id = r.staff_id WHERE `+where, args...).Scan(&count); err != nil {
			return err
		}
		if count <= f.Offset || f.Limit == 0 {
			return nil
		}
		rows, err := x.query(ctx, `SELECT `+remunerationCols+` FROM `+remunerationJoin+` WHERE `+where+`
			ORDER BY r.remuneration_date DESC, r.id DESC LIMIT ? OFFSET ?`, append(args, f.Limit, f.Offset)...)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			r, err := scanRemuneration(rows)
			if err != nil {
				return err
			}
			out = append(out, r)
		}
		return rows.Err()
	})
	if err != nil {
		return nil, 0, fmt.Errorf("list remunerations: %w", err)
	}
	return out, count, nil
}

const adjustmentCols = `a.id, a.staff_id, a.name, a.details, a.start_date, a.end_date, ` + userCols

const adjustmentJoin = `pqe_adjustments a JOIN users u ON u.id = a.staff_id LEFT JOIN offices o ON o.id = u.office_id`

func scanAdjustment(row interface{ Scan(...any) error }) (user.StaffAdjustment, error) {
	var sa user.StaffAdjustment
	a := &sa.PQEAdjustment
	dest, finish := userDest(&sa.Staff)
	err := row.Scan(append([]any{&a.ID, &a.StaffID, &a.Name, &a.Details, &a.StartDate, &a.EndDate}, dest...)...)
	if noRows(err) {
		return sa, notFound("PQE adjustment")
	} else if err != nil {
		return sa, err
	}
	finish()
	a.StartDate, a.EndDate = utc(a.StartDate), utc(a.EndDate)
	return sa, nil
}

// CreatePQEAdjustment implements ports.RemunerationStore.
func (s *RemunerationStore) CreatePQEAdjustment(ctx context.Context, a remuneration.PQEAdjustment) (user.StaffAdjustment, error) {
	var out user.StaffAdjustment
	err := s.db.profileTx(ctx, func(x q) error {
		if err := staffExists(ctx, x, a.StaffID); err != nil {
			return err
		}
		var id int64
		if err := x.row(ctx, `INSERT INTO pqe_adjustments (staff_id, name, details, start_date, end_date, created_at)
			VALUES (?, ?, ?, ?, ?, ?) RETURNING id`, a.StaffID, a.Name, a.Details, a.StartDate, a.EndDate, s.db.Now()).Scan(&id); err != nil {
			return err
		}
		var err error
		out, err = scanAdjustment(x.row(ctx, `SELECT `+adjustmentCols+` FROM `+adjustmentJoin+` WHERE a.id = ?`, id))
		return err
	})
	return out, err
}

// PQEAdjustments implements ports.RemunerationStore.
func (s *RemunerationStore) PQEAdjustments(ctx context.Context, staffID, limit, offset int64) ([]user.StaffAdjustment, int64, error) {
	var count int64
	out := []user.StaffAdjustment{}
	err := s.db.readTx(ctx, func(x q) error {
		if err := staffExists(ctx, x, staffID); err != nil {
			return err
		}
		if err := x.row(ctx, `SELECT count(*) FROM pqe_adjustments WHERE staff_id = ?`, staffID).Scan(&count); err != nil {
			return err
		}
		if count <= offset || limit == 0 {
			return nil
		}
		rows, err := x.query(ctx, `SELECT `+adjustmentCols+` FROM `+adjustmentJoin+`
			WHERE a.staff_id = ? ORDER BY a.start_date DESC, a.id DESC LIMIT ? OFFSET ?`, staffID, limit, offset)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			a, err := scanAdjustment(rows)
			if err != nil {
				return err
			}
			out = append(out, a)
		}
		return rows.Err()
	})
	if err != nil {
		return nil, 0, err
	}
	return out, count, nil
}
