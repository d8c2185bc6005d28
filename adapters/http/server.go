// Package http is Counsel's HTTP adapter (gorilla/mux): one route table
// (routes.go) in which every route states its permission level and its
// API reference entry, JSON encoding and decoding in one place (encode.go),
// domain errors mapped to RFC 9457 problem documents in one place
// (errors.go), and middleware for request ids, logging, recovery, CORS,
// body limits, authentication and rate limits (middleware.go). Handlers
// are makers, func (s *server) handleX() http.HandlerFunc, one file per
// module; they decode, call a service from ports, and encode.
package http

import (
	"context"
	"log/slog"
	"net/http"
	"net/netip"
	"strconv"
	"strings"
	"sync"
	"time"

	"counsel/ports"

	"github.com/gorilla/mux"
)

// Services are the use cases the handler calls. Nil services leave their
// routes answering 501.
type Services struct {
	Accounts ports.AccountService
	Roles    ports.RoleService
	// Pages are the handlers of the HTML pages (adapters/pages: /docs,
	// /verify, the embedded signer's /sign pages) by "METHOD path" as the
	// route table spells them. Their routes always exist; nil answers them
	// 501. When set, it must hold exactly the table's pages (NewHandler
	// panics otherwise).
	Pages map[string]http.Handler
	// Users and Remunerations are the user administration (users.go,
	// remunerations.go).
	Users         ports.UserService
	Remunerations ports.RemunerationService
	// Contracts is the contract module (contracts, documents, history).
	Contracts ports.ContractService
	// Signing is digital signing of contracts and the provider's webhook
	// (signing.go).
	Signing ports.SigningService
	// Evidence is the signing certificate and the verification of
	// signed PDFs (evidence.go).
	Evidence ports.EvidenceService
	// TOTP is the caller's authenticator-app enrolment (totp.go).
	TOTP ports.TOTPService
	// Audit reads the security events (audit.go); nil answers 501.
	Audit ports.AuditService
	// Sessions is the caller's own sessions (sessions.go).
	Sessions ports.SessionService
	// Passkeys is passkeys (passkeys.go); nil answers 501.
	Passkeys ports.PasskeyService
	// Reauth is recent authentication (POST /api/account/reauthenticate).
	Reauth ports.Reauthenticator
	// APIKeys are machine clients' keys (apikeys.go).
	APIKeys ports.APIKeyService
	// Backups lists the scheduled backups to system administrators
	// (backups.go).
	Backups ports.BackupService
	// Webhooks are the outbound webhook subscriptions (webhooks.go).
	Webhooks ports.WebhookService
	// Mail is the mail outbox for system administrators (mail.go).
	Mail ports.MailService
	// Calendar is the personal calendar feed (calendar.go).
	Calendar ports.CalendarService
	// Ready reports whether the service can serve (the database answers).
	Ready func(ctx context.Context) error
	// Console is the browser console, mounted at /console (and / redirects
	// there); nil leaves both unrouted.
	Console http.Handler
}

// Options configure the handler.
type Options struct {
	Logger         *slog.Logger
	MaxBody        int64          // default 1 MiB
	CORSOrigins    []string       // empty: no CORS headers
	TrustedProxies []netip.Prefix // peers whose X-Forwarded-For is believed
	AuthRateLimit  int            // requests a minute per address on public sign-in routes; 0 off
	// RateLimiter, when set, counts AuthRateLimit in a store that several
	// instances share instead of in this process.
	RateLimiter ports.RateLimiter
	Now         func() time.Time
	Version     string
	// Requests, when set, hears every request with its route template
	// (metrics).
	Requests ports.RequestObserver
	// Metrics, when set, is served at GET /metrics to callers that send
	// Authorization: Bearer MetricsToken (which must then be set); it is
	// left out of the API reference, being no JSON route.
	Metrics      http.Handler
	MetricsToken string
}

type server struct {
	svc     Services
	opts    Options
	log     *slog.Logger
	limiter *rateLimiter
	router  *mux.Router
	routes  []route
	mounted map[string]bool // the keys of Services.Pages the route table took
	// exact holds the routes without path variables, by path and method:
	// most requests (sign-in, refresh, /api/me) take one map lookup
	// instead of gorilla's regular expressions tried route by route.
	// Everything else, and every miss, goes to the router.
	exact map[string]map[string]http.Handler
	// The OpenAPI document (with this build's version) is made on first
	// request: an idle server need not hold it.
	doc func() []byte
}

// NewHandler returns the HTTP handler of the whole service.
func NewHandler(svc Services, opts Options) http.Handler { return newServer(svc, opts).handler() }

// handler is the router wrapped in the outer middleware.
func (s *server) handler() http.Handler {
	return FrameGuard(s.observe(s.cors(http.HandlerFunc(s.dispatch))))
}

// dispatch serves a request by its exact route when it has one, and
// through the router otherwise (path variables, 404, 405, the console).
func (s *server) dispatch(w http.ResponseWriter, r *http.Request) {
	if h := s.exact[r.URL.Path][r.Method]; h != nil {
		h.ServeHTTP(w, r)
		return
	}
	s.router.ServeHTTP(w, r)
}

func newServer(svc Services, opts Options) *server {
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.MaxBody <= 0 {
		opts.MaxBody = 1 << 20
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	s := &server{svc: svc, opts: opts, log: opts.Logger, limiter: newRateLimiter(opts.AuthRateLimit, opts.Now)}
	s.mounted = map[string]bool{}
	s.routes = s.routeTable()
	s.checkPages()
	s.exact = map[string]map[string]http.Handler{}
	s.router = mux.NewRouter()
	s.router.NotFoundHandler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.failf(w, r, "not_found", "no route for %s %s", r.Method, r.URL.Path)
	})
	s.router.MethodNotAllowedHandler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		writeProblem(w, problem{Status: http.StatusMethodNotAllowed,
			Detail: "the route does not accept " + r.Method})
	})
	for _, rt := range s.routes {
		h := rt.handler
		if rt.limited {
			h = s.limited(h)
		}
		h = s.guard(rt.access, h)
		body := opts.MaxBody
		if rt.maxBody > 0 {
			body = rt.maxBody
		}
		h = named(docPath(rt.path), limitBody(body, h))
		s.router.Handle(rt.path, h).Methods(rt.method)
		if !strings.Contains(rt.path, "{") {
			if s.exact[rt.path] == nil {
				s.exact[rt.path] = map[string]http.Handler{}
			}
			if s.exact[rt.path][rt.method] == nil { // as in the router, the first wins
				s.exact[rt.path][rt.method] = h
			}
		}
	}
	if svc.Console != nil {
		s.mountConsole(svc.Console)
	}
	if opts.Metrics != nil && opts.MetricsToken != "" {
		s.exact["/metrics"] = map[string]http.Handler{"GET": named("/metrics", s.metricsGuard(opts.Metrics))}
	}
	s.doc = sync.OnceValue(s.document)
	return s
}

// RateLimitedHeader is set on a console sign-in request that the
// per-address limit refused, with the seconds to wait, so the console can
// answer with its own page; any such header from a client is removed.
const RateLimitedHeader = "X-Counsel-Rate-Limited"

// mountConsole routes /console to the console and / to it. The console's
// sign-in posts share the per-address limit of the API's sign-in routes.
func (s *server) mountConsole(console http.Handler) {
	s.router.Handle("/", named("/", http.RedirectHandler("/console", http.StatusFound))).Methods("GET", "HEAD")
	// The console's document upload streams a file of up to 20 MiB.
	// The console answers a body past its limit with its own page, so its
	// bodies are capped (capBody) rather than refused here in JSON.
	s.router.Handle("/console/contracts/{id:[0-9]+}/documents", named("/console", capBody(uploadBodyLimit, console))).Methods("POST")
	s.router.PathPrefix("/console").Handler(named("/console", capBody(s.opts.MaxBody,
		http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			r.Header.Del(RateLimitedHeader)
			if r.Method == http.MethodPost && (r.URL.Path == "/console/login" || r.URL.Path == "/console/login/verify" ||
				r.URL.Path == "/console/login/passkey" || r.URL.Path == "/console/login/passkey/begin") {
				if ok, wait := s.limiter.allow(s.clientAddr(r)); !ok {
					r.Header.Set(RateLimitedHeader, strconv.Itoa(int((wait+time.Second-1)/time.Second)))
				}
			}
			console.ServeHTTP(w, r)
		}))))
}
