package console

import (
	"errors"
	"maps"
	"net/http"
	"strings"
	"time"

	"counsel/domain"
	"counsel/domain/account"
)

// API keys on My account (docs/decisions.md §17): the list, a form to
// make one (its key shown this once, on the answer to the form) and a
// Revoke button per key. The use cases decide everything, recent
// authentication included (the confirm page comes first when needed).

// apiKeyCreate makes a key from the form: name, permissions (checkboxes
// of the caller's own) and an optional expiry date (midnight UTC).
func (c *console) apiKeyCreate(w http.ResponseWriter, r *http.Request, p *page) {
	if c.svc.APIKeys == nil {
		c.fail(w, r, p, domain.Errorf(domain.ENOTIMPLEMENTED, "API keys are not available in this configuration"))
		return
	}
	in := account.NewAPIKey{Name: p.V("keyName"), Permissions: p.Form["permissions"]}
	if v := strings.TrimSpace(p.V("expiresAt")); v != "" {
		t, err := time.Parse("2006-01-02", v)
		if err != nil {
			c.accountFail(w, r, p, domain.Invalid(map[string][]string{"expiresAt": {"must be a date such as 2027-01-31"}}))
			return
		}
		in.ExpiresAt = &t
	}
	_, key, err := c.svc.APIKeys.CreateAPIKey(r.Context(), in)
	if err != nil {
		c.accountFail(w, r, p, renameField(err, "name", "keyName"))
		return
	}
	for _, f := range []string{"keyName", "permissions", "expiresAt"} {
		p.Form.Del(f)
	}
	if err := c.accountPage(r.Context(), p, accountData{NewKey: key}); err != nil {
		c.fail(w, r, p, err)
		return
	}
	p.Flash = "API key created. Copy it now: it is not shown again."
	c.render(w, r, 0, "account", p) // pages are no-store: the key stays on this one

}

// apiKeyRevoke revokes one of the caller's keys.
func (c *console) apiKeyRevoke(w http.ResponseWriter, r *http.Request, p *page) {
	if c.svc.APIKeys == nil {
		c.fail(w, r, p, domain.Errorf(domain.ENOTIMPLEMENTED, "API keys are not available in this configuration"))
		return
	}
	if err := c.svc.APIKeys.RevokeMyAPIKey(r.Context(), pathID(r)); err != nil {
		c.accountFail(w, r, p, err)
		return
	}
	c.redirect(w, r, "/console/account", "API key revoked; programs using it are refused from now on.")
}

// renameField moves the messages of a domain error's field from to the
// form field to, where a page holds two forms with a field of one name
// (My account: a key's and a passkey's name).
func renameField(err error, from, to string) error {
	var de *domain.Error
	if !errors.As(err, &de) || de.Fields[from] == nil {
		return err
	}
	c := *de
	c.Fields = maps.Clone(de.Fields)
	c.Fields[to] = c.Fields[from]
	delete(c.Fields, from)
	return &c
}
