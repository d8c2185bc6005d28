package console

import (
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"counsel/domain"
	"counsel/domain/account"
)

// Passkeys (docs/decisions.md §20) in the console. Every ceremony is a
// form: the static script (console-2.js) asks a begin route for the
// options (a POST carrying the form's CSRF token, answered in JSON), runs
// navigator.credentials.create or .get, puts the credential in the form's
// hidden field and submits it; the finish routes are ordinary form posts
// answered with a page or a redirect. Without the script the forms stay
// hidden and the page says passkeys need it.

// beginJSON answers a begin route: the challenge and options, or what
// went wrong as {error} (and {confirm}, the "Confirm it's you" page, when
// the session must re-authenticate first).
func (c *console) beginJSON(w http.ResponseWriter, r *http.Request, b account.PasskeyBegin, err error) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	if err != nil {
		code := domain.ErrorCode(err)
		out := map[string]string{"error": domain.ErrorMessage(err)}
		status := statusOf(code)
		switch code {
		case domain.EREAUTH:
			out["confirm"] = "/console/confirm?next=" + url.QueryEscape("/console/account")
			status = http.StatusForbidden
		case domain.EINTERNAL:
			c.log.Error("passkey ceremony", "err", err)
			out["error"] = "an internal error occurred"
		}
		w.WriteHeader(status)
		_ = json.NewEncoder(w).Encode(out)
		return
	}
	_ = json.NewEncoder(w).Encode(struct {
		ChallengeID string          `json:"challengeId"`
		Options     json.RawMessage `json:"options"`
	}{b.ChallengeID, b.Options})
}

func (c *console) passkeyLoginBegin(w http.ResponseWriter, r *http.Request, p *page) {
	if c.svc.Passkeys == nil {
		c.beginJSON(w, r, account.PasskeyBegin{}, domain.Errorf(domain.ENOTIMPLEMENTED, "passkeys are not available"))
		return
	}
	b, err := c.svc.Passkeys.BeginPasskeyLogin(r.Context())
	c.beginJSON(w, r, b, err)
}

func (c *console) passkeyRegisterBegin(w http.ResponseWriter, r *http.Request, p *page) {
	if c.svc.Passkeys == nil {
		c.beginJSON(w, r, account.PasskeyBegin{}, domain.Errorf(domain.ENOTIMPLEMENTED, "passkeys are not available"))
		return
	}
	b, err := c.svc.Passkeys.BeginPasskeyRegistration(r.Context())
	c.beginJSON(w, r, b, err)
}

// passkeyLogin signs in with the assertion in the form, as loginVerify
// does with a password and code.
func (c *console) passkeyLogin(w http.ResponseWriter, r *http.Request, p *page) {
	if c.svc.Passkeys == nil {
		c.fail(w, r, p, domain.Errorf(domain.ENOTIMPLEMENTED, "passkeys are not available"))
		return
	}
	cookie, err := c.svc.Passkeys.ConsolePasskeyLogin(r.Context(), p.V("challengeId"), json.RawMessage(p.V("credential")))
	if err != nil {
		p.Form = url.Values{}
		c.loginPage(p, 1)
		if domain.ErrorCode(err) == domain.EUNAUTHORIZED || domain.ErrorCode(err) == domain.EINVALID {
			// One answer to every failure, as the use case gives (which
			// passkey, which account and why stay unsaid).
			p.Error = "The passkey did not sign you in. Try again, or sign in with your email."
			if domain.ErrorCode(err) == domain.EINVALID {
				p.Error = "Your browser did not send a passkey. Try again, or sign in with your email."
			}
			c.render(w, r, statusOf(domain.ErrorCode(err)), "login", p)
			return
		}
		c.formFail(w, r, p, "login", err)
		return
	}
	c.signedIn(w, r, cookie)
}

// passkeyRegister adds the passkey the browser created.
func (c *console) passkeyRegister(w http.ResponseWriter, r *http.Request, p *page) {
	_, err := c.svc.Passkeys.FinishPasskeyRegistration(r.Context(), p.V("challengeId"), p.V("name"), json.RawMessage(p.V("credential")))
	if err != nil {
		p.Form.Del("credential")
		p.Form.Del("challengeId")
		c.accountFail(w, r, p, hiddenFieldsSaid(err))
		return
	}
	c.redirect(w, r, "/console/account", "Passkey added. You can sign in with it instead of your password and code.")
}

func (c *console) passkeyRename(w http.ResponseWriter, r *http.Request, p *page) {
	pk, err := c.svc.Passkeys.RenamePasskey(r.Context(), pathID(r), p.V("name"))
	if err != nil {
		c.accountFail(w, r, p, err)
		return
	}
	c.redirect(w, r, "/console/account", "Passkey renamed to "+pk.Name+".")
}

func (c *console) passkeyRemove(w http.ResponseWriter, r *http.Request, p *page) {
	if err := c.svc.Passkeys.RemovePasskey(r.Context(), pathID(r)); err != nil {
		c.accountFail(w, r, p, err)
		return
	}
	c.redirect(w, r, "/console/account", "Passkey removed.")
}

// passkeyConfirm re-authenticates the session with a passkey and returns
// to next, as confirmCheck does with a password and code.
func (c *console) passkeyConfirm(w http.ResponseWriter, r *http.Request, p *page) {
	next := safeNext(p.V("next"))
	_, err := c.svc.Passkeys.ReauthenticatePasskey(r.Context(), p.V("challengeId"), json.RawMessage(p.V("credential")))
	if err != nil {
		p.Form = url.Values{"next": {next}}
		if !c.confirmPage(w, r, p, confirmData{Next: next}) {
			return
		}
		if code := domain.ErrorCode(err); code == domain.EUNAUTHORIZED || code == domain.EINVALID {
			p.Error = "The passkey was not accepted. Try again, or use your password and code."
			c.render(w, r, statusOf(code), "confirm", p)
			return
		}
		c.formFail(w, r, p, "confirm", err)
		return
	}
	c.redirect(w, r, next, "Thank you: you may now change how you sign in.")
}

// userRemovePasskeys removes every passkey of another user.
func (c *console) userRemovePasskeys(w http.ResponseWriter, r *http.Request, p *page) {
	uid := pathID(r)
	if err := c.svc.Users.RemovePasskeys(r.Context(), uid); err != nil {
		c.userActionFail(w, r, p, uid, err)
		return
	}
	c.redirect(w, r, "/console/users/"+strconv.FormatInt(uid, 10), "Their passkeys are removed; they sign in with a password and code until they add a new one.")
}

// hiddenFieldsSaid turns the errors of the form's hidden fields (the
// challenge and the credential, which no field on the page shows) into
// the banner's message; the name's error stays beside its field.
func hiddenFieldsSaid(err error) error {
	var de *domain.Error
	if !errors.As(err, &de) || de.Code != domain.EINVALID {
		return err
	}
	var said []string
	for _, f := range []string{"challengeId", "credential"} {
		said = append(said, de.Fields[f]...)
	}
	if len(said) == 0 {
		return err
	}
	return &domain.Error{Code: domain.EINVALID, Message: "The passkey was not added: " + strings.Join(said, "; ") + ". Try again."}
}
