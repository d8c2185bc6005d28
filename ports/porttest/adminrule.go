package porttest

import (
	"context"
	"errors"
	"testing"

	"github.com/matryer/is"

	"counsel/domain/account"
	"counsel/domain/user"
)

// keepUser is the use case's last-administrator rule for user changes.
var keepUser = account.KeepAnAdmin(account.LastAdminChange)

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

	uid, err := s.Accounts.CreateUser(ctx, account.NewUser{Email: "second@example.com"})
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

	// UpdateUser and DeleteUser count too, and roll back on refusal.
	seen = nil
	_, err = s.Users.UpdateUser(ctx, uid, nil, nil, func(u *user.User) error { u.Active = false; return nil }, record(boom))
	is.Equal(err, boom)
	p, err := s.Users.Profile(ctx, uid, false)
	is.NoErr(err)
	is.True(p.Active)
	is.Equal(s.Users.DeleteUser(ctx, uid, T0, record(boom)), boom)
	_, err = s.Users.User(ctx, uid)
	is.NoErr(err) // not deleted
	is.Equal(seen, []account.AdminCount{{Before: 2, After: 1}, {Before: 2, After: 1}})
	seen = nil
	is.NoErr(s.Users.DeleteUser(ctx, uid, T0, record(nil)))
	is.Equal(seen, []account.AdminCount{{Before: 2, After: 1}})

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
	_, err = s.Users.UpdateUser(ctx, adminID, nil, nil, func(*user.User) error { return nil }, record(nil))
	is.NoErr(err)
	is.Equal(seen, []account.AdminCount{{Before: 1, After: 1}})
}
