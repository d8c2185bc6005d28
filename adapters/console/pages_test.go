package console_test

import (
	"fmt"
	"net/http"
	"net/url"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/matryer/is"

	"counsel/app"
	"counsel/app/apptest"
	"counsel/domain/account"
)

// TestPermissionRefusal posts to every POST route, and opens every page
// that needs a permission, as a user without any: each is refused with
// 403 and changes nothing, and the navigation offers none of them.
func TestPermissionRefusal(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	admin := s.Admin(t)
	other, _ := userWith(t, s)
	r := s.Do(t, "POST", "/api/roles", admin, map[string]any{"name": "Partners"})
	if r.Status != 201 {
		t.Fatalf("role: %d", r.Status)
	}
	r = s.Do(t, "POST", "/api/offices", admin, map[string]any{"name": "Sydney"})
	if r.Status != 201 {
		t.Fatalf("office: %d", r.Status)
	}
	b, _, _ := signedInUser(t, s)
	home := b.get("/console")
	is.New(t).True(!strings.Contains(home.Body, `href="/console/users"`)) // no Users in the navigation
	is.New(t).True(!strings.Contains(home.Body, `href="/console/roles"`)) // no Roles either

	u := fmt.Sprintf("/console/users/%d", other)
	posts := []struct {
		path string
		form url.Values
	}{
		{"/console/users", url.Values{"email": {"new@example.com"}, "firstName": {"New"}}},
		{u, url.Values{"email": {"x@example.com"}, "firstName": {"X"}}},
		{u + "/active", url.Values{"active": {"false"}}},
		{u + "/password", url.Values{"password": {"new-password-1"}}},
		{u + "/totp", nil},
		{u + "/delete", nil},
		{u + "/remunerations", url.Values{"fteLoad": {"1"}, "remunerationDate": {"2026-01-01"}, "commencementDate": {"2026-01-01"}}},
		{u + "/pqe", url.Values{"name": {"Leave"}, "startDate": {"2020-01-01"}, "endDate": {"2020-02-01"}}},
		{"/console/roles", url.Values{"name": {"Mine"}}},
		{"/console/roles/2", url.Values{"name": {"Renamed"}}},
		{"/console/roles/2/delete", nil},
		{"/console/offices", url.Values{"name": {"Melbourne"}}},
		{"/console/offices/1", url.Values{"name": {"Renamed"}}},
	}
	for _, tt := range posts {
		t.Run("POST "+tt.path, func(t *testing.T) {
			is := is.New(t)
			r := b.post(tt.path, tt.form)
			is.Equal(r.Status, http.StatusForbidden) // by the route, or by the use case (PQE for someone else)
		})
	}
	for _, path := range []string{"/console/users", "/console/users/new", u, u + "/delete", "/console/roles", "/console/roles/new",
		"/console/roles/2", "/console/roles/2/delete", "/console/offices/new"} {
		t.Run("GET "+path, func(t *testing.T) {
			is.New(t).Equal(b.get(path).Status, http.StatusForbidden)
		})
	}
	is := is.New(t)
	r = s.Do(t, "GET", "/api"+u[len("/console"):], admin, nil)
	is.True(strings.Contains(string(r.Body), `"active":true`)) // nothing changed
	r = s.Do(t, "GET", "/api/roles", admin, nil)
	is.True(!strings.Contains(string(r.Body), "Mine") && strings.Contains(string(r.Body), "Partners"))
	r = s.Do(t, "GET", "/api/offices", admin, nil)
	is.True(!strings.Contains(string(r.Body), "Melbourne") && strings.Contains(string(r.Body), "Sydney"))
}

// TestUseCaseRefusesWhatThePageWouldOffer gives a user UsersEdit but not
// system administrator: the use case still refuses to edit the
// administrator, and the page says why.
func TestUseCaseRefusesWhatThePageWouldOffer(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	s := newServer(t)
	b, _, _ := signedInUser(t, s, account.UsersView, account.UsersEdit)
	r := b.post("/console/users/1/password", url.Values{"password": {"taken-over-1"}})
	is.Equal(r.Status, http.StatusForbidden)
	is.True(strings.Contains(r.Body, `class="banner"`))
	newBrowser(t, s).signIn(apptest.AdminEmail, apptest.AdminPassword) // unchanged
}

func TestUsersFlow(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	s := newServer(t)
	admin := s.Admin(t)
	is.Equal(s.Do(t, "POST", "/api/offices", admin, map[string]any{"name": "Sydney"}).Status, 201)
	b := newBrowser(t, s)
	b.signIn(apptest.AdminEmail, apptest.AdminPassword)

	r := b.get("/console/users/new")
	is.Equal(r.Status, 200)
	is.True(strings.Contains(r.Body, `<option value="1">Sydney</option>`)) // offices to choose from
	is.True(strings.Contains(r.Body, `name="roleIds" value="2" checked`))  // the default role ticked

	// Errors appear next to their fields and the form keeps its values.
	r = b.post("/console/users", url.Values{"email": {"bad"}, "firstName": {""}, "lastName": {"Doe"}, "billingRate": {"abc"}, "rolesShown": {"1"}, "roleIds": {"2"}})
	is.Equal(r.Status, http.StatusBadRequest)
	is.True(strings.Contains(r.Body, `id="e-billingRate"`)) // shape errors first
	r = b.post("/console/users", url.Values{"email": {"bad"}, "firstName": {""}, "lastName": {"Doe"}, "password": {"secret-password"}, "rolesShown": {"1"}, "roleIds": {"2"}})
	is.Equal(r.Status, http.StatusBadRequest)
	is.True(strings.Contains(r.Body, `id="e-email"`))
	is.True(strings.Contains(r.Body, `id="e-firstName"`))
	is.True(strings.Contains(r.Body, `aria-describedby="e-firstName"`))
	is.True(strings.Contains(r.Body, `value="Doe"`))                      // refilled
	is.True(!strings.Contains(r.Body, "secret-password"))                 // but not the password
	is.True(strings.Contains(r.Body, `name="roleIds" value="2" checked`)) // roles kept

	form := url.Values{"email": {"jane@example.com"}, "firstName": {"Jane"}, "lastName": {"Doe"}, "officeId": {"1"}, "isLegal": {"true"},
		"isStaff": {"true"}, "active": {"true"}, "billingRate": {"450"}, "admissionDate": {"2016-03-01"}, "address.suburb": {"Sydney"},
		"password": {"jane-password-1"}, "rolesShown": {"1"}, "roleIds": {"1"}}
	r = b.post("/console/users", form)
	is.Equal(r.Status, http.StatusSeeOther)
	loc := r.Header.Get("Location")
	is.True(strings.HasPrefix(loc, "/console/users/"))
	r = b.get(loc)
	is.True(strings.Contains(r.Body, "Created Jane Doe.")) // the message after the redirect
	is.True(strings.Contains(r.Body, `value="jane@example.com"`))
	is.True(strings.Contains(r.Body, "Roles: Administrator"))
	janeID := strings.TrimPrefix(loc, "/console/users/")

	r = b.post("/console/users", form) // the same email again
	is.Equal(r.Status, http.StatusConflict)
	is.True(strings.Contains(r.Body, `class="banner"`))

	newBrowser(t, s).signIn("jane@example.com", "jane-password-1") // she can sign in

	// Filters, search, order and paging.
	for i := 0; i < 22; i++ {
		r := s.Do(t, "POST", "/api/users", admin, map[string]any{"email": fmt.Sprintf("p%02d@example.com", i), "firstName": "Person", "lastName": fmt.Sprintf("P%02d", i), "isStaff": i%2 == 0})
		is.Equal(r.Status, 201)
	}
	tests := []struct {
		query string
		has   []string
		not   []string
	}{
		{"", []string{"Showing 1–20 of 24", "Next page"}, []string{"Previous page"}},
		{"?Offset=20", []string{"Showing 21–24 of 24", "Previous page"}, []string{"Next page"}},
		{"?Search=jane", []string{"Showing 1–1 of 1", "Jane Doe"}, nil},
		{"?IsLegal=true", []string{"of 1<", "Jane Doe"}, nil},
		{"?OfficeId=1", []string{"of 1<"}, nil},
		{"?IsRequiredBillingRate=true", []string{"of 1<", "Jane Doe"}, nil},
		{"?IsStaff=false", []string{"of 11<"}, []string{"Jane Doe"}},
		{"?Active=false", []string{"No users match."}, nil},
		{"?Sort=desc&Limit=1", []string{"Person P21"}, nil},
		{"?Limit=1", []string{">Admin<"}, nil},
	}
	for _, tt := range tests {
		t.Run("list "+tt.query, func(t *testing.T) {
			is := is.New(t)
			r := b.get("/console/users" + tt.query)
			is.Equal(r.Status, 200)
			for _, h := range tt.has {
				is.True(strings.Contains(r.Body, h)) // shown
			}
			for _, n := range tt.not {
				is.True(!strings.Contains(r.Body, n)) // not shown
			}
		})
	}
	r = b.get("/console/users?Active=maybe")
	is.Equal(r.Status, http.StatusBadRequest)
	is.True(strings.Contains(r.Body, "Active must be true, false or empty"))

	// Edit, roles, activation, password, delete.
	form.Set("firstName", "Janet")
	form.Set("roleIds", "2")
	form.Del("password")
	r = b.post(loc, form)
	is.Equal(r.Status, http.StatusSeeOther)
	r = b.get(loc)
	is.True(strings.Contains(r.Body, `value="Janet"`))
	is.True(strings.Contains(r.Body, "Roles: Staff"))
	form.Set("email", "")
	r = b.post(loc, form)
	is.Equal(r.Status, http.StatusBadRequest)
	is.True(strings.Contains(r.Body, "email is required"))

	is.Equal(b.post(loc+"/active", url.Values{"active": {"false"}}).Status, http.StatusSeeOther)
	is.True(strings.Contains(b.get(loc).Body, "Inactive"))
	is.Equal(b.post(loc+"/active", url.Values{"active": {"true"}}).Status, http.StatusSeeOther)

	r = b.post(loc+"/password", url.Values{"password": {"short"}})
	is.Equal(r.Status, http.StatusBadRequest)
	is.True(strings.Contains(r.Body, `id="e-password"`))
	is.Equal(b.post(loc+"/password", url.Values{"password": {"janet-password-2"}}).Status, http.StatusSeeOther)
	newBrowser(t, s).signIn("jane@example.com", "janet-password-2")

	r = b.get(loc + "/delete")
	is.True(strings.Contains(r.Body, "Delete Janet Doe?"))
	r = b.post(loc+"/delete", nil)
	is.Equal(r.Status, http.StatusSeeOther)
	is.Equal(b.get(loc).Status, http.StatusNotFound)
	r = b.post("/console/users/1/delete", nil) // yourself
	is.Equal(r.Status, http.StatusConflict)
	is.True(strings.Contains(r.Body, `class="banner"`))
	_ = janeID
}

func TestRolesFlow(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	_, b := adminBrowser(t)
	r := b.get("/console/roles/new")
	is.True(strings.Contains(r.Body, "<legend>Contracts</legend>")) // grouped by area
	is.True(strings.Contains(r.Body, `id="p-UsersView"`))

	r = b.post("/console/roles", url.Values{"name": {""}})
	is.Equal(r.Status, http.StatusBadRequest)
	is.True(strings.Contains(r.Body, `id="e-name"`))
	r = b.post("/console/roles", url.Values{"name": {"Partners"}, "permissions": {"UsersView", "ContractView"}})
	is.Equal(r.Status, http.StatusSeeOther)
	loc := r.Header.Get("Location")
	r = b.get(loc)
	is.True(strings.Contains(r.Body, `value="UsersView" checked`))
	is.True(strings.Contains(r.Body, `value="ContractView" checked`))
	is.True(!strings.Contains(r.Body, `value="UsersEdit" checked`))

	r = b.post(loc, url.Values{"name": {"Senior partners"}, "permissions": {"UsersEdit"}})
	is.Equal(r.Status, http.StatusSeeOther)
	r = b.get(loc)
	is.True(strings.Contains(r.Body, `value="Senior partners"`))
	is.True(strings.Contains(r.Body, `value="UsersEdit" checked`))
	is.True(!strings.Contains(r.Body, `value="UsersView" checked`))
	is.True(strings.Contains(b.get("/console/roles").Body, "Senior partners"))

	r = b.post("/console/roles", url.Values{"name": {"senior partners"}})
	is.Equal(r.Status, http.StatusConflict)    // names are unique
	r = b.post("/console/roles/1/delete", nil) // the last administrators' role
	is.Equal(r.Status, http.StatusConflict)
	is.True(strings.Contains(b.get(loc+"/delete").Body, "Delete the role Senior partners?"))
	is.Equal(b.post(loc+"/delete", nil).Status, http.StatusSeeOther)
	is.Equal(b.get(loc).Status, http.StatusNotFound)
}

func TestOfficesFlow(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	s, b := adminBrowser(t)
	is.True(strings.Contains(b.get("/console/offices").Body, "No offices yet."))
	r := b.post("/console/offices", url.Values{"name": {" "}, "website": {"https://firm.example"}, "address.suburb": {"Surry Hills"}})
	is.Equal(r.Status, http.StatusBadRequest)
	is.True(strings.Contains(r.Body, `id="e-name"`))
	is.True(strings.Contains(r.Body, `value="Surry Hills"`))
	r = b.post("/console/offices", url.Values{"name": {"Sydney"}, "website": {"https://firm.example"}, "active": {"true"}, "address.suburb": {"Surry Hills"}})
	is.Equal(r.Status, http.StatusSeeOther)
	loc := r.Header.Get("Location")
	r = b.post(loc, url.Values{"name": {"Sydney CBD"}, "active": {"true"}, "address.suburb": {"Sydney"}, "address.postcode": {"2000"}})
	is.Equal(r.Status, http.StatusSeeOther)
	r = b.get(loc)
	is.True(strings.Contains(r.Body, `value="Sydney CBD"`))
	is.True(strings.Contains(r.Body, `value="2000"`))
	r = b.get("/console/offices")
	is.True(strings.Contains(r.Body, "Sydney CBD"))

	// Everyone may read offices; only OfficesEdit holders get a form.
	u, _, _ := signedInUser(t, s)
	r = u.get(loc)
	is.Equal(r.Status, 200)
	is.True(strings.Contains(r.Body, "<fieldset disabled>"))
	is.True(!strings.Contains(r.Body, ">Save<"))
}

func TestPayRecordsFlow(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	s := newServer(t)
	admin := s.Admin(t)
	r := s.Do(t, "POST", "/api/users", admin, map[string]any{"email": "jane@example.com", "firstName": "Jane", "lastName": "Doe",
		"admissionDate": "2016-03-01", "password": "jane-password-1"})
	is.Equal(r.Status, 201)
	b := newBrowser(t, s)
	b.signIn(apptest.AdminEmail, apptest.AdminPassword)
	pay := "/console/users/2/pay"
	page := b.get(pay)
	is.True(strings.Contains(page.Body, "No remuneration recorded yet."))

	page = b.post("/console/users/2/remunerations", url.Values{"fteLoad": {"2"}, "remunerationIncSuper": {"150000"}, "billingRate": {"450"},
		"billablePercentage": {"85"}, "remunerationDate": {"2026-07-01"}, "commencementDate": {"2026-07-01"}})
	is.Equal(page.Status, http.StatusBadRequest)
	is.True(strings.Contains(page.Body, `id="e-fteLoad"`))
	is.True(strings.Contains(page.Body, `value="150000"`))
	for _, d := range []string{"2025-07-01", "2026-07-01"} {
		page = b.post("/console/users/2/remunerations", url.Values{"fteLoad": {"1"}, "remunerationIncSuper": {"150000"}, "billingRate": {"450"},
			"billablePercentage": {"85"}, "remunerationDate": {d}, "commencementDate": {d}})
		is.Equal(page.Status, http.StatusSeeOther)
	}
	page = b.post("/console/users/2/pqe", url.Values{"name": {"Parental leave"}, "startDate": {"2020-01-01"}, "endDate": {"2019-12-31"}})
	is.Equal(page.Status, http.StatusBadRequest)
	is.True(strings.Contains(page.Body, "endDate must not be before startDate"))
	page = b.post("/console/users/2/pqe", url.Values{"name": {"Parental leave"}, "startDate": {"2020-01-01"}, "endDate": {"2020-12-31"}})
	is.Equal(page.Status, http.StatusSeeOther)

	page = b.get(pay)
	is.Equal(page.Status, 200)
	for _, want := range []string{"600,000.00", "525,000.00", "450,000.00", "75.91", "PQY at 2026-07-01", "Remunerations (2)", "Parental leave", "PQE adjustments (1)"} {
		if !strings.Contains(page.Body, want) {
			t.Errorf("pay page lacks %q: %s", want, page.Body[strings.Index(page.Body, "Latest figures"):][:600]) // latest figures and lists
		}
	}
	is.True(strings.Index(page.Body, "<td data-label=\"Date\">2026-07-01") < strings.Index(page.Body, "<td data-label=\"Date\">2025-07-01")) // newest first

	// Jane adds her own PQE adjustment but sees no remuneration form.
	j := newBrowser(t, s)
	j.signIn("jane@example.com", "jane-password-1")
	page = j.get(pay)
	is.True(!strings.Contains(page.Body, "Add a remuneration"))
	is.True(strings.Contains(page.Body, "Add a PQE adjustment"))
	is.Equal(j.post("/console/users/2/pqe", url.Values{"name": {"Study"}, "startDate": {"2021-01-01"}, "endDate": {"2021-02-01"}}).Status, http.StatusSeeOther)
	page = j.get("/console/users/1/pay")
	is.True(!strings.Contains(page.Body, "Add a PQE adjustment")) // not for someone else
	page = j.post("/console/users/1/pqe", url.Values{"name": {"Study"}, "startDate": {"2021-01-01"}, "endDate": {"2021-02-01"}})
	is.Equal(page.Status, http.StatusForbidden)
}

func TestMyAccount(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	s := newServer(t)
	b, _, email := signedInUser(t, s)
	r := b.get("/console")
	is.True(strings.Contains(r.Body, "Post-qualification years"))
	is.Equal(b.get("/console/account").Status, 200)
	r = b.post("/console/account/password", url.Values{"newPassword": {"new-password-9"}, "confirm": {"other"}})
	is.Equal(r.Status, http.StatusBadRequest)
	is.True(strings.Contains(r.Body, "the two passwords differ"))
	r = b.post("/console/account/password", url.Values{"newPassword": {"short"}, "confirm": {"short"}})
	is.Equal(r.Status, http.StatusBadRequest)
	is.True(strings.Contains(r.Body, "must be 8 to 128 characters"))
	is.True(strings.Contains(r.Body, `id="e-newPassword"`)) // next to the new password
	r = b.post("/console/account/password", url.Values{"newPassword": {"new-password-9"}, "confirm": {"new-password-9"}})
	is.Equal(r.Status, http.StatusSeeOther)
	is.Equal(r.Header.Get("Location"), "/console/login")
	is.Equal(b.get("/console").Status, http.StatusSeeOther) // signed out everywhere
	newBrowser(t, s).signIn(email, "new-password-9")
}

// TestBackupsPage: system administrators see the scheduled backups
// (newest first, with the failed attempts) and the menu links them;
// anyone else gets a 403 and no link.
func TestBackupsPage(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	dir := filepath.Join(t.TempDir(), "backups")
	s, b := adminBrowser(t, func(c *app.Config) { c.BackupDir = dir })
	var r resp
	for range 200 { // the first backup is made at start, in the background
		if r = b.get("/console/backups"); strings.Contains(r.Body, ".db</td>") {
			break
		}
		time.Sleep(25 * time.Millisecond)
	}
	is.Equal(r.Status, 200)
	is.True(strings.Contains(r.Body, "<h1>Backups</h1>"))
	is.True(strings.Contains(r.Body, ">counsel-"))                     // the file
	is.True(strings.Contains(r.Body, `<th scope="col">Verified</th>`)) // a table with header cells
	is.True(strings.Contains(b.get("/console").Body, `href="/console/backups"`))

	u, _, _ := signedInUser(t, s, account.UsersView, account.RolesView)
	is.Equal(u.get("/console/backups").Status, http.StatusForbidden)
	is.True(!strings.Contains(u.get("/console").Body, `href="/console/backups"`))
}
