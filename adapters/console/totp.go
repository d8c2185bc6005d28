package console

import (
	"encoding/base64"
	"net/http"
	"strconv"

	"counsel/domain"
	"counsel/domain/account"
)

// totpEnrol starts an enrolment and shows the QR code, the key and the
// confirm form. The key and QR code travel in the confirm form's hidden
// fields, so a mistyped code can be retried on the same page: the page
// goes only to the user who is enrolling, and is not stored.
func (c *console) totpEnrol(w http.ResponseWriter, r *http.Request, p *page) {
	e, err := c.svc.TOTP.EnrollTOTP(r.Context())
	if err != nil {
		c.accountFail(w, r, p, err)
		return
	}
	if err := c.accountPage(r.Context(), p, accountData{Enrol: &e}); err != nil {
		c.fail(w, r, p, err)
		return
	}
	c.render(w, r, 0, "account", p)
}

// totpConfirm turns the app on with a current code and shows the
// recovery codes, this once.
func (c *console) totpConfirm(w http.ResponseWriter, r *http.Request, p *page) {
	codes, err := c.svc.TOTP.ConfirmTOTP(r.Context(), p.V("otp"))
	if err != nil {
		d := accountData{}
		if domain.ErrorCode(err) == domain.EINVALID {
			if png, derr := base64.StdEncoding.DecodeString(p.V("qr")); derr == nil && len(png) > 0 {
				d.Enrol = &account.TOTPEnrolment{Secret: p.V("secret"), QRCodePNG: png}
			}
		}
		p.Form.Del("otp")
		if lerr := c.accountPage(r.Context(), p, d); lerr != nil {
			c.fail(w, r, p, lerr)
			return
		}
		c.formFail(w, r, p, "account", err)
		return
	}
	p.Form.Del("otp")
	if err := c.accountPage(r.Context(), p, accountData{Recovery: codes}); err != nil {
		c.fail(w, r, p, err)
		return
	}
	p.Flash = "Your authenticator app is on. From now on, sign in with its code."
	c.render(w, r, 0, "account", p)
}

// totpDisable turns the app off with the password and an app or recovery
// code; the use case ends the user's other sessions.
func (c *console) totpDisable(w http.ResponseWriter, r *http.Request, p *page) {
	if err := c.svc.TOTP.DisableTOTP(r.Context(), p.V("password"), p.V("otp")); err != nil {
		p.Form.Del("password")
		p.Form.Del("otp")
		c.accountFail(w, r, p, err)
		return
	}
	c.redirect(w, r, "/console/account", "Your authenticator app is off; sign-in codes come by email again.")
}

func (c *console) accountFail(w http.ResponseWriter, r *http.Request, p *page, err error) {
	if lerr := c.accountPage(r.Context(), p, accountData{}); lerr != nil {
		c.fail(w, r, p, lerr)
		return
	}
	c.formFail(w, r, p, "account", err)
}

// userResetTOTP removes another user's authenticator app (they sign in
// with emailed codes again; their sessions end).
func (c *console) userResetTOTP(w http.ResponseWriter, r *http.Request, p *page) {
	id := pathID(r)
	if err := c.svc.Users.ResetTOTP(r.Context(), id); err != nil {
		c.userActionFail(w, r, p, id, err)
		return
	}
	c.redirect(w, r, "/console/users/"+strconv.FormatInt(id, 10), "Authenticator app reset; they sign in with emailed codes again.")
}
