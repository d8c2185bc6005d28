package postgres

import (
	"context"
	"fmt"
	"time"

	"counsel/adapters/sqlrow"
	"counsel/domain/remuneration"
	"counsel/domain/user"
	"counsel/ports"
)

// RemunerationStore implements ports.RemunerationStore.
type RemunerationStore struct{ db *DB }

var _ ports.RemunerationStore = (*RemunerationStore)(nil)

// NewRemunerationStore returns the remuneration store of db.
func NewRemunerationStore(db *DB) *RemunerationStore { return &RemunerationStore{db: db} }

func scanRemuneration(row sqlrow.Scanner) (user.StaffRemuneration, error) {
	return sqlrow.ScanRemuneration(dialect{}, row)
}

func staffExists(ctx context.Context, x q, staffID int64) error {
	return sqlrow.AsStaff(userExists(ctx, x, staffID))
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
	if err != nil {
		return nil, nil, fmt.Errorf("load admission of staff member %d: %w", staffID, sqlrow.AsStaff(sqlrow.IfNoRows(err, "user")))
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
		now := s.db.Now()
		args, billingRate, err := sqlrow.RemunerationArgs(dialect{}, r, now)
		if err != nil {
			return err
		}
		var id int64
		if err := x.row(ctx, sqlrow.InsertRemunerationSQL+` RETURNING id`, args...).Scan(&id); err != nil {
			return fmt.Errorf("insert remuneration of staff member %d: %w", r.StaffID, err)
		}
		if _, err := x.exec(ctx, sqlrow.LatestRateSQL, billingRate, now, r.StaffID, r.StaffID, r.RemunerationDate); err != nil {
			return fmt.Errorf("update the billing rate of staff member %d: %w", r.StaffID, err)
		}
		out, err = scanRemuneration(x.row(ctx, sqlrow.RemunerationByIDSQL, id))
		return err
	})
	return out, err
}

// Remuneration implements ports.RemunerationStore.
func (s *RemunerationStore) Remuneration(ctx context.Context, id int64) (user.StaffRemuneration, error) {
	r, err := scanRemuneration(s.db.read().row(ctx, sqlrow.RemunerationByIDSQL, id))
	if err != nil {
		return r, fmt.Errorf("load remuneration %d: %w", id, err)
	}
	return r, nil
}

// LatestRemuneration implements ports.RemunerationStore.
func (s *RemunerationStore) LatestRemuneration(ctx context.Context, staffID int64) (user.StaffRemuneration, error) {
	var out user.StaffRemuneration
	err := s.db.readTx(ctx, func(x q) error {
		if err := staffExists(ctx, x, staffID); err != nil {
			return err
		}
		var err error
		out, err = scanRemuneration(x.row(ctx, sqlrow.LatestRemunerationSQL, staffID))
		return sqlrow.NoRemuneration(err)
	})
	if err != nil {
		return out, fmt.Errorf("load the latest remuneration of staff member %d: %w", staffID, err)
	}
	return out, nil
}

// Remunerations implements ports.RemunerationStore.
func (s *RemunerationStore) Remunerations(ctx context.Context, f user.Filter) ([]user.StaffRemuneration, int64, error) {
	where, args := sqlrow.UserWhere(dialect{}, f)
	var count int64
	out := []user.StaffRemuneration{}
	err := s.db.listTx(ctx, func(x q) error {
		if err := x.row(ctx, sqlrow.CountRemunerationsSQL+where, args...).Scan(&count); err != nil {
			return err
		}
		if count <= f.Offset || f.Limit == 0 {
			return nil
		}
		rows, err := x.query(ctx, sqlrow.RemunerationsPage(where), append(args, f.Limit, f.Offset)...)
		if err != nil {
			return err
		}
		defer rows.Close()
		out, err = sqlrow.Collect(rows, scanRemuneration)
		return err
	})
	if err != nil {
		return nil, 0, fmt.Errorf("list remunerations: %w", err)
	}
	return out, count, nil
}

func scanAdjustment(row sqlrow.Scanner) (user.StaffAdjustment, error) {
	return sqlrow.ScanAdjustment(dialect{}, row)
}

// CreatePQEAdjustment implements ports.RemunerationStore.
func (s *RemunerationStore) CreatePQEAdjustment(ctx context.Context, a remuneration.PQEAdjustment) (user.StaffAdjustment, error) {
	var out user.StaffAdjustment
	err := s.db.profileTx(ctx, func(x q) error {
		if err := staffExists(ctx, x, a.StaffID); err != nil {
			return err
		}
		var id int64
		if err := x.row(ctx, sqlrow.InsertAdjustmentSQL+` RETURNING id`, sqlrow.AdjustmentArgs(dialect{}, a, s.db.Now())...).Scan(&id); err != nil {
			return fmt.Errorf("insert PQE adjustment of staff member %d: %w", a.StaffID, err)
		}
		var err error
		out, err = scanAdjustment(x.row(ctx, sqlrow.AdjustmentByIDSQL, id))
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
		rows, err := x.query(ctx, sqlrow.AdjustmentsPageSQL, staffID, limit, offset)
		if err != nil {
			return err
		}
		defer rows.Close()
		out, err = sqlrow.Collect(rows, scanAdjustment)
		return err
	})
	if err != nil {
		return nil, 0, fmt.Errorf("list PQE adjustments of staff member %d: %w", staffID, err)
	}
	return out, count, nil
}
