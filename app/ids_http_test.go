package app_test

import (
	"context"
	"database/sql"
	"fmt"
	"net/url"
	"strconv"
	"testing"

	_ "github.com/jackc/pgx/v5/stdlib" // database/sql driver "pgx"
	"github.com/matryer/is"

	"counsel/app/apptest"
	"counsel/ports/porttest"
)

// idsDB opens a second connection to the service's database file (or its
// PostgreSQL schema): how the tests remove rows that no route deletes, as
// an operator might by hand. Foreign keys are on, as in the service.
func idsDB(t *testing.T, s *apptest.Server) *sql.DB {
	t.Helper()
	driver, dsn := "pgx", s.Config.DB
	if apptest.Engine() != "postgres" {
		q := url.Values{}
		q.Add("_pragma", "busy_timeout(10000)")
		q.Add("_pragma", "foreign_keys(1)")
		driver, dsn = "sqlite", "file:"+s.Config.DB+"?"+q.Encode()
	}
	db, err := sql.Open(driver, dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// idsExec runs statements on db in one transaction.
func idsExec(t *testing.T, db *sql.DB, stmts ...string) {
	t.Helper()
	tx, err := db.BeginTx(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	for _, q := range stmts {
		if _, err := tx.Exec(q); err != nil {
			t.Fatalf("exec %q: %v", q, err)
		}
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
}

// idOf reads the id of a created record, a number or a string of digits.
func idOf(t *testing.T, r *apptest.Response, want int) int64 {
	t.Helper()
	if r.Status != want {
		t.Fatalf("create: %d %s", r.Status, r.Body)
	}
	switch v := r.Map(t)["id"].(type) {
	case float64:
		return int64(v)
	case string:
		id, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			t.Fatalf("id %q: %v", v, err)
		}
		return id
	}
	t.Fatalf("no id in %s", r.Body)
	return 0
}

// TestIDsAreNeverReused creates a record of each kind, deletes it (by its
// route, or by hand where no route deletes it), creates another, and
// checks that the new one did not get the deleted one's id. The deleted
// record is always the newest, the case in which SQLite without
// AUTOINCREMENT hands its id out again.
func TestIDsAreNeverReused(t *testing.T) {
	t.Parallel()
	s := apptest.New(t)
	admin := s.Admin(t)
	db := idsDB(t, s)
	staff := idOf(t, s.Do(t, "POST", "/api/users", admin, map[string]any{"email": "staff@example.com", "firstName": "Sam",
		"admissionDate": "2016-01-01"}), 201)
	parent := contractID(contractCreate(t, s, admin, map[string]any{"contractName": "Holds the documents"}))
	n := 0
	tests := []struct {
		name   string
		create func(t *testing.T) int64
		delete func(t *testing.T, id int64)
	}{
		{
			name: "contract",
			create: func(t *testing.T) int64 {
				return idOf(t, s.Do(t, "POST", "/api/contracts", admin, map[string]any{"contractName": "Lease"}), 201)
			},
			delete: func(t *testing.T, id int64) {
				is.New(t).Equal(s.Do(t, "DELETE", fmt.Sprintf("/api/contracts/%d", id), admin, nil).Status, 204)
			},
		},
		{
			name: "document",
			create: func(t *testing.T) int64 {
				return idOf(t, contractUpload(t, s, admin, parent, "agreement.pdf", porttest.MinimalPDF(1)), 201)
			},
			delete: func(t *testing.T, id int64) {
				is.New(t).Equal(s.Do(t, "DELETE", fmt.Sprintf("/api/contracts/%d/documents/%d", parent, id), admin, nil).Status, 204)
			},
		},
		{
			name: "role",
			create: func(t *testing.T) int64 {
				n++
				return idOf(t, s.Do(t, "POST", "/api/roles", admin, map[string]any{"name": fmt.Sprintf("Temp %d", n)}), 201)
			},
			delete: func(t *testing.T, id int64) {
				is.New(t).Equal(s.Do(t, "DELETE", fmt.Sprintf("/api/roles/%d", id), admin, nil).Status, 204)
			},
		},
		{
			// The route only marks a user deleted; the row is then purged
			// by hand, which must not free its id either.
			name: "user",
			create: func(t *testing.T) int64 {
				n++
				return idOf(t, s.Do(t, "POST", "/api/users", admin, map[string]any{"email": fmt.Sprintf("temp%d@example.com", n), "firstName": "Temp"}), 201)
			},
			delete: func(t *testing.T, id int64) {
				is.New(t).Equal(s.Do(t, "DELETE", fmt.Sprintf("/api/users/%d", id), admin, nil).Status, 204)
				idsExec(t, db, fmt.Sprintf(`DELETE FROM user_roles WHERE user_id = %d`, id), fmt.Sprintf(`DELETE FROM users WHERE id = %d`, id))
			},
		},
		{
			name: "office",
			create: func(t *testing.T) int64 {
				return idOf(t, s.Do(t, "POST", "/api/offices", admin, map[string]any{"name": "Perth"}), 201)
			},
			delete: func(t *testing.T, id int64) { idsExec(t, db, fmt.Sprintf(`DELETE FROM offices WHERE id = %d`, id)) },
		},
		{
			name: "remuneration",
			create: func(t *testing.T) int64 {
				return idOf(t, s.Do(t, "POST", "/api/users/remuneration", admin, remBody(staff, "2026-01-01")), 200)
			},
			delete: func(t *testing.T, id int64) {
				idsExec(t, db, fmt.Sprintf(`DELETE FROM remunerations WHERE id = %d`, id))
			},
		},
		{
			name: "PQE adjustment",
			create: func(t *testing.T) int64 {
				return idOf(t, s.Do(t, "POST", "/api/users/pqeadjustments", admin, map[string]any{"staffId": staff, "name": "Leave",
					"startDate": "2020-01-01", "endDate": "2020-02-01"}), 200)
			},
			delete: func(t *testing.T, id int64) {
				idsExec(t, db, fmt.Sprintf(`DELETE FROM pqe_adjustments WHERE id = %d`, id))
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			first := tt.create(t)
			tt.delete(t, first)
			second := tt.create(t)
			is.True(second > first) // a new id, not the deleted one's
		})
	}
}

// TestSigningIDsAreNeverReused removes the newest signing template, its
// submission and submitters by hand (no route deletes them), submits
// another contract, and checks that none of the deleted ids comes back:
// a contract keeps its template's id as its digitalContractId.
func TestSigningIDsAreNeverReused(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	s := apptest.New(t)
	admin := s.Admin(t)
	db := idsDB(t, s)
	submit := func(name string) (template, submission int64, submitters []int64) {
		id, doc := signingContract(t, s, admin, name, 1)
		sub := signingSubmissionOf(t, signingSubmit(t, s, admin, id, []int64{doc}, "preserved", "a@example.com", "b@example.com"))
		template, err := strconv.ParseInt(signingContractGet(t, s, admin, id)["digitalContractId"].(string), 10, 64)
		is.NoErr(err)
		submission, err = strconv.ParseInt(sub.ID, 10, 64)
		is.NoErr(err)
		for _, p := range sub.Submitters {
			n, err := strconv.ParseInt(p.ID, 10, 64)
			is.NoErr(err)
			submitters = append(submitters, n)
		}
		return template, submission, submitters
	}
	template, submission, submitters := submit("First")
	idsExec(t, db,
		fmt.Sprintf(`DELETE FROM signing_submitters WHERE submission_id = %d`, submission),
		fmt.Sprintf(`DELETE FROM signing_submissions WHERE id = %d`, submission),
		fmt.Sprintf(`DELETE FROM signing_templates WHERE id = %d`, template))
	template2, submission2, submitters2 := submit("Second")
	is.True(template2 > template)                           // a new template id
	is.True(submission2 > submission)                       // a new submission id
	is.True(submitters2[0] > submitters[len(submitters)-1]) // new submitter ids
}

// TestDeletedContractKeepsItsHistory deletes the newest contract, creates
// another, and reads both histories: each holds only its own entries
// (docs/decisions.md §5), and the deleted id stays deleted.
func TestDeletedContractKeepsItsHistory(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	s := apptest.New(t)
	admin := s.Admin(t)
	old := contractID(contractCreate(t, s, admin, map[string]any{"contractName": "Old lease"}))
	r := contractUpload(t, s, admin, old, "old.pdf", porttest.MinimalPDF(1))
	is.Equal(r.Status, 201)
	is.Equal(s.Do(t, "DELETE", fmt.Sprintf("/api/contracts/%d", old), admin, nil).Status, 204)
	fresh := contractID(contractCreate(t, s, admin, map[string]any{"contractName": "New lease"}))
	is.True(fresh != old) // the deleted contract's id is not given again

	is.Equal(signingActions(signingHistory(t, s, admin, old)), []string{"created", "documentAdded", "deleted"})
	is.Equal(signingActions(signingHistory(t, s, admin, fresh)), []string{"created"})
	is.Equal(s.Do(t, "GET", fmt.Sprintf("/api/contracts/%d", old), admin, nil).Status, 404)
	is.Equal(s.Do(t, "GET", fmt.Sprintf("/api/contracts/%d", fresh), admin, nil).Status, 200)
}
