package console

import (
	"net/http"
	"strconv"

	"counsel/domain"
	"counsel/domain/user"
)

// payData is a user's pay records page.
type payData struct {
	Staff         user.Profile
	Latest        *user.StaffRemuneration
	Remunerations []user.StaffRemuneration
	Count         int64
	Adjustments   []user.StaffAdjustment
	AdjCount      int64
	CanPQE        bool
}

// payLimit is how many records of each kind the page lists.
const payLimit = 100

func (c *console) loadPay(r *http.Request, p *page, id int64) error {
	ctx := r.Context()
	staff, err := c.svc.Users.User(ctx, id)
	if err != nil {
		return err
	}
	d := payData{Staff: staff, CanPQE: id == p.Principal.UserID || p.Can("RemunerationsCreate")}
	if latest, err := c.svc.Remunerations.LatestRemuneration(ctx, id); err == nil {
		d.Latest = &latest
	} else if domain.ErrorCode(err) != domain.ENOTFOUND {
		return err
	}
	if d.Remunerations, d.Count, err = c.svc.Remunerations.Remunerations(ctx, user.Filter{StaffID: id, Limit: payLimit}); err != nil {
		return err
	}
	if d.Adjustments, d.AdjCount, err = c.svc.Remunerations.PQEAdjustments(ctx, id, payLimit, 0); err != nil {
		return err
	}
	p.Title = "Pay records of " + staff.FullName()
	p.Data = d
	return nil
}

// payShow lists a user's remunerations (newest first, with the latest
// figures) and PQE adjustments, with the forms the caller may use.
func (c *console) payShow(w http.ResponseWriter, r *http.Request, p *page) {
	if err := c.loadPay(r, p, pathID(r)); err != nil {
		c.fail(w, r, p, err)
		return
	}
	c.render(w, r, 0, "pay", p)
}

func (c *console) payFail(w http.ResponseWriter, r *http.Request, p *page, id int64, err error) {
	if lerr := c.loadPay(r, p, id); lerr != nil {
		c.fail(w, r, p, lerr)
		return
	}
	c.formFail(w, r, p, "pay", err)
}

func (c *console) remunerationCreate(w http.ResponseWriter, r *http.Request, p *page) {
	id := pathID(r)
	rem, err := remunerationForm(p.Form, id)
	if err == nil {
		if _, err = c.svc.Remunerations.CreateRemuneration(r.Context(), rem); err == nil {
			c.redirect(w, r, "/console/users/"+strconv.FormatInt(id, 10)+"/pay", "Remuneration added.")
			return
		}
	}
	p.Form.Set("form", "remuneration")
	c.payFail(w, r, p, id, err)
}

func (c *console) pqeCreate(w http.ResponseWriter, r *http.Request, p *page) {
	id := pathID(r)
	a, err := pqeForm(p.Form, id)
	if err == nil {
		if _, err = c.svc.Remunerations.CreatePQEAdjustment(r.Context(), a); err == nil {
			c.redirect(w, r, "/console/users/"+strconv.FormatInt(id, 10)+"/pay", "PQE adjustment added.")
			return
		}
	}
	p.Form.Set("form", "pqe")
	c.payFail(w, r, p, id, err)
}
