package account

import (
	"strings"

	"counsel/domain"
)

// The grant rules of docs/decisions.md §12: who may shape and hand out roles.
// A permission reaches a user only through a role, so every path that can
// widen someone's permissions (editing a role, setting its permissions,
// giving it to a user, creating a user with roles) goes through these.

// Guarded reports whether only a system administrator may create, edit,
// delete or assign r: a system-admin role holds everything, and a default
// role reaches every user created later without a grant check.
func (r Role) Guarded() bool { return r.IsSystemAdmin || r.IsDefaultRole }

// CheckRoleFlags refuses a system-admin role that is also the default
// role (ECONFLICT): every user created afterwards would be an
// administrator.
func CheckRoleFlags(in RoleInput) error {
	if in.IsSystemAdmin && in.IsDefaultRole {
		return domain.Errorf(domain.ECONFLICT, "a system-admin role cannot be the default role")
	}
	return nil
}

// CheckShapeRole refuses a caller who is not a system administrator
// touching a guarded role: before is the role as stored (nil when it is
// being created), after what it would become (nil when it is deleted).
func CheckShapeRole(p Principal, before, after *Role) error {
	if p.SystemAdmin {
		return nil
	}
	for _, r := range []*Role{before, after} {
		if r != nil && r.Guarded() {
			return domain.Errorf(domain.EFORBIDDEN, "only a system administrator may create, change or delete a system-admin or default role")
		}
	}
	return nil
}

// CheckGrant refuses giving away permissions the caller does not hold
// (EFORBIDDEN naming them). what says what was being given.
func CheckGrant(p Principal, what string, grant PermissionSet) error {
	if p.SystemAdmin {
		return nil
	}
	if missing := grant &^ p.Permissions; missing != 0 {
		return domain.Errorf(domain.EFORBIDDEN, "%s would grant permissions you do not hold: %s", what, strings.Join(missing.Names(), ", "))
	}
	return nil
}

// CheckAssignRole refuses giving role r to a user unless the caller is a
// system administrator or r is not guarded and grants nothing beyond the
// caller's own permissions.
func CheckAssignRole(p Principal, r Role) error {
	if p.SystemAdmin {
		return nil
	}
	if r.Guarded() {
		return domain.Errorf(domain.EFORBIDDEN, "only a system administrator may give the role %s", r.Name)
	}
	return CheckGrant(p, "the role "+r.Name, r.Effective())
}

// CheckTakeRole refuses taking a system-admin role r from a user unless
// the caller is a system administrator: UsersEdit must not be a way to
// unmake an administrator.
func CheckTakeRole(p Principal, r Role) error {
	if r.IsSystemAdmin && !p.SystemAdmin {
		return domain.Errorf(domain.EFORBIDDEN, "only a system administrator may give or take the role %s", r.Name)
	}
	return nil
}

// CheckTakeover refuses a caller acting for another user (setting their
// password or email, changing them) whose roles grant more than the
// caller holds: with the account's password or email (identity-provider
// sign-in finds users by email) the caller would hold it all. The
// target's default roles are left out, since every user has them; an
// account with a system-admin role is only for a system administrator.
func CheckTakeover(p Principal, targetID int64, targetRoles []Role) error {
	if p.SystemAdmin || targetID == p.UserID {
		return nil
	}
	var held PermissionSet
	for _, r := range targetRoles {
		if r.IsSystemAdmin {
			return domain.Errorf(domain.EFORBIDDEN, "only a system administrator may change another system administrator")
		}
		if !r.IsDefaultRole {
			held |= r.Effective()
		}
	}
	if missing := held &^ p.Permissions; missing != 0 {
		return domain.Errorf(domain.EFORBIDDEN, "this user holds permissions you do not hold: %s", strings.Join(missing.Names(), ", "))
	}
	return nil
}

// RoleCheck decides whether a change to a user may go ahead, given the
// roles the user holds (nil for a new or unknown user) and a lookup of
// roles by id (ENOTFOUND for an unknown one). Stores read both inside the
// change's transaction and call it before writing, so a role given or
// taken meanwhile cannot slip past; an error rolls the change back and is
// returned as is.
type RoleCheck func(held []Role, role func(id int64) (Role, error)) error
