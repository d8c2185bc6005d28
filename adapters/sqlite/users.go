package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"counsel/adapters/sqlrow"
	"counsel/domain/remuneration"
	"counsel/domain/user"
)

// userRows reads users with SQLite's plans.
type userRows struct{ db *DB }

// globEscape makes GLOB's wildcards in s match themselves: *, ? and [
// become one-character classes. A ] outside a class is literal already.
func globEscape(s string) string {
	return globEscaper.Replace(s)
}

var globEscaper = strings.NewReplacer("*", "[*]", "?", "[?]", "[", "[[]")

// ListUsers implements sqlrow.UserRows. The page is read first: when it
// is not full it tells the count itself (offset + its length), so the
// count's scan over every match is needed only when more may follow.
func (r userRows) ListUsers(ctx context.Context, f user.Filter) ([]user.User, int64, error) {
	where, args := sqlrow.UserWhere(dialect{}, f)
	var count int64
	out := []user.User{}
	err := r.db.readTx(ctx, func(tx *sql.Tx) error {
		if f.Limit > 0 {
			order := sqlrow.UserOrder(dialect{}, f.SortDesc)
			rows, err := tx.QueryContext(ctx, `SELECT `+sqlrow.UserCols+` FROM `+sqlrow.UserJoin+` WHERE `+where+
				` ORDER BY `+order+` LIMIT ? OFFSET ?`, append(args, f.Limit, f.Offset)...)
			if err != nil {
				return err
			}
			defer rows.Close()
			if out, err = sqlrow.ScanUsers(dialect{}, rows); err != nil {
				return err
			}
			if n := int64(len(out)); n < f.Limit && (n > 0 || f.Offset == 0) {
				count = f.Offset + n
				return nil
			}
		}
		// With a filter the covering index makes the count an index-only
		// scan; left to itself the planner picks the smaller users_email
		// index and reads every row for the filtered columns. Without one
		// that smaller index is the cheapest count.
		from := "users u"
		if where != sqlrow.NoUserFilter {
			from += " INDEXED BY users_list"
		}
		return tx.QueryRowContext(ctx, `SELECT count(*) FROM `+from+` WHERE `+where, args...).Scan(&count)
	})
	return out, count, err
}

// LoadProfile implements sqlrow.ProfileReader: a user, office, latest
// remuneration and adjustment periods in one query (the latest
// remuneration through the remunerations_staff index, the periods
// through pqe_adjustments_staff), and the roles in a second when
// withRoles.
func (userRows) LoadProfile(ctx context.Context, x sqlrow.Querier, id int64, withRoles bool) (user.Profile, error) {
	var p user.Profile
	var latest sqlrow.LatestScan
	var periods sql.NullString
	dest, finish := sqlrow.UserDest(dialect{}, &p.User)
	err := x.Row(ctx, `SELECT `+sqlrow.UserCols+`, `+sqlrow.LatestCols+`,
		(SELECT group_concat(start_date || ',' || end_date, ';') FROM pqe_adjustments WHERE staff_id = u.id)
		FROM `+sqlrow.UserJoin+`
		LEFT JOIN remunerations r ON r.id = (SELECT id FROM remunerations WHERE staff_id = u.id
			ORDER BY remuneration_date DESC, id DESC LIMIT 1)
		WHERE u.id = ? AND u.deleted_at IS NULL`, id).
		Scan(append(append(dest, latest.Dest()...), &periods)...)
	if err != nil {
		return p, fmt.Errorf("load profile %d: %w", id, sqlrow.IfNoRows(err, "user"))
	}
	finish()
	p.Latest = latest.Remuneration(id)
	if p.Adjustments, err = parsePeriods(periods.String); err != nil {
		return p, err
	}
	if withRoles {
		err = sqlrow.UserProfileRoles(ctx, x, dialect{}, &p)
	}
	return p, err
}

// parsePeriods reads "start,end;start,end" in milliseconds.
func parsePeriods(s string) ([]remuneration.Period, error) {
	if s == "" {
		return nil, nil
	}
	parts := strings.Split(s, ";")
	out := make([]remuneration.Period, 0, len(parts))
	for _, part := range parts {
		a, b, _ := strings.Cut(part, ",")
		start, err1 := strconv.ParseInt(a, 10, 64)
		end, err2 := strconv.ParseInt(b, 10, 64)
		if err := errors.Join(err1, err2); err != nil {
			return nil, fmt.Errorf("pqe adjustment period %q: %w", part, err)
		}
		out = append(out, remuneration.Period{Start: fromMs(start), End: fromMs(end)})
	}
	return out, nil
}
