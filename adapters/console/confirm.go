package console

import (
	"net/http"
	"net/url"
	"strings"

	"counsel/domain"
)

// "Confirm it's you" (docs/security.md, "Recent authentication"): a factor change
// (password, authenticator app, later passkeys and API keys) needs the
// session to have signed in or re-authenticated recently. The use cases
// decide (EREAUTH); fail and formFail send the browser here, with the
// page to return to, and this page renews the session through the same
// use case as POST /api/account/reauthenticate.

// confirmData is what the confirm page shows.
type confirmData struct {
	Next     string
	TOTP     bool // the second factor is the app (or a recovery code)
	CodeSent bool
	Passkeys bool // the caller has a passkey to confirm with
}

// confirmRedirect sends the browser to the confirm page, to come back to
// where the user was: the page of a GET, the page a form was posted from.
func (c *console) confirmRedirect(w http.ResponseWriter, r *http.Request) {
	next := r.URL.RequestURI()
	if r.Method != http.MethodGet {
		next = "/console/account"
		if ref, err := url.Parse(r.Referer()); err == nil && r.Referer() != "" && c.sameSite(r, ref) {
			next = ref.RequestURI()
		}
	}
	http.Redirect(w, r, "/console/confirm?next="+url.QueryEscape(safeNext(next)), http.StatusSeeOther)
}

// sameSite reports whether u is on the console's own origin.
func (c *console) sameSite(r *http.Request, u *url.URL) bool {
	if c.origin != "" {
		return strings.EqualFold(u.Scheme+"://"+u.Host, c.origin)
	}
	return strings.EqualFold(u.Host, r.Host)
}

// safeNext keeps a return address on the console: a path under /console
// (never //host or a scheme), else the account page.
func safeNext(next string) string {
	u, err := url.Parse(next)
	if err != nil || u.Scheme != "" || u.Host != "" || strings.HasPrefix(next, "//") || strings.Contains(next, "\\") ||
		!(u.Path == "/console" || strings.HasPrefix(u.Path, "/console/")) || strings.HasPrefix(u.Path, "/console/confirm") {
		return "/console/account"
	}
	return u.RequestURI()
}

func (c *console) confirmPage(w http.ResponseWriter, r *http.Request, p *page, d confirmData) bool {
	p.Title = "Confirm it's you"
	if c.svc.TOTP != nil {
		st, err := c.svc.TOTP.TOTPStatus(r.Context())
		if err != nil && domain.ErrorCode(err) != domain.ENOTIMPLEMENTED {
			c.fail(w, r, p, err)
			return false
		}
		d.TOTP = st.Enabled
	}
	if c.svc.Passkeys != nil {
		keys, err := c.svc.Passkeys.Passkeys(r.Context())
		if err != nil {
			c.fail(w, r, p, err)
			return false
		}
		d.Passkeys = len(keys) > 0
	}
	p.Data = d
	return true
}

// confirmShow is the form: password and second factor.
func (c *console) confirmShow(w http.ResponseWriter, r *http.Request, p *page) {
	if c.confirmPage(w, r, p, confirmData{Next: safeNext(r.URL.Query().Get("next"))}) {
		c.render(w, r, 0, "confirm", p)
	}
}

// confirmCode emails the caller a one-time code (shown on the page in
// development mode), as the sign-in's first step does.
func (c *console) confirmCode(w http.ResponseWriter, r *http.Request, p *page) {
	d := confirmData{Next: safeNext(p.V("next"))}
	res, err := c.svc.Accounts.RequestOTP(r.Context(), p.Me.Email)
	if err != nil {
		if c.confirmPage(w, r, p, d) {
			c.formFail(w, r, p, "confirm", err)
		}
		return
	}
	if c.opts.DevOTP {
		p.DevOTP = res.OTP
	}
	d.CodeSent = true
	if c.confirmPage(w, r, p, d) {
		c.render(w, r, 0, "confirm", p)
	}
}

// confirmCheck re-authenticates the session and returns to next.
func (c *console) confirmCheck(w http.ResponseWriter, r *http.Request, p *page) {
	next := safeNext(p.V("next"))
	if c.svc.Reauth == nil {
		c.fail(w, r, p, domain.Errorf(domain.ENOTIMPLEMENTED, "re-authentication is not available"))
		return
	}
	_, err := c.svc.Reauth.Reauthenticate(r.Context(), p.V("password"), p.V("otp"))
	if err != nil {
		p.Form.Del("password")
		p.Form.Del("otp")
		if !c.confirmPage(w, r, p, confirmData{Next: next, CodeSent: true}) {
			return
		}
		if domain.ErrorCode(err) == domain.EUNAUTHORIZED {
			// Wrong credentials: said on the form; the session goes on.
			p.Error = domain.ErrorMessage(err)
			c.render(w, r, http.StatusUnauthorized, "confirm", p)
			return
		}
		c.formFail(w, r, p, "confirm", err)
		return
	}
	c.redirect(w, r, next, "Thank you: you may now change how you sign in.")
}
