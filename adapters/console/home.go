package console

import (
	"net/http"

	"counsel/domain/user"
)

// home shows the signed-in user's profile and the figures of /api/me.
func (c *console) home(w http.ResponseWriter, r *http.Request, p *page) {
	me, err := c.svc.Users.Me(r.Context())
	if err != nil {
		c.fail(w, r, p, err)
		return
	}
	p.Title = "Home"
	p.Data = struct {
		Me          user.Profile
		Permissions []string
	}{me, p.Principal.Permissions.Names()}
	c.render(w, r, 0, "home", p)
}

// accountShow is "My account": the password form.
func (c *console) accountShow(w http.ResponseWriter, r *http.Request, p *page) {
	p.Title = "My account"
	c.render(w, r, 0, "account", p)
}

// accountPassword changes the caller's own password. The use case ends
// every session of the user, this one included, so the next stop is the
// sign-in page.
func (c *console) accountPassword(w http.ResponseWriter, r *http.Request, p *page) {
	p.Title = "My account"
	pw := p.V("password")
	if pw != p.V("confirm") {
		p.Errors["confirm"] = []string{"the two passwords differ"}
		p.Error = "Please correct the fields marked below."
		p.Form.Del("password")
		p.Form.Del("confirm")
		c.render(w, r, http.StatusBadRequest, "account", p)
		return
	}
	if err := c.svc.Users.ChangePassword(r.Context(), 0, pw); err != nil {
		p.Form.Del("password")
		p.Form.Del("confirm")
		c.formFail(w, r, p, "account", err)
		return
	}
	c.clearCookie(w, sessionCookie)
	c.redirect(w, r, "/console/login", "Your password was changed and your sessions ended. Sign in with the new password.")
}
