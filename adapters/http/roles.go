package http

import (
	"net/http"

	"counsel/domain/account"
)

// The API reference entries of the role routes (routes.go).
var (
	opPermissions        = op{summary: "Every permission name", tag: "roles", resp: ref("Permissions")}
	opMyPermissions      = op{summary: "The caller's permissions (union over their roles)", tag: "roles", resp: ref("Permissions")}
	opRoles              = op{summary: "Every role", tag: "roles", resp: arrayOf(ref("RoleDto"))}
	opCreateRole         = op{summary: "Create a role", tag: "roles", body: ref("RoleInput"), ok: 201, resp: ref("RoleDto"), errs: []int{400, 409}}
	opRole               = op{summary: "One role", tag: "roles", resp: ref("RoleDto"), errs: []int{404}}
	opUpdateRole         = op{summary: "Change a role (absent fields keep their value)", tag: "roles", body: ref("RoleInput"), resp: ref("RoleDto"), errs: []int{400, 404, 409}}
	opDeleteRole         = op{summary: "Delete a role (409 if it would leave no system administrator)", tag: "roles", ok: 204, errs: []int{404, 409}}
	opRolePermissions    = op{summary: "A role's permissions", tag: "roles", resp: ref("Permissions"), errs: []int{404}}
	opSetRolePermissions = op{summary: "Replace a role's permissions", tag: "roles", body: ref("PermissionsInput"), resp: ref("Permissions"), errs: []int{400, 404}}
	opUserRoles          = op{summary: "A user's roles", tag: "roles", resp: arrayOf(ref("RoleDto")), errs: []int{404}}
	opAddUserRole        = op{summary: "Give a user a role", tag: "roles", resp: arrayOf(ref("RoleDto")), errs: []int{404}}
	opRemoveUserRole     = op{summary: "Take a role from a user (409 for the last system administrator)", tag: "roles", resp: arrayOf(ref("RoleDto")), errs: []int{404, 409}}
)

type roleDTO struct {
	ID            int64  `json:"id"`
	Name          string `json:"name"`
	IsSystemAdmin bool   `json:"isSystemAdmin"`
	IsDefaultRole bool   `json:"isDefaultRole"`
}

func toRole(r account.Role) roleDTO {
	return roleDTO{ID: r.ID, Name: r.Name, IsSystemAdmin: r.IsSystemAdmin, IsDefaultRole: r.IsDefaultRole}
}

func toRoles(rs []account.Role) []roleDTO {
	out := make([]roleDTO, len(rs))
	for i, r := range rs {
		out[i] = toRole(r)
	}
	return out
}

type roleIn struct {
	Name          string `json:"name"`
	IsSystemAdmin bool   `json:"isSystemAdmin"`
	IsDefaultRole bool   `json:"isDefaultRole"`
}

func (s *server) handlePermissions() http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		ps, err := s.svc.Roles.Permissions(r.Context())
		s.reply(w, r, http.StatusOK, ps, err)
	}
}

func (s *server) handleMyPermissions() http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		ps, err := s.svc.Roles.MyPermissions(r.Context())
		s.reply(w, r, http.StatusOK, ps, err)
	}
}

func (s *server) handleRoles() http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		rs, err := s.svc.Roles.Roles(r.Context())
		s.reply(w, r, http.StatusOK, toRoles(rs), err)
	}
}

func (s *server) handleRole() http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		id, err := pathID(r, "id")
		if err != nil {
			s.fail(w, r, err)
			return
		}
		role, err := s.svc.Roles.Role(r.Context(), id)
		s.reply(w, r, http.StatusOK, toRole(role), err)
	}
}

func (s *server) handleCreateRole() http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		var in roleIn
		if err := decode(r, &in); err != nil {
			s.fail(w, r, err)
			return
		}
		role, err := s.svc.Roles.CreateRole(r.Context(), account.RoleInput(in))
		if err == nil {
			w.Header().Set("Location", "/api/roles/"+itoa(role.ID))
		}
		s.reply(w, r, http.StatusCreated, toRole(role), err)
	}
}

func (s *server) handleUpdateRole() http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		id, err := pathID(r, "id")
		if err != nil {
			s.fail(w, r, err)
			return
		}
		var in struct {
			Name          Opt[string] `json:"name"`
			IsSystemAdmin Opt[bool]   `json:"isSystemAdmin"`
			IsDefaultRole Opt[bool]   `json:"isDefaultRole"`
		}
		if err := decode(r, &in); err != nil {
			s.fail(w, r, err)
			return
		}
		var p account.RolePatch
		if in.Name.Set {
			p.Name = &in.Name.V
		}
		if in.IsSystemAdmin.Set {
			p.IsSystemAdmin = &in.IsSystemAdmin.V
		}
		if in.IsDefaultRole.Set {
			p.IsDefaultRole = &in.IsDefaultRole.V
		}
		role, err := s.svc.Roles.UpdateRole(r.Context(), id, p)
		s.reply(w, r, http.StatusOK, toRole(role), err)
	}
}

func (s *server) handleDeleteRole() http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		id, err := pathID(r, "id")
		if err == nil {
			err = s.svc.Roles.DeleteRole(r.Context(), id)
		}
		s.reply(w, r, http.StatusNoContent, nil, err)
	}
}

func (s *server) handleRolePermissions() http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		id, err := pathID(r, "id")
		if err != nil {
			s.fail(w, r, err)
			return
		}
		ps, err := s.svc.Roles.RolePermissions(r.Context(), id)
		s.reply(w, r, http.StatusOK, ps, err)
	}
}

func (s *server) handleSetRolePermissions() http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		id, err := pathID(r, "id")
		if err != nil {
			s.fail(w, r, err)
			return
		}
		names, err := decodePermissionNames(r)
		if err != nil {
			s.fail(w, r, err)
			return
		}
		ps, err := s.svc.Roles.SetRolePermissions(r.Context(), id, names)
		s.reply(w, r, http.StatusOK, ps, err)
	}
}

func (s *server) handleUserRoles() http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		id, err := pathID(r, "id")
		if err != nil {
			s.fail(w, r, err)
			return
		}
		rs, err := s.svc.Roles.UserRoles(r.Context(), id)
		s.reply(w, r, http.StatusOK, toRoles(rs), err)
	}
}

// userRoleChange handles adding and removing a user's role; both answer
// the user's roles afterwards.
func (s *server) userRoleChange(add bool) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		uid, rid, err := pathIDs(r, "id", "roleId")
		if err != nil {
			s.fail(w, r, err)
			return
		}
		if add {
			err = s.svc.Roles.AddUserRole(r.Context(), uid, rid)
		} else {
			err = s.svc.Roles.RemoveUserRole(r.Context(), uid, rid)
		}
		if err != nil {
			s.fail(w, r, err)
			return
		}
		rs, err := s.svc.Roles.UserRoles(r.Context(), uid)
		s.reply(w, r, http.StatusOK, toRoles(rs), err)
	}
}

func (s *server) handleAddUserRole() http.HandlerFunc    { return s.userRoleChange(true) }
func (s *server) handleRemoveUserRole() http.HandlerFunc { return s.userRoleChange(false) }
