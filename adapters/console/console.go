// Package console is Counsel's browser console: a driving adapter beside
// the JSON API that calls the same use cases (ports) and holds no rule of
// its own. Pages are server-rendered html/template whose forms work
// without JavaScript; htmx (a pinned copy, embedded) only spares reloads
// where a page gains from it, and static/console-2.js adds upload
// progress and copy buttons. One file per page group (login.go, users.go,
// roles.go, offices.go, pay.go, account.go, contracts.go, documents.go,
// signing.go), form parsing in form.go and contract_form.go, sessions and
// CSRF in session.go, templates and assets embedded.
//
// A console session is a server session in the sessions table, carried by
// the cookie counsel_session. Every POST carries a CSRF token (an HMAC of
// the session id, or of a pre-sign-in cookie) and a same-origin Origin.
package console

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/gorilla/mux"

	"counsel/domain/account"
	"counsel/domain/contract"
	"counsel/ports"
)

// Services are the use cases the console calls.
type Services struct {
	Accounts ports.ConsoleAccounts
	TOTP     ports.TOTPService
	// Passkeys runs passkeys (passkeys.go); nil leaves them out.
	Passkeys ports.PasskeyService
	// Reauth renews the session on the "Confirm it's you" page.
	Reauth ports.Reauthenticator
	// Sessions lists and signs out the caller's sessions on My account;
	// nil leaves them out.
	Sessions      ports.SessionService
	Roles         ports.RoleService
	Users         ports.UserService
	Remunerations ports.RemunerationService
	// Contracts and Signing run the contract pages; nil leaves them out.
	Contracts ContractService
	Signing   ports.SigningService
	// IdP runs the identity provider's authorization-code flow; nil when
	// OIDC has no client secret (the button is then not shown).
	IdP IdentityProvider
	// APIKeys manages the caller's API keys on My account; nil leaves
	// them out.
	APIKeys ports.APIKeyService
	// Backups lists the scheduled backups to system administrators; nil
	// leaves the page out.
	Backups ports.BackupService
	// Mail shows the mail outbox to system administrators; nil leaves the
	// page out.
	Mail ports.MailService
	// Audit lists the security events to AuditView holders; nil leaves
	// the page out.
	Audit ports.AuditService
	// Webhooks manages the webhook subscriptions for WebhooksManage
	// holders; nil leaves the page out.
	Webhooks ports.WebhookService
}

// ContractService is the contract use case with the questions only the
// console asks (app/contracts answers them).
type ContractService interface {
	ports.ContractService
	// StatusChoices returns a contract and the statuses the caller may
	// move it to by hand (none without ContractEdit).
	StatusChoices(ctx context.Context, id int64) (contract.Contract, []contract.Status, error)
	// Counters counts Drafts, contracts waiting for signatures and Signed
	// ones ending within 30 days.
	// and the caller's own contracts whose notice is due within 30 days.
	Counters(ctx context.Context) (drafts, waiting, expiring, noticeDue int64, err error)
	// RemoveDocument removes a document unless the contract is out for
	// signature or it is signed evidence (ECONFLICT with the reason).
	RemoveDocument(ctx context.Context, contractID, docID int64) error
}

// IdentityProvider is the console's side of identity-provider sign-in.
type IdentityProvider interface {
	// AuthorizationURL is where the browser goes to sign in at the
	// provider. EUPSTREAM when the provider cannot be reached.
	AuthorizationURL(ctx context.Context, state, nonce, challenge, redirectURI string) (string, error)
	// ConsoleLoginIdP exchanges code (with the PKCE verifier), checks the
	// ID token and its nonce, finds or provisions the user as
	// /api/account/login/idp does, and opens a console session; it returns
	// the cookie value. EUNAUTHORIZED, EUPSTREAM.
	ConsoleLoginIdP(ctx context.Context, code, verifier, nonce, redirectURI string) (string, error)
}

// RateLimitedHeader marks a sign-in request the HTTP adapter's
// per-address limit refused (its value: seconds to wait). The HTTP
// adapter removes it from every incoming request before deciding.
const RateLimitedHeader = "X-Counsel-Rate-Limited"

// Options configure the console.
type Options struct {
	Logger *slog.Logger
	// PublicURL is the external base URL; empty: the request's host. Its
	// scheme decides the cookie's Secure flag and its origin the Origin
	// check.
	PublicURL string
	// Key signs CSRF tokens and the identity-provider flow's cookie.
	Key []byte
	// DevOTP shows the one-time password on the sign-in page
	// (COUNSEL_OTP_DELIVERY=response), under a development warning.
	DevOTP bool
	// IdPName is the provider's name on the sign-in button.
	IdPName string
	Now     func() time.Time
}

type console struct {
	svc    Services
	opts   Options
	log    *slog.Logger
	origin string // expected Origin; "" when derived from the request
	secure bool
	tmpl   templates
}

// NewHandler returns the console, serving /console and below.
func NewHandler(svc Services, opts Options) http.Handler {
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.IdPName == "" {
		opts.IdPName = "identity provider"
	}
	c := &console{svc: svc, opts: opts, log: opts.Logger, tmpl: parseTemplates()}
	if u, err := url.Parse(opts.PublicURL); err == nil && u.Host != "" {
		c.origin = u.Scheme + "://" + u.Host
		c.secure = u.Scheme == "https"
	}
	r := mux.NewRouter()
	r.NotFoundHandler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c.headers(w)
		c.errorPage(w, r, http.StatusNotFound, "Page not found", "There is no page at this address.")
	})
	r.MethodNotAllowedHandler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c.headers(w)
		c.errorPage(w, r, http.StatusMethodNotAllowed, "Not allowed", "This page does not accept that request.")
	})
	r.PathPrefix("/console/static/").Handler(staticHandler())
	for _, rt := range c.routes() {
		if rt.off {
			continue
		}
		h := c.guard(rt)
		r.Handle(rt.path, h).Methods(rt.method)
	}
	return r
}

// headers sets the headers of section 11 on every console answer. Every
// page shows personal data or a sign-in form, so none is cached.
func (c *console) headers(w http.ResponseWriter) {
	h := w.Header()
	h.Set("Content-Security-Policy", "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "+
		"connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'")
	h.Set("X-Frame-Options", "DENY")
	h.Set("Referrer-Policy", "same-origin")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Cache-Control", "no-store")
}

// guard runs a route: headers, the session (or the pre-sign-in cookie),
// the Origin and CSRF checks of a POST, and the route's permissions.
func (c *console) guard(rt route) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c.headers(w)
		p := &page{Form: url.Values{}, Errors: map[string][]string{}}
		ctx := r.Context()
		if rt.public {
			// A signed-in visitor of the sign-in page goes home.
			if _, ok, _ := c.session(r); ok && r.Method == http.MethodGet && r.URL.Path == "/console/login" {
				http.Redirect(w, r, "/console", http.StatusSeeOther)
				return
			}
			p.CSRF = c.preToken(w, r)
			if wait := r.Header.Get(RateLimitedHeader); wait != "" && r.Method == http.MethodPost {
				w.Header().Set("Retry-After", wait)
				c.errorPage(w, r, http.StatusTooManyRequests, "Too many requests",
					"Too many sign-in attempts from your address. Wait "+wait+" seconds and try again.")
				return
			}
		} else {
			pr, ok, err := c.session(r)
			if err != nil {
				c.internal(w, r, err)
				return
			}
			if !ok {
				// Clear only a cookie the browser sent: a request without
				// one (a cross-site post under SameSite=Lax carries none)
				// must not sign out the session the browser still holds.
				if _, err := r.Cookie(sessionCookie); err == nil {
					c.clearCookie(w, sessionCookie)
				}
				http.Redirect(w, r, "/console/login", http.StatusSeeOther)
				return
			}
			ctx = account.NewContext(ctx, pr)
			r = r.WithContext(ctx)
			p.Principal = pr
			p.CSRF = c.sessionToken(pr.SessionID)
			if err := c.loadMe(ctx, p); err != nil {
				c.fail(w, r, p, err)
				return
			}
		}
		if r.Method == http.MethodPost {
			if !c.sameOrigin(r) {
				c.errorPage(w, r, http.StatusForbidden, "Request refused",
					"The request did not come from this site's pages. Go back, reload the page and try again.")
				return
			}
		}
		// A multipart handler reads the token itself, the body's first
		// part: uploads stream, so the guard does not parse them.
		if r.Method == http.MethodPost && !rt.multipart {
			if err := r.ParseForm(); err != nil {
				if mbe := (*http.MaxBytesError)(nil); errors.As(err, &mbe) {
					c.errorPage(w, r, http.StatusRequestEntityTooLarge, "Form too large",
						fmt.Sprintf("The form was larger than %d KiB. Go back, shorten what you typed and try again.", mbe.Limit>>10))
					return
				}
				c.errorPage(w, r, http.StatusBadRequest, "Bad request", "The form could not be read.")
				return
			}
			if !c.validCSRF(r, p) {
				c.errorPage(w, r, http.StatusForbidden, "Form expired",
					"The form was out of date or did not come from this site. Go back, reload the page and try again.")
				return
			}
			p.Form = r.PostForm
		}
		for _, need := range rt.perms {
			if !p.Principal.Can(need) {
				c.errorPage(w, r, http.StatusForbidden, "Not permitted", "This needs the "+need.String()+" permission, which your roles do not give.")
				return
			}
		}
		rt.h(w, r, p)
	})
}

// sameOrigin checks a POST's Origin against the public URL's origin, or
// the request's own host when no public URL is set. A POST without an
// Origin is refused: every browser that runs the console sends one.
func (c *console) sameOrigin(r *http.Request) bool {
	o := r.Header.Get("Origin")
	if o == "" || o == "null" {
		return false
	}
	if c.origin != "" {
		return strings.EqualFold(o, c.origin)
	}
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	return strings.EqualFold(o, scheme+"://"+r.Host)
}

// redirect answers a POST with 303 to a page, with a message for it.
func (c *console) redirect(w http.ResponseWriter, r *http.Request, to, flash string) {
	if flash != "" {
		c.setFlash(w, flash)
	}
	http.Redirect(w, r, to, http.StatusSeeOther)
}
