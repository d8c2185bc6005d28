package postgres

import (
	"context"
	"fmt"
	"strings"

	"counsel/adapters/sqlrow"
	"counsel/domain/account"
	"counsel/ports"
)

// RoleStore implements ports.RoleStore.
type RoleStore struct{ db *DB }

var _ ports.RoleStore = (*RoleStore)(nil)

// NewRoleStore returns the role store of db.
func NewRoleStore(db *DB) *RoleStore { return &RoleStore{db: db} }

// roleOrder sorts roles by name, ASCII case folded, then id.
const roleOrder = `lower(r.name COLLATE "C"), r.id`

// loadRoles reads the roles join and where select, by name.
func loadRoles(ctx context.Context, x q, where string, args ...any) ([]account.Role, error) {
	return sqlrow.Roles(ctx, x, where, roleOrder, args...)
}

func loadRole(ctx context.Context, x q, id int64) (account.Role, error) {
	return sqlrow.Role(ctx, x, roleOrder, id)
}

// Roles implements ports.RoleStore.
func (s *RoleStore) Roles(ctx context.Context) ([]account.Role, error) {
	return loadRoles(ctx, s.db.read(), "")
}

// Role implements ports.RoleStore.
func (s *RoleStore) Role(ctx context.Context, id int64) (account.Role, error) {
	return loadRole(ctx, s.db.read(), id)
}

// accessTx is tx for writes that change what a user may do: the commit
// tells every instance to check its cached principals again.
func (db *DB) accessTx(ctx context.Context, fn func(q) error) error {
	return db.tx(ctx, func(x q) error {
		if err := fn(x); err != nil {
			return err
		}
		return notify(ctx, x, changedPrincipals)
	})
}

// CreateRole implements ports.RoleStore.
func (s *RoleStore) CreateRole(ctx context.Context, in account.RoleInput) (account.Role, error) {
	var r account.Role
	err := s.db.tx(ctx, func(x q) error {
		var id int64
		if err := x.row(ctx, `INSERT INTO roles (name, is_system_admin, is_default_role) VALUES (?, ?, ?) RETURNING id`,
			strings.TrimSpace(in.Name), in.IsSystemAdmin, in.IsDefaultRole).Scan(&id); err != nil {
			return fmt.Errorf("create role: %w", sqlrow.RoleNameTaken(formatError(err)))
		}
		ports.Created(ctx, id)
		var err error
		r, err = loadRole(ctx, x, id)
		return err
	})
	return r, err
}

// UpdateRole implements ports.RoleStore.
func (s *RoleStore) UpdateRole(ctx context.Context, id int64, fn func(account.Role) (account.RoleInput, error), keep account.AdminRule) (account.Role, error) {
	var r account.Role
	err := s.db.accessTx(ctx, func(x q) error {
		return guardLastAdmin(ctx, x, keep, func() error {
			cur, err := lockRole(ctx, x, id)
			if err != nil {
				return err
			}
			in, err := fn(cur)
			if err != nil {
				return err
			}
			if _, err := x.exec(ctx, `UPDATE roles SET name = ?, is_system_admin = ?, is_default_role = ? WHERE id = ?`,
				strings.TrimSpace(in.Name), in.IsSystemAdmin, in.IsDefaultRole, id); err != nil {
				return fmt.Errorf("update role %d: %w", id, sqlrow.RoleNameTaken(formatError(err)))
			}
			r, err = loadRole(ctx, x, id)
			return err
		})
	})
	return r, err
}

// lockRole locks a role's row until the transaction ends, so the checks
// made on what it returns still hold at commit, and loads the role.
func lockRole(ctx context.Context, x q, id int64) (account.Role, error) {
	var one int
	if err := x.row(ctx, `SELECT 1 FROM roles WHERE id = ? FOR UPDATE`, id).Scan(&one); err != nil {
		return account.Role{}, fmt.Errorf("lock role %d: %w", id, sqlrow.IfNoRows(err, "role"))
	}
	return loadRole(ctx, x, id)
}

// checkRole locks and loads a role and runs check on it (nil: none).
func checkRole(ctx context.Context, x q, id int64, check func(account.Role) error) error {
	cur, err := lockRole(ctx, x, id)
	if err != nil || check == nil {
		return err
	}
	return check(cur)
}

// runRoleCheck runs check (nil: none) with the roles user userID holds
// (none when 0, unknown or deleted) and a role lookup. The user's row is
// locked first (a role given meanwhile needs a key-share lock on it) and
// each role looked up is locked (lockRole), so what check saw holds until
// commit.
func runRoleCheck(ctx context.Context, x q, userID int64, check account.RoleCheck) error {
	if check == nil {
		return nil
	}
	var held []account.Role
	if userID != 0 {
		if _, err := x.exec(ctx, `SELECT 1 FROM users WHERE id = ? AND deleted_at IS NULL FOR UPDATE`, userID); err != nil {
			return fmt.Errorf("lock user %d: %w", userID, err)
		}
		var err error
		held, err = loadRoles(ctx, x, `JOIN user_roles ur ON ur.role_id = r.id AND ur.user_id = ?
			JOIN users u ON u.id = ur.user_id AND u.deleted_at IS NULL`, userID)
		if err != nil {
			return fmt.Errorf("load roles of user %d: %w", userID, err)
		}
	}
	return check(held, func(id int64) (account.Role, error) { return lockRole(ctx, x, id) })
}

// DeleteRole implements ports.RoleStore.
func (s *RoleStore) DeleteRole(ctx context.Context, id int64, check func(account.Role) error, keep account.AdminRule) error {
	return s.db.accessTx(ctx, func(x q) error {
		return guardLastAdmin(ctx, x, keep, func() error {
			if err := checkRole(ctx, x, id, check); err != nil {
				return err
			}
			if _, err := x.exec(ctx, `DELETE FROM roles WHERE id = ?`, id); err != nil {
				return fmt.Errorf("delete role %d: %w", id, err)
			}
			return nil
		})
	})
}

// SetRolePermissions implements ports.RoleStore.
func (s *RoleStore) SetRolePermissions(ctx context.Context, id int64, fn func(account.Role) (account.PermissionSet, error)) (account.Role, error) {
	var r account.Role
	err := s.db.accessTx(ctx, func(x q) error {
		cur, err := lockRole(ctx, x, id)
		if err != nil {
			return err
		}
		ps, err := fn(cur)
		if err != nil {
			return err
		}
		if err := replaceRolePermissions(ctx, x, id, ps); err != nil {
			return fmt.Errorf("set permissions of role %d: %w", id, err)
		}
		r, err = loadRole(ctx, x, id)
		return err
	})
	return r, err
}

func userExists(ctx context.Context, x q, userID int64) error {
	return sqlrow.UserExists(ctx, x, userID)
}

// UserRoles implements ports.RoleStore.
func (s *RoleStore) UserRoles(ctx context.Context, userID int64) ([]account.Role, error) {
	var out []account.Role
	err := s.db.readTx(ctx, func(x q) error {
		if err := userExists(ctx, x, userID); err != nil {
			return err
		}
		var err error
		out, err = loadRoles(ctx, x, "JOIN user_roles ur ON ur.role_id = r.id AND ur.user_id = ?", userID)
		return err
	})
	return out, err
}

// AddUserRole implements ports.RoleStore.
func (s *RoleStore) AddUserRole(ctx context.Context, userID, roleID int64, check func(account.Role) error) error {
	return s.db.accessTx(ctx, func(x q) error {
		if err := checkRole(ctx, x, roleID, check); err != nil {
			return err
		}
		if err := userExists(ctx, x, userID); err != nil {
			return err
		}
		if _, err := x.exec(ctx, `INSERT INTO user_roles (user_id, role_id) VALUES (?, ?) ON CONFLICT DO NOTHING`, userID, roleID); err != nil {
			return fmt.Errorf("give user %d role %d: %w", userID, roleID, err)
		}
		return nil
	})
}

// RemoveUserRole implements ports.RoleStore.
func (s *RoleStore) RemoveUserRole(ctx context.Context, userID, roleID int64, check func(account.Role) error, keep account.AdminRule) error {
	return s.db.accessTx(ctx, func(x q) error {
		return guardLastAdmin(ctx, x, keep, func() error {
			if err := checkRole(ctx, x, roleID, check); err != nil {
				return err
			}
			if err := userExists(ctx, x, userID); err != nil {
				return err
			}
			if _, err := x.exec(ctx, `DELETE FROM user_roles WHERE user_id = ? AND role_id = ?`, userID, roleID); err != nil {
				return fmt.Errorf("take role %d from user %d: %w", roleID, userID, err)
			}
			return nil
		})
	})
}

// lockAdmins serialises the transactions that may remove a system
// administrator, across instances, until the transaction ends: counted
// before and after under READ COMMITTED, two of them could otherwise each
// remove one of the last two.
func lockAdmins(ctx context.Context, x q) error {
	if _, err := x.exec(ctx, `SELECT pg_advisory_xact_lock(?)`, lockLastAdmin); err != nil {
		return fmt.Errorf("lock the administrators: %w", err)
	}
	return nil
}

// countAdmins counts active, undeleted users holding a system-admin role.
func countAdmins(ctx context.Context, x q) (int, error) {
	var n int
	err := x.row(ctx, `SELECT count(DISTINCT u.id) FROM users u
		JOIN user_roles ur ON ur.user_id = u.id JOIN roles r ON r.id = ur.role_id
		WHERE r.is_system_admin AND u.deleted_at IS NULL AND u.active`).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("count administrators: %w", err)
	}
	return n, nil
}

// guardLastAdmin runs change with the administrators counted before and
// after it, under the advisory lock so they hold until commit, and lets
// keep (the use case's rule) decide.
func guardLastAdmin(ctx context.Context, x q, keep account.AdminRule, change func() error) error {
	if keep == nil {
		return change()
	}
	if err := lockAdmins(ctx, x); err != nil {
		return err
	}
	var c account.AdminCount
	var err error
	if c.Before, err = countAdmins(ctx, x); err != nil {
		return err
	}
	if err := change(); err != nil {
		return err
	}
	if c.After, err = countAdmins(ctx, x); err != nil {
		return err
	}
	return keep(c)
}
