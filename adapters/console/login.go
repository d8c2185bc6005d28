package console

import (
	"net/http"

	"counsel/domain"
)

// loginData is what the sign-in page shows.
type loginData struct {
	Step    int // 1: email; 2: password and code
	Email   string
	IdP     bool
	IdPName string
	// Passkeys offers "Sign in with a passkey".
	Passkeys bool
}

func (c *console) loginPage(p *page, step int) {
	p.Title = "Sign in"
	p.Data = loginData{Step: step, Email: p.V("email"), IdP: c.svc.IdP != nil, IdPName: c.opts.IdPName, Passkeys: c.svc.Passkeys != nil}
}

// loginShow is step one: the email.
func (c *console) loginShow(w http.ResponseWriter, r *http.Request, p *page) {
	c.loginPage(p, 1)
	c.render(w, r, 0, "login", p)
}

// loginEmail asks the accounts use case for a one-time password and shows
// step two: password and code.
func (c *console) loginEmail(w http.ResponseWriter, r *http.Request, p *page) {
	res, err := c.svc.Accounts.RequestOTP(r.Context(), p.V("email"))
	if err != nil {
		c.loginPage(p, 1)
		c.formFail(w, r, p, "login", err)
		return
	}
	p.Form.Set("email", res.Email)
	if c.opts.DevOTP {
		p.DevOTP = res.OTP
	}
	c.loginPage(p, 2)
	c.render(w, r, 0, "login", p)
}

// loginVerify signs in through the accounts use case (same lockout, rate
// limits and one-time password as the API) and sets the session cookie.
func (c *console) loginVerify(w http.ResponseWriter, r *http.Request, p *page) {
	cookie, err := c.svc.Accounts.ConsoleLogin(r.Context(), p.V("email"), p.V("password"), p.V("otp"))
	if err != nil {
		p.Form.Del("password")
		step := 2
		if domain.ErrorCode(err) == domain.EINVALID && p.V("email") == "" {
			step = 1
		}
		c.loginPage(p, step)
		if domain.ErrorCode(err) == domain.EUNAUTHORIZED {
			// The use case's one answer to every failure, shown on the form.
			p.Error = domain.ErrorMessage(err)
			c.render(w, r, http.StatusUnauthorized, "login", p)
			return
		}
		c.formFail(w, r, p, "login", err)
		return
	}
	c.signedIn(w, r, cookie)
}

// signedIn sets the session cookie and goes home.
func (c *console) signedIn(w http.ResponseWriter, r *http.Request, cookie string) {
	c.setCookie(w, sessionCookie, cookie, 0)
	c.clearCookie(w, preCookie)
	http.Redirect(w, r, "/console", http.StatusSeeOther)
}

// logout revokes the session and clears the cookie.
func (c *console) logout(w http.ResponseWriter, r *http.Request, p *page) {
	ck, _ := r.Cookie(sessionCookie)
	if ck != nil {
		if err := c.svc.Accounts.ConsoleLogout(r.Context(), ck.Value); err != nil {
			c.fail(w, r, p, err)
			return
		}
	}
	c.clearCookie(w, sessionCookie)
	c.redirect(w, r, "/console/login", "You have signed out.")
}
