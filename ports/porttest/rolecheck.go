package porttest

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/matryer/is"

	"counsel/domain"
	"counsel/domain/account"
	"counsel/domain/user"
)

// RoleCheckSuite holds every engine to the contract of the user writes
// that run the use case's role check (account.RoleCheck) in their
// transaction: check sees the roles the user holds there and looks roles
// up there, runs before fn, and its refusal is returned as is with
// nothing written.
func RoleCheckSuite(t *testing.T, s Stores) {
	ctx := context.Background()
	is := is.New(t)
	bootstrap(t, s)
	roles, err := s.Roles.Roles(ctx)
	is.NoErr(err)
	adminRole := roles[0]
	is.True(adminRole.IsSystemAdmin)
	boom := errors.New("refused by the use case")
	ids := func(rs []account.Role) []int64 {
		out := []int64{}
		for _, r := range rs {
			out = append(out, r.ID)
		}
		return out
	}

	first := func(rs []account.Role, err error) account.Role {
		is.NoErr(err)
		return rs[0]
	}

	uid, err := createUser(ctx, s.Users, account.NewUser{Email: "target@example.com", FirstName: "T", LastName: "T"})
	is.NoErr(err)
	before, err := s.Roles.UserRoles(ctx, uid)
	is.NoErr(err)
	// A role given after any read the use case could make before the
	// call: the check sees it, because it reads in the store's transaction.
	is.NoErr(s.Roles.AddUserRole(ctx, uid, adminRole.ID, nil))
	var held []account.Role
	var looked account.Role
	var lookErr error
	_, err = s.Users.UpdateUser(ctx, uid, func(a *user.Aggregate) error {
		held = a.Held()
		looked = first(a.LookupRoles([]int64{adminRole.ID}))
		_, lookErr = a.LookupRoles([]int64{999_999})
		a.User.FirstName = "Changed"
		a.SetRoles(nil)
		return boom
	})
	is.Equal(err, boom)
	is.Equal(len(held), len(before)+1)
	is.Equal(ids(held)[0], adminRole.ID) // "Administrator" sorts first
	is.Equal(looked, adminRole)
	is.Equal(code(lookErr), domain.ENOTFOUND)
	p, err := s.Users.Profile(ctx, uid, true)
	is.NoErr(err)
	is.Equal(p.FirstName, "T")            // nothing written
	is.Equal(len(p.Roles), len(before)+1) // roles not replaced
	p, err = s.Users.UpdateUser(ctx, uid, func(a *user.Aggregate) error {
		a.User.FirstName = "Passed"
		a.SetRoles(nil)
		return nil
	})
	is.NoErr(err)
	is.Equal(p.FirstName, "Passed")
	is.Equal(len(p.Roles), 0) // roles replaced
	p, err = s.Users.UpdateUser(ctx, uid, func(a *user.Aggregate) error {
		is.Equal(len(a.Held()), 0)
		return nil
	})
	is.NoErr(err)
	is.Equal(len(p.Roles), 0) // roles unchanged without SetRoles
	for _, r := range append(before, adminRole) {
		is.NoErr(s.Roles.AddUserRole(ctx, uid, r.ID, nil)) // as they were
	}

	// SetPassword runs check in its transaction too (the takeover rule of
	// password resets): it sees the role given just before, and its
	// refusal leaves the password and the sessions as they were.
	is.NoErr(s.Accounts.CreateSession(ctx, account.Session{ID: "target-session", UserID: uid, CreatedAt: T0, ExpiresAt: T0.Add(time.Hour)}, []byte("target-refresh")))
	held = nil
	err = s.Accounts.SetPassword(ctx, uid, "refused-hash", T0, func(h []account.Role, _ func(int64) (account.Role, error)) error {
		held = h
		return boom
	})
	is.Equal(err, boom)
	is.Equal(len(held), len(before)+1)
	is.Equal(ids(held)[0], adminRole.ID)
	c, err := s.Accounts.CredentialsByEmail(ctx, "target@example.com")
	is.NoErr(err)
	is.True(c.PasswordHash != "refused-hash") // nothing written
	ss, err := s.Accounts.Session(ctx, "target-session")
	is.NoErr(err)
	is.True(ss.RevokedAt == nil) // not revoked
	is.NoErr(s.Accounts.SetPassword(ctx, uid, "passed-hash", T0, func([]account.Role, func(int64) (account.Role, error)) error { return nil }))
	c, err = s.Accounts.CredentialsByEmail(ctx, "target@example.com")
	is.NoErr(err)
	is.Equal(c.PasswordHash, "passed-hash")
	held = []account.Role{{}}
	err = s.Accounts.SetPassword(ctx, 424242, "h", T0, func(h []account.Role, _ func(int64) (account.Role, error)) error { held = h; return nil })
	is.Equal(code(err), domain.ENOTFOUND)
	is.Equal(len(held), 0)

	// An unknown user: the store answers 404 without calling fn.
	fnRan := false
	_, err = s.Users.UpdateUser(ctx, 424242, func(*user.Aggregate) error { fnRan = true; return nil })
	is.Equal(code(err), domain.ENOTFOUND)
	is.True(!fnRan)

	// CreateUser: fn sees no roles held, looks roles up, and its refusal
	// creates nobody.
	held = []account.Role{{}}
	looked = account.Role{}
	_, err = s.Users.CreateUser(ctx, newUser("refused@example.com", "R", "R"), "", func(a *user.Aggregate) error {
		held = a.Held()
		looked = first(a.LookupRoles([]int64{adminRole.ID}))
		rs, err := a.LookupRoleNames([]string{"Nope"})
		is.Equal(code(err), domain.EINVALID)
		is.Equal(len(rs), 0)
		return boom
	})
	is.Equal(err, boom)
	is.Equal(len(held), 0)
	is.Equal(looked, adminRole)
	_, n, err := s.Users.Users(ctx, user.Filter{Search: "refused@example.com", Limit: 10})
	is.NoErr(err)
	is.Equal(n, int64(0))
	p, err = s.Users.CreateUser(ctx, newUser("named@example.com", "N", "N"), "", SetRoles(adminRole.ID))
	is.NoErr(err)
	is.Equal(ids(p.Roles), []int64{adminRole.ID})
}
