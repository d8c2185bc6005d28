package sqlrow

import (
	"context"
	"fmt"
	"strings"

	"counsel/domain/account"
	"counsel/ports"
)

// RoleStore implements ports.RoleStore on any Engine. A write that
// changes who may do what runs in AccessTx; a role a check decides on is
// read with LockRow, so what the check saw holds until commit.
type RoleStore struct{ e Engine }

var _ ports.RoleStore = RoleStore{}

// NewRoleStore returns the role store of e.
func NewRoleStore(e Engine) RoleStore { return RoleStore{e: e} }

// RoleOrder sorts roles by name, ASCII case folded, then id.
func RoleOrder(d Dialect) string { return d.Fold("r.name") + ", r.id" }

// Roles implements ports.RoleStore.
func (s RoleStore) Roles(ctx context.Context) ([]account.Role, error) {
	return Roles(ctx, s.e.Read(), "", RoleOrder(s.e))
}

// Role implements ports.RoleStore.
func (s RoleStore) Role(ctx context.Context, id int64) (account.Role, error) {
	return Role(ctx, s.e.Read(), RoleOrder(s.e), id)
}

// CreateRole implements ports.RoleStore.
func (s RoleStore) CreateRole(ctx context.Context, in account.RoleInput) (account.Role, error) {
	var r account.Role
	err := s.e.WriteTx(ctx, func(x Querier) error {
		id, err := x.Insert(ctx, `INSERT INTO roles (name, is_system_admin, is_default_role) VALUES (?, ?, ?)`,
			strings.TrimSpace(in.Name), in.IsSystemAdmin, in.IsDefaultRole)
		if err != nil {
			return fmt.Errorf("create role: %w", RoleNameTaken(s.e.FormatError(err)))
		}
		ports.Created(ctx, id)
		r, err = Role(ctx, x, RoleOrder(s.e), id)
		return err
	})
	return r, err
}

// UpdateRole implements ports.RoleStore.
func (s RoleStore) UpdateRole(ctx context.Context, id int64, fn func(account.Role) (account.RoleInput, error), keep account.AdminRule) (account.Role, error) {
	var r account.Role
	err := s.e.AccessTx(ctx, func(x Querier) error {
		return GuardLastAdmin(ctx, s.e, x, keep, func() error {
			cur, err := LockRole(ctx, s.e, x, id)
			if err != nil {
				return err
			}
			in, err := fn(cur)
			if err != nil {
				return err
			}
			if _, err := x.Exec(ctx, `UPDATE roles SET name = ?, is_system_admin = ?, is_default_role = ? WHERE id = ?`,
				strings.TrimSpace(in.Name), in.IsSystemAdmin, in.IsDefaultRole, id); err != nil {
				return fmt.Errorf("update role %d: %w", id, RoleNameTaken(s.e.FormatError(err)))
			}
			r, err = Role(ctx, x, RoleOrder(s.e), id)
			return err
		})
	})
	return r, err
}

// DeleteRole implements ports.RoleStore.
func (s RoleStore) DeleteRole(ctx context.Context, id int64, check func(account.Role) error, keep account.AdminRule) error {
	return s.e.AccessTx(ctx, func(x Querier) error {
		return GuardLastAdmin(ctx, s.e, x, keep, func() error {
			if err := checkRole(ctx, s.e, x, id, check); err != nil {
				return err
			}
			if _, err := x.Exec(ctx, `DELETE FROM roles WHERE id = ?`, id); err != nil {
				return fmt.Errorf("delete role %d: %w", id, err)
			}
			return nil
		})
	})
}

// SetRolePermissions implements ports.RoleStore.
func (s RoleStore) SetRolePermissions(ctx context.Context, id int64, fn func(account.Role) (account.PermissionSet, error)) (account.Role, error) {
	var r account.Role
	err := s.e.AccessTx(ctx, func(x Querier) error {
		cur, err := LockRole(ctx, s.e, x, id)
		if err != nil {
			return err
		}
		ps, err := fn(cur)
		if err != nil {
			return err
		}
		if err := ReplaceRolePermissions(ctx, x, id, ps); err != nil {
			return fmt.Errorf("set permissions of role %d: %w", id, err)
		}
		r, err = Role(ctx, x, RoleOrder(s.e), id)
		return err
	})
	return r, err
}

// UserRoles implements ports.RoleStore.
func (s RoleStore) UserRoles(ctx context.Context, userID int64) ([]account.Role, error) {
	var out []account.Role
	err := s.e.ReadTx(ctx, func(x Querier) error {
		if err := UserExists(ctx, x, userID); err != nil {
			return err
		}
		var err error
		out, err = Roles(ctx, x, "JOIN user_roles ur ON ur.role_id = r.id AND ur.user_id = ?", RoleOrder(s.e), userID)
		return err
	})
	return out, err
}

// AddUserRole implements ports.RoleStore.
func (s RoleStore) AddUserRole(ctx context.Context, userID, roleID int64, check func(account.Role) error) error {
	return s.e.AccessTx(ctx, func(x Querier) error {
		if err := checkRole(ctx, s.e, x, roleID, check); err != nil {
			return err
		}
		if err := UserExists(ctx, x, userID); err != nil {
			return err
		}
		if _, err := x.Exec(ctx, `INSERT INTO user_roles (user_id, role_id) VALUES (?, ?) ON CONFLICT DO NOTHING`, userID, roleID); err != nil {
			return fmt.Errorf("give user %d role %d: %w", userID, roleID, err)
		}
		return nil
	})
}

// RemoveUserRole implements ports.RoleStore.
func (s RoleStore) RemoveUserRole(ctx context.Context, userID, roleID int64, check func(account.Role) error, keep account.AdminRule) error {
	return s.e.AccessTx(ctx, func(x Querier) error {
		return GuardLastAdmin(ctx, s.e, x, keep, func() error {
			if err := checkRole(ctx, s.e, x, roleID, check); err != nil {
				return err
			}
			if err := UserExists(ctx, x, userID); err != nil {
				return err
			}
			if _, err := x.Exec(ctx, `DELETE FROM user_roles WHERE user_id = ? AND role_id = ?`, userID, roleID); err != nil {
				return fmt.Errorf("take role %d from user %d: %w", roleID, userID, err)
			}
			return nil
		})
	})
}

// LockRole locks a role's row (LockRow) until the transaction ends, so
// the checks made on what it returns still hold at commit, and loads it.
func LockRole(ctx context.Context, e Engine, x Querier, id int64) (account.Role, error) {
	var one int
	if err := x.Row(ctx, `SELECT 1 FROM roles WHERE id = ?`+e.LockRow(), id).Scan(&one); err != nil {
		return account.Role{}, fmt.Errorf("lock role %d: %w", id, IfNoRows(err, "role"))
	}
	return Role(ctx, x, RoleOrder(e), id)
}

// checkRole locks and loads a role and runs check on it (nil: none).
func checkRole(ctx context.Context, e Engine, x Querier, id int64, check func(account.Role) error) error {
	cur, err := LockRole(ctx, e, x, id)
	if err != nil || check == nil {
		return err
	}
	return check(cur)
}

// RunRoleCheck runs check (nil: none) with the roles user userID holds
// (none when 0, unknown or deleted) and a role lookup. The user's row is
// locked first (a role given meanwhile needs a key-share lock on it) and
// each role looked up is locked (LockRole), so what check saw holds until
// commit.
func RunRoleCheck(ctx context.Context, e Engine, x Querier, userID int64, check account.RoleCheck) error {
	if check == nil {
		return nil
	}
	var held []account.Role
	if userID != 0 {
		if _, err := x.Exec(ctx, `SELECT 1 FROM users WHERE id = ? AND deleted_at IS NULL`+e.LockRow(), userID); err != nil {
			return fmt.Errorf("lock user %d: %w", userID, err)
		}
		var err error
		held, err = Roles(ctx, x, `JOIN user_roles ur ON ur.role_id = r.id AND ur.user_id = ?
			JOIN users u ON u.id = ur.user_id AND u.deleted_at IS NULL`, RoleOrder(e), userID)
		if err != nil {
			return fmt.Errorf("load roles of user %d: %w", userID, err)
		}
	}
	return check(held, func(id int64) (account.Role, error) { return LockRole(ctx, e, x, id) })
}

// LockAdministrators is the Serialize name of the transactions that may
// remove a system administrator.
const LockAdministrators = "administrators"

// CountAdmins counts active, undeleted users holding a system-admin role.
func CountAdmins(ctx context.Context, x Querier) (int, error) { return countAdmins(ctx, x, 0) }

// countAdmins is CountAdmins leaving out user except (0: none).
func countAdmins(ctx context.Context, x Querier, except int64) (int, error) {
	var n int
	err := x.Row(ctx, `SELECT count(DISTINCT u.id) FROM users u
		JOIN user_roles ur ON ur.user_id = u.id JOIN roles r ON r.id = ur.role_id
		WHERE r.is_system_admin = ? AND u.deleted_at IS NULL AND u.active = ? AND u.id <> ?`, true, true, except).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("count administrators: %w", err)
	}
	return n, nil
}

// GuardLastAdmin runs change with the administrators counted before and
// after it, serialised (LockAdministrators) with every other such change
// so the counts hold until commit, and lets keep (the use case's rule)
// decide.
func GuardLastAdmin(ctx context.Context, e Engine, x Querier, keep account.AdminRule, change func() error) error {
	if keep == nil {
		return change()
	}
	if err := e.Serialize(ctx, x, LockAdministrators); err != nil {
		return fmt.Errorf("lock the administrators: %w", err)
	}
	var c account.AdminCount
	var err error
	if c.Before, err = CountAdmins(ctx, x); err != nil {
		return err
	}
	if err := change(); err != nil {
		return err
	}
	if c.After, err = CountAdmins(ctx, x); err != nil {
		return err
	}
	return keep(c)
}

// ReplaceRolePermissions sets a role's permissions to ps.
func ReplaceRolePermissions(ctx context.Context, x Querier, roleID int64, ps account.PermissionSet) error {
	if _, err := x.Exec(ctx, `DELETE FROM role_permissions WHERE role_id = ?`, roleID); err != nil {
		return err
	}
	list := ps.List()
	if len(list) == 0 {
		return nil
	}
	args := make([]any, 0, 2*len(list))
	for _, p := range list {
		args = append(args, roleID, p.String())
	}
	_, err := x.Exec(ctx, `INSERT INTO role_permissions (role_id, permission) VALUES `+
		strings.TrimSuffix(strings.Repeat("(?, ?), ", len(list)), ", "), args...)
	return err
}
