package sqlite

import (
	"context"
	"errors"
	"testing"

	"counsel/adapters/sqlrow"
	"counsel/domain"
	"counsel/domain/account"

	"github.com/matryer/is"
)

// roleID returns the id of the role named name.
func roleID(t *testing.T, db *DB, name string) int64 {
	t.Helper()
	return scalar[int64](t, db, "SELECT id FROM roles WHERE name = ?", name)
}

func roleNames(rs []account.Role) []string {
	out := []string{}
	for _, r := range rs {
		out = append(out, r.Name)
	}
	return out
}

func TestRoleCRUD(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db, _ := bootstrapped(t)
	s := db.Stores().Roles

	t.Run("create", func(t *testing.T) {
		tests := []struct {
			name string
			in   account.RoleInput
			want account.Role
			code string
		}{
			{"plain", account.RoleInput{Name: "partner"}, account.Role{Name: "partner"}, ""},
			{"flags", account.RoleInput{Name: "Auditors", IsDefaultRole: true}, account.Role{Name: "Auditors", IsDefaultRole: true}, ""},
			{"name trimmed", account.RoleInput{Name: "  Clerks \t"}, account.Role{Name: "Clerks"}, ""},
			{"taken name", account.RoleInput{Name: "Staff"}, account.Role{}, domain.ECONFLICT},
			{"taken name in another case", account.RoleInput{Name: "STAFF"}, account.Role{}, domain.ECONFLICT},
			{"taken after trimming", account.RoleInput{Name: " Partner "}, account.Role{}, domain.ECONFLICT},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				is := is.New(t)
				r, err := s.CreateRole(ctx, tt.in)
				is.Equal(code(err), tt.code) // error code
				if tt.code != "" {
					var de *domain.Error
					is.True(errors.As(err, &de))
					is.Equal(de.Message, "a role with this name already exists") // says what clashed
					return
				}
				is.True(r.ID > 0) // id assigned
				tt.want.ID = r.ID
				is.Equal(r, tt.want) // returned as stored
				got, err := s.Role(ctx, r.ID)
				is.NoErr(err)    // read back
				is.Equal(got, r) // same
			})
		}
	})

	t.Run("list is ordered by name ignoring case", func(t *testing.T) {
		is := is.New(t)
		rs, err := s.Roles(ctx)
		is.NoErr(err) // list
		is.Equal(roleNames(rs), []string{"Administrator", "Auditors", "Clerks", "partner", "Staff"})
	})

	t.Run("update", func(t *testing.T) {
		partner := roleID(t, db, "partner")
		tests := []struct {
			name string
			id   int64
			in   account.RoleInput
			code string
		}{
			{"rename and flag", partner, account.RoleInput{Name: "Partner", IsSystemAdmin: true, IsDefaultRole: true}, ""},
			{"same name, other flags", partner, account.RoleInput{Name: "Partner"}, ""},
			{"taken name", partner, account.RoleInput{Name: "clerks"}, domain.ECONFLICT},
			{"unknown role", 99999, account.RoleInput{Name: "X"}, domain.ENOTFOUND},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				is := is.New(t)
				before, _ := s.Role(ctx, tt.id)
				r, err := s.UpdateRole(ctx, tt.id, setRole(tt.in), keepRole)
				is.Equal(code(err), tt.code) // error code
				after, _ := s.Role(ctx, tt.id)
				if tt.code != "" {
					is.Equal(after, before) // unchanged
					return
				}
				is.Equal(r, account.Role{ID: tt.id, Name: tt.in.Name, IsSystemAdmin: tt.in.IsSystemAdmin, IsDefaultRole: tt.in.IsDefaultRole, Permissions: before.Permissions}) // new values, permissions kept
				is.Equal(after, r)                                                                                                                                              // stored
			})
		}
	})

	t.Run("permissions", func(t *testing.T) {
		is := is.New(t)
		id := roleID(t, db, "Clerks")
		ps := account.NewPermissionSet(account.UsersView, account.ContractCreate, account.RolesView)
		r, err := s.SetRolePermissions(ctx, id, setPerms(ps))
		is.NoErr(err)               // set
		is.Equal(r.Permissions, ps) // returned
		r, err = s.SetRolePermissions(ctx, id, setPerms(account.NewPermissionSet(account.OfficesEdit)))
		is.NoErr(err)                                                          // replace
		is.Equal(r.Permissions, account.NewPermissionSet(account.OfficesEdit)) // replaced, not added
		got, _ := s.Role(ctx, id)
		is.Equal(got.Permissions, r.Permissions) // stored
		r, err = s.SetRolePermissions(ctx, id, setPerms(0))
		is.NoErr(err)                                                                                  // clear
		is.Equal(r.Permissions, account.PermissionSet(0))                                              // none
		is.Equal(scalar[int](t, db, "SELECT count(*) FROM role_permissions WHERE role_id = ?", id), 0) // no rows left
		_, err = s.SetRolePermissions(ctx, 99999, setPerms(ps))
		is.Equal(code(err), domain.ENOTFOUND) // unknown role
	})

	t.Run("get unknown", func(t *testing.T) {
		is := is.New(t)
		_, err := s.Role(ctx, 99999)
		is.Equal(code(err), domain.ENOTFOUND) // unknown role
	})

	t.Run("delete", func(t *testing.T) {
		is := is.New(t)
		as := db.Stores().Accounts
		id := roleID(t, db, "Auditors")
		if _, err := s.SetRolePermissions(ctx, id, setPerms(account.NewPermissionSet(account.UsersView))); err != nil {
			t.Fatal(err)
		}
		uid := addUser(t, as, "auditor@example.com", "Auditors", "Staff")
		is.NoErr(s.DeleteRole(ctx, id, nil, keepRole)) // delete
		_, err := s.Role(ctx, id)
		is.Equal(code(err), domain.ENOTFOUND) // gone
		ur, err := s.UserRoles(ctx, uid)
		is.NoErr(err)                                                                                  // holder's roles
		is.Equal(roleNames(ur), []string{"Staff"})                                                     // the deleted role is no longer held
		is.Equal(scalar[int](t, db, "SELECT count(*) FROM role_permissions WHERE role_id = ?", id), 0) // its permissions are gone
		is.Equal(code(s.DeleteRole(ctx, id, nil, keepRole)), domain.ENOTFOUND)                         // twice
	})
}

func TestLastAdminGuard(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	notAdmin := account.RoleInput{Name: account.AdministratorRole}
	tests := []struct {
		name   string
		setup  func(t *testing.T, db *DB, s sqlrow.RoleStore, as *AccountStore)
		change func(db *DB, s sqlrow.RoleStore) error
		code   string
	}{
		{"turning off isSystemAdmin of the only admin role", nil,
			func(db *DB, s sqlrow.RoleStore) error {
				_, err := s.UpdateRole(ctx, roleID(t, db, "Administrator"), setRole(notAdmin), keepRole)
				return err
			}, domain.ECONFLICT},
		{"renaming the only admin role is fine", nil,
			func(db *DB, s sqlrow.RoleStore) error {
				_, err := s.UpdateRole(ctx, roleID(t, db, "Administrator"), setRole(account.RoleInput{Name: "Owners", IsSystemAdmin: true}), keepRole)
				return err
			}, ""},
		{"turning it off when another admin role is held", func(t *testing.T, db *DB, s sqlrow.RoleStore, as *AccountStore) {
			if _, err := s.CreateRole(ctx, account.RoleInput{Name: "Root", IsSystemAdmin: true}); err != nil {
				t.Fatal(err)
			}
			addUser(t, as, "root@example.com", "Root")
		}, func(db *DB, s sqlrow.RoleStore) error {
			_, err := s.UpdateRole(ctx, roleID(t, db, "Administrator"), setRole(notAdmin), keepRole)
			return err
		}, ""},
		{"another admin role held by nobody does not count", func(t *testing.T, db *DB, s sqlrow.RoleStore, as *AccountStore) {
			if _, err := s.CreateRole(ctx, account.RoleInput{Name: "Root", IsSystemAdmin: true}); err != nil {
				t.Fatal(err)
			}
		}, func(db *DB, s sqlrow.RoleStore) error {
			_, err := s.UpdateRole(ctx, roleID(t, db, "Administrator"), setRole(notAdmin), keepRole)
			return err
		}, domain.ECONFLICT},
		{"another admin who is inactive does not count", func(t *testing.T, db *DB, s sqlrow.RoleStore, as *AccountStore) {
			id := addUser(t, as, "off@example.com", "Administrator")
			exec(t, db, "UPDATE users SET active = 0 WHERE id = ?", id)
			if _, err := s.CreateRole(ctx, account.RoleInput{Name: "Root", IsSystemAdmin: true}); err != nil {
				t.Fatal(err)
			}
			id = addUser(t, as, "gone@example.com", "Root")
			exec(t, db, "UPDATE users SET deleted_at = 1 WHERE id = ?", id)
		}, func(db *DB, s sqlrow.RoleStore) error {
			_, err := s.UpdateRole(ctx, roleID(t, db, "Administrator"), setRole(notAdmin), keepRole)
			return err
		}, domain.ECONFLICT},
		{"deleting the only admin role", nil,
			func(db *DB, s sqlrow.RoleStore) error {
				return s.DeleteRole(ctx, roleID(t, db, "Administrator"), nil, keepRole)
			}, domain.ECONFLICT},
		{"deleting it when a second admin holds another admin role", func(t *testing.T, db *DB, s sqlrow.RoleStore, as *AccountStore) {
			if _, err := s.CreateRole(ctx, account.RoleInput{Name: "Root", IsSystemAdmin: true}); err != nil {
				t.Fatal(err)
			}
			addUser(t, as, "root@example.com", "Root")
		}, func(db *DB, s sqlrow.RoleStore) error {
			return s.DeleteRole(ctx, roleID(t, db, "Administrator"), nil, keepRole)
		}, ""},
		{"removing the role from the only admin", nil,
			func(db *DB, s sqlrow.RoleStore) error {
				return s.RemoveUserRole(ctx, scalar[int64](t, db, "SELECT id FROM users WHERE email = 'admin@example.com'"), roleID(t, db, "Administrator"), nil, keepRole)
			}, domain.ECONFLICT},
		{"removing it from one of two admins", func(t *testing.T, db *DB, s sqlrow.RoleStore, as *AccountStore) {
			addUser(t, as, "second@example.com", "Administrator")
		}, func(db *DB, s sqlrow.RoleStore) error {
			return s.RemoveUserRole(ctx, scalar[int64](t, db, "SELECT id FROM users WHERE email = 'admin@example.com'"), roleID(t, db, "Administrator"), nil, keepRole)
		}, ""},
		{"removing a non-admin role from the only admin", nil,
			func(db *DB, s sqlrow.RoleStore) error {
				uid := scalar[int64](t, db, "SELECT id FROM users WHERE email = 'admin@example.com'")
				if err := s.AddUserRole(ctx, uid, roleID(t, db, "Staff"), nil); err != nil {
					return err
				}
				return s.RemoveUserRole(ctx, uid, roleID(t, db, "Staff"), nil, keepRole)
			}, ""},
		{"an admin role made ordinary while no admin is active", func(t *testing.T, db *DB, s sqlrow.RoleStore, as *AccountStore) {
			exec(t, db, "UPDATE users SET active = 0")
		}, func(db *DB, s sqlrow.RoleStore) error {
			_, err := s.UpdateRole(ctx, roleID(t, db, "Administrator"), setRole(notAdmin), keepRole)
			return err
		}, ""},
		{"making an ordinary role an admin role", nil,
			func(db *DB, s sqlrow.RoleStore) error {
				_, err := s.UpdateRole(ctx, roleID(t, db, "Staff"), setRole(account.RoleInput{Name: "Staff", IsSystemAdmin: true}), keepRole)
				return err
			}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			db, as := bootstrapped(t)
			s := db.Stores().Roles
			if tt.setup != nil {
				tt.setup(t, db, s, as)
			}
			before, _ := s.Roles(ctx)
			holders := scalar[int](t, db, "SELECT count(*) FROM user_roles")
			err := tt.change(db, s)
			is.Equal(code(err), tt.code) // error code
			if tt.code != "" {
				after, _ := s.Roles(ctx)
				is.Equal(after, before)                                                  // roles unchanged
				is.Equal(scalar[int](t, db, "SELECT count(*) FROM user_roles"), holders) // holders unchanged
			}
		})
	}
}

func TestUserRoles(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db, as := bootstrapped(t)
	s := db.Stores().Roles
	partner, err := s.CreateRole(ctx, account.RoleInput{Name: "Partner"})
	if err != nil {
		t.Fatal(err)
	}
	staff := roleID(t, db, "Staff")
	uid := addUser(t, as, "user@example.com")
	gone := addUser(t, as, "gone@example.com")
	exec(t, db, "UPDATE users SET deleted_at = 1 WHERE id = ?", gone)

	is := is.New(t)
	rs, err := s.UserRoles(ctx, uid)
	is.NoErr(err)                              // roles
	is.Equal(roleNames(rs), []string{"Staff"}) // the default role

	is.NoErr(s.AddUserRole(ctx, uid, partner.ID, nil)) // add
	is.NoErr(s.AddUserRole(ctx, uid, partner.ID, nil)) // add again: no error
	rs, _ = s.UserRoles(ctx, uid)
	is.Equal(roleNames(rs), []string{"Partner", "Staff"}) // ordered by name, no duplicate

	tests := []struct {
		name string
		fn   func() error
		code string
	}{
		{"add: unknown user", func() error { return s.AddUserRole(ctx, 99999, staff, nil) }, domain.ENOTFOUND},
		{"add: deleted user", func() error { return s.AddUserRole(ctx, gone, staff, nil) }, domain.ENOTFOUND},
		{"add: unknown role", func() error { return s.AddUserRole(ctx, uid, 99999, nil) }, domain.ENOTFOUND},
		{"remove: unknown user", func() error { return s.RemoveUserRole(ctx, 99999, staff, nil, keepRole) }, domain.ENOTFOUND},
		{"remove: deleted user", func() error { return s.RemoveUserRole(ctx, gone, staff, nil, keepRole) }, domain.ENOTFOUND},
		{"remove: unknown role", func() error { return s.RemoveUserRole(ctx, uid, 99999, nil, keepRole) }, domain.ENOTFOUND},
		{"list: unknown user", func() error { _, err := s.UserRoles(ctx, 99999); return err }, domain.ENOTFOUND},
		{"list: deleted user", func() error { _, err := s.UserRoles(ctx, gone); return err }, domain.ENOTFOUND},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			is.Equal(code(tt.fn()), tt.code) // error code
		})
	}

	is.NoErr(s.RemoveUserRole(ctx, uid, staff, nil, keepRole)) // remove
	rs, _ = s.UserRoles(ctx, uid)
	is.Equal(roleNames(rs), []string{"Partner"})               // removed
	is.NoErr(s.RemoveUserRole(ctx, uid, staff, nil, keepRole)) // a role not held: no error
	is.NoErr(s.RemoveUserRole(ctx, uid, partner.ID, nil, keepRole))
	rs, err = s.UserRoles(ctx, uid)
	is.NoErr(err)                       // a user without roles
	is.Equal(roleNames(rs), []string{}) // an empty list, not an error
	is.True(rs != nil)                  // encodes as [] rather than null
}
