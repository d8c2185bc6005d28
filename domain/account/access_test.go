package account_test

import (
	"testing"

	"github.com/matryer/is"

	"counsel/domain/account"
)

func TestAccess(t *testing.T) {
	t.Parallel()
	view := account.Role{Name: "Viewer", Permissions: account.NewPermissionSet(account.ContractView)}
	edit := account.Role{Name: "Editor", Permissions: account.NewPermissionSet(account.ContractEdit, account.UsersView)}
	admin := account.Role{Name: "Admin", IsSystemAdmin: true} // no permissions of its own
	tests := []struct {
		name  string
		roles []account.Role
		perms account.PermissionSet
		admin bool
	}{
		{"no roles: nothing", nil, 0, false},
		{"one role: its permissions", []account.Role{view}, view.Permissions, false},
		{"several: the union", []account.Role{view, edit}, view.Permissions | edit.Permissions, false},
		{"a system-admin role holds every permission", []account.Role{view, admin}, account.AllPermissionSet, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			perms, isAdmin := account.Access(tt.roles)
			is.Equal(perms, tt.perms)
			is.Equal(isAdmin, tt.admin)
			is.Equal(account.AnySystemAdmin(tt.roles), tt.admin)
		})
	}
}

func TestBuiltinRoles(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	rs := account.BuiltinRoles()
	is.Equal(len(rs), 2)
	is.Equal(rs[0].Name, account.AdministratorRole)
	is.True(rs[0].IsSystemAdmin && !rs[0].IsDefaultRole)
	is.Equal(rs[0].Permissions, account.AllPermissionSet) // every permission
	is.Equal(rs[1].Name, account.StaffRole)
	is.True(rs[1].IsDefaultRole && !rs[1].IsSystemAdmin)
	is.Equal(rs[1].Permissions, account.NewPermissionSet(account.ContractView)) // staff read contracts
	for _, r := range rs {
		is.NoErr(account.CheckRoleFlags(account.RoleInput{Name: r.Name, IsSystemAdmin: r.IsSystemAdmin, IsDefaultRole: r.IsDefaultRole}))
	}
}
