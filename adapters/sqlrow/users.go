package sqlrow

import (
	"database/sql"
	"strings"
	"time"

	"counsel/domain/decimal"
	"counsel/domain/remuneration"
	"counsel/domain/user"
)

// UserCols are the columns a UserScan reads, from UserJoin.
const UserCols = `u.id, u.email, u.first_name, u.last_name, u.contact_number, u.profile_picture_url,
	u.billing_rate, u.active, u.is_legal, u.is_staff, u.admission_date, u.office_id,
	u.address1, u.address2, u.suburb, u.state, u.postcode, u.country,
	o.name, o.phone, o.website, o.active, o.address1, o.address2, o.suburb, o.state, o.postcode, o.country`

// UserJoin is the FROM clause of UserCols.
const UserJoin = `users u LEFT JOIN offices o ON o.id = u.office_id`

// UserScan holds the scan destinations of UserCols. Lists reuse one for
// every row rather than allocating the nullable office columns per row.
type UserScan struct {
	u                                         user.User
	rate                                      int64
	admission                                 *time.Time
	officeID                                  sql.NullInt64
	on, oph, ow, oa1, oa2, osu, ost, opc, oco sql.NullString
	oact                                      sql.NullBool
	// Dest are the destinations, in the order of UserCols.
	Dest []any
}

// NewUserScan returns the destinations of UserCols on an engine that
// stores times as tc does.
func NewUserScan(tc Times) *UserScan {
	s := &UserScan{}
	u, a := &s.u, &s.u.Address
	s.Dest = []any{&u.ID, &u.Email, &u.FirstName, &u.LastName, &u.ContactNumber, &u.ProfilePictureURL,
		&s.rate, &u.Active, &u.IsLegal, &u.IsStaff, NullTime(tc, &s.admission), &s.officeID,
		&a.Address1, &a.Address2, &a.Suburb, &a.State, &a.Postcode, &a.Country,
		&s.on, &s.oph, &s.ow, &s.oact, &s.oa1, &s.oa2, &s.osu, &s.ost, &s.opc, &s.oco}
	return s
}

// User returns the scanned user.
func (s *UserScan) User() user.User {
	u := s.u
	u.BillingRate = Money(s.rate)
	u.AdmissionDate = nil
	if s.admission != nil {
		t := *s.admission
		u.AdmissionDate = &t
	}
	u.OfficeID, u.Office = 0, nil
	if s.officeID.Valid {
		u.OfficeID = s.officeID.Int64
		u.Office = &user.Office{ID: s.officeID.Int64, Name: s.on.String, Phone: s.oph.String, Website: s.ow.String, Active: s.oact.Bool,
			Address: user.Address{Address1: s.oa1.String, Address2: s.oa2.String, Suburb: s.osu.String, State: s.ost.String,
				Postcode: s.opc.String, Country: s.oco.String}}
	}
	return u
}

// UserDest returns the scan destinations of UserCols for u; finish
// completes u after the scan.
func UserDest(tc Times, u *user.User) (dest []any, finish func()) {
	s := NewUserScan(tc)
	return s.Dest, func() { *u = s.User() }
}

// ScanUsers reads rows of UserCols with one set of destinations.
func ScanUsers(tc Times, rows Rows) ([]user.User, error) {
	sc := NewUserScan(tc)
	return Collect(rows, func(r Scanner) (user.User, error) {
		err := r.Scan(sc.Dest...)
		return sc.User(), err
	})
}

// LoadUserSQL reads an undeleted user's UserCols by id.
const LoadUserSQL = `SELECT ` + UserCols + ` FROM ` + UserJoin + ` WHERE u.id = ? AND u.deleted_at IS NULL`

// ScanUser reads UserCols from row; ENOTFOUND ("user") for no row.
func ScanUser(tc Times, row Scanner) (user.User, error) {
	var u user.User
	dest, finish := UserDest(tc, &u)
	if err := row.Scan(dest...); err != nil {
		return u, IfNoRows(err, "user")
	}
	finish()
	return u, nil
}

// UserWriteCols are the writable user columns, in the order of UserArgs.
const UserWriteCols = `email, first_name, last_name, contact_number, profile_picture_url, billing_rate,
	active, is_legal, is_staff, admission_date, office_id,
	address1, address2, suburb, state, postcode, country`

// UserArgs are the values of UserWriteCols for u.
func UserArgs(tc Times, u user.User) ([]any, error) {
	rate, err := Scaled("billingRate", u.BillingRate, CentPlaces)
	if err != nil {
		return nil, err
	}
	var office any
	if u.OfficeID != 0 {
		office = u.OfficeID
	}
	a := u.Address
	return []any{u.Email, u.FirstName, u.LastName, u.ContactNumber, u.ProfilePictureURL, rate,
		u.Active, u.IsLegal, u.IsStaff, NullArg(tc, u.AdmissionDate), office,
		a.Address1, a.Address2, a.Suburb, a.State, a.Postcode, a.Country}, nil
}

// NoUserFilter is UserWhere's condition for a filter that selects every
// user.
const NoUserFilter = "u.deleted_at IS NULL"

// UserWhere turns a filter into the WHERE conditions (on users u) and
// their arguments. Deleted users never match.
func UserWhere(d Dialect, f user.Filter) (string, []any) {
	conds := []string{NoUserFilter}
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
		cond, arg := d.Contains("u.search_key", f.SearchTerm())
		add(cond, arg)
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
			in, inArgs := d.In("offering_id", f.OfferingIDs)
			add(`u.id IN (SELECT user_id FROM offering_reviewers WHERE `+in+`
				GROUP BY user_id HAVING count(*) = ?)`, append(inArgs, len(f.OfferingIDs))...)
		}
	}
	return strings.Join(conds, " AND "), args
}

// LatestScan holds the destinations of a profile's latest remuneration,
// read with LatestCols after UserCols (NULL when there is none).
type LatestScan struct {
	id, fte, inc, rate, pct sql.NullInt64
}

// LatestCols are the columns of a LatestScan, from remunerations r.
const LatestCols = `r.id, r.fte_load, r.remuneration_inc_super, r.billing_rate, r.billable_percentage`

// Dest returns the destinations in the order of LatestCols.
func (s *LatestScan) Dest() []any { return []any{&s.id, &s.fte, &s.inc, &s.rate, &s.pct} }

// Remuneration returns staffID's latest remuneration, or nil.
func (s *LatestScan) Remuneration(staffID int64) *remuneration.Remuneration {
	if !s.id.Valid {
		return nil
	}
	return &remuneration.Remuneration{ID: s.id.Int64, StaffID: staffID,
		FTELoad:              decimal.FromScaled(s.fte.Int64, FTEPlaces),
		RemunerationIncSuper: Money(s.inc.Int64),
		BillingRate:          Money(s.rate.Int64),
		BillablePercentage:   decimal.FromScaled(s.pct.Int64, PercentPlaces)}
}

// OfficeCols are the columns ScanOffice reads.
const OfficeCols = `id, name, phone, website, active, address1, address2, suburb, state, postcode, country`

// ScanOffice reads OfficeCols; ENOTFOUND ("office") for no row.
func ScanOffice(row Scanner) (user.Office, error) {
	var o user.Office
	a := &o.Address
	err := row.Scan(&o.ID, &o.Name, &o.Phone, &o.Website, &o.Active, &a.Address1, &a.Address2, &a.Suburb, &a.State, &a.Postcode, &a.Country)
	return o, IfNoRows(err, "office")
}

// OfficeWriteCols are the writable office columns, in the order of
// OfficeArgs.
const OfficeWriteCols = `name, phone, website, active, address1, address2, suburb, state, postcode, country`

// OfficeArgs are the values of OfficeWriteCols for o.
func OfficeArgs(o user.Office) []any {
	a := o.Address
	return []any{o.Name, o.Phone, o.Website, o.Active, a.Address1, a.Address2, a.Suburb, a.State, a.Postcode, a.Country}
}

// OfferingReviewersSQL lists the undeleted reviewers of an offering by id.
const OfferingReviewersSQL = `SELECT rv.user_id FROM offering_reviewers rv
		JOIN users u ON u.id = rv.user_id AND u.deleted_at IS NULL
		WHERE rv.offering_id = ? ORDER BY rv.user_id`

// MissingID reads the ids of rows (one integer column) and returns
// ENOTFOUND naming the first of want that is not among them.
func MissingID(rows Rows, want []int64, what string) error {
	got, err := Collect(rows, ID)
	if err != nil {
		return err
	}
	known := make(map[int64]bool, len(got))
	for _, id := range got {
		known[id] = true
	}
	for _, id := range want {
		if !known[id] {
			return NotFoundID(what, id)
		}
	}
	return nil
}
