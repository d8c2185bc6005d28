package console

import (
	"net/url"
	"strconv"
	"strings"
	"time"

	"counsel/domain"
	"counsel/domain/decimal"
	"counsel/domain/remuneration"
	"counsel/domain/user"
)

// Forms are read into the use cases' inputs here. Only the shape of each
// value is checked (a number, a date); every rule is the use case's, and
// its field errors carry the same names as the inputs.

func str(v url.Values, name string) *string {
	s := v.Get(name)
	return &s
}

func boolField(v url.Values, name string) *bool {
	b := v.Get(name) == "true"
	return &b
}

func decimalField(v url.Values, name string, f domain.FieldErrors) *decimal.Decimal {
	s := strings.TrimSpace(v.Get(name))
	if s == "" {
		return nil
	}
	d, err := decimal.Parse(s)
	if err != nil {
		f.Add(name, name+" must be a number")
		return nil
	}
	return &d
}

// dateField reads a yyyy-mm-dd date; empty gives nil.
func dateField(v url.Values, name string, f domain.FieldErrors) *time.Time {
	s := strings.TrimSpace(v.Get(name))
	if s == "" {
		return nil
	}
	t, err := time.Parse("2006-01-02", s)
	if err != nil {
		f.Add(name, name+" must be a date (yyyy-mm-dd)")
		return nil
	}
	return &t
}

// triField reads a yes/no/any filter: "true", "false" or empty (nil).
func triField(q url.Values, name string, f domain.FieldErrors) *bool {
	switch q.Get(name) {
	case "true":
		b := true
		return &b
	case "false":
		b := false
		return &b
	case "":
		return nil
	}
	f.Add(name, name+" must be true, false or empty")
	return nil
}

// withQuery returns base with the query q changed by set (an empty
// value removes the key); empty values of q are dropped.
func withQuery(base string, q url.Values, set map[string]string) string {
	n := url.Values{}
	for k, v := range q {
		for _, x := range v {
			if x != "" {
				n[k] = append(n[k], x)
			}
		}
	}
	for k, v := range set {
		if v == "" {
			n.Del(k)
		} else {
			n.Set(k, v)
		}
	}
	if len(n) == 0 {
		return base
	}
	return base + "?" + n.Encode()
}

// pager is a list page's position: rows From-To of Count, and the links
// to the pages before and after (empty when there is none).
type pager struct {
	Count      int64
	From, To   int64
	Prev, Next string
}

func newPager(base string, q url.Values, offset, limit int64, n int, count int64) pager {
	p := pager{Count: count}
	if n > 0 {
		p.From, p.To = offset+1, offset+int64(n)
	}
	if offset > 0 {
		p.Prev = withQuery(base, q, map[string]string{"Offset": strconv.FormatInt(max(0, offset-limit), 10)})
	}
	if offset+int64(n) < count {
		p.Next = withQuery(base, q, map[string]string{"Offset": strconv.FormatInt(offset+limit, 10)})
	}
	return p
}

func idField(v url.Values, name string, f domain.FieldErrors) *int64 {
	s := strings.TrimSpace(v.Get(name))
	if s == "" {
		return nil
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n < 0 {
		f.Add(name, name+" must be a positive integer")
		return nil
	}
	return &n
}

// ids reads a checkbox group of ids.
func ids(v url.Values, name string, f domain.FieldErrors) []int64 {
	out := []int64{}
	for _, s := range v[name] {
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil || n <= 0 {
			f.Add(name, name+" must be positive integers")
			return out
		}
		out = append(out, n)
	}
	return out
}

func addressFields(v url.Values) *user.Address {
	return &user.Address{
		Address1: v.Get("address.address1"), Address2: v.Get("address.address2"), Suburb: v.Get("address.suburb"),
		State: v.Get("address.state"), Postcode: v.Get("address.postcode"), Country: v.Get("address.country"),
	}
}

func setAddress(v url.Values, a user.Address) {
	v.Set("address.address1", a.Address1)
	v.Set("address.address2", a.Address2)
	v.Set("address.suburb", a.Suburb)
	v.Set("address.state", a.State)
	v.Set("address.postcode", a.Postcode)
	v.Set("address.country", a.Country)
}

// userForm reads the user form. withRoles reads the roles checkboxes
// (only shown to those who may change roles); create reads the password.
func userForm(v url.Values, create, withRoles bool) (user.Input, error) {
	f := domain.FieldErrors{}
	var in user.Input
	p := &in.Patch
	p.Email, p.FirstName, p.LastName = str(v, "email"), str(v, "firstName"), str(v, "lastName")
	p.ContactNumber, p.ProfilePictureURL = str(v, "contactNumber"), str(v, "profilePictureUrl")
	p.BillingRate = decimalField(v, "billingRate", f)
	if p.BillingRate == nil && f["billingRate"] == nil {
		zero := decimal.FromInt(0)
		p.BillingRate = &zero
	}
	p.IsLegal, p.IsStaff = boolField(v, "isLegal"), boolField(v, "isStaff")
	if create {
		p.Active = boolField(v, "active")
	}
	office := idField(v, "officeId", f)
	if office == nil {
		zero := int64(0)
		office = &zero
	}
	p.OfficeID = office
	p.Address = addressFields(v)
	p.AdmissionDate = dateField(v, "admissionDate", f)
	if p.AdmissionDate == nil && f["admissionDate"] == nil {
		p.AdmissionDate = &time.Time{} // empty clears it
	}
	if create {
		if pw := v.Get("password"); pw != "" {
			in.Password = &pw
		}
	}
	if withRoles {
		r := ids(v, "roleIds", f)
		in.RoleIDs = &r
	}
	return in, f.Err()
}

// userValues fills the form from a user.
func userValues(u user.User) url.Values {
	v := url.Values{}
	v.Set("email", u.Email)
	v.Set("firstName", u.FirstName)
	v.Set("lastName", u.LastName)
	v.Set("contactNumber", u.ContactNumber)
	v.Set("profilePictureUrl", u.ProfilePictureURL)
	v.Set("billingRate", u.BillingRate.String())
	v.Set("isLegal", strconv.FormatBool(u.IsLegal))
	v.Set("isStaff", strconv.FormatBool(u.IsStaff))
	v.Set("active", strconv.FormatBool(u.Active))
	if u.OfficeID > 0 {
		v.Set("officeId", strconv.FormatInt(u.OfficeID, 10))
	}
	if u.AdmissionDate != nil {
		v.Set("admissionDate", u.AdmissionDate.Format("2006-01-02"))
	}
	setAddress(v, u.Address)
	return v
}

// filterForm reads the users list's query: every filter of the API's
// user list (same names), the page and the order. Values of the wrong
// shape are reported by field.
func filterForm(q url.Values) (user.Filter, domain.FieldErrors) {
	f := domain.FieldErrors{}
	var uf user.Filter
	tri := func(name string) *bool { return triField(q, name, f) }
	uf.Search = q.Get("Search")
	uf.Active, uf.IsLegal, uf.IsStaff = tri("Active"), tri("IsLegal"), tri("IsStaff")
	uf.RequireBillingRate = q.Get("IsRequiredBillingRate") == "true"
	uf.OfficeID = idField(q, "OfficeId", f)
	uf.Limit = 20
	if l := idField(q, "Limit", f); l != nil && *l > 0 {
		uf.Limit = min(*l, 100)
	}
	if o := idField(q, "Offset", f); o != nil {
		uf.Offset = *o
	}
	uf.SortDesc = q.Get("Sort") == "desc"
	return uf, f
}

func officeForm(v url.Values) user.OfficePatch {
	return user.OfficePatch{Name: str(v, "name"), Phone: str(v, "phone"), Website: str(v, "website"),
		Active: boolField(v, "active"), Address: addressFields(v)}
}

func officeValues(o user.Office) url.Values {
	v := url.Values{}
	v.Set("name", o.Name)
	v.Set("phone", o.Phone)
	v.Set("website", o.Website)
	v.Set("active", strconv.FormatBool(o.Active))
	setAddress(v, o.Address)
	return v
}

// remunerationForm reads a new remuneration of staffID.
func remunerationForm(v url.Values, staffID int64) (remuneration.Remuneration, error) {
	f := domain.FieldErrors{}
	r := remuneration.Remuneration{StaffID: staffID}
	if d := decimalField(v, "fteLoad", f); d != nil {
		r.FTELoad = *d
	}
	if d := decimalField(v, "remunerationIncSuper", f); d != nil {
		r.RemunerationIncSuper = *d
	}
	if d := decimalField(v, "billingRate", f); d != nil {
		r.BillingRate = *d
	}
	if d := decimalField(v, "billablePercentage", f); d != nil {
		r.BillablePercentage = *d
	}
	if t := dateField(v, "remunerationDate", f); t != nil {
		r.RemunerationDate = *t
	}
	if t := dateField(v, "commencementDate", f); t != nil {
		r.CommencementDate = *t
	}
	r.TerminationDate = dateField(v, "terminationDate", f)
	return r, f.Err()
}

// pqeForm reads a new PQE adjustment of staffID.
func pqeForm(v url.Values, staffID int64) (remuneration.PQEAdjustment, error) {
	f := domain.FieldErrors{}
	a := remuneration.PQEAdjustment{StaffID: staffID, Name: v.Get("name"), Details: v.Get("details")}
	if t := dateField(v, "startDate", f); t != nil {
		a.StartDate = *t
	}
	if t := dateField(v, "endDate", f); t != nil {
		a.EndDate = *t
	}
	return a, f.Err()
}
