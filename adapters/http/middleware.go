package http

import (
	"context"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"net"
	"net/http"
	"net/netip"
	"runtime/debug"
	"strings"
	"sync"
	"time"

	"counsel/domain"
	"counsel/domain/account"
	"counsel/ports"

	"github.com/gorilla/mux"
)

func muxVars(r *http.Request) map[string]string { return mux.Vars(r) }

// The context holds the request's *observed as its ports.RequestSource:
// its id, its route once a route matched, and what changes record of the
// request (ports.Request, computed only when asked). One context value
// (and one allocation with the status writer) serves all three, since
// every API request passes here.
func observedOf(ctx context.Context) (*observed, bool) {
	o, ok := ports.RequestSourceOf(ctx).(*observed)
	return o, ok
}

// named records the route template for the log line.
func named(path string, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if o, ok := observedOf(r.Context()); ok {
			o.route = path
		}
		next.ServeHTTP(w, r)
	})
}

// requestID returns the id of the request in ctx.
func requestID(ctx context.Context) string {
	if o, ok := observedOf(ctx); ok {
		return o.id
	}
	return ""
}

// validRequestID accepts a client's X-Request-Id only when it is short and
// plain, so it cannot forge log lines.
func validRequestID(s string) bool {
	if s == "" || len(s) > 64 {
		return false
	}
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.') {
			return false
		}
	}
	return true
}

// newRequestID returns 16 random hex digits. A request id names a log
// line and guards nothing, so it comes from the runtime's fast generator
// (seeded from the system's randomness) rather than crypto/rand.
func newRequestID() string {
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], rand.Uint64())
	return hex.EncodeToString(b[:])
}

// observed is a request seen by observe: its id and route for the log
// line, and a writer recording the status and size of its response.
type observed struct {
	http.ResponseWriter
	status int
	bytes  int64
	id     string
	route  string
	req    *http.Request
	srv    *server
}

// Request implements ports.RequestSource.
func (w *observed) Request() ports.Request {
	return ports.Request{IP: w.srv.clientAddr(w.req), UserAgent: w.req.Header.Get("User-Agent"), RequestID: w.id}
}

func (w *observed) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *observed) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	n, err := w.ResponseWriter.Write(b)
	w.bytes += int64(n)
	return n, err
}

// Unwrap lets http.ResponseController reach the underlying writer.
func (w *observed) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// nosniff is the one value of X-Content-Type-Options; header values are
// never changed in place, so every response can share it.
var nosniff = []string{"nosniff"}

// observe is the outermost middleware (within FrameGuard): request id, security headers,
// panic recovery and one log line per request. The log has the route
// template, never the URL's query, a header or a body, so no token,
// password or code can reach it.
func (s *server) observe(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		id := r.Header.Get("X-Request-Id")
		if !validRequestID(id) {
			id = newRequestID()
		}
		sw := &observed{ResponseWriter: w, id: id, route: "unmatched", req: r, srv: s}
		ctx := ports.WithRequest(r.Context(), sw)
		r = r.WithContext(ctx)
		h := w.Header()
		// The keys are canonical already: Set would canonicalize them again.
		h["X-Request-Id"] = []string{id}
		h["X-Content-Type-Options"] = nosniff
		defer func() {
			if v := recover(); v != nil {
				if v == http.ErrAbortHandler {
					panic(v)
				}
				s.log.ErrorContext(ctx, "panic", "request_id", id, "panic", fmt.Sprint(v), "stack", string(debug.Stack()))
				if sw.status == 0 {
					s.fail(sw, r, fmt.Errorf("panic: %v", v))
				}
			}
			now := time.Now()
			took := now.Sub(start)
			// The record is built here rather than by LogAttrs, which
			// would look up the caller on every request for a source
			// position no handler of the service prints.
			if h, lvl := s.log.Handler(), levelFor(sw.status); h.Enabled(ctx, lvl) {
				rec := slog.NewRecord(now, lvl, "request", 0)
				rec.AddAttrs(slog.String("method", r.Method), slog.String("route", sw.route), slog.Int("status", sw.status),
					slog.Duration("duration", took), slog.Int64("bytes", sw.bytes), slog.String("request_id", id))
				_ = h.Handle(ctx, rec)
			}
			if s.opts.Requests != nil {
				s.opts.Requests.ObserveRequest(sw.route, r.Method, sw.status, took)
			}
		}()
		next.ServeHTTP(sw, r)
	})
}

// cors answers preflights and sets CORS headers for the configured origins.
func (s *server) cors(next http.Handler) http.Handler {
	if len(s.opts.CORSOrigins) == 0 {
		return next
	}
	allowed := map[string]bool{}
	for _, o := range s.opts.CORSOrigins {
		allowed[strings.TrimRight(o, "/")] = true
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		origin := r.Header.Get("Origin")
		if origin == "" || !(allowed[origin] || allowed["*"]) {
			next.ServeHTTP(w, r)
			return
		}
		h := w.Header()
		h.Add("Vary", "Origin")
		h.Set("Access-Control-Allow-Origin", origin)
		h.Set("Access-Control-Expose-Headers", "Location, Retry-After, X-Request-Id, Content-Disposition")
		if r.Method == http.MethodOptions && r.Header.Get("Access-Control-Request-Method") != "" {
			h.Set("Access-Control-Allow-Methods", "GET, POST, PUT, DELETE, OPTIONS")
			h.Set("Access-Control-Allow-Headers", "Authorization, Content-Type")
			h.Set("Access-Control-Max-Age", "600")
			w.WriteHeader(http.StatusNoContent)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// access is a route's permission level: public, any authenticated user,
// or named permissions (all of them). An own-account route changes how
// its caller signs in or is signed in, which only a session may do: an
// API key is refused there (docs/decisions.md §17).
type access struct {
	public  bool
	session bool
	perms   []account.Permission
}

var (
	public     = access{public: true}
	authorized = access{}
	ownAccount = access{session: true}
)

// perm is the level that needs every one of ps.
func perm(ps ...account.Permission) access { return access{perms: ps} }

// String describes the level for the API reference.
func (a access) String() string {
	if a.public {
		return "Public"
	}
	if len(a.perms) == 0 {
		return "Authorized"
	}
	names := make([]string, len(a.perms))
	for i, p := range a.perms {
		names[i] = p.String()
	}
	return strings.Join(names, ", ")
}

// guard enforces a route's level: it authenticates the bearer token and
// puts the principal in the context, answering 401 or 403 itself.
func (s *server) guard(a access, next http.Handler) http.Handler {
	if a.public {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		tok, ok := bearer(r)
		if !ok {
			s.fail(w, r, &domain.Error{Code: domain.EUNAUTHORIZED, Message: "authentication required: send Authorization: Bearer <accessToken or API key>"})
			return
		}
		p, err := s.svc.Accounts.Authenticate(r.Context(), tok)
		if err != nil {
			s.fail(w, r, err)
			return
		}
		if a.session && p.ViaAPIKey() {
			s.fail(w, r, account.ErrAPIKeyAccount)
			return
		}
		for _, need := range a.perms {
			if !p.Can(need) {
				s.fail(w, r, &domain.Error{Code: domain.EFORBIDDEN, Message: "this requires the " + need.String() + " permission"})
				return
			}
		}
		next.ServeHTTP(w, r.WithContext(account.NewContext(r.Context(), p)))
	})
}

// bearer extracts the token of an Authorization: Bearer header.
func bearer(r *http.Request) (string, bool) {
	h := r.Header.Get("Authorization")
	if len(h) < 7 || !strings.EqualFold(h[:7], "bearer ") {
		return "", false
	}
	t := strings.TrimSpace(h[7:])
	return t, t != ""
}

// limitBody caps the request body; reading past it fails with
// *http.MaxBytesError, which decode turns into a 413.
func limitBody(n int64, next http.Handler) http.Handler {
	capped := capBody(n, next)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.ContentLength > n {
			writeProblem(w, problem{Status: http.StatusRequestEntityTooLarge,
				Detail: fmt.Sprintf("the request body is larger than %d bytes", n)})
			return
		}
		capped.ServeHTTP(w, r)
	})
}

// capBody makes reading past n bytes of the body fail with
// *http.MaxBytesError, for handlers that answer that themselves.
func capBody(n int64, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r.Body = http.MaxBytesReader(w, r.Body, n)
		next.ServeHTTP(w, r)
	})
}

// clientAddr is the address a request came from: the peer, or, when the
// peer is a trusted proxy, the nearest untrusted address of
// X-Forwarded-For.
func (s *server) clientAddr(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	addr, err := netip.ParseAddr(host)
	if err != nil || !s.trusted(addr) {
		return host
	}
	hops := strings.Split(strings.Join(r.Header.Values("X-Forwarded-For"), ","), ",")
	for i := len(hops) - 1; i >= 0; i-- {
		h := strings.TrimSpace(hops[i])
		a, err := netip.ParseAddr(h)
		if err != nil {
			break
		}
		if !s.trusted(a) {
			return a.String()
		}
	}
	return host
}

func (s *server) trusted(a netip.Addr) bool {
	a = a.Unmap()
	for _, p := range s.opts.TrustedProxies {
		if p.Contains(a) {
			return true
		}
	}
	return false
}

// rateLimiter is a token bucket per client address.
type rateLimiter struct {
	mu      sync.Mutex
	perMin  int
	now     func() time.Time
	buckets map[string]*bucket
	swept   time.Time
}

type bucket struct {
	tokens float64
	last   time.Time
}

func newRateLimiter(perMin int, now func() time.Time) *rateLimiter {
	return &rateLimiter{perMin: perMin, now: now, buckets: map[string]*bucket{}}
}

// allow takes a token for key, or says how long until one is free.
func (l *rateLimiter) allow(key string) (bool, time.Duration) {
	if l == nil || l.perMin <= 0 {
		return true, 0
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.now()
	rate := float64(l.perMin) / 60 // tokens per second
	if now.Sub(l.swept) > time.Minute {
		for k, b := range l.buckets {
			if now.Sub(b.last) > time.Minute {
				delete(l.buckets, k)
			}
		}
		l.swept = now
	}
	b, ok := l.buckets[key]
	if !ok {
		b = &bucket{tokens: float64(l.perMin), last: now}
		l.buckets[key] = b
	}
	b.tokens = min(float64(l.perMin), b.tokens+now.Sub(b.last).Seconds()*rate)
	b.last = now
	if b.tokens >= 1 {
		b.tokens--
		return true, 0
	}
	return false, time.Duration((1 - b.tokens) / rate * float64(time.Second))
}

// limited applies the per-address limit of public sign-in endpoints.
func (s *server) limited(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ok, wait := true, time.Duration(0)
		if s.opts.RateLimiter != nil && s.opts.AuthRateLimit > 0 {
			var err error
			// A failed count lets the request through: the sign-in itself
			// still needs the password, the one-time password and the
			// lockout, which are counted in the database.
			if ok, wait, err = s.opts.RateLimiter.Allow(r.Context(), "auth:"+s.clientAddr(r), s.opts.AuthRateLimit, s.opts.Now()); err != nil {
				s.log.WarnContext(r.Context(), "sign-in rate limit not counted", "err", err)
			}
		} else {
			ok, wait = s.limiter.allow(s.clientAddr(r))
		}
		if !ok {
			s.fail(w, r, &domain.Error{Code: domain.ERATELIMITED, Message: "too many requests from this address; try again later", RetryAfter: wait})
			return
		}
		next.ServeHTTP(w, r)
	})
}

// levelFor logs server errors as errors and the rest as info.
func levelFor(status int) slog.Level {
	if status >= 500 {
		return slog.LevelError
	}
	return slog.LevelInfo
}
