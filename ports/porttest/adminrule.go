package porttest

import (
	"context"
	"errors"
	"testing"

	"github.com/matryer/is"

	"counsel/domain"
	"counsel/domain/account"
	"counsel/domain/user"
)

// KeepAdmin is the use case's last-administrator rule for user changes
// and deletions, on the user's aggregate (the engines' own tests use it
// too).
func KeepAdmin(a *user.Aggregate) error { return a.KeepAnAdmin(account.LastAdminChange) }

// setRoles is an aggregate change that gives the user the roles ids (no
// roles for none), looked up in the store's transaction.
func SetRoles(ids ...int64) func(*user.Aggregate) error {
	return func(a *user.Aggregate) error {
		rs, err := a.LookupRoles(append([]int64{}, ids...))
		if err != nil {
			return err
		}
		a.SetRoles(rs)
		return nil
	}
}

// edit is an UpdateUser fn: the aggregate changes also (setRoles), fn
// changes the user, then KeepAdmin decides.
func Edit(fn func(*user.User) error, also ...func(*user.Aggregate) error) func(*user.Aggregate) error {
	return func(a *user.Aggregate) error {
		for _, f := range also {
			if err := f(a); err != nil {
				return err
			}
		}
		if err := fn(&a.User); err != nil {
			return err
		}
		return KeepAdmin(a)
	}
}

// roleInput is an UpdateRole fn that ignores the current role.
func roleInput(in account.RoleInput) func(account.Role) (account.RoleInput, error) {
	return func(account.Role) (account.RoleInput, error) { return in, nil }
}

// perms is a SetRolePermissions fn that ignores the current role.
func perms(ps account.PermissionSet) func(account.Role) (account.PermissionSet, error) {
	return func(account.Role) (account.PermissionSet, error) { return ps, nil }
}

// AdminRuleSuite holds every engine to the contract of the methods that
// run a use case's rules in their transaction: check and fn see the role
// as it is there, keep sees the administrators counted before and after
// the change, and an error from any of them is returned as is with
// nothing changed.
func AdminRuleSuite(t *testing.T, s Stores) {
	ctx := context.Background()
	is := is.New(t)
	adminID := bootstrap(t, s)
	roles, err := s.Roles.Roles(ctx)
	is.NoErr(err)
	adminRole, staffRole := roles[0], roles[1]
	is.True(adminRole.IsSystemAdmin)
	boom := errors.New("refused by the use case")
	var seen []account.AdminCount
	record := func(err error) account.AdminRule {
		return func(c account.AdminCount) error { seen = append(seen, c); return err }
	}
	holds := func(uid, roleID int64) bool {
		held, err := s.Roles.UserRoles(ctx, uid)
		is.NoErr(err)
		for _, r := range held {
			if r.ID == roleID {
				return true
			}
		}
		return false
	}

	uid, err := createUser(ctx, s.Users, account.NewUser{Email: "second@example.com"})
	is.NoErr(err)
	// check sees the role and its refusal changes nothing.
	var checked account.Role
	err = s.Roles.AddUserRole(ctx, uid, adminRole.ID, func(r account.Role) error { checked = r; return boom })
	is.Equal(err, boom)
	is.Equal(checked.ID, adminRole.ID)
	is.True(checked.IsSystemAdmin)
	is.True(!holds(uid, adminRole.ID))
	is.NoErr(s.Roles.AddUserRole(ctx, uid, adminRole.ID, func(account.Role) error { return nil }))

	// keep sees two administrators, then one; its refusal rolls back.
	seen = nil
	is.Equal(s.Roles.RemoveUserRole(ctx, uid, adminRole.ID, nil, record(boom)), boom)
	is.Equal(seen, []account.AdminCount{{Before: 2, After: 1}})
	is.True(holds(uid, adminRole.ID))
	is.Equal(s.Roles.RemoveUserRole(ctx, uid, adminRole.ID, func(account.Role) error { return boom }, nil), boom)
	is.True(holds(uid, adminRole.ID))

	// UpdateUser and DeleteUser: the aggregate counts the administrators
	// other than the user, and the user's own roles, in the store's
	// transaction; a refusal rolls back.
	admins := func(err error, change func(*user.Aggregate)) func(*user.Aggregate) error {
		return func(a *user.Aggregate) error {
			is.Equal(a.OtherAdmins, 1)
			is.True(account.AnySystemAdmin(a.Held()))
			if change != nil {
				change(a)
			}
			seen = append(seen, a.Admins())
			return err
		}
	}
	deactivate := func(a *user.Aggregate) { a.User.Active = false }
	seen = nil
	_, err = s.Users.UpdateUser(ctx, uid, admins(boom, deactivate))
	is.Equal(err, boom)
	p, err := s.Users.Profile(ctx, uid, false)
	is.NoErr(err)
	is.True(p.Active)
	_, err = s.Users.UpdateUser(ctx, uid, admins(boom, func(a *user.Aggregate) { a.SetRoles(nil) }))
	is.Equal(err, boom)
	is.True(holds(uid, adminRole.ID))
	is.Equal(s.Users.DeleteUser(ctx, uid, T0, admins(boom, nil)), boom)
	_, err = s.Users.User(ctx, uid)
	is.NoErr(err) // not deleted
	is.Equal(seen, []account.AdminCount{{Before: 2, After: 1}, {Before: 2, After: 1}, {Before: 2, After: 1}})
	seen = nil
	is.NoErr(s.Users.DeleteUser(ctx, uid, T0, admins(nil, nil)))
	is.Equal(seen, []account.AdminCount{{Before: 2, After: 1}})
	called := false
	is.Equal(code(s.Users.DeleteUser(ctx, uid, T0, func(*user.Aggregate) error { called = true; return nil })), domain.ENOTFOUND)
	_, err = s.Users.UpdateUser(ctx, uid, func(*user.Aggregate) error { called = true; return nil })
	is.Equal(code(err), domain.ENOTFOUND)
	is.True(!called) // fn never sees a deleted user

	// Role changes: fn sees the current role; refusals change nothing.
	seen = nil
	_, err = s.Roles.UpdateRole(ctx, adminRole.ID, func(cur account.Role) (account.RoleInput, error) {
		checked = cur
		return account.RoleInput{Name: cur.Name}, nil // no longer a system-admin role
	}, record(boom))
	is.Equal(err, boom)
	is.Equal(checked, adminRole)
	is.Equal(seen, []account.AdminCount{{Before: 1, After: 0}})
	r, err := s.Roles.Role(ctx, adminRole.ID)
	is.NoErr(err)
	is.True(r.IsSystemAdmin)
	_, err = s.Roles.UpdateRole(ctx, staffRole.ID, func(account.Role) (account.RoleInput, error) { return account.RoleInput{}, boom }, nil)
	is.Equal(err, boom)
	_, err = s.Roles.SetRolePermissions(ctx, staffRole.ID, func(cur account.Role) (account.PermissionSet, error) {
		checked = cur
		return account.AllPermissionSet, boom
	})
	is.Equal(err, boom)
	is.Equal(checked, staffRole)
	r, err = s.Roles.Role(ctx, staffRole.ID)
	is.NoErr(err)
	is.Equal(r.Permissions, staffRole.Permissions)
	is.Equal(s.Roles.DeleteRole(ctx, staffRole.ID, func(account.Role) error { return boom }, nil), boom)
	_, err = s.Roles.Role(ctx, staffRole.ID)
	is.NoErr(err) // not deleted
	seen = nil
	is.Equal(s.Roles.DeleteRole(ctx, adminRole.ID, nil, record(boom)), boom)
	is.Equal(seen, []account.AdminCount{{Before: 1, After: 0}})
	is.True(holds(adminID, adminRole.ID))

	// A nil keep checks nothing (imports repair a database this way).
	is.NoErr(s.Roles.RemoveUserRole(ctx, adminID, adminRole.ID, nil, nil))
	is.True(!holds(adminID, adminRole.ID))
	// With none left, the rule lets an administrator be made again.
	seen = nil
	is.NoErr(s.Roles.AddUserRole(ctx, adminID, adminRole.ID, nil))
	_, err = s.Users.UpdateUser(ctx, adminID, func(a *user.Aggregate) error {
		is.Equal(a.OtherAdmins, 0)
		seen = append(seen, a.Admins())
		return nil
	})
	is.NoErr(err)
	is.Equal(seen, []account.AdminCount{{Before: 1, After: 1}})
}
