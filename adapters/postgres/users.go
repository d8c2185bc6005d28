package postgres

import (
	"context"
	"fmt"
	"strings"
	"time"

	"counsel/adapters/sqlrow"
	"counsel/domain/remuneration"
	"counsel/domain/user"
)

// userRows reads users with PostgreSQL's plans.
type userRows struct{ db *DB }

// escapeLike escapes LIKE's wildcards with a backslash.
func escapeLike(s string) string {
	return strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(s)
}

// ListUsers implements sqlrow.UserRows.
func (r userRows) ListUsers(ctx context.Context, f user.Filter) ([]user.User, int64, error) {
	where, args := sqlrow.UserWhere(dialect{}, f)
	var count int64
	out := []user.User{}
	if strings.ContainsRune(f.Search, 0) {
		return out, 0, nil // no stored text holds NUL
	}
	err := r.db.listTx(ctx, func(x q) error {
		if err := x.row(ctx, `SELECT count(*) FROM users u WHERE `+where, args...).Scan(&count); err != nil {
			return err
		}
		if f.Limit == 0 || f.Offset >= count {
			return nil
		}
		order := sqlrow.UserOrder(dialect{}, f.SortDesc)
		query := `SELECT ` + sqlrow.UserCols + ` FROM ` + sqlrow.UserJoin + ` WHERE ` + where + ` ORDER BY ` + order + ` LIMIT ? OFFSET ?`
		if f.Offset >= deepOffset {
			// The page's ids first, walking users_list alone past the
			// skipped entries; then only the page's rows and offices.
			query = `SELECT ` + sqlrow.UserCols + ` FROM ` + sqlrow.UserJoin + ` JOIN (SELECT u.id FROM users u WHERE ` + where +
				` ORDER BY ` + order + ` LIMIT ? OFFSET ?) page ON page.id = u.id ORDER BY ` + order
		}
		rows, err := x.query(ctx, query, append(args, f.Limit, f.Offset)...)
		if err != nil {
			return err
		}
		defer rows.Close()
		out, err = sqlrow.ScanUsers(dialect{}, rows)
		return err
	})
	return out, count, err
}

// LoadProfile implements sqlrow.ProfileReader: a user, office, latest
// remuneration and adjustment periods in one query, and the roles in a
// second when withRoles.
func (userRows) LoadProfile(ctx context.Context, x sqlrow.Querier, id int64, withRoles bool) (user.Profile, error) {
	var p user.Profile
	var latest sqlrow.LatestScan
	var starts, ends []time.Time
	dest, finish := sqlrow.UserDest(dialect{}, &p.User)
	err := x.Row(ctx, `SELECT `+sqlrow.UserCols+`, `+sqlrow.LatestCols+`,
		coalesce((SELECT array_agg(start_date ORDER BY id) FROM pqe_adjustments WHERE staff_id = u.id), '{}'),
		coalesce((SELECT array_agg(end_date ORDER BY id) FROM pqe_adjustments WHERE staff_id = u.id), '{}')
		FROM `+sqlrow.UserJoin+`
		LEFT JOIN LATERAL (SELECT * FROM remunerations WHERE staff_id = u.id
			ORDER BY remuneration_date DESC, id DESC LIMIT 1) r ON true
		WHERE u.id = ? AND u.deleted_at IS NULL`, id).
		Scan(append(append(dest, latest.Dest()...), &starts, &ends)...)
	if err != nil {
		return p, fmt.Errorf("load profile %d: %w", id, sqlrow.IfNoRows(err, "user"))
	}
	finish()
	p.Latest = latest.Remuneration(id)
	p.Adjustments = periods(starts, ends)
	if withRoles {
		err = sqlrow.UserProfileRoles(ctx, x, dialect{}, &p)
	}
	return p, err
}

func periods(starts, ends []time.Time) []remuneration.Period {
	if len(starts) == 0 {
		return nil
	}
	out := make([]remuneration.Period, len(starts))
	for i := range starts {
		out[i] = remuneration.Period{Start: starts[i].UTC(), End: ends[i].UTC()}
	}
	return out
}
