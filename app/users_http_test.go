package app_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/matryer/is"

	"counsel/app/apptest"
	"counsel/domain/account"
	"counsel/domain/user"
)

// usrDTO is the UserDto as a client reads it.
type usrDTO struct {
	ID                int64
	Email             string
	FirstName         string
	LastName          string
	FullName          string
	BillingRate       float64
	ProfilePictureURL string
	ContactNumber     string
	Active            bool
	IsLegal           bool
	IsStaff           bool
	Office            *struct {
		ID   int64
		Name string
	}
	Address       map[string]string
	AdmissionDate *string
	PQY           *float64
	Roles         []struct {
		ID            int64
		Name          string
		IsSystemAdmin bool
	}
}

type usrPage struct {
	Items   []usrDTO
	Count   int64
	HasNext bool
}

// usrCreate creates a user through the API as admin and fails the test
// unless it answers 201.
func usrCreate(t *testing.T, s *apptest.Server, admin string, body map[string]any) usrDTO {
	t.Helper()
	var u usrDTO
	s.Do(t, "POST", "/api/users", admin, body).Expect(t, 201, "create user").JSON(t, &u)
	return u
}

// usrAdminRole returns the id of the (last listed) system administrators'
// role.
func usrAdminRole(t *testing.T, s *apptest.Server, admin string) int64 {
	t.Helper()
	var roles []struct {
		ID            int64
		IsSystemAdmin bool
	}
	s.Do(t, "GET", "/api/roles", admin, nil).JSON(t, &roles)
	var id int64
	for _, r := range roles {
		if r.IsSystemAdmin {
			id = r.ID
		}
	}
	return id
}

// usrErrors returns the field errors of a problem body.
func usrErrors(t *testing.T, r *apptest.Response) map[string]any {
	t.Helper()
	e, _ := r.Map(t)["errors"].(map[string]any)
	return e
}

func TestUsersAccess(t *testing.T) {
	t.Parallel()
	s := apptest.New(t)
	admin := s.Admin(t)
	_, none := s.User(t)
	target := usrCreate(t, s, admin, map[string]any{"email": "target@example.com", "firstName": "T"})
	uid := fmt.Sprint(target.ID)
	tests := []struct {
		method, path string
		body         any
		need         account.Permission // what 403 names, unless any signed-in user may
		anyone       bool
	}{
		{"GET", "/api/me", nil, 0, true},
		{"GET", "/api/me/formatted", nil, 0, true},
		{"GET", "/api/users", nil, 0, true},
		{"GET", "/api/users/reviewers", nil, 0, true},
		{"GET", "/api/users/" + uid, nil, 0, true},
		{"GET", "/api/offices", nil, 0, true},
		{"POST", "/api/users", map[string]any{"email": "x@example.com", "firstName": "X"}, account.UsersCreate, false},
		{"PUT", "/api/users/" + uid, map[string]any{"lastName": "Y"}, account.UsersEdit, false},
		{"POST", "/api/users/changepassword", map[string]any{"id": target.ID, "password": "new-password-1"}, account.UsersEdit, false},
		{"DELETE", "/api/users/" + uid + "/totp", nil, account.UsersEdit, false},
		{"POST", "/api/offices", map[string]any{"name": "Perth"}, account.OfficesEdit, false},
		{"PUT", "/api/offices/1", map[string]any{"name": "Perth"}, account.OfficesEdit, false},
		{"PUT", "/api/offerings/3/reviewers/add", map[string]any{"userIds": []int64{target.ID}}, account.OfferingsEdit, false},
		{"PUT", "/api/offerings/3/reviewers/remove", map[string]any{"userIds": []int64{target.ID}}, account.OfferingsEdit, false},
		{"DELETE", "/api/users/" + uid, nil, account.UsersDelete, false}, // last: it removes the target
	}
	for _, tt := range tests {
		t.Run(tt.method+" "+tt.path, func(t *testing.T) {
			is := is.New(t)
			r := s.Do(t, tt.method, tt.path, "", tt.body)
			is.Equal(r.Status, 401)                                                   // no token
			is.Equal(r.Header.Get("WWW-Authenticate"), "Bearer")                      // challenge
			is.Equal(s.Do(t, tt.method, tt.path, "not-a-token", tt.body).Status, 401) // bad token
			r = s.Do(t, tt.method, tt.path, none, tt.body)
			if tt.anyone {
				is.True(r.Status < 300) // any signed-in user
				return
			}
			is.Equal(r.Status, 403)                                                  // lacks the permission
			is.Equal(r.Map(t)["type"], "/problems/forbidden")                        // problem type
			is.True(strings.Contains(r.Map(t)["detail"].(string), tt.need.String())) // names it
			_, tok := s.User(t, tt.need)
			is.True(s.Do(t, tt.method, tt.path, tok, tt.body).Status < 300) // the permission is enough
		})
	}
}

func TestUsersCreateReadUpdate(t *testing.T) {
	t.Parallel()
	s := apptest.New(t)
	admin := s.Admin(t)
	var office struct{ ID int64 }
	s.Do(t, "POST", "/api/offices", admin, map[string]any{"name": "Sydney"}).JSON(t, &office)
	adminRole := usrAdminRole(t, s, admin)

	var jane usrDTO
	t.Run("create", func(t *testing.T) {
		is := is.New(t)
		r := s.Do(t, "POST", "/api/users", admin, map[string]any{
			"email": " Jane@Example.COM ", "firstName": "Jane", "lastName": "Doe", "contactNumber": "0400 000 000",
			"profilePictureUrl": "https://example.com/j.png", "billingRate": 412.5, "isLegal": true,
			"officeId": office.ID, "admissionDate": "2016-11-21", "password": "jane-password-1",
			"address": map[string]any{"address1": "1 George St", "suburb": "Sydney", "state": "NSW", "postcode": "2000", "country": "AU"},
		})
		is.Equal(r.Status, 201) // created
		r.JSON(t, &jane)
		is.Equal(r.Header.Get("Location"), fmt.Sprintf("/api/users/%d", jane.ID)) // Location
		is.Equal(jane.Email, "jane@example.com")                                  // normalized email
		is.Equal(jane.FullName, "Jane Doe")                                       // full name
		is.Equal(jane.BillingRate, 412.5)                                         // billing rate
		is.True(jane.Active && jane.IsLegal && jane.IsStaff)                      // flags and defaults
		is.Equal(jane.Office.Name, "Sydney")                                      // office object
		is.Equal(jane.Address["postcode"], "2000")                                // address object
		is.Equal(*jane.AdmissionDate, "2016-11-21T00:00:00Z")                     // admission date
		is.Equal(*jane.PQY, 10.0)                                                 // ten years at the fake clock
		is.Equal(len(jane.Roles), 1)                                              // default roles
		is.Equal(jane.Roles[0].Name, "Staff")                                     // the Staff role
		is.True(strings.Contains(string(r.Body), `"billingRate":412.50`))         // money with cents
		tok := s.Login(t, "JANE@example.com", "jane-password-1")                  // the password signs in
		is.Equal(tok.UserID, fmt.Sprint(jane.ID))                                 // as jane
	})

	t.Run("create refusals", func(t *testing.T) {
		_, creator := s.User(t, account.UsersCreate)
		tests := []struct {
			name   string
			token  string
			body   any
			status int
			field  string
		}{
			{"duplicate email, any case", admin, map[string]any{"email": "JANE@example.com", "firstName": "J"}, 409, ""},
			{"no email", admin, map[string]any{"firstName": "J"}, 400, "email"},
			{"bad email", admin, map[string]any{"email": "jane", "firstName": "J"}, 400, "email"},
			{"no first name", admin, map[string]any{"email": "a@example.com"}, 400, "firstName"},
			{"short password", admin, map[string]any{"email": "a@example.com", "firstName": "A", "password": "short"}, 400, "password"},
			{"negative billing rate", admin, map[string]any{"email": "a@example.com", "firstName": "A", "billingRate": -1}, 400, "billingRate"},
			{"billing rate not a number", admin, map[string]any{"email": "a@example.com", "firstName": "A", "billingRate": "lots"}, 400, "billingRate"},
			{"billing rate null", admin, map[string]any{"email": "a@example.com", "firstName": "A", "billingRate": nil}, 400, "billingRate"},
			{"active not a boolean", admin, map[string]any{"email": "a@example.com", "firstName": "A", "active": "yes"}, 400, "active"},
			{"bad admission date", admin, map[string]any{"email": "a@example.com", "firstName": "A", "admissionDate": "soon"}, 400, "admissionDate"},
			{"admission date a number", admin, map[string]any{"email": "a@example.com", "firstName": "A", "admissionDate": 2020}, 400, "admissionDate"},
			{"email not a string", admin, map[string]any{"email": 5, "firstName": "A"}, 400, "email"},
			{"roleIds not integers", admin, map[string]any{"email": "a@example.com", "firstName": "A", "roleIds": []string{"x"}}, 400, "roleIds"},
			{"long suburb", admin, map[string]any{"email": "a@example.com", "firstName": "A", "address": map[string]any{"suburb": strings.Repeat("x", 201)}}, 400, "address.suburb"},
			{"too many roles", admin, map[string]any{"email": "a@example.com", "firstName": "A", "roleIds": make([]int, 101)}, 400, "roleIds"},
			{"unknown office", admin, map[string]any{"email": "a@example.com", "firstName": "A", "officeId": 999}, 404, ""},
			{"unknown role", admin, map[string]any{"email": "a@example.com", "firstName": "A", "roleIds": []int{999}}, 404, ""},
			{"malformed JSON", admin, `{"email":`, 400, ""},
			{"empty body", admin, "", 400, ""},
			{"not an object", admin, `[1]`, 400, ""},
			{"an administrator by a non-administrator", creator, map[string]any{"email": "a@example.com", "firstName": "A", "roleIds": []int64{adminRole}}, 403, ""},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				is := is.New(t)
				r := s.Do(t, "POST", "/api/users", tt.token, tt.body)
				is.Equal(r.Status, tt.status)                                      // refused
				is.Equal(r.Header.Get("Content-Type"), "application/problem+json") // a problem document
				if tt.field != "" {
					is.True(usrErrors(t, r)[tt.field] != nil) // names the field
				}
			})
		}
	})

	t.Run("create without password, no roles, an administrator", func(t *testing.T) {
		is := is.New(t)
		u := usrCreate(t, s, admin, map[string]any{"email": "nopw@example.com", "firstName": "No", "roleIds": []int{}})
		is.Equal(len(u.Roles), 0)       // an empty list: no roles
		is.True(u.PQY == nil)           // no admission date: null pqy
		is.True(u.AdmissionDate == nil) // null admission date
		is.True(u.Office == nil)        // no office
		r := s.Do(t, "POST", "/api/account/login", "", map[string]string{"email": "nopw@example.com", "password": "anything-1", "otp": "000000"})
		is.Equal(r.Status, 401) // no password: no password sign-in
		a := usrCreate(t, s, admin, map[string]any{"email": "boss@example.com", "firstName": "Boss", "roleIds": []int64{adminRole}})
		is.True(a.Roles[0].IsSystemAdmin) // an administrator may make one
	})

	t.Run("read", func(t *testing.T) {
		is := is.New(t)
		_, plain := s.User(t)
		var got usrDTO
		r := s.Do(t, "GET", fmt.Sprintf("/api/users/%d", jane.ID), plain, nil)
		is.Equal(r.Status, 200) // any signed-in user
		r.JSON(t, &got)
		is.Equal(got.Email, jane.Email) // the same user
		is.Equal(len(got.Roles), 1)     // roles
		m := r.Map(t)
		for _, k := range []string{"id", "email", "firstName", "lastName", "fullName", "billingRate", "profilePictureUrl", "contactNumber",
			"active", "office", "isLegal", "isStaff", "address", "admissionDate", "pqy", "roles"} {
			_, ok := m[k]
			is.True(ok) // every UserDto field
		}
		is.Equal(s.Do(t, "GET", "/api/users/999999", plain, nil).Status, 404) // unknown
		is.Equal(s.Do(t, "GET", "/api/users/abc", plain, nil).Status, 404)    // not an id
	})

	t.Run("update", func(t *testing.T) {
		is := is.New(t)
		path := fmt.Sprintf("/api/users/%d", jane.ID)
		var got usrDTO
		r := s.Do(t, "PUT", path, admin, map[string]any{"lastName": "Smith", "isStaff": false, "billingRate": "500.10"})
		is.Equal(r.Status, 200) // updated
		r.JSON(t, &got)
		is.Equal(got.FullName, "Jane Smith")        // changed
		is.True(!got.IsStaff)                       // changed
		is.Equal(got.BillingRate, 500.1)            // changed
		is.Equal(got.ContactNumber, "0400 000 000") // absent: unchanged
		is.Equal(got.Office.Name, "Sydney")         // absent: unchanged
		is.Equal(got.Address["suburb"], "Sydney")   // absent: unchanged
		is.True(got.AdmissionDate != nil)           // absent: unchanged
		s.Do(t, "PUT", path, admin, map[string]any{"officeId": nil, "admissionDate": nil, "address": nil}).JSON(t, &got)
		is.True(got.Office == nil)          // null removes the office
		is.True(got.AdmissionDate == nil)   // and the admission date
		is.True(got.PQY == nil)             // so no pqy
		is.Equal(got.Address["suburb"], "") // and clears the address
		usrCreate(t, s, admin, map[string]any{"email": "taken@example.com", "firstName": "T"})
		tests := []struct {
			name   string
			path   string
			body   any
			status int
		}{
			{"taken email", path, map[string]any{"email": "Taken@example.com"}, 409},
			{"blank first name", path, map[string]any{"firstName": " "}, 400},
			{"bad email", path, map[string]any{"email": "x"}, 400},
			{"unknown office", path, map[string]any{"officeId": 999}, 404},
			{"unknown user", "/api/users/999999", map[string]any{"lastName": "X"}, 404},
			{"malformed", path, `{"lastName":`, 400},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				is := is.New(t)
				is.Equal(s.Do(t, "PUT", tt.path, admin, tt.body).Status, tt.status) // refused
			})
		}
		s.Do(t, "GET", path, admin, nil).JSON(t, &got)
		is.Equal(got.Email, "jane@example.com") // refusals changed nothing
	})

	t.Run("deactivate", func(t *testing.T) {
		is := is.New(t)
		tok := s.Login(t, "jane@example.com", "jane-password-1").AccessToken
		is.Equal(s.Do(t, "GET", "/api/me", tok, nil).Status, 200) // signed in
		is.Equal(s.Do(t, "PUT", fmt.Sprintf("/api/users/%d", jane.ID), admin, map[string]any{"active": false}).Status, 200)
		is.Equal(s.Do(t, "GET", "/api/me", tok, nil).Status, 401) // an inactive user's token stops working at once
		is.Equal(s.Do(t, "PUT", fmt.Sprintf("/api/users/%d", jane.ID), admin, map[string]any{"active": true}).Status, 200)
		var boss usrPage
		s.Do(t, "GET", "/api/users?Search=boss@", admin, nil).JSON(t, &boss)
		is.Equal(s.Do(t, "PUT", fmt.Sprintf("/api/users/%d", boss.Items[0].ID), admin, map[string]any{"active": false}).Status, 200) // another administrator remains
		is.Equal(s.Do(t, "PUT", "/api/users/1", admin, map[string]any{"active": false}).Status, 409)                                 // the last active administrator stays active
	})
}

func TestUsersDelete(t *testing.T) {
	t.Parallel()
	s := apptest.New(t)
	admin := s.Admin(t)
	delID, deleter := s.User(t, account.UsersDelete)
	jane := usrCreate(t, s, admin, map[string]any{"email": "jane@example.com", "firstName": "Jane", "password": "jane-password-1"})
	tok := s.Login(t, "jane@example.com", "jane-password-1")
	path := fmt.Sprintf("/api/users/%d", jane.ID)

	is := is.New(t)
	is.Equal(s.Do(t, "PUT", "/api/offerings/4/reviewers/add", admin, map[string]any{"userIds": []int64{jane.ID}}).Status, 200) // a reviewer
	is.Equal(s.Do(t, "DELETE", fmt.Sprintf("/api/users/%d", delID), deleter, nil).Status, 409)                                 // not yourself
	is.Equal(s.Do(t, "DELETE", "/api/users/1", deleter, nil).Status, 409)                                                      // not the last administrator
	r := s.Do(t, "DELETE", path, deleter, nil)
	is.Equal(r.Status, 204)                                               // deleted
	is.Equal(len(r.Body), 0)                                              // no body
	is.Equal(s.Do(t, "GET", path, admin, nil).Status, 404)                // gone from lookups
	is.Equal(s.Do(t, "GET", "/api/me", tok.AccessToken, nil).Status, 401) // sessions revoked at once
	r = s.Do(t, "POST", "/api/account/refresh-token", "", map[string]string{"accessToken": tok.AccessToken, "refreshToken": tok.RefreshToken})
	is.Equal(r.Status, 401) // and cannot be refreshed
	r = s.Do(t, "POST", "/api/account/login/get-otp", "", map[string]string{"email": "jane@example.com"})
	is.Equal(r.Map(t)["status"], false) // cannot sign in
	var p usrPage
	s.Do(t, "GET", "/api/users?Search=jane", admin, nil).JSON(t, &p)
	is.Equal(p.Count, int64(0)) // gone from lists
	s.Do(t, "GET", "/api/users/reviewers?offeringIds=4", admin, nil).JSON(t, &p)
	is.Equal(p.Count, int64(0))                                                        // and from reviewers
	is.Equal(s.Do(t, "DELETE", path, deleter, nil).Status, 404)                        // deleted once
	is.Equal(s.Do(t, "DELETE", "/api/users/999999", deleter, nil).Status, 404)         // unknown
	is.Equal(s.Do(t, "PUT", path, admin, map[string]any{"lastName": "X"}).Status, 404) // cannot be edited
	again := usrCreate(t, s, admin, map[string]any{"email": "JANE@example.com", "firstName": "Jane"})
	is.True(again.ID != jane.ID) // the email may be used again
}

func TestUsersList(t *testing.T) {
	t.Parallel()
	s := apptest.New(t)
	admin := s.Admin(t)
	var sydney, perth struct{ ID int64 }
	s.Do(t, "POST", "/api/offices", admin, map[string]any{"name": "Sydney"}).JSON(t, &sydney)
	s.Do(t, "POST", "/api/offices", admin, map[string]any{"name": "Perth"}).JSON(t, &perth)
	for _, b := range []map[string]any{
		{"email": "jane@firm.io", "firstName": "Jane", "lastName": "Doe", "officeId": sydney.ID, "isLegal": true, "billingRate": 400},
		{"email": "john@firm.io", "firstName": "John", "lastName": "Doe", "officeId": sydney.ID},
		{"email": "kim@firm.io", "firstName": "Kim", "lastName": "Lee", "officeId": perth.ID, "billingRate": 250},
		{"email": "old@firm.io", "firstName": "Old", "lastName": "Timer", "active": false, "isStaff": false},
	} {
		usrCreate(t, s, admin, b)
	}
	_, plain := s.User(t) // "Test User1", a fifth user besides the administrator
	tests := []struct {
		query string
		want  []string
		count int64
		next  bool
	}{
		{"", []string{"Admin", "Jane Doe", "John Doe", "Kim Lee", "Old Timer", "Test User1"}, 6, false},
		{"?Search=DOE", []string{"Jane Doe", "John Doe"}, 2, false},
		{"?search=n%20do", []string{"John Doe"}, 1, false},
		{"?Search=NE+DOE", []string{"Jane Doe"}, 1, false},
		{"?Search=kim@FIRM", []string{"Kim Lee"}, 1, false},
		{"?Search=%25", []string{}, 0, false},
		{"?Active=false", []string{"Old Timer"}, 1, false},
		{"?active=TRUE&IsStaff=true&Search=DOE", []string{"Jane Doe", "John Doe"}, 2, false},
		{"?IsStaff=false", []string{"Old Timer"}, 1, false},
		{"?IsLegal=true", []string{"Jane Doe"}, 1, false},
		{"?IsRequiredBillingRate=true", []string{"Jane Doe", "Kim Lee"}, 2, false},
		{"?IsRequireBillingRate=true", []string{"Jane Doe", "Kim Lee"}, 2, false},
		{"?IsRequiredBillingRate=false", []string{"Admin", "Jane Doe", "John Doe", "Kim Lee", "Old Timer", "Test User1"}, 6, false},
		{fmt.Sprintf("?OfficeId=%d", sydney.ID), []string{"Jane Doe", "John Doe"}, 2, false},
		{fmt.Sprintf("?OfficeId=%d&IsRequiredBillingRate=true", sydney.ID), []string{"Jane Doe"}, 1, false},
		{"?OfficeId=999", []string{}, 0, false},
		{"?Limit=2", []string{"Admin", "Jane Doe"}, 6, true},
		{"?Limit=2&Offset=2", []string{"John Doe", "Kim Lee"}, 6, true},
		{"?Limit=2&Offset=4", []string{"Old Timer", "Test User1"}, 6, false},
		{"?limit=4&offset=4", []string{"Old Timer", "Test User1"}, 6, false},
		{"?Offset=6", []string{}, 6, false},
		{"?Offset=600", []string{}, 6, false},
		{"?Offset=9223372036854775807", []string{}, 6, false},
		{"?Limit=0", []string{}, 6, true},
		{"?Limit=0&Offset=6", []string{}, 6, false},
		{"?Limit=99999999999999999999999", []string{"Admin", "Jane Doe", "John Doe", "Kim Lee", "Old Timer", "Test User1"}, 6, false},
	}
	for _, tt := range tests {
		t.Run(tt.query, func(t *testing.T) {
			is := is.New(t)
			r := s.Do(t, "GET", "/api/users"+tt.query, plain, nil)
			is.Equal(r.Status, 200) // listed
			var p usrPage
			r.JSON(t, &p)
			got := []string{}
			for _, u := range p.Items {
				got = append(got, u.FullName)
			}
			is.Equal(got, tt.want)       // items, by last name, first name, id
			is.Equal(p.Count, tt.count)  // count of all matches
			is.Equal(p.HasNext, tt.next) // hasNext
		})
	}
	bad := []struct{ query, field string }{
		{"?Limit=-1", "Limit"},
		{"?Limit=ten", "Limit"},
		{"?Offset=-5", "Offset"},
		{"?Offset=1.5", "Offset"},
		{"?Active=maybe", "Active"},
		{"?IsLegal=2", "IsLegal"},
		{"?IsStaff=", ""},
		{"?IsRequiredBillingRate=x", "IsRequiredBillingRate"},
		{"?IsRequireBillingRate=x", "IsRequireBillingRate"},
		{"?OfficeId=x", "OfficeId"},
		{"?Search=" + strings.Repeat("a", 201), "Search"},
	}
	for _, tt := range bad {
		t.Run("bad "+tt.query[:min(len(tt.query), 30)], func(t *testing.T) {
			is := is.New(t)
			r := s.Do(t, "GET", "/api/users"+tt.query, plain, nil)
			if tt.field == "" {
				is.Equal(r.Status, 200) // an empty value is no filter
				return
			}
			is.Equal(r.Status, 400)                   // refused
			is.True(usrErrors(t, r)[tt.field] != nil) // names the parameter
		})
	}
}

func TestUsersLimitClamp(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	s := apptest.New(t)
	admin := s.Admin(t)
	seed := make([]user.User, 120)
	for i := range seed {
		seed[i] = user.New()
		seed[i].Email, seed[i].FirstName, seed[i].LastName = fmt.Sprintf("u%03d@example.com", i), "U", fmt.Sprintf("N%03d", i)
	}
	_, err := s.App.Stores().Users.CreateUsers(context.Background(), seed)
	is.NoErr(err) // seed
	var p usrPage
	s.Do(t, "GET", "/api/users?Limit=1000", admin, nil).JSON(t, &p)
	is.Equal(len(p.Items), 100)   // clamped to 100
	is.Equal(p.Count, int64(121)) // all counted
	is.True(p.HasNext)            // more to come
	s.Do(t, "GET", "/api/users?Limit=1000&Offset=100", admin, nil).JSON(t, &p)
	is.Equal(len(p.Items), 21) // the rest
	is.True(!p.HasNext)        // the last page
	s.Do(t, "GET", "/api/users", admin, nil).JSON(t, &p)
	is.Equal(len(p.Items), 20) // default page size
}

func TestMe(t *testing.T) {
	t.Parallel()
	s := apptest.New(t)
	admin := s.Admin(t)
	var office struct{ ID int64 }
	s.Do(t, "POST", "/api/offices", admin, map[string]any{"name": "Sydney", "phone": "02 1234", "address": map[string]any{"suburb": "Sydney"}}).JSON(t, &office)
	jane := usrCreate(t, s, admin, map[string]any{"email": "jane@example.com", "firstName": "Jane", "lastName": "Doe",
		"password": "jane-password-1", "officeId": office.ID, "admissionDate": "2016-11-21", "billingRate": 100,
		"contactNumber": "0400", "address": map[string]any{"postcode": "2000"}})
	tok := s.Login(t, "jane@example.com", "jane-password-1").AccessToken

	t.Run("before any remuneration", func(t *testing.T) {
		is := is.New(t)
		r := s.Do(t, "GET", "/api/me", tok, nil)
		is.Equal(r.Status, 200) // the current user
		m := r.Map(t)
		want := []string{"id", "email", "contactNumber", "firstName", "lastName", "profilePictureUrl", "hasActiveTimer", "hasNotifications",
			"hasActiveDocument", "hasIncompleteReviewRequest", "hasUnacknowledgedCompletedReview", "invoicesAwaitingApproval",
			"invoicesReadyForProcessing", "fteLoad", "billingRate", "billablePercentage", "pqy", "remunerationIncSuper",
			"admissionDate", "office", "address"}
		is.Equal(len(m), len(want)) // exactly the CurrentUserDto fields
		for _, k := range want {
			_, ok := m[k]
			is.True(ok) // field present
		}
		is.Equal(m["id"], float64(jane.ID))  // the caller
		is.Equal(m["contactNumber"], "0400") // profile
		for _, k := range []string{"hasActiveTimer", "hasNotifications", "hasActiveDocument", "hasIncompleteReviewRequest", "hasUnacknowledgedCompletedReview"} {
			is.Equal(m[k], false) // modules outside this service
		}
		for _, k := range []string{"invoicesAwaitingApproval", "invoicesReadyForProcessing", "fteLoad", "billingRate", "billablePercentage", "remunerationIncSuper"} {
			is.Equal(m[k], 0.0) // 0 without a remuneration
		}
		is.Equal(m["pqy"], 10.0)                                    // admitted ten years ago
		is.Equal(m["admissionDate"], "2016-11-21T00:00:00Z")        // admission date
		is.Equal(m["office"].(map[string]any)["phone"], "02 1234")  // office object
		is.Equal(m["address"].(map[string]any)["postcode"], "2000") // address object
	})

	t.Run("with remunerations and an adjustment", func(t *testing.T) {
		is := is.New(t)
		for _, b := range []map[string]any{
			{"staffId": jane.ID, "fteLoad": 0.8, "remunerationIncSuper": 120000, "billingRate": 350, "billablePercentage": 75,
				"remunerationDate": "2026-07-01", "commencementDate": "2024-01-01"},
			{"staffId": jane.ID, "fteLoad": 1, "remunerationIncSuper": 99000, "billingRate": 300, "billablePercentage": 70,
				"remunerationDate": "2025-07-01", "commencementDate": "2024-01-01"},
		} {
			is.Equal(s.Do(t, "POST", "/api/users/remuneration", admin, b).Status, 200) // recorded
		}
		r := s.Do(t, "POST", "/api/users/pqeadjustments", tok, map[string]any{"staffId": jane.ID, "name": "Parental leave",
			"startDate": "2020-01-01", "endDate": "2020-12-31"})
		is.Equal(r.Status, 200) // one's own adjustment
		m := s.Do(t, "GET", "/api/me", tok, nil).Map(t)
		is.Equal(m["fteLoad"], 0.8)                   // from the latest remuneration
		is.Equal(m["billingRate"], 350.0)             // by remunerationDate, not creation order
		is.Equal(m["billablePercentage"], 75.0)       // from the latest
		is.Equal(m["remunerationIncSuper"], 120000.0) // from the latest
		is.Equal(m["pqy"], 9.0)                       // 3653 days less 366 of leave, over 365.25
		var u usrDTO
		s.Do(t, "GET", fmt.Sprintf("/api/users/%d", jane.ID), admin, nil).JSON(t, &u)
		is.Equal(*u.PQY, 9.0) // the UserDto agrees
		s.Clock.Advance(365 * 24 * time.Hour)
		m = s.Do(t, "GET", "/api/me", s.Login(t, "jane@example.com", "jane-password-1").AccessToken, nil).Map(t)
		is.Equal(m["pqy"], 10.0) // computed at now
	})

	t.Run("formatted", func(t *testing.T) {
		is := is.New(t)
		tok := s.Login(t, "jane@example.com", "jane-password-1").AccessToken
		r := s.Do(t, "GET", "/api/me/formatted", tok, nil)
		is.Equal(r.Status, 200) // the formatted user
		m := r.Map(t)
		is.Equal(len(m), 13)                                     // exactly the formatted user's fields
		is.Equal(m["fullName"], "Jane Doe")                      // full name
		is.Equal(m["billingRate"], 350.0)                        // the latest remuneration set the billing rate
		is.Equal(m["office"].(map[string]any)["name"], "Sydney") // office
		is.Equal(m["email"], "jane@example.com")                 // email
	})
}

func TestOffices(t *testing.T) {
	t.Parallel()
	s := apptest.New(t)
	admin := s.Admin(t)
	_, plain := s.User(t)
	is := is.New(t)
	r := s.Do(t, "POST", "/api/offices", admin, map[string]any{"name": " Sydney ", "phone": "02 9999 0000", "website": "https://syd.example",
		"address": map[string]any{"address1": "1 George St", "suburb": "Sydney", "state": "NSW", "postcode": "2000", "country": "AU"}})
	is.Equal(r.Status, 201) // created
	o := r.Map(t)
	id := int64(o["id"].(float64))
	is.Equal(r.Header.Get("Location"), fmt.Sprintf("/api/offices/%d", id)) // Location
	is.Equal(o["name"], "Sydney")                                          // trimmed
	is.Equal(o["active"], true)                                            // active by default
	is.Equal(o["address"].(map[string]any)["state"], "NSW")                // address
	is.Equal(len(o), 6)                                                    // id, name, phone, website, active, address
	s.Do(t, "POST", "/api/offices", admin, map[string]any{"name": "Adelaide"})
	var list []map[string]any
	r = s.Do(t, "GET", "/api/offices", plain, nil)
	is.Equal(r.Status, 200) // any signed-in user
	r.JSON(t, &list)
	is.Equal(len(list), 2)                                                         // both
	is.Equal([]any{list[0]["name"], list[1]["name"]}, []any{"Adelaide", "Sydney"}) // by name
	r = s.Do(t, "PUT", fmt.Sprintf("/api/offices/%d", id), admin, map[string]any{"active": false, "phone": "02 1111"})
	is.Equal(r.Status, 200) // updated
	o = r.Map(t)
	is.Equal(o["active"], false)                                // changed
	is.Equal(o["phone"], "02 1111")                             // changed
	is.Equal(o["website"], "https://syd.example")               // unchanged
	is.Equal(o["address"].(map[string]any)["postcode"], "2000") // unchanged
	r = s.Do(t, "GET", fmt.Sprintf("/api/offices/%d", id), plain, nil)
	is.Equal(r.Status, 200)                // one office
	is.Equal(r.Map(t)["phone"], "02 1111") // as stored
	for _, tt := range []struct {
		method, path string
		body         any
		status       int
	}{
		{"POST", "/api/offices", map[string]any{"phone": "1"}, 400},
		{"POST", "/api/offices", map[string]any{"name": "x", "active": "no"}, 400},
		{"POST", "/api/offices", map[string]any{"name": "x", "website": strings.Repeat("w", 2049)}, 400},
		{"PUT", fmt.Sprintf("/api/offices/%d", id), map[string]any{"name": ""}, 400},
		{"PUT", "/api/offices/999", map[string]any{"name": "x"}, 404},
		{"GET", "/api/offices/999", nil, 404},
	} {
		is.Equal(s.Do(t, tt.method, tt.path, admin, tt.body).Status, tt.status) // refused
	}
}

func TestReviewers(t *testing.T) {
	t.Parallel()
	s := apptest.New(t)
	admin := s.Admin(t)
	var ids []int64
	for _, n := range []string{"Ann", "Bob", "Cat"} {
		ids = append(ids, usrCreate(t, s, admin, map[string]any{"email": n + "@example.com", "firstName": n, "lastName": "Rev",
			"isLegal": n != "Cat"}).ID)
	}
	ann, bob, cat := ids[0], ids[1], ids[2]
	is := is.New(t)
	change := func(offering int64, op string, userIDs ...int64) *apptest.Response {
		return s.Do(t, "PUT", fmt.Sprintf("/api/offerings/%d/reviewers/%s", offering, op), admin, map[string]any{"userIds": userIDs})
	}
	r := change(10, "add", ann, bob, bob)
	is.Equal(r.Status, 200) // added
	var got struct {
		OfferingID int64
		UserIDs    []int64
	}
	r.JSON(t, &got)
	is.Equal(got.OfferingID, int64(10))      // the offering
	is.Equal(got.UserIDs, []int64{ann, bob}) // its reviewers
	is.Equal(change(20, "add", bob, cat).Status, 200)
	is.Equal(change(30, "add", cat).Status, 200)
	r = change(20, "add", ann, 999999)
	is.Equal(r.Status, 404) // an unknown user
	list := func(q string) []string {
		var p usrPage
		r := s.Do(t, "GET", "/api/users/reviewers"+q, admin, nil)
		is.Equal(r.Status, 200) // listed
		r.JSON(t, &p)
		out := []string{}
		for _, u := range p.Items {
			out = append(out, u.FirstName)
		}
		is.Equal(p.Count, int64(len(out))) // one page
		return out
	}
	is.Equal(list("?offeringIds=20"), []string{"Bob", "Cat"})         // the failed add changed nothing
	is.Equal(list("?offeringIds=10&offeringIds=20"), []string{"Bob"}) // every listed offering
	is.Equal(list("?OfferingIds=10,20"), []string{"Bob"})             // comma-separated too
	is.Equal(list(""), []string{"Ann", "Bob", "Cat"})                 // none listed: any offering
	is.Equal(list("?offeringIds=20&IsLegal=true"), []string{"Bob"})   // with the user filter
	is.Equal(list("?offeringIds=20&Search=cat"), []string{"Cat"})     // with the user filter
	is.Equal(list("?offeringIds=40"), []string{})                     // nobody
	r = change(10, "remove", bob, 999999)
	is.Equal(r.Status, 200) // removed; unknown ids ignored
	r.JSON(t, &got)
	is.Equal(got.UserIDs, []int64{ann})                          // remaining
	is.Equal(list("?offeringIds=10&offeringIds=20"), []string{}) // nobody for both
	for _, tt := range []struct {
		name, q string
	}{{"not a number", "?offeringIds=x"}, {"zero", "?offeringIds=0"}, {"negative", "?offeringIds=-2"}} {
		r := s.Do(t, "GET", "/api/users/reviewers"+tt.q, admin, nil)
		is.Equal(r.Status, 400)                        // refused
		is.True(usrErrors(t, r)["offeringIds"] != nil) // names the parameter
	}
	for _, body := range []any{map[string]any{}, map[string]any{"userIds": []int64{}}, map[string]any{"userIds": []int64{0}},
		map[string]any{"userIds": "1"}, `{"userIds":[1,`} {
		is.Equal(s.Do(t, "PUT", "/api/offerings/10/reviewers/add", admin, body).Status, 400) // bad input
	}
	is.Equal(s.Do(t, "PUT", "/api/offerings/x/reviewers/add", admin, map[string]any{"userIds": []int64{ann}}).Status, 404) // not an id
}

func TestChangePassword(t *testing.T) {
	t.Parallel()
	s := apptest.New(t)
	admin := s.Admin(t)
	_, editor := s.User(t, account.UsersEdit)
	_, plain := s.User(t)
	jane := usrCreate(t, s, admin, map[string]any{"email": "jane@example.com", "firstName": "Jane", "password": "jane-password-1"})
	tok := s.Login(t, "jane@example.com", "jane-password-1").AccessToken
	is := is.New(t)
	change := func(token string, body any) int {
		return s.Do(t, "POST", "/api/users/changepassword", token, body).Status
	}

	is.Equal(change(plain, map[string]any{"id": jane.ID, "password": "stolen-password"}), 403) // another user's without UsersEdit
	is.Equal(change(plain, map[string]any{"id": 999999, "password": "stolen-password"}), 403)  // the same answer for unknown ids
	is.Equal(s.Do(t, "GET", "/api/me", tok, nil).Status, 200)                                  // nothing changed
	// Only id and password count: the other fields are ignored, whatever they hold.
	r := s.Do(t, "POST", "/api/users/changepassword", tok, map[string]any{"id": jane.ID, "password": "jane-password-2",
		"email": "other@example.com", "firstName": 7, "officeId": "x", "address": []int{1}})
	is.Equal(r.Status, 200)                                                   // one's own
	is.Equal(s.Do(t, "GET", "/api/me", tok, nil).Status, 401)                 // sessions revoked
	tok = s.Login(t, "jane@example.com", "jane-password-2").AccessToken       // the new password works
	is.Equal(change(tok, map[string]any{"password": "jane-password-3"}), 200) // no id: oneself
	tok = s.Login(t, "jane@example.com", "jane-password-3").AccessToken
	is.Equal(change(editor, map[string]any{"id": jane.ID, "password": "jane-password-4"}), 200) // UsersEdit may
	is.Equal(s.Do(t, "GET", "/api/me", tok, nil).Status, 401)                                   // the target's sessions revoked
	s.Login(t, "jane@example.com", "jane-password-4")
	r = s.Do(t, "POST", "/api/users/changepassword", editor, map[string]any{"id": jane.ID, "password": "short"})
	is.Equal(r.Status, 400)                                                                  // too short
	is.True(usrErrors(t, r)["password"] != nil)                                              // names the field
	is.Equal(change(editor, map[string]any{"id": jane.ID}), 400)                             // missing password
	is.Equal(change(editor, map[string]any{"id": 999999, "password": "long-enough-1"}), 404) // unknown user
	is.Equal(change(editor, map[string]any{"id": "x", "password": "long-enough-1"}), 400)    // id not an integer
	is.Equal(change(editor, `{"password":`), 400)                                            // malformed
	is.Equal(s.Do(t, "POST", "/api/users/changepassword", "", map[string]any{"password": "long-enough-1"}).Header.Get("WWW-Authenticate"), "Bearer")
}

// TestAdministratorsAreNotTakenOver: UsersEdit does not let a caller who
// is not a system administrator change an administrator's password or
// account, or give or take the system-admin role.
func TestAdministratorsAreNotTakenOver(t *testing.T) {
	t.Parallel()
	s := apptest.New(t)
	admin := s.Admin(t)
	editorID, editor := s.User(t, account.UsersEdit, account.UsersView)
	adminRole := usrAdminRole(t, s, admin)
	tests := []struct {
		name, method, path string
		body               any
	}{
		{"password of an administrator", "POST", "/api/users/changepassword", map[string]any{"id": 1, "password": "taken-over-1"}},
		{"authenticator app of an administrator", "DELETE", "/api/users/1/totp", nil},
		{"edit an administrator", "PUT", "/api/users/1", map[string]any{"email": "mine@example.com"}},
		{"give oneself the admin role", "POST", fmt.Sprintf("/api/users/%d/roles/%d", editorID, adminRole), nil},
		{"take the admin role", "DELETE", fmt.Sprintf("/api/users/1/roles/%d", adminRole), nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			r := s.Do(t, tt.method, tt.path, editor, tt.body)
			is.Equal(r.Status, 403) // refused
		})
	}
	is := is.New(t)
	is.Equal(s.Do(t, "POST", "/api/users/changepassword", editor, map[string]any{"password": "my-own-new-1"}).Status, 200) // their own password
	s.Login(t, apptest.AdminEmail, apptest.AdminPassword)                                                                  // the administrator's password is unchanged
}
