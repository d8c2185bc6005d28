package sqlrow

import (
	"context"
	"fmt"
	"time"

	"counsel/domain/remuneration"
	"counsel/domain/user"
	"counsel/ports"
)

// RemunerationStore implements ports.RemunerationStore on any Engine.
type RemunerationStore struct{ e Engine }

var _ ports.RemunerationStore = RemunerationStore{}

// NewRemunerationStore returns the remuneration store of e.
func NewRemunerationStore(e Engine) RemunerationStore { return RemunerationStore{e: e} }

// staffExists is UserExists with the staff member's not-found message.
func staffExists(ctx context.Context, x Querier, staffID int64) error {
	return AsStaff(UserExists(ctx, x, staffID))
}

// staffAdmission returns an undeleted staff member's admission date and
// PQE adjustment periods, the staff member's row locked (e.LockRow) so
// that two remunerations created at once see each other's effect on the
// rate. ENOTFOUND for an unknown or deleted one.
func (s RemunerationStore) staffAdmission(ctx context.Context, x Querier, staffID int64) (*time.Time, []remuneration.Period, error) {
	var admission *time.Time
	err := x.Row(ctx, `SELECT admission_date FROM users WHERE id = ? AND deleted_at IS NULL`+s.e.LockRow(), staffID).
		Scan(NullTime(s.e, &admission))
	if err != nil {
		return nil, nil, fmt.Errorf("load admission of staff member %d: %w", staffID, AsStaff(IfNoRows(err, "user")))
	}
	periods, err := QueryAll(ctx, x, func(row Scanner) (remuneration.Period, error) {
		var p remuneration.Period
		return p, row.Scan(Time(s.e, &p.Start), Time(s.e, &p.End))
	}, `SELECT start_date, end_date FROM pqe_adjustments WHERE staff_id = ? ORDER BY id`, staffID)
	if err != nil {
		return nil, nil, fmt.Errorf("load PQE adjustments of staff member %d: %w", staffID, err)
	}
	if len(periods) == 0 {
		periods = nil
	}
	return admission, periods, nil
}

// CreateRemuneration implements ports.RemunerationStore.
func (s RemunerationStore) CreateRemuneration(ctx context.Context, in remuneration.Remuneration,
	compute func(remuneration.Remuneration, *time.Time, []remuneration.Period) remuneration.Remuneration) (user.StaffRemuneration, error) {
	var out user.StaffRemuneration
	err := s.e.ProfileTx(ctx, func(x Querier) error {
		admission, periods, err := s.staffAdmission(ctx, x, in.StaffID)
		if err != nil {
			return err
		}
		r := compute(in, admission, periods)
		now := s.e.Now()
		args, billingRate, err := RemunerationArgs(s.e, r, now)
		if err != nil {
			return err
		}
		id, err := x.Insert(ctx, InsertRemunerationSQL, args...)
		if err != nil {
			return fmt.Errorf("insert remuneration of staff member %d: %w", r.StaffID, err)
		}
		ports.Created(ctx, id)
		if _, err := x.Exec(ctx, LatestRateSQL, billingRate, s.e.Arg(now), r.StaffID, r.StaffID, s.e.Arg(r.RemunerationDate)); err != nil {
			return fmt.Errorf("update the billing rate of staff member %d: %w", r.StaffID, err)
		}
		out, err = ScanRemuneration(s.e, x.Row(ctx, RemunerationByIDSQL, id))
		return err
	})
	return out, err
}

// Remuneration implements ports.RemunerationStore.
func (s RemunerationStore) Remuneration(ctx context.Context, id int64) (user.StaffRemuneration, error) {
	r, err := ScanRemuneration(s.e, s.e.Read().Row(ctx, RemunerationByIDSQL, id))
	if err != nil {
		return r, fmt.Errorf("load remuneration %d: %w", id, err)
	}
	return r, nil
}

// LatestRemuneration implements ports.RemunerationStore.
func (s RemunerationStore) LatestRemuneration(ctx context.Context, staffID int64) (user.StaffRemuneration, error) {
	var out user.StaffRemuneration
	err := s.e.ReadTx(ctx, func(x Querier) error {
		if err := staffExists(ctx, x, staffID); err != nil {
			return err
		}
		var err error
		out, err = ScanRemuneration(s.e, x.Row(ctx, LatestRemunerationSQL, staffID))
		return NoRemuneration(err)
	})
	if err != nil {
		return out, fmt.Errorf("load the latest remuneration of staff member %d: %w", staffID, err)
	}
	return out, nil
}

// Remunerations implements ports.RemunerationStore.
func (s RemunerationStore) Remunerations(ctx context.Context, f user.Filter) ([]user.StaffRemuneration, int64, error) {
	where, args := UserWhere(s.e, f)
	var count int64
	out := []user.StaffRemuneration{}
	err := s.e.ListTx(ctx, func(x Querier) error {
		if err := x.Row(ctx, CountRemunerationsSQL+where, args...).Scan(&count); err != nil {
			return err
		}
		if count <= f.Offset || f.Limit == 0 {
			return nil
		}
		var err error
		out, err = QueryAll(ctx, x, s.scanRemuneration, RemunerationsPage(where), append(args, f.Limit, f.Offset)...)
		return err
	})
	if err != nil {
		return nil, 0, fmt.Errorf("list remunerations: %w", err)
	}
	return out, count, nil
}

func (s RemunerationStore) scanRemuneration(row Scanner) (user.StaffRemuneration, error) {
	return ScanRemuneration(s.e, row)
}

func (s RemunerationStore) scanAdjustment(row Scanner) (user.StaffAdjustment, error) {
	return ScanAdjustment(s.e, row)
}

// CreatePQEAdjustment implements ports.RemunerationStore.
func (s RemunerationStore) CreatePQEAdjustment(ctx context.Context, a remuneration.PQEAdjustment) (user.StaffAdjustment, error) {
	var out user.StaffAdjustment
	err := s.e.ProfileTx(ctx, func(x Querier) error {
		if err := staffExists(ctx, x, a.StaffID); err != nil {
			return err
		}
		id, err := x.Insert(ctx, InsertAdjustmentSQL, AdjustmentArgs(s.e, a, s.e.Now())...)
		if err != nil {
			return fmt.Errorf("insert PQE adjustment of staff member %d: %w", a.StaffID, err)
		}
		ports.Created(ctx, id)
		out, err = s.scanAdjustment(x.Row(ctx, AdjustmentByIDSQL, id))
		return err
	})
	return out, err
}

// PQEAdjustments implements ports.RemunerationStore.
func (s RemunerationStore) PQEAdjustments(ctx context.Context, staffID, limit, offset int64) ([]user.StaffAdjustment, int64, error) {
	var count int64
	out := []user.StaffAdjustment{}
	err := s.e.ReadTx(ctx, func(x Querier) error {
		if err := staffExists(ctx, x, staffID); err != nil {
			return err
		}
		if err := x.Row(ctx, `SELECT count(*) FROM pqe_adjustments WHERE staff_id = ?`, staffID).Scan(&count); err != nil {
			return err
		}
		if count <= offset || limit == 0 {
			return nil
		}
		var err error
		out, err = QueryAll(ctx, x, s.scanAdjustment, AdjustmentsPageSQL, staffID, limit, offset)
		return err
	})
	if err != nil {
		return nil, 0, fmt.Errorf("list PQE adjustments of staff member %d: %w", staffID, err)
	}
	return out, count, nil
}
