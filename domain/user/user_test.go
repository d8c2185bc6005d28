package user

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/matryer/is"

	"counsel/domain"
	"counsel/domain/decimal"
	"counsel/domain/remuneration"
)

func ptr[T any](v T) *T { return &v }

// seq returns 1..n.
func seq(n int) []int64 {
	out := make([]int64, n)
	for i := range out {
		out[i] = int64(i + 1)
	}
	return out
}

func period(start, end string) remuneration.Period {
	s, _ := time.Parse(time.DateOnly, start)
	e, _ := time.Parse(time.DateOnly, end)
	return remuneration.Period{Start: s, End: e}
}

func fields(t *testing.T, err error) map[string][]string {
	t.Helper()
	if err == nil {
		return nil
	}
	var e *domain.Error
	if !errors.As(err, &e) || e.Code != domain.EINVALID {
		t.Fatalf("want an EINVALID *domain.Error, got %v", err)
	}
	return e.Fields
}

func valid() User {
	u := New()
	u.Apply(Patch{Email: ptr("jane@example.com"), FirstName: ptr("Jane"), LastName: ptr("Doe")})
	return u
}

func TestValidateUser(t *testing.T) {
	t.Parallel()
	long := func(n int) string { return strings.Repeat("é", n) }
	tests := []struct {
		name   string
		change func(u *User)
		field  string
	}{
		{"valid", func(u *User) {}, ""},
		{"no last name", func(u *User) { u.LastName = "" }, ""},
		{"names at the limit", func(u *User) { u.FirstName, u.LastName = long(100), long(100) }, ""},
		{"zero billing rate", func(u *User) { u.BillingRate = decimal.FromInt(0) }, ""},
		{"no email", func(u *User) { u.Email = "" }, "email"},
		{"bad email", func(u *User) { u.Email = "jane.example.com" }, "email"},
		{"two @", func(u *User) { u.Email = "a@b@c" }, "email"},
		{"long email", func(u *User) { u.Email = strings.Repeat("a", 250) + "@x.io" }, "email"},
		{"no first name", func(u *User) { u.FirstName = "" }, "firstName"},
		{"long first name", func(u *User) { u.FirstName = long(101) }, "firstName"},
		{"long last name", func(u *User) { u.LastName = long(101) }, "lastName"},
		{"long contact number", func(u *User) { u.ContactNumber = long(51) }, "contactNumber"},
		{"long picture url", func(u *User) { u.ProfilePictureURL = long(2049) }, "profilePictureUrl"},
		{"negative billing rate", func(u *User) { u.BillingRate = decimal.MustParse("-0.01") }, "billingRate"},
		{"huge billing rate", func(u *User) { u.BillingRate = decimal.MustParse("1e15") }, "billingRate"},
		{"negative office", func(u *User) { u.OfficeID = -1 }, "officeId"},
		{"long suburb", func(u *User) { u.Address.Suburb = long(201) }, "address.suburb"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			u := valid()
			tt.change(&u)
			f := fields(t, u.Validate())
			if tt.field == "" {
				is.Equal(len(f), 0) // valid
				return
			}
			is.Equal(len(f), 1)           // one field refused
			is.True(len(f[tt.field]) > 0) // keyed by the JSON field name
		})
	}
}

func TestApply(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	u := New()
	is.True(u.Active && u.IsStaff && !u.IsLegal) // defaults of a new user
	adm := time.Date(2020, 3, 1, 10, 0, 0, 0, time.FixedZone("AEST", 10*3600))
	u.Apply(Patch{
		Email: ptr("  Jane.Doe@Example.COM "), FirstName: ptr(" Jane "), LastName: ptr("Doe "),
		BillingRate: ptr(decimal.MustParse("400.005")), Active: ptr(false), IsLegal: ptr(true),
		OfficeID: ptr(int64(3)), Address: &Address{Suburb: " Sydney "}, AdmissionDate: &adm,
	})
	is.Equal(u.Email, "jane.doe@example.com")        // trimmed and lower-case
	is.Equal(u.FullName(), "Jane Doe")               // names trimmed
	is.Equal(u.BillingRate.StringFixed(2), "400.01") // rounded to cents
	is.True(!u.Active && u.IsLegal && u.IsStaff)     // set flags change, others stay
	is.Equal(u.OfficeID, int64(3))                   // office set
	is.Equal(u.Address.Suburb, "Sydney")             // address trimmed
	is.Equal(u.AdmissionDate.Location(), time.UTC)   // kept in UTC
	is.True(u.AdmissionDate.Equal(adm))              // same instant
	u.Office = &Office{ID: 3}
	u.Apply(Patch{LastName: ptr("Smith")})
	is.Equal(u.OfficeID, int64(3))  // absent fields unchanged
	is.True(u.Office != nil)        // office kept
	is.True(u.AdmissionDate != nil) // admission kept
	u.Apply(Patch{OfficeID: ptr(int64(0)), AdmissionDate: &time.Time{}})
	is.Equal(u.OfficeID, int64(0))  // 0 removes the office
	is.True(u.Office == nil)        // and its loaded copy
	is.True(u.AdmissionDate == nil) // the zero time removes the admission date
}

func TestValidateRoleIDs(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	is.NoErr(ValidateRoleIDs(nil))                                        // absent
	is.NoErr(ValidateRoleIDs(&[]int64{}))                                 // none
	is.NoErr(ValidateRoleIDs(ptr(seq(100))))                              // at the limit
	is.True(fields(t, ValidateRoleIDs(ptr(seq(101))))["roleIds"] != nil)  // too many
	is.True(fields(t, ValidateRoleIDs(&[]int64{1, 0}))["roleIds"] != nil) // not positive
}

func TestNames(t *testing.T) {
	t.Parallel()
	tests := []struct{ first, last, email, full, key string }{
		{"Jane", "Doe", "jane@x.io", "Jane Doe", "jane doe\njane@x.io"},
		{"Admin", "", "ADMIN@x.io", "Admin", "admin\nadmin@x.io"},
		{"", "Doe", "d@x.io", "Doe", "doe\nd@x.io"},
		{"Élodie", "Ångström", "e@x.io", "Élodie Ångström", "élodie ångström\ne@x.io"},
	}
	for _, tt := range tests {
		t.Run(tt.full, func(t *testing.T) {
			is := is.New(t)
			is.Equal(FullName(tt.first, tt.last), tt.full)           // joined with one space
			is.Equal(SearchKey(tt.first, tt.last, tt.email), tt.key) // Unicode case folding
		})
	}
}

func TestValidateOffice(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		p     OfficePatch
		field string
	}{
		{"valid", OfficePatch{Name: ptr("Sydney"), Website: ptr("https://example.com")}, ""},
		{"no name", OfficePatch{Phone: ptr("02 9999 9999")}, "name"},
		{"blank name", OfficePatch{Name: ptr("   ")}, "name"},
		{"long phone", OfficePatch{Name: ptr("x"), Phone: ptr(strings.Repeat("1", 51))}, "phone"},
		{"long country", OfficePatch{Name: ptr("x"), Address: &Address{Country: strings.Repeat("x", 201)}}, "address.country"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			o := NewOffice()
			is.True(o.Active) // offices start active
			o.Apply(tt.p)
			f := fields(t, o.Validate())
			if tt.field == "" {
				is.Equal(len(f), 0) // valid
				return
			}
			is.True(len(f[tt.field]) > 0) // keyed by the JSON field name
		})
	}
	is := is.New(t)
	o := Office{Name: "Sydney", Active: true}
	o.Apply(OfficePatch{Active: ptr(false)})
	is.Equal(o.Name, "Sydney") // absent fields unchanged
	is.True(!o.Active)         // set field changed
}

func TestFilter(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		f     Filter
		field string
	}{
		{"empty", Filter{}, ""},
		{"search at the limit", Filter{Search: strings.Repeat("ä", 200)}, ""},
		{"long search", Filter{Search: strings.Repeat("a", 201)}, "Search"},
		{"bad offering", Filter{OfferingIDs: []int64{1, 0}}, "offeringIds"},
		{"many offerings", Filter{OfferingIDs: seq(101)}, "offeringIds"},
		{"offerings at the limit", Filter{OfferingIDs: seq(100)}, ""},
		{"negative limit", Filter{Limit: -1}, "Limit"},
		{"negative offset", Filter{Offset: -1}, "Offset"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			tt.f.Normalize()
			f := fields(t, tt.f.Validate())
			if tt.field == "" {
				is.Equal(len(f), 0) // valid
				return
			}
			is.True(len(f[tt.field]) > 0) // named by the query parameter
		})
	}
	is := is.New(t)
	f := Filter{Search: "  JÖRG \n\t Lang ", OfferingIDs: []int64{3, 1, 3, 2}}
	f.Normalize()
	is.Equal(f.Search, "JÖRG Lang")           // trimmed, white space folded to one space
	is.Equal(f.SearchTerm(), "jörg lang")     // folded like SearchKey
	is.Equal(f.OfferingIDs, []int64{1, 2, 3}) // sorted, distinct
}

func TestReviewerIDs(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	ids, err := ReviewerIDs([]int64{5, 2, 5})
	is.NoErr(err)                // valid
	is.Equal(ids, []int64{2, 5}) // sorted, distinct
	_, err = ReviewerIDs(nil)
	is.True(len(fields(t, err)["userIds"]) > 0) // at least one
	_, err = ReviewerIDs([]int64{1, -1})
	is.True(len(fields(t, err)["userIds"]) > 0) // positive ids only
	_, err = ReviewerIDs(seq(1001))
	is.True(len(fields(t, err)["userIds"]) > 0) // bounded
}

func TestProfilePQY(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	p := Profile{User: User{AdmissionDate: ptr(time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC))}}
	now := time.Date(2021, 1, 1, 0, 0, 0, 0, time.UTC)
	p.ComputePQY(now)
	is.Equal(p.PQY.StringFixed(2), "1.00") // 366 days / 365.25
	p.Adjustments = append(p.Adjustments, period("2020-01-01", "2020-06-30"))
	p.ComputePQY(now)
	is.Equal(p.PQY.StringFixed(2), "0.50") // 182 days discounted
	p.AdmissionDate = nil
	p.ComputePQY(now)
	is.True(p.PQY == nil) // unknown without an admission date
}
