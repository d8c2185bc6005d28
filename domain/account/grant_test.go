package account_test

import (
	"testing"

	"counsel/domain"
	"counsel/domain/account"

	"github.com/matryer/is"
)

func TestGrantRules(t *testing.T) {
	t.Parallel()
	admin := account.Principal{UserID: 1, SystemAdmin: true, Permissions: account.AllPermissionSet}
	editor := account.Principal{UserID: 2, Permissions: account.NewPermissionSet(account.RolesEdit, account.UsersEdit, account.ContractView)}
	sysRole := account.Role{Name: "Administrator", IsSystemAdmin: true}
	defRole := account.Role{Name: "Staff", IsDefaultRole: true, Permissions: account.NewPermissionSet(account.ContractView)}
	weak := account.Role{Name: "Viewers", Permissions: account.NewPermissionSet(account.ContractView)}
	strong := account.Role{Name: "Partners", Permissions: account.NewPermissionSet(account.ContractDelete)}
	tests := []struct {
		name string
		err  error
		want string
	}{
		{"both flags", account.CheckRoleFlags(account.RoleInput{IsSystemAdmin: true, IsDefaultRole: true}), domain.ECONFLICT},
		{"one flag", account.CheckRoleFlags(account.RoleInput{IsDefaultRole: true}), ""},
		{"editor shapes a default role", account.CheckShapeRole(editor, &defRole, &defRole), domain.EFORBIDDEN},
		{"editor makes a role default", account.CheckShapeRole(editor, &weak, &defRole), domain.EFORBIDDEN},
		{"editor deletes the admin role", account.CheckShapeRole(editor, &sysRole, nil), domain.EFORBIDDEN},
		{"editor shapes a plain role", account.CheckShapeRole(editor, &weak, &strong), ""},
		{"admin shapes anything", account.CheckShapeRole(admin, &sysRole, &defRole), ""},
		{"grant held", account.CheckGrant(editor, "x", account.NewPermissionSet(account.ContractView)), ""},
		{"grant not held", account.CheckGrant(editor, "x", account.NewPermissionSet(account.ContractDelete)), domain.EFORBIDDEN},
		{"assign weak", account.CheckAssignRole(editor, weak), ""},
		{"assign strong", account.CheckAssignRole(editor, strong), domain.EFORBIDDEN},
		{"assign default", account.CheckAssignRole(editor, defRole), domain.EFORBIDDEN},
		{"assign admin", account.CheckAssignRole(editor, sysRole), domain.EFORBIDDEN},
		{"admin assigns admin", account.CheckAssignRole(admin, sysRole), ""},
		{"take admin", account.CheckTakeRole(editor, sysRole), domain.EFORBIDDEN},
		{"take default", account.CheckTakeRole(editor, defRole), ""},
		{"admin takes admin", account.CheckTakeRole(admin, sysRole), ""},
		{"take over a stronger user", account.CheckTakeover(editor, 9, []account.Role{strong}), domain.EFORBIDDEN},
		{"take over an administrator", account.CheckTakeover(editor, 9, []account.Role{sysRole}), domain.EFORBIDDEN},
		{"change an ordinary user", account.CheckTakeover(editor, 9, []account.Role{defRole, weak}), ""},
		{"default roles do not count", account.CheckTakeover(account.Principal{UserID: 3, Permissions: account.NewPermissionSet(account.UsersEdit)}, 9, []account.Role{defRole}), ""},
		{"oneself", account.CheckTakeover(editor, 2, []account.Role{strong}), ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			is.Equal(domain.ErrorCode(tt.err), tt.want) // the rule's answer
		})
	}
}
