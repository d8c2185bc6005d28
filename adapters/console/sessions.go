package console

import (
	"net/http"

	"github.com/gorilla/mux"
)

// sessionRevoke signs one of the caller's sessions out; signing out the
// session of this page is signing out.
func (c *console) sessionRevoke(w http.ResponseWriter, r *http.Request, p *page) {
	id := mux.Vars(r)["sid"]
	if err := c.svc.Sessions.RevokeMySession(r.Context(), id); err != nil {
		c.accountFail(w, r, p, err)
		return
	}
	if id == p.Principal.SessionID {
		c.clearCookie(w, sessionCookie)
		c.redirect(w, r, "/console/login", "You are signed out.")
		return
	}
	c.redirect(w, r, "/console/account", "That session is signed out.")
}

// sessionsRevokeOthers signs every session of the caller but this one out.
func (c *console) sessionsRevokeOthers(w http.ResponseWriter, r *http.Request, p *page) {
	if err := c.svc.Sessions.RevokeMyOtherSessions(r.Context()); err != nil {
		c.accountFail(w, r, p, err)
		return
	}
	c.redirect(w, r, "/console/account", "Your other sessions are signed out.")
}
