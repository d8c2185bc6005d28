package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"counsel/adapters/sqlrow"
	"counsel/domain"
	"counsel/domain/account"
	"counsel/domain/remuneration"
	"counsel/domain/user"
	"counsel/ports"
)

// UserStore implements ports.UserStore.
type UserStore struct{ db *DB }

var _ ports.UserStore = (*UserStore)(nil)

// NewUserStore returns the user store of db.
func NewUserStore(db *DB) *UserStore { return &UserStore{db: db} }

// userOrder is the order of every user list: last name, first name, id,
// which the users_list index serves.
const userOrder = `u.last_name COLLATE NOCASE, u.first_name COLLATE NOCASE, u.id`

// userOrderDesc is userOrder reversed; the same index is read backwards.
const userOrderDesc = `u.last_name COLLATE NOCASE DESC, u.first_name COLLATE NOCASE DESC, u.id DESC`

// globEscape makes GLOB's wildcards in s match themselves: *, ? and [
// become one-character classes. A ] outside a class is literal already.
func globEscape(s string) string {
	return globEscaper.Replace(s)
}

var globEscaper = strings.NewReplacer("*", "[*]", "?", "[?]", "[", "[[]")

// Users implements ports.UserStore. The page is read first: when it is not
// full it tells the count itself (offset + its length), so the count's
// scan over every match is needed only when more may follow.
func (s *UserStore) Users(ctx context.Context, f user.Filter) ([]user.User, int64, error) {
	where, args := sqlrow.UserWhere(dialect{}, f)
	var count int64
	out := []user.User{}
	err := s.db.readTx(ctx, func(tx *sql.Tx) error {
		if f.Limit > 0 {
			order := userOrder
			if f.SortDesc {
				order = userOrderDesc
			}
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
	if err != nil {
		return nil, 0, fmt.Errorf("list users: %w", err)
	}
	return out, count, nil
}

func loadUser(ctx context.Context, q queryer, id int64) (user.User, error) {
	u, err := sqlrow.ScanUser(dialect{}, q.QueryRowContext(ctx, sqlrow.LoadUserSQL, id))
	if err != nil {
		return u, fmt.Errorf("load user %d: %w", id, err)
	}
	return u, nil
}

// User implements ports.UserStore.
func (s *UserStore) User(ctx context.Context, id int64) (user.User, error) {
	return loadUser(ctx, reader{s.db}, id)
}

// loadProfile reads a user, office, latest remuneration and adjustment
// periods in one query (the latest remuneration through the
// remunerations_staff index, the periods through pqe_adjustments_staff),
// and the roles in a second when withRoles.
func loadProfile(ctx context.Context, q queryer, id int64, withRoles bool) (user.Profile, error) {
	var p user.Profile
	var latest sqlrow.LatestScan
	var periods sql.NullString
	dest, finish := sqlrow.UserDest(dialect{}, &p.User)
	err := q.QueryRowContext(ctx, `SELECT `+sqlrow.UserCols+`, `+sqlrow.LatestCols+`,
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
		if p.Roles, err = loadRoles(ctx, q, "JOIN user_roles ur ON ur.role_id = r.id AND ur.user_id = ?", id); err != nil {
			return p, fmt.Errorf("load roles of user %d: %w", id, err)
		}
	}
	return p, nil
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

// Profile implements ports.UserStore.
func (s *UserStore) Profile(ctx context.Context, id int64, withRoles bool) (user.Profile, error) {
	if !withRoles {
		return s.db.profiles.Get(id, s.db.Now(), func() (user.Profile, error) {
			return loadProfile(ctx, reader{s.db}, id, false)
		})
	}
	var p user.Profile
	err := s.db.readTx(ctx, func(tx *sql.Tx) error {
		var err error
		p, err = loadProfile(ctx, tx, id, true)
		return err
	})
	return p, err
}

func officeExists(ctx context.Context, q queryer, id int64) error {
	return sqlrow.OfficeExists(ctx, sq{q}, id)
}

func emailTaken(err error) error {
	if domain.ErrorCode(formatError(err)) == domain.ECONFLICT {
		return &domain.Error{Code: domain.ECONFLICT, Message: "a user with this email already exists"}
	}
	return err
}

// setUserRoles gives a user exactly the roles ids, or the default roles
// when ids is nil.
func setUserRoles(ctx context.Context, tx *sql.Tx, userID int64, ids *[]int64) error {
	if _, err := tx.ExecContext(ctx, `DELETE FROM user_roles WHERE user_id = ?`, userID); err != nil {
		return err
	}
	if ids == nil {
		_, err := tx.ExecContext(ctx, `INSERT INTO user_roles (user_id, role_id) SELECT ?, id FROM roles WHERE is_default_role = 1`, userID)
		return err
	}
	for _, rid := range *ids {
		res, err := tx.ExecContext(ctx, `INSERT OR IGNORE INTO user_roles (user_id, role_id) SELECT ?, id FROM roles WHERE id = ?`, userID, rid)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			if _, err := loadRole(ctx, tx, rid); err != nil {
				return sqlrow.NotFoundID("role", rid)
			}
		}
	}
	return nil
}

// CreateUser implements ports.UserStore.
func (s *UserStore) CreateUser(ctx context.Context, u user.User, passwordHash string, roleIDs *[]int64, check account.RoleCheck) (user.Profile, error) {
	var p user.Profile
	err := s.db.profileWriteTx(ctx, func(tx *sql.Tx) error {
		if err := s.db.runRoleCheck(ctx, tx, 0, check); err != nil {
			return err
		}
		id, err := insertUser(ctx, tx, u, passwordHash, s.db.Now())
		if err != nil {
			return err
		}
		if err := setUserRoles(ctx, tx, id, roleIDs); err != nil {
			return err
		}
		p, err = loadProfile(ctx, tx, id, true)
		return err
	})
	return p, err
}

func insertUser(ctx context.Context, tx *sql.Tx, u user.User, passwordHash string, now time.Time) (int64, error) {
	if u.OfficeID != 0 {
		if err := officeExists(ctx, tx, u.OfficeID); err != nil {
			return 0, err
		}
	}
	args, err := sqlrow.UserArgs(dialect{}, u)
	if err != nil {
		return 0, err
	}
	args = append(args, user.SearchKey(u.FirstName, u.LastName, u.Email), passwordHash, ms(now), ms(now))
	res, err := tx.ExecContext(ctx, `INSERT INTO users (`+sqlrow.UserWriteCols+`, search_key, password_hash, created_at, updated_at)
		VALUES (`+placeholders(len(args))+`)`, args...)
	if err != nil {
		return 0, emailTaken(err)
	}
	id, err := res.LastInsertId()
	ports.Created(ctx, id)
	return id, err
}

// CreateUsers adds many users in one transaction, with the default roles
// and no password: for imports, and for benchmarks that need a large
// directory quickly. ECONFLICT for a taken email.
func (s *UserStore) CreateUsers(ctx context.Context, us []user.User) ([]int64, error) {
	ids := make([]int64, 0, len(us))
	err := s.db.profileWriteTx(ctx, func(tx *sql.Tx) error {
		now := s.db.Now()
		for _, u := range us {
			id, err := insertUser(ctx, tx, u, "", now)
			if err != nil {
				return err
			}
			if err := setUserRoles(ctx, tx, id, nil); err != nil {
				return err
			}
			ids = append(ids, id)
		}
		return nil
	})
	if err != nil {
		return ids, fmt.Errorf("create %d users: %w", len(us), err)
	}
	return ids, nil
}

// UpdateUser implements ports.UserStore.
func (s *UserStore) UpdateUser(ctx context.Context, id int64, roleIDs *[]int64, check account.RoleCheck, fn func(*user.User) error, keep account.AdminRule) (user.Profile, error) {
	var p user.Profile
	err := s.db.profileWriteTx(ctx, func(tx *sql.Tx) error {
		if err := s.db.runRoleCheck(ctx, tx, id, check); err != nil {
			return err
		}
		u, err := loadUser(ctx, tx, id)
		if err != nil {
			return err
		}
		before := u
		if err := fn(&u); err != nil {
			return err
		}
		if u.OfficeID != 0 && u.OfficeID != before.OfficeID {
			if err := officeExists(ctx, tx, u.OfficeID); err != nil {
				return err
			}
		}
		err = s.db.guardLastAdmin(ctx, tx, keep, func() error {
			args, err := sqlrow.UserArgs(dialect{}, u)
			if err != nil {
				return err
			}
			if _, err := tx.ExecContext(ctx, `UPDATE users SET (`+sqlrow.UserWriteCols+`, updated_at) = (`+placeholders(len(args)+1)+`)
			WHERE id = ?`, append(args, ms(s.db.Now()), id)...); err != nil {
				return emailTaken(err)
			}
			// After the statement above, whose trigger wrote an ASCII-folded key.
			if _, err := tx.ExecContext(ctx, `UPDATE users SET search_key = ? WHERE id = ?`, user.SearchKey(u.FirstName, u.LastName, u.Email), id); err != nil {
				return err
			}
			if roleIDs != nil {
				return setUserRoles(ctx, tx, id, roleIDs)
			}
			return nil
		})
		if err != nil {
			return err
		}
		p, err = loadProfile(ctx, tx, id, true)
		return err
	})
	return p, err
}

// DeleteUser implements ports.UserStore.
func (s *UserStore) DeleteUser(ctx context.Context, id int64, at time.Time, keep account.AdminRule) error {
	return s.db.profileWriteTx(ctx, func(tx *sql.Tx) error {
		err := s.db.guardLastAdmin(ctx, tx, keep, func() error {
			res, err := tx.ExecContext(ctx, `UPDATE users SET deleted_at = ?, updated_at = ? WHERE id = ? AND deleted_at IS NULL`, ms(at), ms(at), id)
			if err != nil {
				return err
			}
			if n, _ := res.RowsAffected(); n == 0 {
				return sqlrow.NotFound("user")
			}
			return nil
		})
		if err != nil {
			return err
		}
		return sqlrow.RevokeUserSessions(ctx, sq{tx}, dialect{}, id, at)
	})
}

// Offices implements ports.UserStore.
func (s *UserStore) Offices(ctx context.Context) ([]user.Office, error) {
	rows, err := s.db.query(ctx, `SELECT `+sqlrow.OfficeCols+` FROM offices ORDER BY name COLLATE NOCASE, id`)
	if err != nil {
		return nil, fmt.Errorf("list offices: %w", err)
	}
	defer rows.Close()
	out, err := sqlrow.Collect(rows, sqlrow.ScanOffice)
	if err != nil {
		return nil, fmt.Errorf("list offices: %w", err)
	}
	return out, nil
}

// Office implements ports.UserStore.
func (s *UserStore) Office(ctx context.Context, id int64) (user.Office, error) {
	o, err := sqlrow.ScanOffice(s.db.queryRow(ctx, `SELECT `+sqlrow.OfficeCols+` FROM offices WHERE id = ?`, id))
	if err != nil {
		return o, fmt.Errorf("load office %d: %w", id, err)
	}
	return o, nil
}

// CreateOffice implements ports.UserStore.
func (s *UserStore) CreateOffice(ctx context.Context, o user.Office) (user.Office, error) {
	err := s.db.profileWriteTx(ctx, func(tx *sql.Tx) error {
		now := ms(s.db.Now())
		args := append(sqlrow.OfficeArgs(o), now, now)
		res, err := tx.ExecContext(ctx, `INSERT INTO offices (`+sqlrow.OfficeWriteCols+`, created_at, updated_at) VALUES (`+placeholders(len(args))+`)`, args...)
		if err != nil {
			return err
		}
		if o.ID, err = res.LastInsertId(); err != nil {
			return err
		}
		ports.Created(ctx, o.ID)
		return nil
	})
	if err != nil {
		return o, fmt.Errorf("create office %q: %w", o.Name, err)
	}
	return o, nil
}

// UpdateOffice implements ports.UserStore.
func (s *UserStore) UpdateOffice(ctx context.Context, id int64, fn func(*user.Office) error) (user.Office, error) {
	var o user.Office
	err := s.db.profileWriteTx(ctx, func(tx *sql.Tx) error {
		var err error
		if o, err = sqlrow.ScanOffice(tx.QueryRowContext(ctx, `SELECT `+sqlrow.OfficeCols+` FROM offices WHERE id = ?`, id)); err != nil {
			return fmt.Errorf("load office %d: %w", id, err)
		}
		if err := fn(&o); err != nil {
			return err
		}
		o.ID = id
		args := append(sqlrow.OfficeArgs(o), ms(s.db.Now()), id)
		_, err = tx.ExecContext(ctx, `UPDATE offices SET (`+sqlrow.OfficeWriteCols+`, updated_at) = (`+placeholders(len(args)-1)+`) WHERE id = ?`, args...)
		return err
	})
	return o, err
}

// offeringReviewers lists the undeleted reviewers of an offering by id.
func offeringReviewers(ctx context.Context, q queryer, offeringID int64) ([]int64, error) {
	rows, err := q.QueryContext(ctx, sqlrow.OfferingReviewersSQL, offeringID)
	if err != nil {
		return nil, fmt.Errorf("list reviewers of offering %d: %w", offeringID, err)
	}
	defer rows.Close()
	return sqlrow.Collect(rows, sqlrow.ID)
}

// AddReviewers implements ports.UserStore.
func (s *UserStore) AddReviewers(ctx context.Context, offeringID int64, userIDs []int64) ([]int64, error) {
	var out []int64
	err := s.db.profileWriteTx(ctx, func(tx *sql.Tx) error {
		// Find the first unknown id in one query rather than one per user.
		rows, err := tx.QueryContext(ctx, `SELECT id FROM users WHERE deleted_at IS NULL AND id IN (`+placeholders(len(userIDs))+`)`, intArgs(userIDs)...)
		if err != nil {
			return err
		}
		err = sqlrow.MissingID(rows, userIDs, "user")
		rows.Close()
		if err != nil {
			return err
		}
		for _, id := range userIDs {
			if _, err := tx.ExecContext(ctx, `INSERT OR IGNORE INTO offering_reviewers (offering_id, user_id) VALUES (?, ?)`, offeringID, id); err != nil {
				return err
			}
		}
		out, err = offeringReviewers(ctx, tx, offeringID)
		return err
	})
	if err != nil {
		return out, fmt.Errorf("add reviewers of offering %d: %w", offeringID, err)
	}
	return out, nil
}

// RemoveReviewers implements ports.UserStore.
func (s *UserStore) RemoveReviewers(ctx context.Context, offeringID int64, userIDs []int64) ([]int64, error) {
	var out []int64
	err := s.db.profileWriteTx(ctx, func(tx *sql.Tx) error {
		args := append([]any{offeringID}, intArgs(userIDs)...)
		if _, err := tx.ExecContext(ctx, `DELETE FROM offering_reviewers WHERE offering_id = ? AND user_id IN (`+placeholders(len(userIDs))+`)`, args...); err != nil {
			return err
		}
		var err error
		out, err = offeringReviewers(ctx, tx, offeringID)
		return err
	})
	if err != nil {
		return out, fmt.Errorf("remove reviewers of offering %d: %w", offeringID, err)
	}
	return out, nil
}
