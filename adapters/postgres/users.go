package postgres

import (
	"context"
	"fmt"
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

func searchKey(first, last, email string) string { return user.SearchKey(first, last, email) }

// userOrder is the order of every user list, which users_list serves:
// ASCII case folded, byte order, as SQLite's NOCASE.
const userOrder = `lower(u.last_name COLLATE "C"), lower(u.first_name COLLATE "C"), u.id`

// userOrderDesc is userOrder reversed (the console's Sort=desc), as on
// SQLite; the same index is read backwards.
const userOrderDesc = `lower(u.last_name COLLATE "C") DESC, lower(u.first_name COLLATE "C") DESC, u.id DESC`

// escapeLike escapes LIKE's wildcards with a backslash.
func escapeLike(s string) string {
	return strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(s)
}

// Users implements ports.UserStore.
func (s *UserStore) Users(ctx context.Context, f user.Filter) ([]user.User, int64, error) {
	where, args := sqlrow.UserWhere(dialect{}, f)
	var count int64
	out := []user.User{}
	if strings.ContainsRune(f.Search, 0) {
		return out, 0, nil // no stored text holds NUL
	}
	err := s.db.listTx(ctx, func(x q) error {
		if err := x.row(ctx, `SELECT count(*) FROM users u WHERE `+where, args...).Scan(&count); err != nil {
			return err
		}
		if f.Limit == 0 || f.Offset >= count {
			return nil
		}
		order := userOrder
		if f.SortDesc {
			order = userOrderDesc
		}
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
	if err != nil {
		return nil, 0, fmt.Errorf("list users: %w", err)
	}
	return out, count, nil
}

func loadUser(ctx context.Context, x q, id int64, lock string) (user.User, error) {
	u, err := sqlrow.ScanUser(dialect{}, x.row(ctx, sqlrow.LoadUserSQL+lock, id))
	if err != nil {
		return u, fmt.Errorf("load user %d: %w", id, err)
	}
	return u, nil
}

// User implements ports.UserStore.
func (s *UserStore) User(ctx context.Context, id int64) (user.User, error) {
	return loadUser(ctx, s.db.read(), id, "")
}

// loadProfile reads a user, office, latest remuneration and adjustment
// periods in one query, and the roles in a second when withRoles.
func loadProfile(ctx context.Context, x q, id int64, withRoles bool) (user.Profile, error) {
	var p user.Profile
	var latest sqlrow.LatestScan
	var starts, ends []time.Time
	dest, finish := sqlrow.UserDest(dialect{}, &p.User)
	err := x.row(ctx, `SELECT `+sqlrow.UserCols+`, `+sqlrow.LatestCols+`,
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
		if p.Roles, err = loadRoles(ctx, x, "JOIN user_roles ur ON ur.role_id = r.id AND ur.user_id = ?", id); err != nil {
			return p, fmt.Errorf("load roles of user %d: %w", id, err)
		}
	}
	return p, nil
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

// Profile implements ports.UserStore.
func (s *UserStore) Profile(ctx context.Context, id int64, withRoles bool) (user.Profile, error) {
	if !withRoles {
		return s.db.profiles.Get(id, s.db.Now(), func() (user.Profile, error) {
			return loadProfile(ctx, s.db.read(), id, false)
		})
	}
	var p user.Profile
	err := s.db.readTx(ctx, func(x q) error {
		var err error
		p, err = loadProfile(ctx, x, id, true)
		return err
	})
	return p, err
}

// userArgs are the values of userWriteCols: the shared columns and the
// search key, which SQLite's trigger writes and PostgreSQL's statement.
func userArgs(u user.User) ([]any, error) {
	args, err := sqlrow.UserArgs(dialect{}, u)
	return append(args, searchKey(u.FirstName, u.LastName, u.Email)), err
}

const userWriteCols = sqlrow.UserWriteCols + `, search_key`

func officeExists(ctx context.Context, x q, id int64) error { return sqlrow.OfficeExists(ctx, x, id) }

func emailTaken(err error) error {
	if domain.ErrorCode(formatError(err)) == domain.ECONFLICT {
		return &domain.Error{Code: domain.ECONFLICT, Message: "a user with this email already exists"}
	}
	return err
}

// setUserRoles gives a user exactly the roles ids, or the default roles
// when ids is nil.
func setUserRoles(ctx context.Context, x q, userID int64, ids *[]int64) error {
	if _, err := x.exec(ctx, `DELETE FROM user_roles WHERE user_id = ?`, userID); err != nil {
		return err
	}
	if ids == nil {
		_, err := x.exec(ctx, `INSERT INTO user_roles (user_id, role_id) SELECT ?, id FROM roles WHERE is_default_role`, userID)
		return err
	}
	for _, rid := range *ids {
		n, err := x.exec(ctx, `INSERT INTO user_roles (user_id, role_id) SELECT ?, id FROM roles WHERE id = ? ON CONFLICT DO NOTHING`, userID, rid)
		if err != nil {
			return err
		}
		if n == 0 {
			var one int
			if err := x.row(ctx, `SELECT 1 FROM roles WHERE id = ?`, rid).Scan(&one); noRows(err) {
				return sqlrow.NotFoundID("role", rid)
			} else if err != nil {
				return err
			}
		}
	}
	return nil
}

// CreateUser implements ports.UserStore.
func (s *UserStore) CreateUser(ctx context.Context, u user.User, passwordHash string, roleIDs *[]int64, check account.RoleCheck) (user.Profile, error) {
	var p user.Profile
	err := s.db.profileTx(ctx, func(x q) error {
		if err := s.db.runRoleCheck(ctx, x, 0, check); err != nil {
			return err
		}
		id, err := insertUser(ctx, x, u, passwordHash, s.db.Now())
		if err != nil {
			return err
		}
		if err := setUserRoles(ctx, x, id, roleIDs); err != nil {
			return err
		}
		p, err = loadProfile(ctx, x, id, true)
		return err
	})
	return p, err
}

func insertUser(ctx context.Context, x q, u user.User, passwordHash string, now time.Time) (int64, error) {
	if u.OfficeID != 0 {
		if err := officeExists(ctx, x, u.OfficeID); err != nil {
			return 0, err
		}
	}
	args, err := userArgs(u)
	if err != nil {
		return 0, err
	}
	args = append(args, passwordHash, now, now)
	var id int64
	err = x.row(ctx, `INSERT INTO users (`+userWriteCols+`, password_hash, created_at, updated_at)
		VALUES (`+placeholders(len(args))+`) RETURNING id`, args...).Scan(&id)
	if err != nil {
		return 0, emailTaken(err)
	}
	ports.Created(ctx, id)
	return id, nil
}

// CreateUsers adds many users in one transaction, with the default roles
// and no password (imports and benchmarks). ECONFLICT for a taken email.
func (s *UserStore) CreateUsers(ctx context.Context, us []user.User) ([]int64, error) {
	ids := make([]int64, 0, len(us))
	err := s.db.profileTx(ctx, func(x q) error {
		now := s.db.Now()
		for _, u := range us {
			id, err := insertUser(ctx, x, u, "", now)
			if err != nil {
				return err
			}
			if err := setUserRoles(ctx, x, id, nil); err != nil {
				return err
			}
			ids = append(ids, id)
		}
		return nil
	})
	if err != nil {
		return ids, fmt.Errorf("create %d users: %w", len(us), err)
	}
	s.db.analyzeAfter(ctx, len(us), "users", "user_roles")
	return ids, nil
}

// UpdateUser implements ports.UserStore. The user's row is locked, and
// the last-administrator rule is decided under a transaction-level
// advisory lock, so two instances cannot each remove one of the last two.
func (s *UserStore) UpdateUser(ctx context.Context, id int64, roleIDs *[]int64, check account.RoleCheck, fn func(*user.User) error, keep account.AdminRule) (user.Profile, error) {
	var p user.Profile
	err := s.db.profileTx(ctx, func(x q) error {
		if err := s.db.runRoleCheck(ctx, x, id, check); err != nil {
			return err
		}
		err := s.db.guardLastAdmin(ctx, x, keep, func() error {
			u, err := loadUser(ctx, x, id, " FOR UPDATE OF u")
			if err != nil {
				return err
			}
			before := u
			if err := fn(&u); err != nil {
				return err
			}
			if u.OfficeID != 0 && u.OfficeID != before.OfficeID {
				if err := officeExists(ctx, x, u.OfficeID); err != nil {
					return err
				}
			}
			args, err := userArgs(u)
			if err != nil {
				return err
			}
			if _, err := x.exec(ctx, `UPDATE users SET (`+userWriteCols+`, updated_at) = (`+placeholders(len(args)+1)+`)
			WHERE id = ?`, append(args, s.db.Now(), id)...); err != nil {
				return emailTaken(err)
			}
			if roleIDs != nil {
				return setUserRoles(ctx, x, id, roleIDs)
			}
			return nil
		})
		if err != nil {
			return err
		}
		p, err = loadProfile(ctx, x, id, true)
		return err
	})
	return p, err
}

// DeleteUser implements ports.UserStore.
func (s *UserStore) DeleteUser(ctx context.Context, id int64, at time.Time, keep account.AdminRule) error {
	return s.db.profileTx(ctx, func(x q) error {
		err := s.db.guardLastAdmin(ctx, x, keep, func() error {
			n, err := x.exec(ctx, `UPDATE users SET deleted_at = ?, updated_at = ? WHERE id = ? AND deleted_at IS NULL`, at, at, id)
			if err != nil {
				return err
			}
			if n == 0 {
				return sqlrow.NotFound("user")
			}
			return nil
		})
		if err != nil {
			return err
		}
		return sqlrow.RevokeUserSessions(ctx, x, dialect{}, id, at)
	})
}

// Offices implements ports.UserStore.
func (s *UserStore) Offices(ctx context.Context) ([]user.Office, error) {
	rows, err := s.db.read().query(ctx, `SELECT `+sqlrow.OfficeCols+` FROM offices ORDER BY lower(name COLLATE "C"), id`)
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
	o, err := sqlrow.ScanOffice(s.db.read().row(ctx, `SELECT `+sqlrow.OfficeCols+` FROM offices WHERE id = ?`, id))
	if err != nil {
		return o, fmt.Errorf("load office %d: %w", id, err)
	}
	return o, nil
}

// CreateOffice implements ports.UserStore.
func (s *UserStore) CreateOffice(ctx context.Context, o user.Office) (user.Office, error) {
	err := s.db.profileTx(ctx, func(x q) error {
		now := s.db.Now()
		args := append(sqlrow.OfficeArgs(o), now, now)
		if err := x.row(ctx, `INSERT INTO offices (`+sqlrow.OfficeWriteCols+`, created_at, updated_at) VALUES (`+placeholders(len(args))+`) RETURNING id`, args...).Scan(&o.ID); err != nil {
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
	err := s.db.profileTx(ctx, func(x q) error {
		var err error
		if o, err = sqlrow.ScanOffice(x.row(ctx, `SELECT `+sqlrow.OfficeCols+` FROM offices WHERE id = ? FOR UPDATE`, id)); err != nil {
			return fmt.Errorf("load office %d: %w", id, err)
		}
		if err := fn(&o); err != nil {
			return err
		}
		o.ID = id
		args := append(sqlrow.OfficeArgs(o), s.db.Now(), id)
		_, err = x.exec(ctx, `UPDATE offices SET (`+sqlrow.OfficeWriteCols+`, updated_at) = (`+placeholders(len(args)-1)+`) WHERE id = ?`, args...)
		return err
	})
	return o, err
}

func offeringReviewers(ctx context.Context, x q, offeringID int64) ([]int64, error) {
	rows, err := x.query(ctx, sqlrow.OfferingReviewersSQL, offeringID)
	if err != nil {
		return nil, fmt.Errorf("list reviewers of offering %d: %w", offeringID, err)
	}
	defer rows.Close()
	return sqlrow.Collect(rows, sqlrow.ID)
}

// AddReviewers implements ports.UserStore.
func (s *UserStore) AddReviewers(ctx context.Context, offeringID int64, userIDs []int64) ([]int64, error) {
	var out []int64
	err := s.db.profileTx(ctx, func(x q) error {
		rows, err := x.query(ctx, `SELECT id FROM users WHERE deleted_at IS NULL AND id = ANY (?)`, userIDs)
		if err != nil {
			return err
		}
		err = sqlrow.MissingID(rows, userIDs, "user")
		rows.Close()
		if err != nil {
			return err
		}
		if _, err := x.exec(ctx, `INSERT INTO offering_reviewers (offering_id, user_id) SELECT ?, unnest(?::bigint[]) ON CONFLICT DO NOTHING`,
			offeringID, userIDs); err != nil {
			return err
		}
		out, err = offeringReviewers(ctx, x, offeringID)
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
	err := s.db.profileTx(ctx, func(x q) error {
		if _, err := x.exec(ctx, `DELETE FROM offering_reviewers WHERE offering_id = ? AND user_id = ANY (?)`, offeringID, userIDs); err != nil {
			return err
		}
		var err error
		out, err = offeringReviewers(ctx, x, offeringID)
		return err
	})
	if err != nil {
		return out, fmt.Errorf("remove reviewers of offering %d: %w", offeringID, err)
	}
	return out, nil
}
