package console

import (
	"net/http"
	"strconv"

	"counsel/domain/user"
)

func (c *console) officesList(w http.ResponseWriter, r *http.Request, p *page) {
	offices, err := c.svc.Users.Offices(r.Context())
	c.listPage(w, r, p, "offices", "Offices", offices, err)
}

func (c *console) officeNew(w http.ResponseWriter, r *http.Request, p *page) {
	p.Title = "New office"
	p.Form.Set("active", "true")
	p.Data = (*user.Office)(nil)
	c.render(w, r, 0, "office", p)
}

func (c *console) officeCreate(w http.ResponseWriter, r *http.Request, p *page) {
	p.Title = "New office"
	p.Data = (*user.Office)(nil)
	o, err := c.svc.Users.CreateOffice(r.Context(), officeForm(p.Form))
	if err != nil {
		c.formFail(w, r, p, "office", err)
		return
	}
	c.redirect(w, r, "/console/offices/"+strconv.FormatInt(o.ID, 10), "Created the office "+o.Name+".")
}

func (c *console) officeShow(w http.ResponseWriter, r *http.Request, p *page) {
	o, err := c.svc.Users.Office(r.Context(), pathID(r))
	if err != nil {
		c.fail(w, r, p, err)
		return
	}
	p.Title = o.Name
	p.Form = officeValues(o)
	p.Data = &o
	c.render(w, r, 0, "office", p)
}

func (c *console) officeUpdate(w http.ResponseWriter, r *http.Request, p *page) {
	id := pathID(r)
	o, err := c.svc.Users.Office(r.Context(), id)
	if err != nil {
		c.fail(w, r, p, err)
		return
	}
	p.Title = o.Name
	p.Data = &o
	if _, err := c.svc.Users.UpdateOffice(r.Context(), id, officeForm(p.Form)); err != nil {
		c.formFail(w, r, p, "office", err)
		return
	}
	c.redirect(w, r, "/console/offices/"+strconv.FormatInt(id, 10), "Saved.")
}
