package sqlite

import (
	"context"
	"database/sql"
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
const roleOrder = `r.name COLLATE NOCASE, r.id`

// loadRoles reads the roles join and where select, by name.
func loadRoles(ctx context.Context, q queryer, where string, args ...any) ([]account.Role, error) {
	return sqlrow.Roles(ctx, sq{q}, where, roleOrder, args...)
}

func loadRole(ctx context.Context, q queryer, id int64) (account.Role, error) {
	return sqlrow.Role(ctx, sq{q}, roleOrder, id)
}

// Roles implements ports.RoleStore.
func (s *RoleStore) Roles(ctx context.Context) ([]account.Role, error) {
	return loadRoles(ctx, reader{s.db}, "")
}

// Role implements ports.RoleStore.
func (s *RoleStore) Role(ctx context.Context, id int64) (account.Role, error) {
	return loadRole(ctx, reader{s.db}, id)
}

// CreateRole implements ports.RoleStore.
func (s *RoleStore) CreateRole(ctx context.Context, in account.RoleInput) (account.Role, error) {
	var r account.Role
	err := s.db.writeTx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `INSERT INTO roles (name, is_system_admin, is_default_role) VALUES (?, ?, ?)`,
			strings.TrimSpace(in.Name), in.IsSystemAdmin, in.IsDefaultRole)
		if err != nil {
			return fmt.Errorf("create role: %w", sqlrow.RoleNameTaken(formatError(err)))
		}
		id, _ := res.LastInsertId()
		ports.Created(ctx, id)
		r, err = loadRole(ctx, tx, id)
		return err
	})
	return r, err
}

// UpdateRole implements ports.RoleStore.
func (s *RoleStore) UpdateRole(ctx context.Context, id int64, fn func(account.Role) (account.RoleInput, error), keep account.AdminRule) (account.Role, error) {
	var r account.Role
	err := s.db.writeTx(ctx, func(tx *sql.Tx) error {
		cur, err := loadRole(ctx, tx, id)
		if err != nil {
			return err
		}
		in, err := fn(cur)
		if err != nil {
			return err
		}
		return guardLastAdmin(ctx, tx, keep, func() error {
			if _, err := tx.ExecContext(ctx, `UPDATE roles SET name = ?, is_system_admin = ?, is_default_role = ? WHERE id = ?`,
				strings.TrimSpace(in.Name), in.IsSystemAdmin, in.IsDefaultRole, id); err != nil {
				return fmt.Errorf("update role %d: %w", id, sqlrow.RoleNameTaken(formatError(err)))
			}
			r, err = loadRole(ctx, tx, id)
			return err
		})
	})
	return r, err
}

// DeleteRole implements ports.RoleStore.
func (s *RoleStore) DeleteRole(ctx context.Context, id int64, check func(account.Role) error, keep account.AdminRule) error {
	return s.db.writeTx(ctx, func(tx *sql.Tx) error {
		if err := checkRole(ctx, tx, id, check); err != nil {
			return err
		}
		return guardLastAdmin(ctx, tx, keep, func() error {
			if _, err := tx.ExecContext(ctx, `DELETE FROM roles WHERE id = ?`, id); err != nil {
				return fmt.Errorf("delete role %d: %w", id, err)
			}
			return nil
		})
	})
}

// checkRole loads a role and runs check on it (nil: none).
func checkRole(ctx context.Context, q queryer, id int64, check func(account.Role) error) error {
	cur, err := loadRole(ctx, q, id)
	if err != nil || check == nil {
		return err
	}
	return check(cur)
}

// runRoleCheck runs check (nil: none) with the roles user userID holds
// (none when 0, unknown or deleted) and a role lookup, all read in tx.
func runRoleCheck(ctx context.Context, tx *sql.Tx, userID int64, check account.RoleCheck) error {
	if check == nil {
		return nil
	}
	var held []account.Role
	if userID != 0 {
		var err error
		held, err = loadRoles(ctx, tx, `JOIN user_roles ur ON ur.role_id = r.id AND ur.user_id = ?
			JOIN users u ON u.id = ur.user_id AND u.deleted_at IS NULL`, userID)
		if err != nil {
			return fmt.Errorf("load roles of user %d: %w", userID, err)
		}
	}
	return check(held, func(id int64) (account.Role, error) { return loadRole(ctx, tx, id) })
}

// SetRolePermissions implements ports.RoleStore.
func (s *RoleStore) SetRolePermissions(ctx context.Context, id int64, fn func(account.Role) (account.PermissionSet, error)) (account.Role, error) {
	var r account.Role
	err := s.db.writeTx(ctx, func(tx *sql.Tx) error {
		cur, err := loadRole(ctx, tx, id)
		if err != nil {
			return err
		}
		ps, err := fn(cur)
		if err != nil {
			return err
		}
		if err := replaceRolePermissions(ctx, tx, id, ps); err != nil {
			return fmt.Errorf("set permissions of role %d: %w", id, err)
		}
		r, err = loadRole(ctx, tx, id)
		return err
	})
	return r, err
}

func userExists(ctx context.Context, q queryer, userID int64) error {
	return sqlrow.UserExists(ctx, sq{q}, userID)
}

// UserRoles implements ports.RoleStore.
func (s *RoleStore) UserRoles(ctx context.Context, userID int64) ([]account.Role, error) {
	if err := userExists(ctx, reader{s.db}, userID); err != nil {
		return nil, err
	}
	return loadRoles(ctx, reader{s.db}, "JOIN user_roles ur ON ur.role_id = r.id AND ur.user_id = ?", userID)
}

// AddUserRole implements ports.RoleStore.
func (s *RoleStore) AddUserRole(ctx context.Context, userID, roleID int64, check func(account.Role) error) error {
	return s.db.writeTx(ctx, func(tx *sql.Tx) error {
		if err := checkRole(ctx, tx, roleID, check); err != nil {
			return err
		}
		if err := userExists(ctx, tx, userID); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `INSERT OR IGNORE INTO user_roles (user_id, role_id) VALUES (?, ?)`, userID, roleID); err != nil {
			return fmt.Errorf("give user %d role %d: %w", userID, roleID, err)
		}
		return nil
	})
}

// RemoveUserRole implements ports.RoleStore.
func (s *RoleStore) RemoveUserRole(ctx context.Context, userID, roleID int64, check func(account.Role) error, keep account.AdminRule) error {
	return s.db.writeTx(ctx, func(tx *sql.Tx) error {
		if err := checkRole(ctx, tx, roleID, check); err != nil {
			return err
		}
		if err := userExists(ctx, tx, userID); err != nil {
			return err
		}
		return guardLastAdmin(ctx, tx, keep, func() error {
			if _, err := tx.ExecContext(ctx, `DELETE FROM user_roles WHERE user_id = ? AND role_id = ?`, userID, roleID); err != nil {
				return fmt.Errorf("take role %d from user %d: %w", roleID, userID, err)
			}
			return nil
		})
	})
}

// countAdmins counts active, undeleted users holding a system-admin role.
func countAdmins(ctx context.Context, q queryer) (int, error) {
	var n int
	err := q.QueryRowContext(ctx, `SELECT count(DISTINCT u.id) FROM users u
		JOIN user_roles ur ON ur.user_id = u.id JOIN roles r ON r.id = ur.role_id
		WHERE r.is_system_admin = 1 AND u.deleted_at IS NULL AND u.active = 1`).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("count administrators: %w", err)
	}
	return n, nil
}

// guardLastAdmin runs change inside tx with the administrators counted
// before and after it, and lets keep (the use case's rule) decide; a
// write transaction on SQLite is the only writer, so the counts hold
// until commit.
func guardLastAdmin(ctx context.Context, tx *sql.Tx, keep account.AdminRule, change func() error) error {
	if keep == nil {
		return change()
	}
	var c account.AdminCount
	var err error
	if c.Before, err = countAdmins(ctx, tx); err != nil {
		return err
	}
	if err := change(); err != nil {
		return err
	}
	if c.After, err = countAdmins(ctx, tx); err != nil {
		return err
	}
	return keep(c)
}
