package console

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"html/template"
	"maps"
	"net/http"
	"net/url"
	"time"

	"counsel/domain"
	"counsel/domain/account"
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
	d := homeData{Me: me, Permissions: p.Principal.Permissions.Names()}
	if c.svc.Contracts != nil && p.Principal.Can(account.ContractView) {
		var cs contractCounters
		if cs.Drafts, cs.Waiting, cs.Expiring, cs.NoticeDue, err = c.svc.Contracts.Counters(r.Context()); err != nil {
			c.fail(w, r, p, err)
			return
		}
		d.Contracts = &cs
		now := c.opts.Now().UTC()
		d.ExpiringURL = "/console/contracts?Status=Signed&EndDateFrom=" + now.Format("2006-01-02") +
			"&EndDateTo=" + now.Add(30*24*time.Hour).Format("2006-01-02") + "&SortBy=endDate&SortDesc=false"
		// The same instants as the counter (contracts.NoticeFilter), so
		// the list shows what was counted.
		d.NoticeURL = fmt.Sprintf("/console/contracts?Status=ContractDesign,WaitingForClientSignature,Signed,Declined&OwnerId=%d&NoticeDateFrom=%s&NoticeDateTo=%s",
			p.Principal.UserID, url.QueryEscape(now.Format(time.RFC3339)), url.QueryEscape(now.Add(30*24*time.Hour).Format(time.RFC3339)))
	}
	p.Data = d
	c.render(w, r, 0, "home", p)
}

// homeData is what home shows.
type homeData struct {
	Me          user.Profile
	Permissions []string
	Contracts   *contractCounters // nil without ContractView
	ExpiringURL string            // the list of those ending soon
	NoticeURL   string            // the list of the caller's contracts whose notice is due soon
}

// contractCounters are home's contract figures, each a link to the list
// it counts.
type contractCounters struct{ Drafts, Waiting, Expiring, NoticeDue int64 }

// accountData is what "My account" shows besides the password form.
type accountData struct {
	TOTP     account.TOTPStatus
	Enrol    *account.TOTPEnrolment // set while enrolling: the QR code and key
	QR       template.URL           // the QR code as a data: URL
	QRBase64 string                 // the same PNG, carried by the confirm form
	Recovery []string               // the recovery codes, shown once
	// Keys are the caller's API keys (nil: the module is not wired);
	// NewKey is a key just made, shown this once; KeyPerms are the
	// permissions a new key may hold (the caller's).
	Keys     []account.APIKey
	KeysOn   bool
	NewKey   string
	KeyPerms []string
	Sessions []account.Session // the caller's live sessions, newest first
	Current  string            // the id of the session of this page
	// PasskeysOn tells whether passkeys are offered; Passkeys are the
	// caller's.
	PasskeysOn bool
	Passkeys   []account.Passkey
}

// accountPage loads the authenticator-app state into p.
func (c *console) accountPage(ctx context.Context, p *page, d accountData) error {
	p.Title = "My account"
	st, err := c.svc.TOTP.TOTPStatus(ctx)
	if err != nil {
		return err
	}
	d.TOTP = st
	if c.svc.APIKeys != nil {
		if d.Keys, err = c.svc.APIKeys.MyAPIKeys(ctx); err != nil {
			return err
		}
		d.KeysOn = true
		d.KeyPerms = p.Principal.Permissions.Names()
	}
	if c.svc.Sessions != nil {
		if d.Sessions, err = c.svc.Sessions.MySessions(ctx); err != nil {
			return err
		}
		d.Current = p.Principal.SessionID
	}
	if c.svc.Passkeys != nil {
		if d.Passkeys, err = c.svc.Passkeys.Passkeys(ctx); err != nil {
			return err
		}
		d.PasskeysOn = true
	}
	if d.Enrol != nil {
		// The PNG comes from our own TOTP adapter, base64 only: safe as a
		// data: URL, which the CSP's img-src allows.
		d.QRBase64 = base64.StdEncoding.EncodeToString(d.Enrol.QRCodePNG)
		d.QR = template.URL("data:image/png;base64," + d.QRBase64)
	}
	p.Data = d
	return nil
}

// accountShow is "My account": the password, the authenticator app and
// the sessions.
func (c *console) accountShow(w http.ResponseWriter, r *http.Request, p *page) {
	if err := c.accountPage(r.Context(), p, accountData{}); err != nil {
		c.fail(w, r, p, err)
		return
	}
	c.render(w, r, 0, "account", p)
}

// accountPassword changes the caller's own password. The use case ends
// every session of the user, this one included, so the next stop is the
// sign-in page. The fields are newPassword and confirm, apart from the
// password field of the authenticator form on the same page; the use
// case's "password" errors are shown at newPassword.
func (c *console) accountPassword(w http.ResponseWriter, r *http.Request, p *page) {
	if err := c.accountPage(r.Context(), p, accountData{}); err != nil {
		c.fail(w, r, p, err)
		return
	}
	pw, confirm := p.V("newPassword"), p.V("confirm")
	p.Form.Del("newPassword")
	p.Form.Del("confirm")
	if pw != confirm {
		p.Errors["confirm"] = []string{"the two passwords differ"}
		p.Error = "Please correct the fields marked below."
		c.render(w, r, http.StatusBadRequest, "account", p)
		return
	}
	if err := c.svc.Users.ChangePassword(r.Context(), 0, pw, ""); err != nil {
		var de *domain.Error
		if errors.As(err, &de) && de.Fields["password"] != nil {
			fields := maps.Clone(de.Fields)
			fields["newPassword"] = fields["password"]
			delete(fields, "password")
			err = &domain.Error{Code: de.Code, Message: de.Message, Fields: fields}
		}
		c.formFail(w, r, p, "account", err)
		return
	}
	c.clearCookie(w, sessionCookie)
	c.redirect(w, r, "/console/login", "Your password was changed and your sessions ended. Sign in with the new password.")
}
