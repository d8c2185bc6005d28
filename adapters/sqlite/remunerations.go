package sqlite

import (
	"context"
	"database/sql"
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

// staffExists is userExists with the staff member's not-found message.
func staffExists(ctx context.Context, q queryer, staffID int64) error {
	return sqlrow.AsStaff(userExists(ctx, q, staffID))
}

// staffAdmission returns an undeleted staff member's admission date and
// PQE adjustment periods. ENOTFOUND for an unknown or deleted one.
func staffAdmission(ctx context.Context, q queryer, staffID int64) (*time.Time, []remuneration.Period, error) {
	var admission sql.NullInt64
	var periods sql.NullString
	err := q.QueryRowContext(ctx, `SELECT u.admission_date,
		(SELECT group_concat(start_date || ',' || end_date, ';') FROM pqe_adjustments WHERE staff_id = u.id)
		FROM users u WHERE u.id = ? AND u.deleted_at IS NULL`, staffID).Scan(&admission, &periods)
	if err != nil {
		return nil, nil, fmt.Errorf("load admission of staff member %d: %w", staffID, sqlrow.AsStaff(sqlrow.IfNoRows(err, "user")))
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
		now := s.db.Now()
		args, billingRate, err := sqlrow.RemunerationArgs(dialect{}, r, now)
		if err != nil {
			return err
		}
		res, err := tx.ExecContext(ctx, sqlrow.InsertRemunerationSQL, args...)
		if err != nil {
			return fmt.Errorf("insert remuneration of staff member %d: %w", r.StaffID, err)
		}
		id, err := res.LastInsertId()
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, sqlrow.LatestRateSQL, billingRate, ms(now), r.StaffID, r.StaffID, ms(r.RemunerationDate)); err != nil {
			return fmt.Errorf("update the billing rate of staff member %d: %w", r.StaffID, err)
		}
		out, err = scanRemuneration(tx.QueryRowContext(ctx, sqlrow.RemunerationByIDSQL, id))
		return err
	})
	return out, err
}

// Remuneration implements ports.RemunerationStore.
func (s *RemunerationStore) Remuneration(ctx context.Context, id int64) (user.StaffRemuneration, error) {
	r, err := scanRemuneration(s.db.queryRow(ctx, sqlrow.RemunerationByIDSQL, id))
	if err != nil {
		return r, fmt.Errorf("load remuneration %d: %w", id, err)
	}
	return r, nil
}

// LatestRemuneration implements ports.RemunerationStore.
func (s *RemunerationStore) LatestRemuneration(ctx context.Context, staffID int64) (user.StaffRemuneration, error) {
	var out user.StaffRemuneration
	err := s.db.readTx(ctx, func(tx *sql.Tx) error {
		if err := staffExists(ctx, tx, staffID); err != nil {
			return err
		}
		var err error
		out, err = scanRemuneration(tx.QueryRowContext(ctx, sqlrow.LatestRemunerationSQL, staffID))
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
	err := s.db.readTx(ctx, func(tx *sql.Tx) error {
		if err := tx.QueryRowContext(ctx, sqlrow.CountRemunerationsSQL+where, args...).Scan(&count); err != nil {
			return err
		}
		if count <= f.Offset || f.Limit == 0 {
			return nil
		}
		rows, err := tx.QueryContext(ctx, sqlrow.RemunerationsPage(where), append(args, f.Limit, f.Offset)...)
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
	err := s.db.profileWriteTx(ctx, func(tx *sql.Tx) error {
		if err := staffExists(ctx, tx, a.StaffID); err != nil {
			return err
		}
		res, err := tx.ExecContext(ctx, sqlrow.InsertAdjustmentSQL, sqlrow.AdjustmentArgs(dialect{}, a, s.db.Now())...)
		if err != nil {
			return fmt.Errorf("insert PQE adjustment of staff member %d: %w", a.StaffID, err)
		}
		id, err := res.LastInsertId()
		if err != nil {
			return err
		}
		out, err = scanAdjustment(tx.QueryRowContext(ctx, sqlrow.AdjustmentByIDSQL, id))
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
		rows, err := tx.QueryContext(ctx, sqlrow.AdjustmentsPageSQL, staffID, limit, offset)
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
