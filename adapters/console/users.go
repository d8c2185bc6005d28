package console

import (
	"context"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"counsel/domain/account"
	"counsel/domain/user"
)

// usersData is what the users list shows.
type usersData struct {
	Items []user.User
	pager
	SortBy  string // the link that reverses the order
	Desc    bool
	Offices []user.Office
}

// usersList is the users table with every filter of the API's list, a
// page of 20 (Limit up to 100), and A-Z or Z-A by name. The filter form
// is a GET form, so a filtered list can be bookmarked; with htmx it
// updates as one types.
func (c *console) usersList(w http.ResponseWriter, r *http.Request, p *page) {
	q := r.URL.Query()
	p.Title = "Users"
	p.Form = q
	f, ferr := filterForm(q)
	offices, err := c.svc.Users.Offices(r.Context())
	if err != nil {
		c.fail(w, r, p, err)
		return
	}
	d := usersData{Offices: offices, Desc: f.SortDesc}
	if len(ferr) > 0 {
		p.Data = d
		var msgs []string
		for _, m := range ferr {
			msgs = append(msgs, m...)
		}
		slices.Sort(msgs)
		p.Error = strings.Join(msgs, "; ")
		c.render(w, r, http.StatusBadRequest, "users", p)
		return
	}
	items, count, err := c.svc.Users.Users(r.Context(), f)
	if err != nil {
		p.Data = d
		c.formFail(w, r, p, "users", err)
		return
	}
	d.Items = items
	d.pager = newPager("/console/users", q, f.Offset, f.Limit, len(items), count)
	sort := "desc"
	if f.SortDesc {
		sort = ""
	}
	d.SortBy = withQuery("/console/users", q, map[string]string{"Sort": sort, "Offset": ""})
	p.Data = d
	c.render(w, r, 0, "users", p)
}

// roleOption is one checkbox of the roles a user holds.
type roleOption struct {
	account.Role
	Checked bool
	// Locked roles are system-admin or default roles, which only a system
	// administrator may give or take (the use case refuses anyone else),
	// so others see them without a control.
	Locked bool
}

// userFormData is what the create and edit forms show.
type userFormData struct {
	Profile   *user.Profile // nil when creating
	Offices   []user.Office
	Roles     []roleOption
	ShowRoles bool
}

// formData loads the offices and, for those who may read roles, the roles
// with the ones in held (by id) ticked.
func (c *console) formData(ctx context.Context, p *page, held map[int64]bool) (userFormData, error) {
	var d userFormData
	var err error
	if d.Offices, err = c.svc.Users.Offices(ctx); err != nil {
		return d, err
	}
	if !p.Principal.Can(account.RolesView) {
		return d, nil
	}
	roles, err := c.svc.Roles.Roles(ctx)
	if err != nil {
		return d, err
	}
	d.ShowRoles = true
	for _, r := range roles {
		d.Roles = append(d.Roles, roleOption{Role: r, Checked: held[r.ID],
			Locked: !p.Principal.SystemAdmin && (r.IsSystemAdmin || r.IsDefaultRole)})
	}
	return d, nil
}

// heldFromForm is the ticked roles of a submitted form.
func heldFromForm(v url.Values) map[int64]bool {
	m := map[int64]bool{}
	for _, s := range v["roleIds"] {
		if n, err := strconv.ParseInt(s, 10, 64); err == nil {
			m[n] = true
		}
	}
	return m
}

func (c *console) userNew(w http.ResponseWriter, r *http.Request, p *page) {
	p.Title = "New user"
	p.Form.Set("active", "true")
	p.Form.Set("isStaff", "true")
	held := map[int64]bool{}
	d, err := c.formData(r.Context(), p, held)
	if err != nil {
		c.fail(w, r, p, err)
		return
	}
	for i, ro := range d.Roles {
		d.Roles[i].Checked = ro.IsDefaultRole
	}
	p.Data = d
	c.render(w, r, 0, "user_new", p)
}

func (c *console) userCreate(w http.ResponseWriter, r *http.Request, p *page) {
	p.Title = "New user"
	in, err := userForm(p.Form, true, p.Form.Get("rolesShown") == "1")
	if err == nil {
		var prof user.Profile
		if prof, err = c.svc.Users.CreateUser(r.Context(), in); err == nil {
			c.redirect(w, r, "/console/users/"+strconv.FormatInt(prof.ID, 10), "Created "+prof.FullName()+".")
			return
		}
	}
	p.Form.Del("password")
	d, derr := c.formData(r.Context(), p, heldFromForm(p.Form))
	if derr != nil {
		c.fail(w, r, p, derr)
		return
	}
	p.Data = d
	c.formFail(w, r, p, "user_new", err)
}

// userPage loads what the user page shows; form values are taken from
// the user unless the page already holds a submitted form.
func (c *console) userPage(ctx context.Context, p *page, id int64, fromUser bool) error {
	prof, err := c.svc.Users.User(ctx, id)
	if err != nil {
		return err
	}
	held := map[int64]bool{}
	for _, r := range prof.Roles {
		held[r.ID] = true
	}
	if fromUser {
		p.Form = userValues(prof.User)
	} else {
		held = heldFromForm(p.Form)
	}
	d, err := c.formData(ctx, p, held)
	if err != nil {
		return err
	}
	d.Profile = &prof
	p.Title = prof.FullName()
	p.Data = d
	return nil
}

func (c *console) userShow(w http.ResponseWriter, r *http.Request, p *page) {
	if err := c.userPage(r.Context(), p, pathID(r), true); err != nil {
		c.fail(w, r, p, err)
		return
	}
	c.render(w, r, 0, "user", p)
}

// userUpdate saves the edit form (roles too when they were shown).
func (c *console) userUpdate(w http.ResponseWriter, r *http.Request, p *page) {
	id := pathID(r)
	in, err := userForm(p.Form, false, p.Form.Get("rolesShown") == "1")
	if err == nil {
		if _, err = c.svc.Users.UpdateUser(r.Context(), id, in); err == nil {
			c.redirect(w, r, "/console/users/"+strconv.FormatInt(id, 10), "Saved.")
			return
		}
	}
	c.userFormFail(w, r, p, id, err)
}

// userActionFail shows the user page as stored, with err: the failed
// action's form (active, password, authenticator) is not the user form.
func (c *console) userActionFail(w http.ResponseWriter, r *http.Request, p *page, id int64, err error) {
	if lerr := c.userPage(r.Context(), p, id, true); lerr != nil {
		c.fail(w, r, p, lerr)
		return
	}
	c.formFail(w, r, p, "user", err)
}

// userFormFail shows the user page again with the submitted form and err.
func (c *console) userFormFail(w http.ResponseWriter, r *http.Request, p *page, id int64, err error) {
	p.Form.Del("password")
	if lerr := c.userPage(r.Context(), p, id, false); lerr != nil {
		c.fail(w, r, p, lerr)
		return
	}
	c.formFail(w, r, p, "user", err)
}

// userActive activates or deactivates a user.
func (c *console) userActive(w http.ResponseWriter, r *http.Request, p *page) {
	id := pathID(r)
	on := p.Form.Get("active") == "true"
	_, err := c.svc.Users.UpdateUser(r.Context(), id, user.Input{Patch: user.Patch{Active: &on}})
	if err != nil {
		c.userActionFail(w, r, p, id, err)
		return
	}
	msg := "Deactivated: they can no longer sign in."
	if on {
		msg = "Activated."
	}
	c.redirect(w, r, "/console/users/"+strconv.FormatInt(id, 10), msg)
}

// userPassword sets another user's password (their sessions end).
func (c *console) userPassword(w http.ResponseWriter, r *http.Request, p *page) {
	id := pathID(r)
	if err := c.svc.Users.ChangePassword(r.Context(), id, p.Form.Get("password"), ""); err != nil {
		p.Form.Del("password")
		c.userActionFail(w, r, p, id, err)
		return
	}
	if id == p.Principal.UserID {
		c.clearCookie(w, sessionCookie)
		c.redirect(w, r, "/console/login", "Your password was changed. Sign in with the new password.")
		return
	}
	c.redirect(w, r, "/console/users/"+strconv.FormatInt(id, 10), "Password set; their sessions have ended.")
}

// userDeletePage fills p with the user to delete.
func (c *console) userDeletePage(ctx context.Context, p *page, id int64) error {
	prof, err := c.svc.Users.User(ctx, id)
	if err != nil {
		return err
	}
	p.Title = "Delete " + prof.FullName()
	p.Data = prof
	return nil
}

func (c *console) userDeleteConfirm(w http.ResponseWriter, r *http.Request, p *page) {
	if err := c.userDeletePage(r.Context(), p, pathID(r)); err != nil {
		c.fail(w, r, p, err)
		return
	}
	c.render(w, r, 0, "user_delete", p)
}

func (c *console) userDelete(w http.ResponseWriter, r *http.Request, p *page) {
	id := pathID(r)
	if err := c.svc.Users.DeleteUser(r.Context(), id); err != nil {
		if c.userDeletePage(r.Context(), p, id) != nil {
			c.fail(w, r, p, err)
			return
		}
		c.formFail(w, r, p, "user_delete", err)
		return
	}
	c.redirect(w, r, "/console/users", "Deleted. Their pay records and history are kept.")
}
