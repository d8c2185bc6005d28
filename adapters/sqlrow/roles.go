package sqlrow

import (
	"context"
	"fmt"
	"strings"

	"counsel/domain"
	"counsel/domain/account"
)

// RolesSQL reads roles with their permissions (comma-separated) in one
// query, no query per role: join and where narrow them, order sorts them
// by name as the engine folds case.
func RolesSQL(join, order string) string {
	return `SELECT r.id, r.name, r.is_system_admin, r.is_default_role,
		coalesce((SELECT ` + permissionsAgg + ` FROM role_permissions WHERE role_id = r.id), '')
		FROM roles r ` + join + ` ORDER BY ` + order
}

// permissionsAgg joins a role's permissions with commas: PostgreSQL's
// string_agg, which SQLite has too since 3.44 (modernc.org/sqlite bundles
// a later one).
const permissionsAgg = `string_agg(permission, ',')`

// ScanRole reads a row of RolesSQL.
func ScanRole(row Scanner) (account.Role, error) {
	var r account.Role
	var perms string
	if err := row.Scan(&r.ID, &r.Name, &r.IsSystemAdmin, &r.IsDefaultRole, &perms); err != nil {
		return r, err
	}
	for _, n := range strings.Split(perms, ",") {
		if p, ok := account.ParsePermission(n); ok {
			r.Permissions |= account.NewPermissionSet(p)
		}
	}
	return r, nil
}

// Roles reads the roles RolesSQL(join, order) selects.
func Roles(ctx context.Context, x Querier, join, order string, args ...any) ([]account.Role, error) {
	rs, err := QueryAll(ctx, x, ScanRole, RolesSQL(join, order), args...)
	if err != nil {
		return nil, fmt.Errorf("load roles: %w", err)
	}
	return rs, nil
}

// Role reads one role; ENOTFOUND when it does not exist.
func Role(ctx context.Context, x Querier, order string, id int64) (account.Role, error) {
	rs, err := Roles(ctx, x, "WHERE r.id = ?", order, id)
	if err != nil {
		return account.Role{}, err
	}
	if len(rs) == 0 {
		return account.Role{}, NotFound("role")
	}
	return rs[0], nil
}

// RoleNameTaken names a unique violation (formatted already) of a role's
// name.
func RoleNameTaken(err error) error {
	if domain.ErrorCode(err) == domain.ECONFLICT {
		return &domain.Error{Code: domain.ECONFLICT, Message: "a role with this name already exists"}
	}
	return err
}
