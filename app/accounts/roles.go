package accounts

import (
	"context"
	"strings"

	"counsel/domain"
	"counsel/domain/account"
	"counsel/domain/audit"
	"counsel/ports"
)

// Roles implements ports.RoleService. Its store announces each change
// after the commit, so cached principals apply it to the next request.
type Roles struct {
	store ports.RoleStore
}

var _ ports.RoleService = (*Roles)(nil)

// NewRoles returns the role service.
func NewRoles(store ports.RoleStore) *Roles {
	return &Roles{store: store}
}

// Permissions lists every permission name.
func (r *Roles) Permissions(ctx context.Context) ([]string, error) {
	if _, err := account.Require(ctx, account.PermissionsView); err != nil {
		return nil, err
	}
	return account.AllPermissionSet.Names(), nil
}

// MyPermissions lists the caller's permission names.
func (r *Roles) MyPermissions(ctx context.Context) ([]string, error) {
	p, err := account.Require(ctx)
	if err != nil {
		return nil, err
	}
	return p.Permissions.Names(), nil
}

// Roles lists every role.
func (r *Roles) Roles(ctx context.Context) ([]account.Role, error) {
	if _, err := account.Require(ctx, account.RolesView); err != nil {
		return nil, err
	}
	return r.store.Roles(ctx)
}

// Role returns one role.
func (r *Roles) Role(ctx context.Context, id int64) (account.Role, error) {
	if _, err := account.Require(ctx, account.RolesView); err != nil {
		return account.Role{}, err
	}
	return r.store.Role(ctx, id)
}

// CreateRole adds a role. Only a system administrator may create a
// system-admin or default role (docs/decisions.md §12): RolesCreate must not
// be a way to make one.
func (r *Roles) CreateRole(ctx context.Context, in account.RoleInput) (account.Role, error) {
	p, err := account.Require(ctx, account.RolesCreate)
	if err != nil {
		return account.Role{}, err
	}
	if err := in.Validate(); err != nil {
		return account.Role{}, err
	}
	after := account.Role{Name: in.Name, IsSystemAdmin: in.IsSystemAdmin, IsDefaultRole: in.IsDefaultRole}
	if err := account.CheckShapeRole(p, nil, &after); err != nil {
		return account.Role{}, err
	}
	if err := account.CheckRoleFlags(in); err != nil {
		return account.Role{}, err
	}
	ctx, fx := ports.WithEffects(ctx)
	fx.Add(ports.Deferred(func(id int64) (ports.Effect, error) {
		return ports.Audit(ctx, audit.RoleCreated, audit.TargetRole, userTarget(id),
			map[string]any{"isSystemAdmin": in.IsSystemAdmin, "isDefaultRole": in.IsDefaultRole}), nil
	}))
	return r.store.CreateRole(ctx, in)
}

// UpdateRole changes a role; fields absent from the patch keep their
// value. Only a system administrator may change a system-admin or default
// role, or make a role one. The checks run in the store's transaction on
// the role as it is there, so a concurrent change cannot slip between
// them and the write.
func (r *Roles) UpdateRole(ctx context.Context, id int64, patch account.RolePatch) (account.Role, error) {
	p, err := account.Require(ctx, account.RolesEdit)
	if err != nil {
		return account.Role{}, err
	}
	ctx, fx := ports.WithEffects(ctx)
	role, err := r.store.UpdateRole(ctx, id, func(cur account.Role) (account.RoleInput, error) {
		in := patch.Apply(cur)
		if err := in.Validate(); err != nil {
			return in, err
		}
		fx.Add(ports.Audit(ctx, audit.RoleUpdated, audit.TargetRole, userTarget(id), map[string]any{"fields": roleChanges(cur, in)}))
		after := cur
		after.Name, after.IsSystemAdmin, after.IsDefaultRole = in.Name, in.IsSystemAdmin, in.IsDefaultRole
		// A role that becomes a system-admin role grants everything to its
		// holders; CheckShapeRole limits that to administrators.
		if err := account.CheckShapeRole(p, &cur, &after); err != nil {
			return in, err
		}
		return in, account.CheckRoleFlags(in)
	}, account.KeepAnAdmin(account.LastAdminRole))
	return role, err
}

// DeleteRole removes a role. Only a system administrator may delete a
// system-admin or default role.
func (r *Roles) DeleteRole(ctx context.Context, id int64) error {
	p, err := account.Require(ctx, account.RolesDelete)
	if err != nil {
		return err
	}
	ctx, fx := ports.WithEffects(ctx)
	err = r.store.DeleteRole(ctx, id, func(cur account.Role) error {
		fx.Add(ports.Audit(ctx, audit.RoleDeleted, audit.TargetRole, userTarget(id), map[string]any{"name": cur.Name}))
		return account.CheckShapeRole(p, &cur, nil)
	}, account.KeepAnAdmin(account.LastAdminRole))
	return err
}

// RolePermissions lists a role's permission names (all of them for a
// system-admin role).
func (r *Roles) RolePermissions(ctx context.Context, id int64) ([]string, error) {
	role, err := r.Role(ctx, id)
	if err != nil {
		return nil, err
	}
	return role.Effective().Names(), nil
}

// SetRolePermissions replaces a role's permissions. Unknown names are an
// EINVALID error listing the accepted ones.
func (r *Roles) SetRolePermissions(ctx context.Context, id int64, names []string) ([]string, error) {
	p, err := account.Require(ctx, account.RolesEdit)
	if err != nil {
		return nil, err
	}
	var set account.PermissionSet
	for _, n := range names {
		perm, ok := account.ParsePermission(n)
		if !ok {
			return nil, domain.Invalid(map[string][]string{"permissions": {
				"unknown permission " + n + "; accepted: " + strings.Join(account.AllPermissionSet.Names(), ", ")}})
		}
		set |= account.NewPermissionSet(perm)
	}
	ctx, fx := ports.WithEffects(ctx)
	role, err := r.store.SetRolePermissions(ctx, id, func(cur account.Role) (account.PermissionSet, error) {
		if err := account.CheckShapeRole(p, &cur, &cur); err != nil {
			return 0, err
		}
		fx.Add(ports.Audit(ctx, audit.RolePermissionsChanged, audit.TargetRole, userTarget(id), map[string]any{
			"added": nonNil((set &^ cur.Permissions).Names()), "removed": nonNil((cur.Permissions &^ set).Names())}))
		// Adding a permission grants it to every holder of the role;
		// taking one away grants nothing.
		return set, account.CheckGrant(p, "these permissions", set&^cur.Effective())
	})
	if err != nil {
		return nil, err
	}
	return role.Effective().Names(), nil
}

// UserRoles lists a user's roles.
func (r *Roles) UserRoles(ctx context.Context, userID int64) ([]account.Role, error) {
	if _, err := account.Require(ctx, account.UsersView); err != nil {
		return nil, err
	}
	return r.store.UserRoles(ctx, userID)
}

// AddUserRole gives a user a role: a guarded role only by a system
// administrator, any other only when it grants nothing beyond the
// caller's own permissions (which also keeps a caller from widening
// their own).
func (r *Roles) AddUserRole(ctx context.Context, userID, roleID int64) error {
	p, err := account.Require(ctx, account.UsersEdit)
	if err != nil {
		return err
	}
	ctx, fx := ports.WithEffects(ctx)
	err = r.store.AddUserRole(ctx, userID, roleID, func(role account.Role) error {
		fx.Add(ports.Audit(ctx, audit.RoleAssigned, audit.TargetUser, userTarget(userID), map[string]any{"roleId": roleID, "role": role.Name}))
		return account.CheckAssignRole(p, role)
	})
	return err
}

// RemoveUserRole takes a role from a user. Only a system administrator
// may take a system-admin role: UsersEdit must not be a way to unmake an
// administrator; and the last administrator keeps it.
func (r *Roles) RemoveUserRole(ctx context.Context, userID, roleID int64) error {
	p, err := account.Require(ctx, account.UsersEdit)
	if err != nil {
		return err
	}
	ctx, fx := ports.WithEffects(ctx)
	err = r.store.RemoveUserRole(ctx, userID, roleID, func(role account.Role) error {
		fx.Add(ports.Audit(ctx, audit.RoleRemoved, audit.TargetUser, userTarget(userID), map[string]any{"roleId": roleID, "role": role.Name}))
		return account.CheckTakeRole(p, role)
	}, account.KeepAnAdmin(account.LastAdminRole))
	return err
}

// roleChanges names the fields an update changes.
func roleChanges(cur account.Role, in account.RoleInput) []string {
	out := []string{}
	if strings.TrimSpace(in.Name) != cur.Name {
		out = append(out, "name")
	}
	if in.IsSystemAdmin != cur.IsSystemAdmin {
		out = append(out, "isSystemAdmin")
	}
	if in.IsDefaultRole != cur.IsDefaultRole {
		out = append(out, "isDefaultRole")
	}
	return out
}

// nonNil writes an empty list as [] rather than null.
func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
