package sqlite_test

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/matryer/is"

	"counsel/adapters/sqlite"
	"counsel/domain"
	"counsel/domain/account"
	"counsel/domain/decimal"
	"counsel/domain/user"
	"counsel/ports/porttest"
)

var ctx = context.Background()

func ptr[T any](v T) *T { return &v }

// open returns a fresh database with the bootstrap roles and the
// administrator (user 1) in place.
func open(t *testing.T) *sqlite.DB {
	t.Helper()
	db, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "x.db"))
	if err != nil {
		t.Fatalf("open: %v", err)
	}
	t.Cleanup(func() { db.Close() })
	if _, err := db.Stores().Accounts.Bootstrap(ctx, account.NewUser{Email: "admin@example.com", FirstName: "Admin"}); err != nil {
		t.Fatalf("bootstrap: %v", err)
	}
	return db
}

func code(err error) string { return domain.ErrorCode(err) }

// newUser builds a valid user the way the use case does.
func newUser(first, last, email string, change ...func(*user.User)) user.User {
	u := user.New()
	u.Apply(user.Patch{FirstName: &first, LastName: &last, Email: &email})
	for _, c := range change {
		c(&u)
	}
	return u
}

func names(us []user.User) []string {
	out := []string{}
	for _, u := range us {
		out = append(out, u.FullName())
	}
	return out
}

func TestUserStoreCreateAndRead(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	db := open(t)
	s := db.Stores().Users
	office, err := s.CreateOffice(ctx, user.Office{Name: "Sydney", Active: true, Address: user.Address{Suburb: "Sydney", Country: "AU"}})
	is.NoErr(err) // create office
	adm := time.Date(2015, 2, 3, 0, 0, 0, 0, time.UTC)
	in := newUser("Jane", "Doe", "jane@example.com", func(u *user.User) {
		u.OfficeID, u.AdmissionDate, u.BillingRate = office.ID, &adm, decimal.MustParse("412.50")
		u.Address = user.Address{Address1: "1 George St", Postcode: "2000"}
		u.ContactNumber, u.IsLegal = "0400 000 000", true
	})
	p, err := s.CreateUser(ctx, in, "hash", nil)
	is.NoErr(err)                                       // create user
	is.True(p.ID > 1)                                   // new id
	is.Equal(p.Email, "jane@example.com")               // email kept
	is.Equal(p.BillingRate.StringFixed(2), "412.50")    // cents exact
	is.Equal(p.Office.Name, "Sydney")                   // office joined
	is.Equal(p.Office.Address.Country, "AU")            // office address joined
	is.Equal(p.Address.Postcode, "2000")                // own address
	is.True(p.AdmissionDate.Equal(adm))                 // admission date
	is.True(p.IsLegal && p.IsStaff && p.Active)         // flags
	is.Equal(len(p.Roles), 1)                           // default roles
	is.Equal(p.Roles[0].Name, account.StaffRole)        // the Staff role
	is.True(p.Latest == nil && len(p.Adjustments) == 0) // nothing recorded yet
	c, err := db.Stores().Accounts.CredentialsByEmail(ctx, "jane@example.com")
	is.NoErr(err)                    // can sign in
	is.Equal(c.PasswordHash, "hash") // password hash stored
	got, err := s.User(ctx, p.ID)
	is.NoErr(err)                        // read back
	is.Equal(got.FullName(), "Jane Doe") // same user

	_, err = s.CreateUser(ctx, newUser("J", "D", "jane@example.com"), "", nil)
	is.Equal(code(err), domain.ECONFLICT) // email taken
	_, err = s.CreateUser(ctx, newUser("J", "D", "j2@example.com", func(u *user.User) { u.OfficeID = 999 }), "", nil)
	is.Equal(code(err), domain.ENOTFOUND) // unknown office
	_, err = s.CreateUser(ctx, newUser("J", "D", "j3@example.com"), "", porttest.SetRoles(999))
	is.Equal(code(err), domain.ENOTFOUND) // unknown role
	_, err = s.User(ctx, 424242)
	is.Equal(code(err), domain.ENOTFOUND) // unknown user
	none, err := s.CreateUser(ctx, newUser("No", "Roles", "none@example.com"), "", porttest.SetRoles())
	is.NoErr(err)                // an empty role list
	is.Equal(len(none.Roles), 0) // means no roles
}

func TestUserStoreList(t *testing.T) {
	t.Parallel()
	db := open(t)
	s := db.Stores().Users
	o1, _ := s.CreateOffice(ctx, user.Office{Name: "Sydney", Active: true})
	o2, _ := s.CreateOffice(ctx, user.Office{Name: "Perth", Active: true})
	seed := []user.User{
		newUser("Jane", "Doe", "jane@firm.io", func(u *user.User) { u.OfficeID, u.IsLegal = o1.ID, true }),
		newUser("John", "doe", "john@firm.io", func(u *user.User) { u.OfficeID, u.BillingRate = o1.ID, decimal.FromInt(300) }),
		newUser("Élodie", "Ångström", "elodie@firm.io", func(u *user.User) { u.OfficeID = o2.ID }),
		newUser("Zed", "Adams", "zed@other.io", func(u *user.User) { u.Active, u.IsStaff = false, false }),
		newUser("Amy", "Doe", "amy@firm.io", func(u *user.User) { u.BillingRate = decimal.MustParse("0.01") }),
		newUser("Odd", "[?]*", "odd@firm.io", func(u *user.User) { u.Active = false }),
	}
	for _, u := range seed {
		if _, err := s.CreateUser(ctx, u, "", nil); err != nil {
			t.Fatalf("seed: %v", err)
		}
	}
	// Written by another store: the trigger gives it a search key.
	if _, err := sqlite.CreateUser(ctx, db.Stores().Accounts, account.NewUser{Email: "cli@firm.io", FirstName: "Carl", LastName: "CLI"}); err != nil {
		t.Fatalf("seed: %v", err)
	}
	tests := []struct {
		name  string
		f     user.Filter
		want  []string
		count int64
	}{
		{"all, by last then first name", user.Filter{Limit: 100},
			// NOCASE folds ASCII only: Å sorts after the ASCII letters.
			[]string{"Admin", "Odd [?]*", "Zed Adams", "Carl CLI", "Amy Doe", "Jane Doe", "John doe", "Élodie Ångström"}, 8},
		{"page", user.Filter{Limit: 2, Offset: 4}, []string{"Amy Doe", "Jane Doe"}, 8},
		{"last page", user.Filter{Limit: 5, Offset: 6}, []string{"John doe", "Élodie Ångström"}, 8},
		{"offset past the end", user.Filter{Limit: 5, Offset: 70}, []string{}, 8},
		{"limit 0", user.Filter{Limit: 0}, []string{}, 8},
		{"active", user.Filter{Limit: 100, Active: ptr(false)}, []string{"Odd [?]*", "Zed Adams"}, 2},
		{"legal", user.Filter{Limit: 100, IsLegal: ptr(true)}, []string{"Jane Doe"}, 1},
		{"not staff", user.Filter{Limit: 100, IsStaff: ptr(false)}, []string{"Zed Adams"}, 1},
		{"office", user.Filter{Limit: 100, OfficeID: &o1.ID}, []string{"Jane Doe", "John doe"}, 2},
		{"billing rate", user.Filter{Limit: 100, RequireBillingRate: true}, []string{"Amy Doe", "John doe"}, 2},
		{"search last name, any case", user.Filter{Limit: 100, Search: "DOE"}, []string{"Amy Doe", "Jane Doe", "John doe"}, 3},
		{"search full name", user.Filter{Limit: 100, Search: "ne do"}, []string{"Jane Doe"}, 1},
		{"search email", user.Filter{Limit: 100, Search: "OTHER.io"}, []string{"Zed Adams"}, 1},
		{"search unicode", user.Filter{Limit: 100, Search: "ÅNGSTRÖM"}, []string{"Élodie Ångström"}, 1},
		{"search another writer's user", user.Filter{Limit: 100, Search: "carl cli"}, []string{"Carl CLI"}, 1},
		{"search has no wildcards", user.Filter{Limit: 100, Search: "%"}, []string{}, 0},
		{"search has no glob wildcards", user.Filter{Limit: 100, Search: "j*e"}, []string{}, 0},
		{"search has no glob wildcards either", user.Filter{Limit: 100, Search: "d?e"}, []string{}, 0},
		{"search for glob characters", user.Filter{Limit: 100, Search: "[?]*"}, []string{"Odd [?]*"}, 1},
		{"search for a bracket", user.Filter{Limit: 100, Search: "]"}, []string{"Odd [?]*"}, 1},
		{"search does not cross name and email", user.Filter{Limit: 100, Search: "doe\njane"}, []string{}, 0},
		{"search folds white space", user.Filter{Limit: 100, Search: " jane \t doe "}, []string{"Jane Doe"}, 1},
		{"combined", user.Filter{Limit: 100, Search: "doe", OfficeID: &o1.ID, RequireBillingRate: true}, []string{"John doe"}, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			tt.f.Normalize()
			us, count, err := s.Users(ctx, tt.f)
			is.NoErr(err)                // list
			is.Equal(names(us), tt.want) // items in order
			is.Equal(count, tt.count)    // count of all matches
		})
	}
}

func TestUserStoreUpdate(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	db := open(t)
	s := db.Stores().Users
	office, _ := s.CreateOffice(ctx, user.Office{Name: "Sydney", Active: true})
	p, err := s.CreateUser(ctx, newUser("Jane", "Doe", "jane@example.com"), "", nil)
	is.NoErr(err) // create
	_, err = s.CreateUser(ctx, newUser("Other", "User", "other@example.com"), "", nil)
	is.NoErr(err) // create another

	up, err := s.UpdateUser(ctx, p.ID, porttest.Edit(func(u *user.User) error {
		u.Apply(user.Patch{LastName: ptr("Smith"), OfficeID: &office.ID, BillingRate: ptr(decimal.FromInt(250))})
		return u.Validate()
	}))
	is.NoErr(err)                                     // update
	is.Equal(up.FullName(), "Jane Smith")             // name changed
	is.Equal(up.Office.Name, "Sydney")                // office joined
	is.Equal(up.BillingRate.StringFixed(2), "250.00") // billing rate
	is.Equal(up.Roles[0].Name, account.StaffRole)     // roles unchanged
	us, _, err := s.Users(ctx, user.Filter{Limit: 10, Search: "smith"})
	is.NoErr(err)        // search by the new name
	is.Equal(len(us), 1) // found

	_, err = s.UpdateUser(ctx, p.ID, porttest.Edit(func(u *user.User) error { u.Email = "other@example.com"; return nil }))
	is.Equal(code(err), domain.ECONFLICT) // email taken
	_, err = s.UpdateUser(ctx, p.ID, porttest.Edit(func(u *user.User) error { u.OfficeID = 999; return nil }))
	is.Equal(code(err), domain.ENOTFOUND) // unknown office
	_, err = s.UpdateUser(ctx, p.ID, porttest.Edit(func(u *user.User) error { return nil }, porttest.SetRoles(999)))
	is.Equal(code(err), domain.ENOTFOUND) // unknown role
	_, err = s.UpdateUser(ctx, 424242, porttest.Edit(func(u *user.User) error { return nil }))
	is.Equal(code(err), domain.ENOTFOUND) // unknown user
	boom := errors.New("boom")
	_, err = s.UpdateUser(ctx, p.ID, porttest.Edit(func(u *user.User) error { return boom }))
	is.True(errors.Is(err, boom)) // fn's error as is
	got, _ := s.User(ctx, p.ID)
	is.Equal(got.Email, "jane@example.com") // failed updates changed nothing

	roles, err := db.Stores().Roles.Roles(ctx)
	is.NoErr(err) // roles
	var adminRole int64
	for _, r := range roles {
		if r.IsSystemAdmin {
			adminRole = r.ID
		}
	}
	up, err = s.UpdateUser(ctx, p.ID, porttest.Edit(func(u *user.User) error { return nil }, porttest.SetRoles(adminRole)))
	is.NoErr(err)                      // replace roles
	is.Equal(len(up.Roles), 1)         // exactly the given ones
	is.True(up.Roles[0].IsSystemAdmin) // now an administrator
	_, err = s.UpdateUser(ctx, 1, porttest.Edit(func(u *user.User) error { return nil }, porttest.SetRoles()))
	is.NoErr(err) // another administrator remains
	_, err = s.UpdateUser(ctx, p.ID, porttest.Edit(func(u *user.User) error { u.Active = false; return nil }))
	is.Equal(code(err), domain.ECONFLICT) // deactivating the last administrator
	_, err = s.UpdateUser(ctx, p.ID, porttest.Edit(func(u *user.User) error { return nil }, porttest.SetRoles()))
	is.Equal(code(err), domain.ECONFLICT) // taking the last administrator's role
}

func TestUserStoreDelete(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	db := open(t)
	s := db.Stores().Users
	accounts := db.Stores().Accounts
	p, err := s.CreateUser(ctx, newUser("Jane", "Doe", "jane@example.com"), "hash", nil)
	is.NoErr(err) // create
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	is.NoErr(accounts.CreateSession(ctx, account.Session{ID: "s1", UserID: p.ID, Method: account.MethodPassword, CreatedAt: now, ExpiresAt: now.Add(time.Hour)}, []byte("h1"))) // session
	_, err = s.AddReviewers(ctx, 7, []int64{p.ID})
	is.NoErr(err) // a reviewer

	is.NoErr(s.DeleteUser(ctx, p.ID, now, porttest.KeepAdmin)) // delete
	ss, err := accounts.Session(ctx, "s1")
	is.NoErr(err)                // session kept
	is.True(ss.RevokedAt != nil) // but revoked
	_, err = s.User(ctx, p.ID)
	is.Equal(code(err), domain.ENOTFOUND) // gone from lookups
	_, err = accounts.CredentialsByEmail(ctx, "jane@example.com")
	is.Equal(code(err), domain.ENOTFOUND) // cannot sign in
	us, count, err := s.Users(ctx, user.Filter{Limit: 10})
	is.NoErr(err)                          // list
	is.Equal(count, int64(1))              // only the administrator
	is.Equal(names(us), []string{"Admin"}) // gone from lists
	rs, _, err := s.Users(ctx, user.Filter{Limit: 10, Reviewers: true})
	is.NoErr(err)                                                                      // reviewers
	is.Equal(len(rs), 0)                                                               // gone from reviewers
	is.Equal(code(s.DeleteUser(ctx, p.ID, now, porttest.KeepAdmin)), domain.ENOTFOUND) // deleted once

	again, err := s.CreateUser(ctx, newUser("Jane", "Again", "jane@example.com"), "", nil)
	is.NoErr(err)                                                                   // the email may be used again
	is.True(again.ID != p.ID)                                                       // by a new user
	is.Equal(code(s.DeleteUser(ctx, 1, now, porttest.KeepAdmin)), domain.ECONFLICT) // the last administrator stays
}

func TestOfficeStore(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	s := open(t).Stores().Users
	os, err := s.Offices(ctx)
	is.NoErr(err)        // no offices
	is.Equal(len(os), 0) // an empty list
	b, _ := s.CreateOffice(ctx, user.Office{Name: "sydney", Active: true})
	a, err := s.CreateOffice(ctx, user.Office{Name: "Adelaide", Phone: "08 1234", Website: "https://a.example", Address: user.Address{State: "SA"}})
	is.NoErr(err) // create
	os, err = s.Offices(ctx)
	is.NoErr(err)                                                              // list
	is.Equal([]string{os[0].Name, os[1].Name}, []string{"Adelaide", "sydney"}) // by name, any case
	is.Equal(os[0], a)                                                         // every field kept
	up, err := s.UpdateOffice(ctx, b.ID, func(o *user.Office) error { o.Active = false; return nil })
	is.NoErr(err)       // update
	is.True(!up.Active) // changed
	got, err := s.Office(ctx, b.ID)
	is.NoErr(err)     // read
	is.Equal(got, up) // stored
	_, err = s.Office(ctx, 99)
	is.Equal(code(err), domain.ENOTFOUND) // unknown
	_, err = s.UpdateOffice(ctx, 99, func(o *user.Office) error { return nil })
	is.Equal(code(err), domain.ENOTFOUND) // unknown
}

func TestReviewerStore(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	s := open(t).Stores().Users
	var ids []int64
	for i, n := range []string{"Ann", "Bob", "Cat"} {
		p, err := s.CreateUser(ctx, newUser(n, "R", fmt.Sprintf("r%d@example.com", i)), "", nil)
		is.NoErr(err) // create
		ids = append(ids, p.ID)
	}
	ann, bob, cat := ids[0], ids[1], ids[2]
	got, err := s.AddReviewers(ctx, 10, []int64{ann, bob})
	is.NoErr(err)                    // add
	is.Equal(got, []int64{ann, bob}) // the offering's reviewers
	got, err = s.AddReviewers(ctx, 10, []int64{bob})
	is.NoErr(err)                    // adding twice
	is.Equal(got, []int64{ann, bob}) // changes nothing
	_, err = s.AddReviewers(ctx, 20, []int64{bob, cat})
	is.NoErr(err) // another offering
	_, err = s.AddReviewers(ctx, 20, []int64{ann, 999})
	is.Equal(code(err), domain.ENOTFOUND) // an unknown user
	list := func(offerings ...int64) []string {
		us, _, err := s.Users(ctx, user.Filter{Limit: 100, Reviewers: true, OfferingIDs: offerings})
		is.NoErr(err) // reviewers
		return names(us)
	}
	is.Equal(list(20), []string{"Bob R", "Cat R"})        // nothing changed by the failed add
	is.Equal(list(10, 20), []string{"Bob R"})             // permitted for every listed offering
	is.Equal(list(), []string{"Ann R", "Bob R", "Cat R"}) // any offering
	is.Equal(list(30), []string{})                        // nobody
	got, err = s.RemoveReviewers(ctx, 10, []int64{bob, 999})
	is.NoErr(err)                      // remove, unknown ids ignored
	is.Equal(got, []int64{ann})        // remaining
	is.Equal(list(10, 20), []string{}) // nobody permitted for both now
}
