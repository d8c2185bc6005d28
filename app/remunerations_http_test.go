package app_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/matryer/is"

	"counsel/app/apptest"
	"counsel/domain/account"
)

type remDTO struct {
	ID                   int64
	StaffID              int64
	FTELoad              float64
	RemunerationIncSuper float64
	CostPerHour          float64
	PQY                  *float64
	BillingRate          float64
	BillablePercentage   float64
	KPI                  float64
	KPIBillable          float64
	KPIInvoiced          float64
	RemunerationDate     string
	CommencementDate     string
	TerminationDate      *string
	Staff                map[string]any
}

type remPage struct {
	Items   []remDTO
	Count   int64
	HasNext bool
}

// remBody is a valid remuneration input for staffID on date.
func remBody(staffID int64, date string, change ...func(map[string]any)) map[string]any {
	b := map[string]any{"staffId": staffID, "fteLoad": 1, "remunerationIncSuper": "150000.00", "billingRate": 450,
		"billablePercentage": 85, "remunerationDate": date, "commencementDate": "2025-07-01"}
	for _, c := range change {
		c(b)
	}
	return b
}

func remCreate(t *testing.T, s *apptest.Server, tok string, body map[string]any) remDTO {
	t.Helper()
	var out remDTO
	s.Do(t, "POST", "/api/users/remuneration", tok, body).Expect(t, 200, "create remuneration").JSON(t, &out)
	return out
}

func TestRemunerationsAccess(t *testing.T) {
	t.Parallel()
	s := apptest.New(t)
	admin := s.Admin(t)
	_, none := s.User(t)
	staff := usrCreate(t, s, admin, map[string]any{"email": "staff@example.com", "firstName": "S"})
	rem := remCreate(t, s, admin, remBody(staff.ID, "2026-01-01"))
	tests := []struct {
		method, path string
		body         any
		need         account.Permission
		anyone       bool
	}{
		{"GET", "/api/users/remunerations", nil, 0, true},
		{"GET", fmt.Sprintf("/api/users/remunerations/%d", rem.ID), nil, 0, true},
		{"GET", fmt.Sprintf("/api/users/remunerations/staff/%d", staff.ID), nil, 0, true},
		{"GET", fmt.Sprintf("/api/users/pqeadjustments/%d", staff.ID), nil, 0, true},
		{"POST", "/api/users/remuneration", remBody(staff.ID, "2026-02-01"), account.RemunerationsCreate, false},
		{"POST", "/api/users/pqeadjustments", map[string]any{"staffId": staff.ID, "name": "Leave", "startDate": "2020-01-01", "endDate": "2020-02-01"},
			account.RemunerationsCreate, false},
	}
	for _, tt := range tests {
		t.Run(tt.method+" "+tt.path, func(t *testing.T) {
			is := is.New(t)
			r := s.Do(t, tt.method, tt.path, "", tt.body)
			is.Equal(r.Status, 401)                              // no token
			is.Equal(r.Header.Get("WWW-Authenticate"), "Bearer") // challenge
			r = s.Do(t, tt.method, tt.path, none, tt.body)
			if tt.anyone {
				is.Equal(r.Status, 200) // any signed-in user
				return
			}
			is.Equal(r.Status, 403)                                                  // lacks the permission
			is.True(strings.Contains(r.Map(t)["detail"].(string), tt.need.String())) // names it
			_, tok := s.User(t, tt.need)
			is.Equal(s.Do(t, tt.method, tt.path, tok, tt.body).Status, 200) // the permission is enough
		})
	}
}

func TestRemunerationCreate(t *testing.T) {
	t.Parallel()
	s := apptest.New(t)
	admin := s.Admin(t)
	var office struct{ ID int64 }
	s.Do(t, "POST", "/api/offices", admin, map[string]any{"name": "Sydney"}).JSON(t, &office)
	jane := usrCreate(t, s, admin, map[string]any{"email": "jane@example.com", "firstName": "Jane", "lastName": "Doe",
		"admissionDate": "2016-01-01", "officeId": office.ID, "isLegal": true})
	_, creator := s.User(t, account.RemunerationsCreate)

	t.Run("KPI figures", func(t *testing.T) {
		is := is.New(t)
		r := s.Do(t, "POST", "/api/users/remuneration", creator, remBody(jane.ID, "2026-01-01", func(b map[string]any) {
			b["id"] = 777 // ignored
			b["terminationDate"] = "2027-06-30T00:00:00+10:00"
		}))
		is.Equal(r.Status, 200) // created, answering 200
		body := string(r.Body)
		for _, want := range []string{`"kpi":600000.00`, `"kpiBillable":525000.00`, `"kpiInvoiced":450000.00`, `"costPerHour":75.91`,
			`"remunerationIncSuper":150000.00`, `"billingRate":450.00`, `"fteLoad":1`, `"billablePercentage":85`, `"pqy":10.00`} {
			is.True(strings.Contains(body, want)) // exact decimals on the wire
		}
		var got remDTO
		r.JSON(t, &got)
		is.True(got.ID != 777)                                           // the server's id
		is.Equal(got.StaffID, jane.ID)                                   // staff id
		is.Equal(got.RemunerationDate, "2026-01-01T00:00:00Z")           // UTC
		is.Equal(*got.TerminationDate, "2027-06-29T14:00:00Z")           // any offset in, UTC out
		is.Equal(len(got.Staff), 10)                                     // the staff object's fields
		is.Equal(got.Staff["fullName"], "Jane Doe")                      // staff object
		is.Equal(got.Staff["isLegal"], true)                             // staff object
		is.Equal(got.Staff["admissionDate"], "2016-01-01T00:00:00Z")     // staff object
		is.Equal(got.Staff["office"].(map[string]any)["name"], "Sydney") // with office
		m := r.Map(t)
		for _, k := range []string{"id", "staffId", "fteLoad", "remunerationIncSuper", "costPerHour", "pqy", "billingRate", "billablePercentage",
			"kpi", "kpiBillable", "kpiInvoiced", "remunerationDate", "commencementDate", "terminationDate", "staff"} {
			_, ok := m[k]
			is.True(ok) // every field
		}
		is.Equal(len(m), 15) // and nothing else
	})

	t.Run("more figures", func(t *testing.T) {
		tests := []struct {
			fte, inc              any
			cost, kpi, kpiB, kpiI string
		}{
			{0.5, 150000, "151.82", "300000.00", "262500.00", "225000.00"},
			{"0.3333", "98765.43", "149.96", "131674.07", "115214.81", "98755.55"},
			{0.75, 123456.78, "83.30", "370370.34", "324074.05", "277777.76"},
			{1, "0.01", "0.00", "0.04", "0.04", "0.03"},
		}
		for _, tt := range tests {
			t.Run(fmt.Sprint(tt.fte, "×", tt.inc), func(t *testing.T) {
				is := is.New(t)
				r := s.Do(t, "POST", "/api/users/remuneration", creator, remBody(jane.ID, "2025-01-01", func(b map[string]any) {
					b["fteLoad"], b["remunerationIncSuper"] = tt.fte, tt.inc
				}))
				is.Equal(r.Status, 200) // created
				body := string(r.Body)
				is.True(strings.Contains(body, `"costPerHour":`+tt.cost+`,`)) // costPerHour
				is.True(strings.Contains(body, `"kpi":`+tt.kpi+`,`))          // kpi
				is.True(strings.Contains(body, `"kpiBillable":`+tt.kpiB+`,`)) // kpiBillable
				is.True(strings.Contains(body, `"kpiInvoiced":`+tt.kpiI+`,`)) // kpiInvoiced
			})
		}
	})

	t.Run("refusals", func(t *testing.T) {
		tests := []struct {
			name   string
			body   any
			status int
			fields []string
		}{
			{"fte 0", remBody(jane.ID, "2026-01-01", func(b map[string]any) { b["fteLoad"] = 0 }), 400, []string{"fteLoad"}},
			{"fte above 1", remBody(jane.ID, "2026-01-01", func(b map[string]any) { b["fteLoad"] = 1.01 }), 400, []string{"fteLoad"}},
			{"fte rounding to 0", remBody(jane.ID, "2026-01-01", func(b map[string]any) { b["fteLoad"] = 0.00004 }), 400, []string{"fteLoad"}},
			{"fte missing", remBody(jane.ID, "2026-01-01", func(b map[string]any) { delete(b, "fteLoad") }), 400, []string{"fteLoad"}},
			{"fte not a number", remBody(jane.ID, "2026-01-01", func(b map[string]any) { b["fteLoad"] = true }), 400, []string{"fteLoad"}},
			{"percentage 101", remBody(jane.ID, "2026-01-01", func(b map[string]any) { b["billablePercentage"] = 101 }), 400, []string{"billablePercentage"}},
			{"percentage negative", remBody(jane.ID, "2026-01-01", func(b map[string]any) { b["billablePercentage"] = -1 }), 400, []string{"billablePercentage"}},
			{"negative pay", remBody(jane.ID, "2026-01-01", func(b map[string]any) { b["remunerationIncSuper"] = -1 }), 400, []string{"remunerationIncSuper"}},
			{"pay missing", remBody(jane.ID, "2026-01-01", func(b map[string]any) { delete(b, "remunerationIncSuper") }), 400, []string{"remunerationIncSuper"}},
			{"huge pay", remBody(jane.ID, "2026-01-01", func(b map[string]any) { b["remunerationIncSuper"] = "1e15" }), 400, []string{"remunerationIncSuper"}},
			{"hostile number", remBody(jane.ID, "2026-01-01", func(b map[string]any) { b["billingRate"] = "1e999999999" }), 400, []string{"billingRate"}},
			{"negative rate", remBody(jane.ID, "2026-01-01", func(b map[string]any) { b["billingRate"] = -0.01 }), 400, []string{"billingRate"}},
			{"end before start", remBody(jane.ID, "2026-01-01", func(b map[string]any) { b["terminationDate"] = "2025-06-30" }), 400, []string{"terminationDate"}},
			{"dates missing", remBody(jane.ID, "", func(b map[string]any) { delete(b, "remunerationDate"); b["commencementDate"] = nil }), 400,
				[]string{"remunerationDate", "commencementDate"}},
			{"bad date", remBody(jane.ID, "2026-13-01"), 400, []string{"remunerationDate"}},
			{"staff missing", remBody(0, "2026-01-01", func(b map[string]any) { delete(b, "staffId") }), 400, []string{"staffId"}},
			{"several at once", map[string]any{"staffId": jane.ID, "fteLoad": 2, "billablePercentage": 101}, 400,
				[]string{"fteLoad", "billablePercentage", "remunerationIncSuper", "remunerationDate", "commencementDate"}},
			{"unknown staff", remBody(999999, "2026-01-01"), 404, nil},
			{"malformed", `{"staffId":1,`, 400, nil},
			{"staffId not an integer", remBody(jane.ID, "2026-01-01", func(b map[string]any) { b["staffId"] = "x" }), 400, []string{"staffId"}},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				is := is.New(t)
				r := s.Do(t, "POST", "/api/users/remuneration", creator, tt.body)
				is.Equal(r.Status, tt.status)                                      // refused
				is.Equal(r.Header.Get("Content-Type"), "application/problem+json") // a problem document
				errs := usrErrors(t, r)
				for _, f := range tt.fields {
					is.True(errs[f] != nil) // names the field
				}
			})
		}
	})
}

func TestRemunerationReads(t *testing.T) {
	t.Parallel()
	s := apptest.New(t)
	admin := s.Admin(t)
	jane := usrCreate(t, s, admin, map[string]any{"email": "jane@example.com", "firstName": "Jane", "lastName": "Doe", "billingRate": 100})
	bob := usrCreate(t, s, admin, map[string]any{"email": "bob@example.com", "firstName": "Bob", "lastName": "Roe", "isLegal": true})
	idle := usrCreate(t, s, admin, map[string]any{"email": "idle@example.com", "firstName": "Idle"})
	_, plain := s.User(t)
	rate := func(v any) func(map[string]any) { return func(b map[string]any) { b["billingRate"] = v } }
	j1 := remCreate(t, s, admin, remBody(jane.ID, "2026-01-01", rate(450)))
	b1 := remCreate(t, s, admin, remBody(bob.ID, "2025-06-01", rate(300)))
	j0 := remCreate(t, s, admin, remBody(jane.ID, "2025-01-01", rate(380)))
	j2 := remCreate(t, s, admin, remBody(jane.ID, "2026-01-01", rate(475)))
	is := is.New(t)
	ids := func(p remPage) []int64 {
		out := []int64{}
		for _, r := range p.Items {
			out = append(out, r.ID)
		}
		return out
	}

	var u usrDTO
	s.Do(t, "GET", fmt.Sprintf("/api/users/%d", jane.ID), plain, nil).JSON(t, &u)
	is.Equal(u.BillingRate, 475.0) // the latest remuneration set the billing rate; the older one did not
	var got remDTO
	r := s.Do(t, "GET", fmt.Sprintf("/api/users/remunerations/staff/%d", jane.ID), plain, nil)
	is.Equal(r.Status, 200) // latest
	r.JSON(t, &got)
	is.Equal(got.ID, j2.ID) // greatest remunerationDate, then greatest id
	r = s.Do(t, "GET", fmt.Sprintf("/api/users/remunerations/%d", j0.ID), plain, nil)
	is.Equal(r.Status, 200) // by id
	r.JSON(t, &got)
	is.Equal(got.BillingRate, 380.0)                 // that record
	is.Equal(got.Staff["email"], "jane@example.com") // with its staff member

	tests := []struct {
		query string
		want  []int64
		count int64
		next  bool
	}{
		{"", []int64{j2.ID, j1.ID, b1.ID, j0.ID}, 4, false},
		{"?Limit=2", []int64{j2.ID, j1.ID}, 4, true},
		{"?Limit=2&Offset=2", []int64{b1.ID, j0.ID}, 4, false},
		{"?Limit=3&Offset=3", []int64{j0.ID}, 4, false},
		{"?Offset=4", []int64{}, 4, false},
		{"?Limit=0", []int64{}, 4, true},
		{"?Search=roe", []int64{b1.ID}, 1, false},
		{"?IsLegal=true", []int64{b1.ID}, 1, false},
		{"?Search=JANE&Limit=1&Offset=1", []int64{j1.ID}, 3, true},
		{"?IsRequiredBillingRate=true&IsLegal=false", []int64{j2.ID, j1.ID, j0.ID}, 3, false},
		{"?Active=false", []int64{}, 0, false},
	}
	for _, tt := range tests {
		t.Run("list"+tt.query, func(t *testing.T) {
			is := is.New(t)
			r := s.Do(t, "GET", "/api/users/remunerations"+tt.query, plain, nil)
			is.Equal(r.Status, 200) // listed
			var p remPage
			r.JSON(t, &p)
			is.Equal(ids(p), tt.want)    // newest first
			is.Equal(p.Count, tt.count)  // count
			is.Equal(p.HasNext, tt.next) // hasNext
		})
	}
	for _, tt := range []struct {
		path   string
		status int
	}{
		{"/api/users/remunerations/999999", 404},
		{fmt.Sprintf("/api/users/remunerations/staff/%d", idle.ID), 404}, // none recorded
		{"/api/users/remunerations/staff/999999", 404},                   // unknown staff member
		{"/api/users/remunerations?Limit=-1", 400},
		{"/api/users/remunerations?Active=perhaps", 400},
		{"/api/users/remunerations/abc", 404},
	} {
		is.Equal(s.Do(t, "GET", tt.path, plain, nil).Status, tt.status) // refused
	}

	// A deleted staff member's records stay, but the staff member is unknown.
	is.Equal(s.Do(t, "DELETE", fmt.Sprintf("/api/users/%d", bob.ID), admin, nil).Status, 204)
	is.Equal(s.Do(t, "GET", fmt.Sprintf("/api/users/remunerations/%d", b1.ID), plain, nil).Status, 200)        // kept
	is.Equal(s.Do(t, "GET", fmt.Sprintf("/api/users/remunerations/staff/%d", bob.ID), plain, nil).Status, 404) // unknown staff
	is.Equal(s.Do(t, "GET", fmt.Sprintf("/api/users/pqeadjustments/%d", bob.ID), plain, nil).Status, 404)      // unknown staff
	is.Equal(s.Do(t, "POST", "/api/users/remuneration", admin, remBody(bob.ID, "2026-01-01")).Status, 404)     // unknown staff
	var p remPage
	s.Do(t, "GET", "/api/users/remunerations", plain, nil).JSON(t, &p)
	is.Equal(p.Count, int64(3)) // left out of the list with the user filter
}

func TestPQEAdjustments(t *testing.T) {
	t.Parallel()
	s := apptest.New(t)
	admin := s.Admin(t)
	selfID, self := s.User(t)
	_, creator := s.User(t, account.RemunerationsCreate)
	jane := usrCreate(t, s, admin, map[string]any{"email": "jane@example.com", "firstName": "Jane", "admissionDate": "2016-11-21"})
	adj := func(staffID int64, start, end string) map[string]any {
		return map[string]any{"staffId": staffID, "name": "Leave " + start, "details": "parental", "startDate": start, "endDate": end}
	}
	is := is.New(t)

	r := s.Do(t, "POST", "/api/users/pqeadjustments", self, adj(selfID, "2024-01-01", "2024-03-31"))
	is.Equal(r.Status, 200) // one's own, without any permission
	m := r.Map(t)
	is.Equal(m["staffId"], float64(selfID))                                                                               // staff id
	is.Equal(m["name"], "Leave 2024-01-01")                                                                               // name
	is.Equal(m["details"], "parental")                                                                                    // details
	is.Equal(m["startDate"], "2024-01-01T00:00:00Z")                                                                      // start
	is.Equal(m["endDate"], "2024-03-31T00:00:00Z")                                                                        // end
	is.Equal(m["staff"].(map[string]any)["id"], float64(selfID))                                                          // staff object
	is.Equal(len(m), 7)                                                                                                   // and nothing else
	is.Equal(s.Do(t, "POST", "/api/users/pqeadjustments", self, adj(jane.ID, "2020-01-01", "2020-12-31")).Status, 403)    // someone else's
	is.Equal(s.Do(t, "POST", "/api/users/pqeadjustments", self, adj(999999, "2020-01-01", "2020-12-31")).Status, 403)     // unknown ids alike
	is.Equal(s.Do(t, "POST", "/api/users/pqeadjustments", creator, adj(jane.ID, "2020-01-01", "2020-12-31")).Status, 200) // with RemunerationsCreate
	is.Equal(s.Do(t, "POST", "/api/users/pqeadjustments", creator, adj(jane.ID, "2022-01-01", "2022-01-31")).Status, 200)
	is.Equal(s.Do(t, "POST", "/api/users/pqeadjustments", creator, adj(jane.ID, "2021-01-01", "2021-01-01")).Status, 200) // a single day

	var u usrDTO
	s.Do(t, "GET", fmt.Sprintf("/api/users/%d", jane.ID), admin, nil).JSON(t, &u)
	is.Equal(*u.PQY, 8.91) // 3652 days less 366 + 31 + 1, over 365.25

	for _, tt := range []struct {
		name   string
		token  string
		body   any
		status int
		field  string
	}{
		{"end before start", creator, adj(jane.ID, "2020-02-01", "2020-01-31"), 400, "endDate"},
		{"no name", creator, map[string]any{"staffId": jane.ID, "name": "  ", "startDate": "2020-01-01", "endDate": "2020-01-02"}, 400, "name"},
		{"no dates", creator, map[string]any{"staffId": jane.ID, "name": "x"}, 400, "startDate"},
		{"bad date", creator, adj(jane.ID, "yesterday", "2020-01-01"), 400, "startDate"},
		{"long name", creator, map[string]any{"staffId": jane.ID, "name": strings.Repeat("n", 201), "startDate": "2020-01-01", "endDate": "2020-01-02"}, 400, "name"},
		{"no staff", self, map[string]any{"name": "x", "startDate": "2020-01-01", "endDate": "2020-01-02"}, 400, "staffId"},
		{"unknown staff", creator, adj(999999, "2020-01-01", "2020-01-02"), 404, ""},
		{"malformed", creator, `{"name":`, 400, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			r := s.Do(t, "POST", "/api/users/pqeadjustments", tt.token, tt.body)
			is.Equal(r.Status, tt.status) // refused
			if tt.field != "" {
				is.True(usrErrors(t, r)[tt.field] != nil) // names the field
			}
		})
	}

	list := func(q string) (remPageOf, int) {
		r := s.Do(t, "GET", fmt.Sprintf("/api/users/pqeadjustments/%d%s", jane.ID, q), self, nil)
		var p remPageOf
		if r.Status == 200 {
			r.JSON(t, &p)
		}
		return p, r.Status
	}
	p, status := list("")
	is.Equal(status, 200)                                                    // any signed-in user
	is.Equal(p.starts(), []string{"2022-01-01", "2021-01-01", "2020-01-01"}) // newest start first
	is.Equal(p.Count, int64(3))                                              // count
	p, _ = list("?Limit=2")
	is.Equal(p.starts(), []string{"2022-01-01", "2021-01-01"}) // a page
	is.True(p.HasNext)                                         // more
	p, _ = list("?Limit=2&Offset=2")
	is.Equal(p.starts(), []string{"2020-01-01"}) // the last page
	is.True(!p.HasNext)                          // no more
	p, _ = list("?Offset=9")
	is.Equal(len(p.Items), 0)   // past the end
	is.Equal(p.Count, int64(3)) // still counted
	_, status = list("?Limit=-1")
	is.Equal(status, 400)                                                               // bad paging
	is.Equal(s.Do(t, "GET", "/api/users/pqeadjustments/999999", self, nil).Status, 404) // unknown staff member
}

type remPageOf struct {
	Items []struct {
		StartDate string
	}
	Count   int64
	HasNext bool
}

func (p remPageOf) starts() []string {
	out := []string{}
	for _, a := range p.Items {
		out = append(out, strings.TrimSuffix(a.StartDate, "T00:00:00Z"))
	}
	return out
}
