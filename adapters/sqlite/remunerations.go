package sqlite

import (
	"context"
	"database/sql"
	"errors"
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

// remunerationCols are read by scanRemuneration, followed by userCols of
// the staff member, from remunerationJoin.
const remunerationCols = `r.id, r.staff_id, r.fte_load, r.remuneration_inc_super, r.billing_rate, r.billable_percentage,
	r.remuneration_date, r.commencement_date, r.termination_date,
	r.cost_per_hour, r.kpi, r.kpi_billable, r.kpi_invoiced, r.pqy, ` + userCols

const remunerationJoin = `remunerations r JOIN users u ON u.id = r.staff_id LEFT JOIN offices o ON o.id = u.office_id`

func scanRemuneration(row rowScanner) (user.StaffRemuneration, error) {
	var sr user.StaffRemuneration
	r := &sr.Remuneration
	var fte, inc, rate, pct, remDate, comDate, cost, kpi, kpiB, kpiI int64
	var term, pqy sql.NullInt64
	dest, finish := userDest(&sr.Staff)
	err := row.Scan(append([]any{&r.ID, &r.StaffID, &fte, &inc, &rate, &pct, &remDate, &comDate, &term,
		&cost, &kpi, &kpiB, &kpiI, &pqy}, dest...)...)
	if errors.Is(err, sql.ErrNoRows) {
		return sr, notFound("remuneration")
	} else if err != nil {
		return sr, err
	}
	finish()
	money := func(v int64) decimal.Decimal { return decimal.FromScaled(v, centPlaces) }
	r.FTELoad, r.RemunerationIncSuper, r.BillingRate = decimal.FromScaled(fte, ftePlaces), money(inc), money(rate)
	r.BillablePercentage = decimal.FromScaled(pct, percentPlaces)
	r.RemunerationDate, r.CommencementDate, r.TerminationDate = fromMs(remDate), fromMs(comDate), fromNullMs(term)
	r.CostPerHour, r.KPI, r.KPIBillable, r.KPIInvoiced = money(cost), money(kpi), money(kpiB), money(kpiI)
	if pqy.Valid {
		v := decimal.FromScaled(pqy.Int64, pqyPlaces)
		r.PQY = &v
	}
	return sr, nil
}

func staffNotFound() error { return notFound("staff member") }

// staffExists is userExists with the staff member's not-found message.
func staffExists(ctx context.Context, q queryer, staffID int64) error {
	err := userExists(ctx, q, staffID)
	if domain.ErrorCode(err) == domain.ENOTFOUND {
		return staffNotFound()
	}
	return err
}

// staffAdmission returns an undeleted staff member's admission date and
// PQE adjustment periods. ENOTFOUND for an unknown or deleted one.
func staffAdmission(ctx context.Context, q queryer, staffID int64) (*time.Time, []remuneration.Period, error) {
	var admission sql.NullInt64
	var periods sql.NullString
	err := q.QueryRowContext(ctx, `SELECT u.admission_date,
		(SELECT group_concat(start_date || ',' || end_date, ';') FROM pqe_adjustments WHERE staff_id = u.id)
		FROM users u WHERE u.id = ? AND u.deleted_at IS NULL`, staffID).Scan(&admission, &periods)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil, staffNotFound()
	} else if err != nil {
		return nil, nil, err
	}
	ps, err := parsePeriods(periods.String)
	return fromNullMs(admission), ps, err
}

// CreateRemuneration implements ports.RemunerationStore.
func (s *RemunerationStore) CreateRemuneration(ctx context.Context, in remuneration.Remuneration,
	compute func(remuneration.Remuneration, *time.Time, []remuneration.Period) remuneration.Remuneration) (user.StaffRemuneration, error) {
	var out user.StaffRemuneration
	err := s.db.profileWriteTx(ctx, func(tx *sql.Tx) error {
		admission, periods, err := staffAdmission(ctx, tx, in.StaffID)
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
		args = append(args, pqy, ms(r.RemunerationDate), ms(r.CommencementDate), nullMs(r.TerminationDate), ms(now))
		res, err := tx.ExecContext(ctx, `INSERT INTO remunerations (staff_id, fte_load, remuneration_inc_super, billing_rate,
			billable_percentage, cost_per_hour, kpi, kpi_billable, kpi_invoiced, pqy,
			remuneration_date, commencement_date, termination_date, created_at)
			VALUES (`+placeholders(len(args))+`)`, args...)
		if err != nil {
			return err
		}
		id, err := res.LastInsertId()
		if err != nil {
			return err
		}
		// The new record has the greatest id, so it is the latest unless
		// another has a later remunerationDate.
		if _, err := tx.ExecContext(ctx, `UPDATE users SET billing_rate = ?, updated_at = ?
			WHERE id = ? AND NOT EXISTS (SELECT 1 FROM remunerations WHERE staff_id = ? AND remuneration_date > ?)`,
			billingRate, ms(now), r.StaffID, r.StaffID, ms(r.RemunerationDate)); err != nil {
			return err
		}
		out, err = scanRemuneration(tx.QueryRowContext(ctx, `SELECT `+remunerationCols+` FROM `+remunerationJoin+` WHERE r.id = ?`, id))
		return err
	})
	return out, err
}

// Remuneration implements ports.RemunerationStore.
func (s *RemunerationStore) Remuneration(ctx context.Context, id int64) (user.StaffRemuneration, error) {
	return scanRemuneration(s.db.queryRow(ctx, `SELECT `+remunerationCols+` FROM `+remunerationJoin+` WHERE r.id = ?`, id))
}

// LatestRemuneration implements ports.RemunerationStore.
func (s *RemunerationStore) LatestRemuneration(ctx context.Context, staffID int64) (user.StaffRemuneration, error) {
	var out user.StaffRemuneration
	err := s.db.readTx(ctx, func(tx *sql.Tx) error {
		if err := staffExists(ctx, tx, staffID); err != nil {
			return err
		}
		var err error
		out, err = scanRemuneration(tx.QueryRowContext(ctx, `SELECT `+remunerationCols+` FROM `+remunerationJoin+`
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
	err := s.db.readTx(ctx, func(tx *sql.Tx) error {
		if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM remunerations r JOIN users u ON u.id = r.staff_id WHERE `+where, args...).Scan(&count); err != nil {
			return err
		}
		if count <= f.Offset || f.Limit == 0 {
			return nil
		}
		rows, err := tx.QueryContext(ctx, `SELECT `+remunerationCols+` FROM `+remunerationJoin+` WHERE `+where+`
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

func scanAdjustment(row rowScanner) (user.StaffAdjustment, error) {
	var sa user.StaffAdjustment
	a := &sa.PQEAdjustment
	var start, end int64
	dest, finish := userDest(&sa.Staff)
	err := row.Scan(append([]any{&a.ID, &a.StaffID, &a.Name, &a.Details, &start, &end}, dest...)...)
	if errors.Is(err, sql.ErrNoRows) {
		return sa, notFound("PQE adjustment")
	} else if err != nil {
		return sa, err
	}
	finish()
	a.StartDate, a.EndDate = fromMs(start), fromMs(end)
	return sa, nil
}

// CreatePQEAdjustment implements ports.RemunerationStore.
func (s *RemunerationStore) CreatePQEAdjustment(ctx context.Context, a remuneration.PQEAdjustment) (user.StaffAdjustment, error) {
	var out user.StaffAdjustment
	err := s.db.profileWriteTx(ctx, func(tx *sql.Tx) error {
		if err := staffExists(ctx, tx, a.StaffID); err != nil {
			return err
		}
		res, err := tx.ExecContext(ctx, `INSERT INTO pqe_adjustments (staff_id, name, details, start_date, end_date, created_at)
			VALUES (?, ?, ?, ?, ?, ?)`, a.StaffID, a.Name, a.Details, ms(a.StartDate), ms(a.EndDate), ms(s.db.Now()))
		if err != nil {
			return err
		}
		id, err := res.LastInsertId()
		if err != nil {
			return err
		}
		out, err = scanAdjustment(tx.QueryRowContext(ctx, `SELECT `+adjustmentCols+` FROM `+adjustmentJoin+` WHERE a.id = ?`, id))
		return err
	})
	return out, err
}

// PQEAdjustments implements ports.RemunerationStore.
func (s *RemunerationStore) PQEAdjustments(ctx context.Context, staffID, limit, offset int64) ([]user.StaffAdjustment, int64, error) {
	var count int64
	out := []user.StaffAdjustment{}
	err := s.db.readTx(ctx, func(tx *sql.Tx) error {
		if err := staffExists(ctx, tx, staffID); err != nil {
			return err
		}
		if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM pqe_adjustments WHERE staff_id = ?`, staffID).Scan(&count); err != nil {
			return err
		}
		if count <= offset || limit == 0 {
			return nil
		}
		rows, err := tx.QueryContext(ctx, `SELECT `+adjustmentCols+` FROM `+adjustmentJoin+`
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
