package postgres

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"counsel/domain"
	"counsel/domain/account"
	"counsel/domain/decimal"
	"counsel/domain/remuneration"
	"counsel/domain/user"
	"counsel/ports"
)

// UserStore implements ports.UserStore.
type UserStore struct{ db *DB }

var _ ports.UserStore = (*UserStore)(nil)

// NewUserStore returns the user store of db.
func NewUserStore(db *DB) *UserStore { return &UserStore{db: db} }

// Storage scales of the fixed-point columns, as on SQLite.
const (
	centPlaces    = remuneration.MoneyPlaces
	ftePlaces     = remuneration.FTEPlaces
	percentPlaces = remuneration.PercentPlaces
	pqyPlaces     = remuneration.PQYPlaces
)

func scaled(field string, d decimal.Decimal, places int32) (int64, error) {
	v, ok := d.Round(places).Scaled(places)
	if !ok {
		return 0, fmt.Errorf("%s %s does not fit the column", field, d)
	}
	return v, nil
}

func searchKey(first, last, email string) string { return user.SearchKey(first, last, email) }

const userCols = `u.id, u.email, u.first_name, u.last_name, u.contact_number, u.profile_picture_url,
	u.billing_rate, u.active, u.is_legal, u.is_staff, u.admission_date, u.office_id,
	u.address1, u.address2, u.suburb, u.state, u.postcode, u.country,
	o.name, o.phone, o.website, o.active, o.address1, o.address2, o.suburb, o.state, o.postcode, o.country`

const userJoin = `users u LEFT JOIN offices o ON o.id = u.office_id`

// userOrder is the order of every user list, which users_list serves:
// ASCII case folded, byte order, as SQLite's NOCASE.
const userOrder = `lower(u.last_name COLLATE "C"), lower(u.first_name COLLATE "C"), u.id`

// userOrderDesc is userOrder reversed (the console's Sort=desc), as on
// SQLite; the same index is read backwards.
const userOrderDesc = `lower(u.last_name COLLATE "C") DESC, lower(u.first_name COLLATE "C") DESC, u.id DESC`

type userScan struct {
	u                                         user.User
	rate                                      int64
	admission                                 *time.Time
	officeID                                  *int64
	on, oph, ow, oa1, oa2, osu, ost, opc, oco *string
	oact                                      *bool
	dest                                      []any
}

func newUserScan() *userScan {
	s := &userScan{}
	u, a := &s.u, &s.u.Address
	s.dest = []any{&u.ID, &u.Email, &u.FirstName, &u.LastName, &u.ContactNumber, &u.ProfilePictureURL,
		&s.rate, &u.Active, &u.IsLegal, &u.IsStaff, &s.admission, &s.officeID,
		&a.Address1, &a.Address2, &a.Suburb, &a.State, &a.Postcode, &a.Country,
		&s.on, &s.oph, &s.ow, &s.oact, &s.oa1, &s.oa2, &s.osu, &s.ost, &s.opc, &s.oco}
	return s
}

func str(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

func (s *userScan) user() user.User {
	u := s.u
	u.BillingRate = decimal.FromScaled(s.rate, centPlaces)
	u.AdmissionDate = utcp(s.admission)
	u.OfficeID, u.Office = 0, nil
	if s.officeID != nil {
		u.OfficeID = *s.officeID
		u.Office = &user.Office{ID: *s.officeID, Name: str(s.on), Phone: str(s.oph), Website: str(s.ow), Active: s.oact != nil && *s.oact,
			Address: user.Address{Address1: str(s.oa1), Address2: str(s.oa2), Suburb: str(s.osu), State: str(s.ost),
				Postcode: str(s.opc), Country: str(s.oco)}}
	}
	return u
}

func userDest(u *user.User) (dest []any, finish func()) {
	s := newUserScan()
	return s.dest, func() { *u = s.user() }
}

// userWhere turns a filter into WHERE conditions on users u.
func userWhere(f user.Filter) (string, []any) {
	conds := []string{"u.deleted_at IS NULL"}
	var args []any
	add := func(cond string, a ...any) {
		conds = append(conds, cond)
		args = append(args, a...)
	}
	if f.Active != nil {
		add("u.active = ?", *f.Active)
	}
	if f.RequireBillingRate {
		add("u.billing_rate > 0")
	}
	if f.Search != "" {
		// Both sides are folded already; the trigram index answers LIKE.
		add(`u.search_key LIKE ? ESCAPE '\'`, "%"+escapeLike(f.SearchTerm())+"%")
	}
	if f.IsLegal != nil {
		add("u.is_legal = ?", *f.IsLegal)
	}
	if f.IsStaff != nil {
		add("u.is_staff = ?", *f.IsStaff)
	}
	if f.OfficeID != nil {
		add("u.office_id = ?", *f.OfficeID)
	}
	if f.Reviewers {
		if len(f.OfferingIDs) == 0 {
			add("EXISTS (SELECT 1 FROM offering_reviewers rv WHERE rv.user_id = u.id)")
		} else {
			add(`u.id IN (SELECT user_id FROM offering_reviewers WHERE offering_id = ANY (?)
				GROUP BY user_id HAVING count(*) = ?)`, f.OfferingIDs, len(f.OfferingIDs))
		}
	}
	return strings.Join(conds, " AND "), args
}

// escapeLike escapes LIKE's wildcards with a backslash.
func escapeLike(s string) string {
	return strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(s)
}

// Users implements ports.UserStore.
func (s *UserStore) Users(ctx context.Context, f user.Filter) ([]user.User, int64, error) {
	where, args := userWhere(f)
	var count int64
	out := []user.User{}
	if strings.ContainsRune(f.Search, 0) {
		return out, 0, nil // no stored text holds NUL
	}
	err := s.db.readTx(ctx, func(x q) error {
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
		rows, err := x.query(ctx, `SELECT `+userCols+` FROM `+userJoin+` WHERE `+where+
			` ORDER BY `+order+` LIMIT ? OFFSET ?`, append(args, f.Limit, f.Offset)...)
		if err != nil {
			return err
		}
		defer rows.Close()
		sc := newUserScan()
		for rows.Next() {
			if err := rows.Scan(sc.dest...); err != nil {
				return err
			}
			out = append(out, sc.user())
		}
		return rows.Err()
	})
	if err != nil {
		return nil, 0, fmt.Errorf("list users: %w", err)
	}
	return out, count, nil
}

func loadUser(ctx context.Context, x q, id int64, lock string) (user.User, error) {
	var u user.User
	dest, finish := userDest(&u)
	err := x.row(ctx, `SELECT `+userCols+` FROM `+userJoin+` WHERE u.id = ? AND u.deleted_at IS NULL`+lock, id).Scan(dest...)
	if noRows(err) {
		return u, notFound("user")
	} else if err != nil {
		return u, err
	}
	finish()
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
	var rid, fte, inc, rate, pct *int64
	var starts, ends []time.Time
	dest, finish := userDest(&p.User)
	err := x.row(ctx, `SELECT `+userCols+`,
		r.id, r.fte_load, r.remuneration_inc_super, r.billing_rate, r.billable_percentage,
		coalesce((SELECT array_agg(start_date ORDER BY id) FROM pqe_adjustments WHERE staff_id = u.id), '{}'),
		coalesce((SELECT array_agg(end_date ORDER BY id) FROM pqe_adjustments WHERE staff_id = u.id), '{}')
		FROM `+userJoin+`
		LEFT JOIN LATERAL (SELECT * FROM remunerations WHERE staff_id = u.id
			ORDER BY remuneration_date DESC, id DESC LIMIT 1) r ON true
		WHERE u.id = ? AND u.deleted_at IS NULL`, id).
		Scan(append(dest, &rid, &fte, &inc, &rate, &pct, &starts, &ends)...)
	if noRows(err) {
		return p, notFound("user")
	} else if err != nil {
		return p, err
	}
	finish()
	if rid != nil {
		p.Latest = &remuneration.Remuneration{ID: *rid, StaffID: id,
			FTELoad:              decimal.FromScaled(*fte, ftePlaces),
			RemunerationIncSuper: decimal.FromScaled(*inc, centPlaces),
			BillingRate:          decimal.FromScaled(*rate, centPlaces),
			BillablePercentage:   decimal.FromScaled(*pct, percentPlaces)}
	}
	p.Adjustments = periods(starts, ends)
	if withRoles {
		if p.Roles, err = loadRoles(ctx, x, "JOIN user_roles ur ON ur.role_id = r.id AND ur.user_id = ?", id); err != nil {
			return p, err
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
		return s.db.profiles.get(id, s.db.Now(), func() (user.Profile, error) {
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

func userArgs(u user.User) ([]any, error) {
	rate, err := scaled("billingRate", u.BillingRate, centPlaces)
	if err != nil {
		return nil, err
	}
	var office any
	if u.OfficeID != 0 {
		office = u.OfficeID
	}
	a := u.Address
	return []any{u.Email, u.FirstName, u.LastName, u.ContactNumber, u.ProfilePictureURL, rate,
		u.Active, u.IsLegal, u.IsStaff, nullTime(u.AdmissionDate), office,
		a.Address1, a.Address2, a.Suburb, a.State, a.Postcode, a.Country,
		searchKey(u.FirstName, u.LastName, u.Email)}, nil
}

const userWriteCols = `email, first_name, last_name, contact_number, profile_picture_url, billing_rate,
	active, is_legal, is_staff, admission_date, office_id,
	address1, address2, suburb, state, postcode, country, search_key`

func officeExists(ctx context.Context, x q, id int64) error {
	var one int
	err := x.row(ctx, `SELECT 1 FROM offices WHERE id = ?`, id).Scan(&one)
	if noRows(err) {
		return &domain.Error{Code: domain.ENOTFOUND, Message: "office " + strconv.FormatInt(id, 10) + " not found"}
	}
	return err
}

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
				return &domain.Error{Code: domain.ENOTFOUND, Message: "role " + strconv.FormatInt(rid, 10) + " not found"}
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
		if err := runRoleCheck(ctx, x, 0, check); err != nil {
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
	return ids, err
}

// UpdateUser implements ports.UserStore. The user's row is locked, and
// the last-administrator rule is decided under a transaction-level
// advisory lock, so two instances cannot each remove one of the last two.
func (s *UserStore) UpdateUser(ctx context.Context, id int64, roleIDs *[]int64, check account.RoleCheck, fn func(*user.User) error, keep account.AdminRule) (user.Profile, error) {
	var p user.Profile
	err := s.db.profileTx(ctx, func(x q) error {
		if err := runRoleCheck(ctx, x, id, check); err != nil {
			return err
		}
		err := guardLastAdmin(ctx, x, keep, func() error {
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
		err := guardLastAdmin(ctx, x, keep, func() error {
			n, err := x.exec(ctx, `UPDATE users SET deleted_at = ?, updated_at = ? WHERE id = ? AND deleted_at IS NULL`, at, at, id)
			if err != nil {
				return err
			}
			if n == 0 {
				return notFound("user")
			}
			return nil
		})
		if err != nil {
			return err
		}
		return revokeUserSessions(ctx, x, id, at)
	})
}

const officeCols = `id, name, phone, website, active, address1, address2, suburb, state, postcode, country`

func scanOffice(row interface{ Scan(...any) error }) (user.Office, error) {
	var o user.Office
	a := &o.Address
	err := row.Scan(&o.ID, &o.Name, &o.Phone, &o.Website, &o.Active, &a.Address1, &a.Address2, &a.Suburb, &a.State, &a.Postcode, &a.Country)
	if noRows(err) {
		return o, notFound("office")
	}
	return o, err
}

// Offices implements ports.UserStore.
func (s *UserStore) Offices(ctx context.Context) ([]user.Office, error) {
	rows, err := s.db.read().query(ctx, `SELECT `+officeCols+` FROM offices ORDER BY lower(name COLLATE "C"), id`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []user.Office{}
	for rows.Next() {
		o, err := scanOffice(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, o)
	}
	return out, rows.Err()
}

// Office implements ports.UserStore.
func (s *UserStore) Office(ctx context.Context, id int64) (user.Office, error) {
	return scanOffice(s.db.read().row(ctx, `SELECT `+officeCols+` FROM offices WHERE id = ?`, id))
}

func officeArgs(o user.Office) []any {
	a := o.Address
	return []any{o.Name, o.Phone, o.Website, o.Active, a.Address1, a.Address2, a.Suburb, a.State, a.Postcode, a.Country}
}

const officeWriteCols = `name, phone, website, active, address1, address2, suburb, state, postcode, country`

// CreateOffice implements ports.UserStore.
func (s *UserStore) CreateOffice(ctx context.Context, o user.Office) (user.Office, error) {
	err := s.db.profileTx(ctx, func(x q) error {
		now := s.db.Now()
		args := append(officeArgs(o), now, now)
		return x.row(ctx, `INSERT INTO offices (`+officeWriteCols+`, created_at, updated_at) VALUES (`+placeholders(len(args))+`) RETURNING id`, args...).Scan(&o.ID)
	})
	return o, err
}

// UpdateOffice implements ports.UserStore.
func (s *UserStore) UpdateOffice(ctx context.Context, id int64, fn func(*user.Office) error) (user.Office, error) {
	var o user.Office
	err := s.db.profileTx(ctx, func(x q) error {
		var err error
		if o, err = scanOffice(x.row(ctx, `SELECT `+officeCols+` FROM offices WHERE id = ? FOR UPDATE`, id)); err != nil {
			return err
		}
		if err := fn(&o); err != nil {
			return err
		}
		o.ID = id
		args := append(officeArgs(o), s.db.Now(), id)
		_, err = x.exec(ctx, `UPDATE offices SET (`+officeWriteCols+`, updated_at) = (`+placeholders(len(args)-1)+`) WHERE id = ?`, args...)
		return err
	})
	return o, err
}

func offeringReviewers(ctx context.Context, x q, offeringID int64) ([]int64, error) {
	rows, err := x.query(ctx, `SELECT rv.user_id FROM offering_reviewers rv
		JOIN users u ON u.id = rv.user_id AND u.deleted_at IS NULL
		WHERE rv.offering_id = ? ORDER BY rv.user_id`, offeringID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []int64{}
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		out = append(out, id)
	}
	return out, rows.Err()
}

// AddReviewers implements ports.UserStore.
func (s *UserStore) AddReviewers(ctx context.Context, offeringID int64, userIDs []int64) ([]int64, error) {
	var out []int64
	err := s.db.profileTx(ctx, func(x q) error {
		rows, err := x.query(ctx, `SELECT id FROM users WHERE deleted_at IS NULL AND id = ANY (?)`, userIDs)
		if err != nil {
			return err
		}
		known := map[int64]bool{}
		for rows.Next() {
			var id int64
			if err := rows.Scan(&id); err != nil {
				rows.Close()
				return err
			}
			known[id] = true
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		for _, id := range userIDs {
			if !known[id] {
				return &domain.Error{Code: domain.ENOTFOUND, Message: "user " + strconv.FormatInt(id, 10) + " not found"}
			}
		}
		if _, err := x.exec(ctx, `INSERT INTO offering_reviewers (offering_id, user_id) SELECT ?, unnest(?::bigint[]) ON CONFLICT DO NOTHING`,
			offeringID, userIDs); err != nil {
			return err
		}
		out, err = offeringReviewers(ctx, x, offeringID)
		return err
	})
	return out, err
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
	return out, err
}
