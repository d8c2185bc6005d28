package app_test

import (
	"fmt"
	"testing"

	"counsel/app/apptest"
	"counsel/domain/account"

	"github.com/matryer/is"
)

func TestRolesAndPermissions(t *testing.T) {
	t.Parallel()
	s := apptest.New(t)
	admin := s.Admin(t)
	uid, plain := s.User(t)
	_, viewer := s.User(t, account.RolesView, account.PermissionsView)

	t.Run("my permissions", func(t *testing.T) {
		is := is.New(t)
		var ps []string
		s.Do(t, "GET", "/api/permissions/me", viewer, nil).JSON(t, &ps)
		is.Equal(ps, []string{"RolesView", "PermissionsView"}) // union of the caller's roles
		s.Do(t, "GET", "/api/permissions/me", plain, nil).JSON(t, &ps)
		is.Equal(ps, []string{}) // a user without roles has none
	})

	t.Run("bootstrap roles", func(t *testing.T) {
		is := is.New(t)
		var roles []struct {
			ID                           int64
			Name                         string
			IsSystemAdmin, IsDefaultRole bool
		}
		r := s.Do(t, "GET", "/api/roles", admin, nil)
		is.Equal(r.Status, 200)
		r.JSON(t, &roles)
		byName := map[string]bool{}
		for _, ro := range roles {
			byName[ro.Name] = true
			if ro.Name == "Administrator" {
				is.True(ro.IsSystemAdmin) // Administrator is the system-admin role
			}
			if ro.Name == "Staff" {
				is.True(ro.IsDefaultRole) // Staff is the default role
				var ps []string
				s.Do(t, "GET", fmt.Sprintf("/api/roles/%d/permissions", ro.ID), admin, nil).JSON(t, &ps)
				is.Equal(ps, []string{"ContractView"}) // Staff can view contracts
			}
		}
		is.True(byName["Administrator"] && byName["Staff"]) // both bootstrap roles exist
	})

	t.Run("create, rename, set permissions, delete", func(t *testing.T) {
		is := is.New(t)
		r := s.Do(t, "POST", "/api/roles", admin, map[string]any{"name": "Partner"})
		is.Equal(r.Status, 201)
		var role struct{ ID int64 }
		r.JSON(t, &role)
		is.Equal(r.Header.Get("Location"), fmt.Sprintf("/api/roles/%d", role.ID))
		is.Equal(s.Do(t, "POST", "/api/roles", admin, map[string]any{"name": "partner"}).Status, 409) // names are unique, ignoring case
		is.Equal(s.Do(t, "POST", "/api/roles", admin, map[string]any{"name": " "}).Status, 400)       // a name is required
		r = s.Do(t, "POST", fmt.Sprintf("/api/roles/%d/permissions", role.ID), admin, []string{"ContractView", "contractedit"})
		is.Equal(r.Status, 200)
		var ps []string
		r.JSON(t, &ps)
		is.Equal(ps, []string{"ContractView", "ContractEdit"})
		r = s.Do(t, "POST", fmt.Sprintf("/api/roles/%d/permissions", role.ID), admin, []string{"Nope"})
		is.Equal(r.Status, 400) // unknown permission
		is.Equal(s.Do(t, "PUT", fmt.Sprintf("/api/roles/%d", role.ID), admin, map[string]any{"name": "Senior Partner"}).Status, 200)
		is.Equal(s.Do(t, "POST", fmt.Sprintf("/api/users/%d/roles/%d", uid, role.ID), admin, nil).Status, 200)
		var mine []string
		s.Do(t, "GET", "/api/permissions/me", plain, nil).JSON(t, &mine)
		is.Equal(mine, []string{"ContractView", "ContractEdit"}) // a role change applies to the next request
		is.Equal(s.Do(t, "DELETE", fmt.Sprintf("/api/roles/%d", role.ID), admin, nil).Status, 204)
		is.Equal(s.Do(t, "GET", fmt.Sprintf("/api/roles/%d", role.ID), admin, nil).Status, 404)
		is.Equal(s.Do(t, "DELETE", "/api/roles/99999", admin, nil).Status, 404)
	})

	t.Run("last system administrator", func(t *testing.T) {
		is := is.New(t)
		var roles []struct {
			ID   int64
			Name string
		}
		s.Do(t, "GET", "/api/users/1/roles", admin, nil).JSON(t, &roles)
		is.Equal(len(roles), 1)
		r := s.Do(t, "DELETE", fmt.Sprintf("/api/users/1/roles/%d", roles[0].ID), admin, nil)
		is.Equal(r.Status, 409) // the last system administrator keeps the role
		is.Equal(s.Do(t, "DELETE", fmt.Sprintf("/api/roles/%d", roles[0].ID), admin, nil).Status, 409)
		is.Equal(s.Do(t, "GET", "/api/users/424242/roles", admin, nil).Status, 404)
	})
}

func TestRoleChangesNeedASystemAdministrator(t *testing.T) {
	t.Parallel()
	s := apptest.New(t)
	admin := s.Admin(t)
	_, editor := s.User(t, account.RolesCreate, account.RolesEdit, account.RolesView)
	var para struct{ ID int64 }
	s.Do(t, "POST", "/api/roles", admin, map[string]any{"name": "Paralegal"}).JSON(t, &para)
	path := fmt.Sprintf("/api/roles/%d", para.ID)
	tests := []struct {
		name, method, path, token string
		body                      any
		status                    int
	}{
		{"create a system-admin role", "POST", "/api/roles", editor, map[string]any{"name": "Root", "isSystemAdmin": true}, 403},
		{"make a role system admin", "PUT", path, editor, map[string]any{"isSystemAdmin": true}, 403},
		{"rename keeps the other fields", "PUT", path, editor, map[string]any{"name": "Paralegals"}, 200},
		{"an administrator may", "PUT", path, admin, map[string]any{"isSystemAdmin": true}, 200},
		{"and undo it", "PUT", path, admin, map[string]any{"isSystemAdmin": false}, 200},
		{"wrong type", "PUT", path, admin, map[string]any{"isDefaultRole": "yes"}, 400},
		{"blank name", "PUT", path, admin, map[string]any{"name": ""}, 400},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			r := s.Do(t, tt.method, tt.path, tt.token, tt.body)
			is.Equal(r.Status, tt.status)
		})
	}
	is := is.New(t)
	var got struct {
		Name          string
		IsDefaultRole bool
		IsSystemAdmin bool
	}
	s.Do(t, "GET", path, admin, nil).JSON(t, &got)
	is.Equal(got.Name, "Paralegals")
	is.True(!got.IsDefaultRole) // absent from the renaming body: unchanged
	is.True(!got.IsSystemAdmin) // undone
}
