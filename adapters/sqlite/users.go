package sqlite

import (
	"context"
	"database/sql"
	"errors"
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

// Storage scales of the fixed-point columns.
const (
	centPlaces    = remuneration.MoneyPlaces   // money: INTEGER cents
	ftePlaces     = remuneration.FTEPlaces     // fte_load: ten-thousandths
	percentPlaces = remuneration.PercentPlaces // billable_percentage: hundredths
	pqyPlaces     = remuneration.PQYPlaces     // pqy: hundredths
)

// scaled encodes d as an INTEGER with places fraction digits. Inputs are
// validated and rounded before they get here, so a value that does not fit
// is a bug, reported rather than silently truncated.
func scaled(field string, d decimal.Decimal, places int32) (int64, error) {
	v, ok := d.Round(places).Scaled(places)
	if !ok {
		return 0, fmt.Errorf("%s %s does not fit the column", field, d)
	}
	return v, nil
}

// userCols are the columns scanUser reads, from users u LEFT JOIN offices o.
const userCols = `u.id, u.email, u.first_name, u.last_name, u.contact_number, u.profile_picture_url,
	u.billing_rate, u.active, u.is_legal, u.is_staff, u.admission_date, u.office_id,
	u.address1, u.address2, u.suburb, u.state, u.postcode, u.country,
	o.name, o.phone, o.website, o.active, o.address1, o.address2, o.suburb, o.state, o.postcode, o.country`

// userJoin is the FROM clause of userCols.
const userJoin = `users u LEFT JOIN offices o ON o.id = u.office_id`

// userOrder is the order of every user list: last name, first name, id,
// which the users_list index serves.
const userOrder = `u.last_name COLLATE NOCASE, u.first_name COLLATE NOCASE, u.id`

// userOrderDesc is userOrder reversed; the same index is read backwards.
const userOrderDesc = `u.last_name COLLATE NOCASE DESC, u.first_name COLLATE NOCASE DESC, u.id DESC`

// userScan holds the scan destinations of userCols. Lists reuse one for
// every row rather than allocating the nullable office columns per row.
type userScan struct {
	u                                         user.User
	rate                                      int64
	admission, officeID                       sql.NullInt64
	on, oph, ow, oa1, oa2, osu, ost, opc, oco sql.NullString
	oact                                      sql.NullBool
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

// user returns the scanned user.
func (s *userScan) user() user.User {
	u := s.u
	u.BillingRate = decimal.FromScaled(s.rate, centPlaces)
	u.AdmissionDate = fromNullMs(s.admission)
	u.OfficeID, u.Office = 0, nil
	if s.officeID.Valid {
		u.OfficeID = s.officeID.Int64
		u.Office = &user.Office{ID: s.officeID.Int64, Name: s.on.String, Phone: s.oph.String, Website: s.ow.String, Active: s.oact.Bool,
			Address: user.Address{Address1: s.oa1.String, Address2: s.oa2.String, Suburb: s.osu.String, State: s.ost.String,
				Postcode: s.opc.String, Country: s.oco.String}}
	}
	return u
}

// userDest returns the scan destinations of userCols for u; finish
// completes u after the scan.
func userDest(u *user.User) (dest []any, finish func()) {
	s := newUserScan()
	return s.dest, func() { *u = s.user() }
}

// scanUser reads userCols (then extra) from row.
func scanUser(row rowScanner, extra ...any) (user.User, error) {
	var u user.User
	dest, finish := userDest(&u)
	if err := row.Scan(append(dest, extra...)...); err != nil {
		return u, err
	}
	finish()
	return u, nil
}

// noFilter is userWhere's condition for a filter that selects every user.
const noFilter = "u.deleted_at IS NULL"

// userWhere turns a filter into the WHERE conditions (on users u) and
// their arguments. Deleted users never match.
func userWhere(f user.Filter) (string, []any) {
	conds := []string{noFilter}
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
		// GLOB, case-sensitive on keys and terms that are both folded
		// already, costs a fifth of instr per row in a full scan.
		add("u.search_key GLOB ?", "*"+globEscape(f.SearchTerm())+"*")
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
	if f.StaffID != 0 {
		add("u.id = ?", f.StaffID)
	}
	if f.Reviewers {
		if len(f.OfferingIDs) == 0 {
			add("EXISTS (SELECT 1 FROM offering_reviewers rv WHERE rv.user_id = u.id)")
		} else {
			// Permitted for every listed offering: one pair per offering.
			// The ids are distinct (Filter.Normalize).
			args2 := make([]any, 0, len(f.OfferingIDs)+1)
			for _, id := range f.OfferingIDs {
				args2 = append(args2, id)
			}
			args2 = append(args2, len(f.OfferingIDs))
			add(`u.id IN (SELECT user_id FROM offering_reviewers WHERE offering_id IN (`+placeholders(len(f.OfferingIDs))+`)
				GROUP BY user_id HAVING count(*) = ?)`, args2...)
		}
	}
	return strings.Join(conds, " AND "), args
}

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
	where, args := userWhere(f)
	var count int64
	out := []user.User{}
	err := s.db.readTx(ctx, func(tx *sql.Tx) error {
		if f.Limit > 0 {
			order := userOrder
			if f.SortDesc {
				order = userOrderDesc
			}
			rows, err := tx.QueryContext(ctx, `SELECT `+userCols+` FROM `+userJoin+` WHERE `+where+
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
			if err := rows.Err(); err != nil {
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
		if where != noFilter {
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
	u, err := scanUser(q.QueryRowContext(ctx, `SELECT `+userCols+` FROM `+userJoin+` WHERE u.id = ? AND u.deleted_at IS NULL`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return u, notFound("user")
	}
	return u, err
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
	var rid, fte, inc, rate, pct sql.NullInt64
	var periods sql.NullString
	dest, finish := userDest(&p.User)
	err := q.QueryRowContext(ctx, `SELECT `+userCols+`,
		r.id, r.fte_load, r.remuneration_inc_super, r.billing_rate, r.billable_percentage,
		(SELECT group_concat(start_date || ',' || end_date, ';') FROM pqe_adjustments WHERE staff_id = u.id)
		FROM `+userJoin+`
		LEFT JOIN remunerations r ON r.id = (SELECT id FROM remunerations WHERE staff_id = u.id
			ORDER BY remuneration_date DESC, id DESC LIMIT 1)
		WHERE u.id = ? AND u.deleted_at IS NULL`, id).
		Scan(append(dest, &rid, &fte, &inc, &rate, &pct, &periods)...)
	if errors.Is(err, sql.ErrNoRows) {
		return p, notFound("user")
	} else if err != nil {
		return p, err
	}
	finish()
	if rid.Valid {
		p.Latest = &remuneration.Remuneration{ID: rid.Int64, StaffID: id,
			FTELoad:              decimal.FromScaled(fte.Int64, ftePlaces),
			RemunerationIncSuper: decimal.FromScaled(inc.Int64, centPlaces),
			BillingRate:          decimal.FromScaled(rate.Int64, centPlaces),
			BillablePercentage:   decimal.FromScaled(pct.Int64, percentPlaces)}
	}
	if p.Adjustments, err = parsePeriods(periods.String); err != nil {
		return p, err
	}
	if withRoles {
		if p.Roles, err = loadRoles(ctx, q, "JOIN user_roles ur ON ur.role_id = r.id AND ur.user_id = ?", id); err != nil {
			return p, err
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
		return s.db.profiles.get(id, s.db.Now(), func() (user.Profile, error) {
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

// userArgs are the values of the writable user columns, in the order of
// userWriteCols.
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
		u.Active, u.IsLegal, u.IsStaff, nullMs(u.AdmissionDate), office,
		a.Address1, a.Address2, a.Suburb, a.State, a.Postcode, a.Country}, nil
}

const userWriteCols = `email, first_name, last_name, contact_number, profile_picture_url, billing_rate,
	active, is_legal, is_staff, admission_date, office_id,
	address1, address2, suburb, state, postcode, country`

func officeExists(ctx context.Context, q queryer, id int64) error {
	var one int
	err := q.QueryRowContext(ctx, `SELECT 1 FROM offices WHERE id = ?`, id).Scan(&one)
	if errors.Is(err, sql.ErrNoRows) {
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
				return &domain.Error{Code: domain.ENOTFOUND, Message: "role " + strconv.FormatInt(rid, 10) + " not found"}
			}
		}
	}
	return nil
}

// CreateUser implements ports.UserStore.
func (s *UserStore) CreateUser(ctx context.Context, u user.User, passwordHash string, roleIDs *[]int64, check account.RoleCheck) (user.Profile, error) {
	var p user.Profile
	err := s.db.profileWriteTx(ctx, func(tx *sql.Tx) error {
		if err := runRoleCheck(ctx, tx, 0, check); err != nil {
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
	args, err := userArgs(u)
	if err != nil {
		return 0, err
	}
	args = append(args, user.SearchKey(u.FirstName, u.LastName, u.Email), passwordHash, ms(now), ms(now))
	res, err := tx.ExecContext(ctx, `INSERT INTO users (`+userWriteCols+`, search_key, password_hash, created_at, updated_at)
		VALUES (`+placeholders(len(args))+`)`, args...)
	if err != nil {
		return 0, emailTaken(err)
	}
	return res.LastInsertId()
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
	return ids, err
}

// UpdateUser implements ports.UserStore.
func (s *UserStore) UpdateUser(ctx context.Context, id int64, roleIDs *[]int64, check account.RoleCheck, fn func(*user.User) error, keep account.AdminRule) (user.Profile, error) {
	var p user.Profile
	err := s.db.profileWriteTx(ctx, func(tx *sql.Tx) error {
		if err := runRoleCheck(ctx, tx, id, check); err != nil {
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
		err = guardLastAdmin(ctx, tx, keep, func() error {
			args, err := userArgs(u)
			if err != nil {
				return err
			}
			if _, err := tx.ExecContext(ctx, `UPDATE users SET (`+userWriteCols+`, updated_at) = (`+placeholders(len(args)+1)+`)
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
		err := guardLastAdmin(ctx, tx, keep, func() error {
			res, err := tx.ExecContext(ctx, `UPDATE users SET deleted_at = ?, updated_at = ? WHERE id = ? AND deleted_at IS NULL`, ms(at), ms(at), id)
			if err != nil {
				return err
			}
			if n, _ := res.RowsAffected(); n == 0 {
				return notFound("user")
			}
			return nil
		})
		if err != nil {
			return err
		}
		return revokeUserSessions(ctx, tx, id, at)
	})
}

const officeCols = `id, name, phone, website, active, address1, address2, suburb, state, postcode, country`

func scanOffice(row rowScanner) (user.Office, error) {
	var o user.Office
	a := &o.Address
	err := row.Scan(&o.ID, &o.Name, &o.Phone, &o.Website, &o.Active, &a.Address1, &a.Address2, &a.Suburb, &a.State, &a.Postcode, &a.Country)
	if errors.Is(err, sql.ErrNoRows) {
		return o, notFound("office")
	}
	return o, err
}

// Offices implements ports.UserStore.
func (s *UserStore) Offices(ctx context.Context) ([]user.Office, error) {
	rows, err := s.db.query(ctx, `SELECT `+officeCols+` FROM offices ORDER BY name COLLATE NOCASE, id`)
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
	return scanOffice(s.db.queryRow(ctx, `SELECT `+officeCols+` FROM offices WHERE id = ?`, id))
}

func officeArgs(o user.Office) []any {
	a := o.Address
	return []any{o.Name, o.Phone, o.Website, o.Active, a.Address1, a.Address2, a.Suburb, a.State, a.Postcode, a.Country}
}

const officeWriteCols = `name, phone, website, active, address1, address2, suburb, state, postcode, country`

// CreateOffice implements ports.UserStore.
func (s *UserStore) CreateOffice(ctx context.Context, o user.Office) (user.Office, error) {
	err := s.db.profileWriteTx(ctx, func(tx *sql.Tx) error {
		now := ms(s.db.Now())
		args := append(officeArgs(o), now, now)
		res, err := tx.ExecContext(ctx, `INSERT INTO offices (`+officeWriteCols+`, created_at, updated_at) VALUES (`+placeholders(len(args))+`)`, args...)
		if err != nil {
			return err
		}
		o.ID, err = res.LastInsertId()
		return err
	})
	return o, err
}

// UpdateOffice implements ports.UserStore.
func (s *UserStore) UpdateOffice(ctx context.Context, id int64, fn func(*user.Office) error) (user.Office, error) {
	var o user.Office
	err := s.db.profileWriteTx(ctx, func(tx *sql.Tx) error {
		var err error
		if o, err = scanOffice(tx.QueryRowContext(ctx, `SELECT `+officeCols+` FROM offices WHERE id = ?`, id)); err != nil {
			return err
		}
		if err := fn(&o); err != nil {
			return err
		}
		o.ID = id
		args := append(officeArgs(o), ms(s.db.Now()), id)
		_, err = tx.ExecContext(ctx, `UPDATE offices SET (`+officeWriteCols+`, updated_at) = (`+placeholders(len(args)-1)+`) WHERE id = ?`, args...)
		return err
	})
	return o, err
}

// offeringReviewers lists the undeleted reviewers of an offering by id.
func offeringReviewers(ctx context.Context, q queryer, offeringID int64) ([]int64, error) {
	rows, err := q.QueryContext(ctx, `SELECT rv.user_id FROM offering_reviewers rv
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
	err := s.db.profileWriteTx(ctx, func(tx *sql.Tx) error {
		// Find the first unknown id in one query rather than one per user.
		rows, err := tx.QueryContext(ctx, `SELECT id FROM users WHERE deleted_at IS NULL AND id IN (`+placeholders(len(userIDs))+`)`, intArgs(userIDs)...)
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
		for _, id := range userIDs {
			if _, err := tx.ExecContext(ctx, `INSERT OR IGNORE INTO offering_reviewers (offering_id, user_id) VALUES (?, ?)`, offeringID, id); err != nil {
				return err
			}
		}
		out, err = offeringReviewers(ctx, tx, offeringID)
		return err
	})
	return out, err
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
	return out, err
}
