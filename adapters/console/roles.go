package console

import (
	"context"
	"net/http"
	"strconv"

	"counsel/domain/account"
)

// permGroup is the permissions of one area, for the role form.
type permGroup struct {
	Area  string
	Perms []string
}

// areas is account.Areas by wire name.
var areas = func() []permGroup {
	var out []permGroup
	for _, a := range account.Areas() {
		g := permGroup{Area: a.Name}
		for _, p := range a.Permissions {
			g.Perms = append(g.Perms, p.String())
		}
		out = append(out, g)
	}
	return out
}()

type roleData struct {
	Role  *account.Role
	Areas []permGroup
}

func (c *console) rolesList(w http.ResponseWriter, r *http.Request, p *page) {
	roles, err := c.svc.Roles.Roles(r.Context())
	c.listPage(w, r, p, "roles", "Roles", roles, err)
}

func (c *console) roleNew(w http.ResponseWriter, r *http.Request, p *page) {
	p.Title = "New role"
	p.Data = roleData{Areas: areas}
	c.render(w, r, 0, "role", p)
}

// roleInput reads the role form. The system-admin and default flags are
// shown to system administrators only (the use case refuses anyone else),
// so for others the role keeps its flags.
func roleInput(p *page, cur account.Role) account.RoleInput {
	in := account.RoleInput{Name: p.V("name"), IsSystemAdmin: cur.IsSystemAdmin, IsDefaultRole: cur.IsDefaultRole}
	if p.Principal.SystemAdmin {
		in.IsSystemAdmin, in.IsDefaultRole = p.Checked("isSystemAdmin"), p.Checked("isDefaultRole")
	}
	return in
}

// roleCreate creates the role, then sets its permissions; a failure of
// the second step leaves the role without permissions and says so.
func (c *console) roleCreate(w http.ResponseWriter, r *http.Request, p *page) {
	p.Title = "New role"
	p.Data = roleData{Areas: areas}
	role, err := c.svc.Roles.CreateRole(r.Context(), roleInput(p, account.Role{}))
	if err != nil {
		c.formFail(w, r, p, "role", err)
		return
	}
	if _, err := c.svc.Roles.SetRolePermissions(r.Context(), role.ID, p.Form["permissions"]); err != nil {
		p.Data = roleData{Role: &role, Areas: areas}
		c.formFail(w, r, p, "role", err)
		return
	}
	c.redirect(w, r, "/console/roles/"+strconv.FormatInt(role.ID, 10), "Created the role "+role.Name+".")
}

func (c *console) roleShow(w http.ResponseWriter, r *http.Request, p *page) {
	role, err := c.svc.Roles.Role(r.Context(), pathID(r))
	if err != nil {
		c.fail(w, r, p, err)
		return
	}
	p.Form.Set("name", role.Name)
	p.Form.Set("isSystemAdmin", strconv.FormatBool(role.IsSystemAdmin))
	p.Form.Set("isDefaultRole", strconv.FormatBool(role.IsDefaultRole))
	p.Form["permissions"] = role.Effective().Names()
	p.Title = "Role " + role.Name
	p.Data = roleData{Role: &role, Areas: areas}
	c.render(w, r, 0, "role", p)
}

// roleUpdate saves the name, flags and permission set.
func (c *console) roleUpdate(w http.ResponseWriter, r *http.Request, p *page) {
	id := pathID(r)
	role, err := c.svc.Roles.Role(r.Context(), id)
	if err != nil {
		c.fail(w, r, p, err)
		return
	}
	p.Title = "Role " + role.Name
	p.Data = roleData{Role: &role, Areas: areas}
	in := roleInput(p, role)
	if in != (account.RoleInput{Name: role.Name, IsSystemAdmin: role.IsSystemAdmin, IsDefaultRole: role.IsDefaultRole}) {
		if _, err := c.svc.Roles.UpdateRole(r.Context(), id, account.RolePatch{Name: &in.Name, IsSystemAdmin: &in.IsSystemAdmin, IsDefaultRole: &in.IsDefaultRole}); err != nil {
			c.formFail(w, r, p, "role", err)
			return
		}
	}
	if !in.IsSystemAdmin {
		if _, err := c.svc.Roles.SetRolePermissions(r.Context(), id, p.Form["permissions"]); err != nil {
			c.formFail(w, r, p, "role", err)
			return
		}
	}
	c.redirect(w, r, "/console/roles/"+strconv.FormatInt(id, 10), "Saved.")
}

// roleDeletePage fills p with the role to delete.
func (c *console) roleDeletePage(ctx context.Context, p *page, id int64) error {
	role, err := c.svc.Roles.Role(ctx, id)
	if err != nil {
		return err
	}
	p.Title = "Delete role " + role.Name
	p.Data = role
	return nil
}

func (c *console) roleDeleteConfirm(w http.ResponseWriter, r *http.Request, p *page) {
	if err := c.roleDeletePage(r.Context(), p, pathID(r)); err != nil {
		c.fail(w, r, p, err)
		return
	}
	c.render(w, r, 0, "role_delete", p)
}

func (c *console) roleDelete(w http.ResponseWriter, r *http.Request, p *page) {
	id := pathID(r)
	if err := c.svc.Roles.DeleteRole(r.Context(), id); err != nil {
		if c.roleDeletePage(r.Context(), p, id) != nil {
			c.fail(w, r, p, err)
			return
		}
		c.formFail(w, r, p, "role_delete", err)
		return
	}
	c.redirect(w, r, "/console/roles", "Deleted the role.")
}
