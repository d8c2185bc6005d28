package sqlrow

import (
	"context"
	"fmt"
	"strings"
	"time"

	"counsel/domain/account"
	"counsel/domain/user"
	"counsel/ports"
)

// ProfileReader reads a user's profile (user, office, latest
// remuneration, adjustment periods) in one query, in the engine's SQL,
// and the roles in a second when withRoles.
type ProfileReader interface {
	LoadProfile(ctx context.Context, x Querier, id int64, withRoles bool) (user.Profile, error)
}

// UserStore is ports.UserStore on any Engine but for the list and the
// cached profile, which each engine plans and caches its own way. Every
// write runs in ProfileTx.
type UserStore struct {
	e Engine
	p ProfileReader
}

// NewUserStore returns the user store of e.
func NewUserStore(e Engine, p ProfileReader) UserStore { return UserStore{e: e, p: p} }

// UserOrder is the order of every user list (last name, first name, id,
// case folded), which the users_list index serves; desc reads it
// backwards.
func UserOrder(d Dialect, desc bool) string {
	dir := ""
	if desc {
		dir = " DESC"
	}
	return d.Fold("u.last_name") + dir + ", " + d.Fold("u.first_name") + dir + ", u.id" + dir
}

// UserProfileRoles reads the roles of a profile's user.
func UserProfileRoles(ctx context.Context, x Querier, d Dialect, p *user.Profile) error {
	var err error
	if p.Roles, err = Roles(ctx, x, "JOIN user_roles ur ON ur.role_id = r.id AND ur.user_id = ?", RoleOrder(d), p.ID); err != nil {
		return fmt.Errorf("load roles of user %d: %w", p.ID, err)
	}
	return nil
}

func (s UserStore) loadUser(ctx context.Context, x Querier, id int64, lock string) (user.User, error) {
	u, err := ScanUser(s.e, x.Row(ctx, LoadUserSQL+lock, id))
	if err != nil {
		return u, fmt.Errorf("load user %d: %w", id, err)
	}
	return u, nil
}

// User implements ports.UserStore.
func (s UserStore) User(ctx context.Context, id int64) (user.User, error) {
	return s.loadUser(ctx, s.e.Read(), id, "")
}

// userArgs are the values of userWriteCols.
func userArgs(tc Times, u user.User) ([]any, error) {
	args, err := UserArgs(tc, u)
	return append(args, user.SearchKey(u.FirstName, u.LastName, u.Email)), err
}

// userWriteCols are UserWriteCols and the search key, which changes with
// the names and the email.
const userWriteCols = UserWriteCols + `, search_key`

// setUserRoles gives a user exactly the roles ids, or the default roles
// when ids is nil.
func setUserRoles(ctx context.Context, x Querier, userID int64, ids *[]int64) error {
	if _, err := x.Exec(ctx, `DELETE FROM user_roles WHERE user_id = ?`, userID); err != nil {
		return err
	}
	if ids == nil {
		_, err := x.Exec(ctx, `INSERT INTO user_roles (user_id, role_id) SELECT ?, id FROM roles WHERE is_default_role = ?`, userID, true)
		return err
	}
	for _, rid := range *ids {
		n, err := x.Exec(ctx, `INSERT INTO user_roles (user_id, role_id) SELECT ?, id FROM roles WHERE id = ? ON CONFLICT DO NOTHING`, userID, rid)
		if err != nil {
			return err
		}
		if n == 0 {
			var one int
			if err := x.Row(ctx, `SELECT 1 FROM roles WHERE id = ?`, rid).Scan(&one); NoRows(err) {
				return NotFoundID("role", rid)
			} else if err != nil {
				return err
			}
		}
	}
	return nil
}

// CreateUser implements ports.UserStore.
func (s UserStore) CreateUser(ctx context.Context, u user.User, passwordHash string, fn func(*user.Aggregate) error) (user.Profile, error) {
	var p user.Profile
	err := s.e.ProfileTx(ctx, func(x Querier) error {
		others, err := countAdmins(ctx, x, 0)
		if err != nil {
			return err
		}
		agg := user.NewAggregate(u, nil, others, roleLookup{ctx, s.e, x})
		if fn != nil {
			if err := fn(agg); err != nil {
				return err
			}
		}
		id, err := insertUser(ctx, x, s.e, agg.User, passwordHash, s.e.Now())
		if err != nil {
			return err
		}
		ports.Created(ctx, id)
		if err := setUserRoles(ctx, x, id, agg.NewRoleIDs()); err != nil {
			return err
		}
		p, err = s.p.LoadProfile(ctx, x, id, true)
		return err
	})
	return p, err
}

// insertUser inserts u with the password hash; the one statement that
// adds users (CreateUser, CreateUsers, CreateAccountUser). ENOTFOUND for
// an unknown office, ECONFLICT for a taken email.
func insertUser(ctx context.Context, x Querier, d Dialect, u user.User, passwordHash string, now time.Time) (int64, error) {
	if u.OfficeID != 0 {
		if err := OfficeExists(ctx, x, u.OfficeID); err != nil {
			return 0, err
		}
	}
	args, err := userArgs(d, u)
	if err != nil {
		return 0, err
	}
	args = append(args, passwordHash, d.Arg(now), d.Arg(now))
	id, err := x.Insert(ctx, `INSERT INTO users (`+userWriteCols+`, password_hash, created_at, updated_at)
		VALUES (`+Placeholders(len(args))+`)`, args...)
	if err != nil {
		return 0, EmailTaken(d, err)
	}
	return id, nil
}

// CreateUsers adds many users in one transaction, with the default roles
// and no password (imports, and benchmarks that need a large directory
// quickly). ECONFLICT for a taken email.
func (s UserStore) CreateUsers(ctx context.Context, us []user.User) ([]int64, error) {
	ids := make([]int64, 0, len(us))
	err := s.e.ProfileTx(ctx, func(x Querier) error {
		now := s.e.Now()
		for _, u := range us {
			id, err := insertUser(ctx, x, s.e, u, "", now)
			if err != nil {
				return err
			}
			ports.Created(ctx, id)
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
	return ids, nil
}

// roleLookup is user.RoleLookup in a transaction: each role it returns
// is locked (LockRole) until commit.
type roleLookup struct {
	ctx context.Context
	e   Engine
	x   Querier
}

func (l roleLookup) Role(id int64) (account.Role, error) { return LockRole(l.ctx, l.e, l.x, id) }

func (l roleLookup) RoleNamed(name string) (account.Role, error) {
	var id int64
	if err := l.x.Row(l.ctx, `SELECT id FROM roles WHERE name = ?`, name).Scan(&id); err != nil {
		return account.Role{}, fmt.Errorf("find role %q: %w", name, IfNoRows(err, "role"))
	}
	return l.Role(id)
}

// loadAggregate reads user id's aggregate for a change: under
// LockAdministrators (Serialize), so the administrators it counts stay
// as counted until commit, with the user's row locked (LockRow).
// ENOTFOUND for an unknown or deleted user.
func (s UserStore) loadAggregate(ctx context.Context, x Querier, id int64) (*user.Aggregate, error) {
	if err := s.e.Serialize(ctx, x, LockAdministrators); err != nil {
		return nil, fmt.Errorf("lock the administrators: %w", err)
	}
	lock := ""
	if s.e.LockRow() != "" {
		lock = s.e.LockRow() + " OF u"
	}
	u, err := s.loadUser(ctx, x, id, lock)
	if err != nil {
		return nil, err
	}
	held, err := Roles(ctx, x, "JOIN user_roles ur ON ur.role_id = r.id AND ur.user_id = ?", RoleOrder(s.e), id)
	if err != nil {
		return nil, fmt.Errorf("load roles of user %d: %w", id, err)
	}
	others, err := countAdmins(ctx, x, id)
	if err != nil {
		return nil, err
	}
	return user.NewAggregate(u, held, others, roleLookup{ctx, s.e, x}), nil
}

// UpdateUser implements ports.UserStore.
func (s UserStore) UpdateUser(ctx context.Context, id int64, fn func(*user.Aggregate) error) (user.Profile, error) {
	var p user.Profile
	err := s.e.ProfileTx(ctx, func(x Querier) error {
		agg, err := s.loadAggregate(ctx, x, id)
		if err != nil {
			return err
		}
		before := agg.User
		if err := fn(agg); err != nil {
			return err
		}
		u := agg.User
		if u.OfficeID != 0 && u.OfficeID != before.OfficeID {
			if err := OfficeExists(ctx, x, u.OfficeID); err != nil {
				return err
			}
		}
		args, err := userArgs(s.e, u)
		if err != nil {
			return err
		}
		if _, err := x.Exec(ctx, `UPDATE users SET (`+userWriteCols+`, updated_at) = (`+Placeholders(len(args)+1)+`)
			WHERE id = ?`, append(args, s.e.Arg(s.e.Now()), id)...); err != nil {
			return EmailTaken(s.e, err)
		}
		if ids := agg.NewRoleIDs(); ids != nil {
			if err := setUserRoles(ctx, x, id, ids); err != nil {
				return err
			}
		}
		p, err = s.p.LoadProfile(ctx, x, id, true)
		return err
	})
	return p, err
}

// DeleteUser implements ports.UserStore: the user is soft-deleted and
// every session ended.
func (s UserStore) DeleteUser(ctx context.Context, id int64, at time.Time, fn func(*user.Aggregate) error) error {
	return s.e.ProfileTx(ctx, func(x Querier) error {
		agg, err := s.loadAggregate(ctx, x, id)
		if err != nil {
			return err
		}
		agg.Delete()
		if fn != nil {
			if err := fn(agg); err != nil {
				return err
			}
		}
		if _, err := x.Exec(ctx, `UPDATE users SET deleted_at = ?, updated_at = ? WHERE id = ?`, s.e.Arg(at), s.e.Arg(at), id); err != nil {
			return err
		}
		return RevokeUserSessions(ctx, x, s.e, id, at)
	})
}

// Offices implements ports.UserStore.
func (s UserStore) Offices(ctx context.Context) ([]user.Office, error) {
	out, err := QueryAll(ctx, s.e.Read(), ScanOffice, `SELECT `+OfficeCols+` FROM offices ORDER BY `+s.e.Fold("name")+`, id`)
	if err != nil {
		return nil, fmt.Errorf("list offices: %w", err)
	}
	return out, nil
}

// Office implements ports.UserStore.
func (s UserStore) Office(ctx context.Context, id int64) (user.Office, error) {
	o, err := ScanOffice(s.e.Read().Row(ctx, `SELECT `+OfficeCols+` FROM offices WHERE id = ?`, id))
	if err != nil {
		return o, fmt.Errorf("load office %d: %w", id, err)
	}
	return o, nil
}

// CreateOffice implements ports.UserStore.
func (s UserStore) CreateOffice(ctx context.Context, o user.Office) (user.Office, error) {
	err := s.e.ProfileTx(ctx, func(x Querier) error {
		now := s.e.Arg(s.e.Now())
		args := append(OfficeArgs(o), now, now)
		var err error
		if o.ID, err = x.Insert(ctx, `INSERT INTO offices (`+OfficeWriteCols+`, created_at, updated_at) VALUES (`+Placeholders(len(args))+`)`, args...); err != nil {
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
func (s UserStore) UpdateOffice(ctx context.Context, id int64, fn func(*user.Office) error) (user.Office, error) {
	var o user.Office
	err := s.e.ProfileTx(ctx, func(x Querier) error {
		var err error
		if o, err = ScanOffice(x.Row(ctx, `SELECT `+OfficeCols+` FROM offices WHERE id = ?`+s.e.LockRow(), id)); err != nil {
			return fmt.Errorf("load office %d: %w", id, err)
		}
		if err := fn(&o); err != nil {
			return err
		}
		o.ID = id
		args := append(OfficeArgs(o), s.e.Arg(s.e.Now()), id)
		_, err = x.Exec(ctx, `UPDATE offices SET (`+OfficeWriteCols+`, updated_at) = (`+Placeholders(len(args)-1)+`) WHERE id = ?`, args...)
		return err
	})
	return o, err
}

// offeringReviewers lists the undeleted reviewers of an offering by id.
func offeringReviewers(ctx context.Context, x Querier, offeringID int64) ([]int64, error) {
	out, err := QueryAll(ctx, x, ID, OfferingReviewersSQL, offeringID)
	if err != nil {
		return nil, fmt.Errorf("list reviewers of offering %d: %w", offeringID, err)
	}
	return out, nil
}

// AddReviewers implements ports.UserStore: the first unknown id is found
// in one query rather than one per user.
func (s UserStore) AddReviewers(ctx context.Context, offeringID int64, userIDs []int64) ([]int64, error) {
	var out []int64
	err := s.e.ProfileTx(ctx, func(x Querier) error {
		in, args := s.e.In("id", userIDs)
		rows, err := x.Query(ctx, `SELECT id FROM users WHERE deleted_at IS NULL AND `+in, args...)
		if err != nil {
			return err
		}
		err = MissingID(rows, userIDs, "user")
		rows.Close()
		if err != nil {
			return err
		}
		pairs := make([]any, 0, 2*len(userIDs))
		for _, id := range userIDs {
			pairs = append(pairs, offeringID, id)
		}
		if _, err := x.Exec(ctx, `INSERT INTO offering_reviewers (offering_id, user_id) VALUES `+
			strings.TrimSuffix(strings.Repeat("(?, ?), ", len(userIDs)), ", ")+` ON CONFLICT DO NOTHING`, pairs...); err != nil {
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
func (s UserStore) RemoveReviewers(ctx context.Context, offeringID int64, userIDs []int64) ([]int64, error) {
	var out []int64
	err := s.e.ProfileTx(ctx, func(x Querier) error {
		in, args := s.e.In("user_id", userIDs)
		if _, err := x.Exec(ctx, `DELETE FROM offering_reviewers WHERE offering_id = ? AND `+in, append([]any{offeringID}, args...)...); err != nil {
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
