// Package user holds the people of the firm as the user administration sees
// them: their profile fields, office and address, the rules that validate
// them, the filter that lists them, and the views that combine a user with
// their roles, PQE adjustments and latest remuneration.
//
// Sign-in data (password hashes, sessions, permissions) belongs to package
// account; pay records and post-qualification years to package
// remuneration. This package only puts them side by side.
package user

import (
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"counsel/domain"
	"counsel/domain/account"
	"counsel/domain/decimal"
	"counsel/domain/remuneration"
)

// Field length limits, in characters.
const (
	MaxNameLength    = 100
	MaxEmailLength   = 254
	MaxPhoneLength   = 50
	MaxURLLength     = 2048
	MaxAddressLength = 200
	// MaxSearchLength bounds the Search filter.
	MaxSearchLength = 200
	// MaxOfferingIDs bounds the offerings one reviewer query or change
	// names, so one request does bounded work.
	MaxOfferingIDs = 100
	// MaxReviewerIDs bounds the users one reviewer change names.
	MaxReviewerIDs = 1000
	// MaxRoleIDs bounds the roles one user is given in one request.
	MaxRoleIDs = 100
)

// Address is a postal address of a user or an office.
type Address struct {
	Address1 string
	Address2 string
	Suburb   string
	State    string
	Postcode string
	Country  string
}

// normalize trims every field.
func (a *Address) normalize() {
	for _, p := range a.fields() {
		*p.v = strings.TrimSpace(*p.v)
	}
}

type addressField struct {
	name string
	v    *string
}

func (a *Address) fields() []addressField {
	return []addressField{
		{"address1", &a.Address1}, {"address2", &a.Address2}, {"suburb", &a.Suburb},
		{"state", &a.State}, {"postcode", &a.Postcode}, {"country", &a.Country},
	}
}

// validate records fields longer than MaxAddressLength as
// prefix.fieldName ("address.suburb").
func (a Address) validate(f domain.FieldErrors, prefix string) {
	for _, p := range a.fields() {
		tooLong(f, prefix+"."+p.name, *p.v, MaxAddressLength)
	}
}

func tooLong(f domain.FieldErrors, field, v string, n int) {
	if utf8.RuneCountInString(v) > n {
		f.Add(field, field+" must be at most "+strconv.Itoa(n)+" characters")
	}
}

// Office is a place the firm works from.
type Office struct {
	ID      int64
	Name    string
	Phone   string
	Website string
	Active  bool
	Address Address
}

// OfficePatch holds the office fields a client sends; nil fields are left
// as they are.
type OfficePatch struct {
	Name    *string
	Phone   *string
	Website *string
	Active  *bool
	Address *Address
}

// NewOffice returns the defaults of an office a client creates: active.
func NewOffice() Office { return Office{Active: true} }

// Apply copies the set fields of p into o, trimmed.
func (o *Office) Apply(p OfficePatch) {
	set(&o.Name, p.Name)
	set(&o.Phone, p.Phone)
	set(&o.Website, p.Website)
	if p.Active != nil {
		o.Active = *p.Active
	}
	if p.Address != nil {
		o.Address = *p.Address
		o.Address.normalize()
	}
}

// Validate checks an office: a name is required, and every field has a
// length limit. Fields are keyed by their JSON names.
func (o Office) Validate() error {
	f := domain.FieldErrors{}
	if o.Name == "" {
		f.Add("name", "name is required")
	}
	tooLong(f, "name", o.Name, MaxAddressLength)
	tooLong(f, "phone", o.Phone, MaxPhoneLength)
	tooLong(f, "website", o.Website, MaxURLLength)
	checkURL(f, "website", o.Website)
	o.Address.validate(f, "address")
	return f.Err()
}

func set(dst *string, v *string) {
	if v != nil {
		*dst = strings.TrimSpace(*v)
	}
}

// User is a person who may sign in: staff, lawyers, administrators.
// Deleted users are never loaded.
type User struct {
	ID                int64
	Email             string // trimmed and lower-case
	FirstName         string
	LastName          string
	ContactNumber     string
	ProfilePictureURL string
	// BillingRate is the hourly rate the user is billed at, in cents
	// precision. Creating a remuneration that becomes the user's latest
	// sets it to that remuneration's billing rate.
	BillingRate decimal.Decimal
	Active      bool
	IsLegal     bool
	IsStaff     bool
	// OfficeID is 0 when the user has no office; Office is then nil.
	OfficeID      int64
	Office        *Office
	Address       Address
	AdmissionDate *time.Time // admission to practice; nil when not admitted
}

// New returns the defaults of a user a client creates: active staff, not
// legal, no billing rate.
func New() User {
	return User{Active: true, IsStaff: true, BillingRate: decimal.New(0, remuneration.MoneyPlaces)}
}

// Create returns a new user (New) with the fields p sets (Apply),
// validated (Validate: EINVALID). Every way of creating a user (the API,
// the command line) starts here.
func Create(p Patch) (User, error) {
	u := New()
	u.Apply(p)
	return u, u.Validate()
}

// FullName is the first name joined with the last name.
func (u User) FullName() string { return FullName(u.FirstName, u.LastName) }

// FullName joins a first and a last name with a space, leaving out an
// empty part.
func FullName(first, last string) string { return strings.TrimSpace(first + " " + last) }

// SearchKey is what the Search filter looks in: the lower-cased full name
// and email on separate lines, so a term never matches across the two.
func SearchKey(first, last, email string) string {
	return strings.ToLower(FullName(first, last)) + "\n" + strings.ToLower(email)
}

// Patch holds the user fields a client sends; nil fields are left as they
// are.
type Patch struct {
	Email             *string
	FirstName         *string
	LastName          *string
	ContactNumber     *string
	ProfilePictureURL *string
	BillingRate       *decimal.Decimal
	Active            *bool
	IsLegal           *bool
	IsStaff           *bool
	// OfficeID 0 removes the user's office.
	OfficeID *int64
	Address  *Address
	// AdmissionDate set to the zero time removes the admission date.
	AdmissionDate *time.Time
}

// Apply copies the set fields of p into u: strings trimmed, the email
// normalized, the billing rate rounded to cents. Call Validate after.
func (u *User) Apply(p Patch) {
	if p.Email != nil {
		u.Email = account.NormalizeEmail(*p.Email)
	}
	set(&u.FirstName, p.FirstName)
	set(&u.LastName, p.LastName)
	set(&u.ContactNumber, p.ContactNumber)
	set(&u.ProfilePictureURL, p.ProfilePictureURL)
	if p.BillingRate != nil {
		u.BillingRate = p.BillingRate.Round(remuneration.MoneyPlaces)
	}
	for _, b := range []struct{ dst, v *bool }{{&u.Active, p.Active}, {&u.IsLegal, p.IsLegal}, {&u.IsStaff, p.IsStaff}} {
		if b.v != nil {
			*b.dst = *b.v
		}
	}
	if p.OfficeID != nil && *p.OfficeID != u.OfficeID {
		u.OfficeID, u.Office = *p.OfficeID, nil
	}
	if p.Address != nil {
		u.Address = *p.Address
		u.Address.normalize()
	}
	if p.AdmissionDate != nil {
		if p.AdmissionDate.IsZero() {
			u.AdmissionDate = nil
		} else {
			t := p.AdmissionDate.UTC()
			u.AdmissionDate = &t
		}
	}
}

// Validate checks a user: an email that looks like one, a first name, a
// billing rate of at least 0 in range, and length limits. Fields are keyed
// by their JSON names. Whether the office exists is the store's question
// (a 404).
func (u User) Validate() error {
	f := domain.FieldErrors{}
	switch {
	case u.Email == "":
		f.Add("email", "email is required")
	case utf8.RuneCountInString(u.Email) > MaxEmailLength || !account.ValidEmail(u.Email):
		f.Add("email", "email is not a valid address")
	}
	if u.FirstName == "" {
		f.Add("firstName", "firstName is required")
	}
	tooLong(f, "firstName", u.FirstName, MaxNameLength)
	tooLong(f, "lastName", u.LastName, MaxNameLength)
	tooLong(f, "contactNumber", u.ContactNumber, MaxPhoneLength)
	tooLong(f, "profilePictureUrl", u.ProfilePictureURL, MaxURLLength)
	checkURL(f, "profilePictureUrl", u.ProfilePictureURL)
	if r := u.BillingRate.Round(remuneration.MoneyPlaces); r.Sign() < 0 {
		f.Add("billingRate", "billingRate must not be negative")
	} else if r.Cmp(decimal.New(1, -remuneration.MaxMoneyDigits)) >= 0 {
		f.Add("billingRate", "billingRate must be less than 1000000000000000")
	}
	if u.OfficeID < 0 {
		f.Add("officeId", "officeId must be a positive integer")
	}
	u.Address.validate(f, "address")
	return f.Err()
}

// ValidateRoleIDs checks the role list of an Input: at most MaxRoleIDs
// positive ids. Whether they exist is the store's question (a 404).
func ValidateRoleIDs(ids *[]int64) error {
	if ids == nil {
		return nil
	}
	f := domain.FieldErrors{}
	if len(*ids) > MaxRoleIDs {
		f.Add("roleIds", "at most "+strconv.Itoa(MaxRoleIDs)+" roleIds")
	}
	for _, id := range *ids {
		if id <= 0 {
			f.Add("roleIds", "roleIds must be positive integers")
			break
		}
	}
	return f.Err()
}

// Input is what a client sends to create or change a user.
type Input struct {
	Patch
	// Password is the new user's password (creation only; nil or empty
	// leaves password sign-in off until one is set).
	Password *string
	// RoleIDs are the roles the user holds: nil gives a new user the
	// default roles and leaves an existing user's roles unchanged; an
	// empty list means no roles.
	RoleIDs *[]int64
}

// Profile is a user with what their pages show: roles, PQE adjustment
// periods, the latest remuneration and post-qualification years.
type Profile struct {
	User
	// Roles is filled only where asked for (the UserDto).
	Roles []account.Role
	// Adjustments are the periods of the user's PQE adjustments.
	Adjustments []remuneration.Period
	// Latest is the user's latest remuneration (greatest remunerationDate,
	// then greatest id), nil when none.
	Latest *remuneration.Remuneration
	// PQY is the post-qualification years at the time of the request; nil
	// without an admission date. The use case fills it in.
	PQY *decimal.Decimal
}

// ComputePQY fills p.PQY at now from the admission date and adjustments.
func (p *Profile) ComputePQY(now time.Time) {
	p.PQY = remuneration.PQY(p.AdmissionDate, now, p.Adjustments)
}

// StaffRemuneration is a remuneration with the staff member it belongs to.
type StaffRemuneration struct {
	remuneration.Remuneration
	Staff User
}

// StaffAdjustment is a PQE adjustment with the staff member it belongs to.
type StaffAdjustment struct {
	remuneration.PQEAdjustment
	Staff User
}
