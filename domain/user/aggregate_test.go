package user

import (
	"errors"
	"testing"

	"github.com/matryer/is"

	"counsel/domain"
	"counsel/domain/account"
)

// roleTable is a RoleLookup over fixed roles.
type roleTable []account.Role

func (t roleTable) Role(id int64) (account.Role, error) {
	for _, r := range t {
		if r.ID == id {
			return r, nil
		}
	}
	return account.Role{}, domain.Errorf(domain.ENOTFOUND, "role not found")
}

func (t roleTable) RoleNamed(name string) (account.Role, error) {
	for _, r := range t {
		if r.Name == name {
			return r, nil
		}
	}
	return account.Role{}, domain.Errorf(domain.ENOTFOUND, "role not found")
}

func TestAggregateRules(t *testing.T) {
	t.Parallel()
	admin := account.Role{ID: 1, Name: "Administrator", IsSystemAdmin: true, Permissions: account.AllPermissionSet}
	staff := account.Role{ID: 2, Name: "Staff", IsDefaultRole: true, Permissions: account.NewPermissionSet(account.ContractView)}
	clerk := account.Role{ID: 3, Name: "Clerk", Permissions: account.NewPermissionSet(account.UsersView)}
	boss := account.Role{ID: 4, Name: "Boss", Permissions: account.NewPermissionSet(account.UsersView, account.UsersDelete)}
	table := roleTable{admin, staff, clerk, boss}
	sysadmin := account.Principal{UserID: 9, Permissions: account.AllPermissionSet, SystemAdmin: true}
	editor := account.Principal{UserID: 9, Permissions: account.NewPermissionSet(account.UsersView, account.UsersEdit, account.UsersCreate)}
	agg := func(id int64, active bool, others int, held ...account.Role) *Aggregate {
		u := New()
		u.ID, u.Active = id, active
		return NewAggregate(u, held, others, table)
	}

	t.Run("GiveRoles", func(t *testing.T) {
		tests := []struct {
			name string
			p    account.Principal
			a    *Aggregate
			ids  []int64
			code string
		}{
			{"a system administrator gives any role", sysadmin, agg(5, true, 1, clerk), []int64{1, 4}, ""},
			{"a role the caller's permissions cover", editor, agg(5, true, 1), []int64{3}, ""},
			{"a system-admin role only by a system administrator", editor, agg(5, true, 1), []int64{1}, domain.EFORBIDDEN},
			{"the default role is guarded too", editor, agg(5, true, 1), []int64{2}, domain.EFORBIDDEN},
			{"a role granting what the caller lacks", editor, agg(5, true, 1), []int64{4}, domain.EFORBIDDEN},
			{"a role held already passes", editor, agg(5, true, 1, boss), []int64{4}, ""},
			{"an unknown role", sysadmin, agg(5, true, 1), []int64{99}, domain.ENOTFOUND},
			{"a malformed id", sysadmin, agg(5, true, 1), []int64{0}, domain.EINVALID},
			{"a new user", editor, agg(0, true, 1), []int64{3}, ""},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				is := is.New(t)
				err := tt.a.GiveRoles(tt.p, tt.ids)
				is.Equal(domain.ErrorCode(err), tt.code)
				if tt.code == "" {
					is.Equal(*tt.a.NewRoleIDs(), tt.ids)
					is.Equal(len(tt.a.Roles()), len(tt.ids))
				} else {
					is.True(tt.a.NewRoleIDs() == nil) // roles unchanged
				}
			})
		}
	})

	t.Run("CheckTakeover", func(t *testing.T) {
		is := is.New(t)
		is.Equal(domain.ErrorCode(agg(5, true, 1, admin).CheckTakeover(editor)), domain.EFORBIDDEN) // an administrator
		is.Equal(domain.ErrorCode(agg(5, true, 1, boss).CheckTakeover(editor)), domain.EFORBIDDEN)  // stronger
		is.NoErr(agg(5, true, 1, clerk, staff).CheckTakeover(editor))                               // weaker
		is.NoErr(agg(9, true, 1, admin).CheckTakeover(editor))                                      // oneself
		is.NoErr(agg(0, true, 1).CheckTakeover(editor))                                             // a new user
	})

	t.Run("KeepAnAdmin", func(t *testing.T) {
		tests := []struct {
			name   string
			a      *Aggregate
			change func(*Aggregate)
			count  account.AdminCount
			code   string
		}{
			{"the last one deactivated", agg(5, true, 0, admin), func(a *Aggregate) { a.User.Active = false }, account.AdminCount{Before: 1, After: 0}, domain.ECONFLICT},
			{"the last one loses the role", agg(5, true, 0, admin), func(a *Aggregate) { a.SetRoles([]account.Role{clerk}) }, account.AdminCount{Before: 1, After: 0}, domain.ECONFLICT},
			{"the last one deleted", agg(5, true, 0, admin), (*Aggregate).Delete, account.AdminCount{Before: 1, After: 0}, domain.ECONFLICT},
			{"another remains", agg(5, true, 1, admin), func(a *Aggregate) { a.User.Active = false }, account.AdminCount{Before: 2, After: 1}, ""},
			{"an inactive administrator did not count", agg(5, false, 0, admin), (*Aggregate).Delete, account.AdminCount{Before: 0, After: 0}, ""},
			{"no administrator at all is not refused", agg(5, true, 0, clerk), func(a *Aggregate) { a.SetRoles(nil) }, account.AdminCount{}, ""},
			{"made one", agg(5, true, 0, clerk), func(a *Aggregate) { a.SetRoles([]account.Role{admin}) }, account.AdminCount{Before: 0, After: 1}, ""},
			{"unchanged", agg(5, true, 0, admin), func(*Aggregate) {}, account.AdminCount{Before: 1, After: 1}, ""},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				is := is.New(t)
				tt.change(tt.a)
				is.Equal(tt.a.Admins(), tt.count)
				err := tt.a.KeepAnAdmin(account.LastAdminChange)
				is.Equal(domain.ErrorCode(err), tt.code)
				if err != nil {
					is.Equal(domain.ErrorMessage(err), account.LastAdminChange)
				}
			})
		}
	})

	t.Run("LookupRoleNames", func(t *testing.T) {
		is := is.New(t)
		rs, err := agg(0, true, 0).LookupRoleNames([]string{"Clerk", "Boss"})
		is.NoErr(err)
		is.Equal(rs, []account.Role{clerk, boss})
		_, err = agg(0, true, 0).LookupRoleNames([]string{"Clerk", "Ghost"})
		is.Equal(domain.ErrorCode(err), domain.EINVALID)
		var de *domain.Error
		is.True(errors.As(err, &de))
		is.Equal(de.Fields["roles"], []string{`unknown role "Ghost"`})
	})
}
