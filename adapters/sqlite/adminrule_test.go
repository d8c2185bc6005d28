package sqlite

import "counsel/domain/account"

// The use cases' rules as these tests pass them to the role and user
// stores (ports.RoleStore runs them in its transaction).
var (
	keepRole = account.KeepAnAdmin(account.LastAdminRole)
	keepUser = account.KeepAnAdmin(account.LastAdminChange)
)

func setRole(in account.RoleInput) func(account.Role) (account.RoleInput, error) {
	return func(account.Role) (account.RoleInput, error) { return in, nil }
}

func setPerms(ps account.PermissionSet) func(account.Role) (account.PermissionSet, error) {
	return func(account.Role) (account.PermissionSet, error) { return ps, nil }
}
