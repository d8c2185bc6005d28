package http

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"sort"
	"strings"
	"testing"
	"time"

	"counsel/adapters/http/openapitest"
	"counsel/domain"
	"counsel/domain/account"

	"github.com/gorilla/mux"
	"github.com/matryer/is"
)

// stubAccounts answers every call with fixed results, so the adapter's
// decoding, routing and error mapping can be tested alone.
type stubAccounts struct{}

func (stubAccounts) RequestOTP(_ context.Context, email string) (account.OTPResult, error) {
	if email == "" {
		return account.OTPResult{}, domain.Invalid(map[string][]string{"email": {"email is required"}})
	}
	return account.OTPResult{Email: email, OTP: "123456", Status: true}, nil
}
func (stubAccounts) Login(_ context.Context, e, p, o string) (account.Tokens, error) {
	if e == "" || p == "" || o == "" {
		return account.Tokens{}, domain.Invalid(map[string][]string{"email": {"required"}})
	}
	return account.Tokens{}, &domain.Error{Code: domain.EUNAUTHORIZED, Message: "no"}
}
func (stubAccounts) LoginIdP(context.Context, string, string) (account.Tokens, error) {
	return account.Tokens{}, &domain.Error{Code: domain.EUNAUTHORIZED, Message: "no"}
}
func (stubAccounts) Refresh(_ context.Context, a, r string) (account.Tokens, error) {
	return account.Tokens{UserID: 7, AccessToken: a, RefreshToken: r}, nil
}
func (stubAccounts) Logout(context.Context, string) error { return nil }
func (stubAccounts) Authenticate(_ context.Context, tok string) (account.Principal, error) {
	if tok == "admin" {
		return account.Principal{UserID: 1, Permissions: account.AllPermissionSet}, nil
	}
	return account.Principal{}, &domain.Error{Code: domain.EUNAUTHORIZED, Message: "bad token"}
}
func (stubAccounts) JWKS() []byte { return []byte(`{"keys":[]}`) }

// checked is the handler of svc and opts with every exchange checked
// against its own /openapi.json.
func checked(t *testing.T, svc Services, opts Options) http.Handler {
	t.Helper()
	return openapitest.Handler(t, NewHandler(svc, opts))
}

// TestOpenAPICoversEveryRoute fails when the router has a route the
// document lacks, or the reverse.
func TestOpenAPICoversEveryRoute(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	h := checked(t, Services{Accounts: stubAccounts{}}, Options{})
	var doc struct {
		OpenAPI string
		Paths   map[string]map[string]json.RawMessage
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("GET", "/openapi.json", nil))
	is.Equal(rec.Code, 200)
	is.NoErr(json.Unmarshal(rec.Body.Bytes(), &doc)) // the document is JSON
	is.Equal(doc.OpenAPI, "3.1.0")
	var documented []string
	for p, ms := range doc.Paths {
		for m := range ms {
			documented = append(documented, strings.ToUpper(m)+" "+p)
		}
	}
	s := newServer(Services{Accounts: stubAccounts{}}, Options{})
	var routed []string
	is.NoErr(s.router.Walk(func(route *mux.Route, _ *mux.Router, _ []*mux.Route) error {
		tpl, _ := route.GetPathTemplate()
		ms, _ := route.GetMethods()
		for _, m := range ms {
			routed = append(routed, m+" "+docPath(tpl))
		}
		return nil
	}))
	sort.Strings(documented)
	sort.Strings(routed)
	is.Equal(documented, routed) // the router and the document list the same routes
	for _, rt := range s.routes {
		is.True(rt.op.summary != "") // every route is described
		is.True(rt.op.tag != "")
	}
}

func TestPaging(t *testing.T) {
	t.Parallel()
	tests := []struct {
		query         string
		limit, offset int64
		bad           bool
	}{
		{"", 20, 0, false},
		{"Limit=5&Offset=10", 5, 10, false},
		{"limit=5&offset=10", 5, 10, false},
		{"LIMIT=500", 100, 0, false},
		{"Limit=99999999999999999999999", 100, 0, false},
		{"Limit=0", 0, 0, false},
		{"Limit=-1", 0, 0, true},
		{"Limit=abc", 0, 0, true},
		{"Limit=1.5", 0, 0, true},
		{"Offset=-3", 0, 0, true},
		{"Offset=99999999999999999999999", 0, 0, true},
	}
	for _, tt := range tests {
		t.Run(tt.query, func(t *testing.T) {
			is := is.New(t)
			q, _ := url.ParseQuery(tt.query)
			r := &http.Request{URL: &url.URL{RawQuery: q.Encode()}}
			f := domain.FieldErrors{}
			l, o := paging(query(r), f)
			is.Equal(len(f) > 0, tt.bad) // refused or not
			if !tt.bad {
				is.Equal(l, tt.limit)
				is.Equal(o, tt.offset)
			}
		})
	}
	is := is.New(t)
	p := newPage([]int{1, 2}, 5, 3)
	is.True(!p.HasNext) // 3+2 == 5
	p = newPage([]int{1, 2}, 6, 3)
	is.True(p.HasNext)
	is.Equal(newPage[int](nil, 0, 0).Items, []int{}) // never null
}

func TestParseTime(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want string
		bad  bool
	}{
		{"2026-11-21T09:30:00Z", "2026-11-21T09:30:00Z", false},
		{"2026-11-21T10:30:00+01:00", "2026-11-21T09:30:00Z", false},
		{"2026-11-21T09:30:00", "2026-11-21T09:30:00Z", false},
		{"2026-11-21T09:30:00.123", "2026-11-21T09:30:00Z", false},
		{"2026-11-21", "2026-11-21T00:00:00Z", false},
		{"21/11/2026", "", true},
		{"", "", true},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			is := is.New(t)
			v, err := parseTime(tt.in)
			is.Equal(err != nil, tt.bad)
			if !tt.bad {
				b, _ := Time(v).MarshalJSON()
				is.Equal(string(b), `"`+tt.want+`"`)
			}
		})
	}
}

func TestClientAddr(t *testing.T) {
	t.Parallel()
	s := &server{opts: Options{TrustedProxies: []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8"), netip.MustParsePrefix("::1/128")}}}
	tests := []struct {
		remote, xff, want string
	}{
		{"203.0.113.5:1234", "", "203.0.113.5"},
		{"203.0.113.5:1234", "1.2.3.4", "203.0.113.5"},    // an untrusted peer cannot claim another address
		{"10.0.0.2:1234", "1.2.3.4", "1.2.3.4"},           // a trusted proxy can
		{"10.0.0.2:1234", "1.2.3.4, 10.0.0.9", "1.2.3.4"}, // skipping trusted hops
		{"10.0.0.2:1234", "6.6.6.6, 1.2.3.4", "1.2.3.4"},  // the nearest untrusted address, not a spoofed first one
		{"10.0.0.2:1234", "garbage", "10.0.0.2"},          // unparsable: the peer
		{"[::1]:1234", "2001:db8::1", "2001:db8::1"},
	}
	for _, tt := range tests {
		t.Run(tt.remote+" "+tt.xff, func(t *testing.T) {
			is := is.New(t)
			r := httptest.NewRequest("GET", "/", nil)
			r.RemoteAddr = tt.remote
			if tt.xff != "" {
				r.Header.Set("X-Forwarded-For", tt.xff)
			}
			is.Equal(s.clientAddr(r), tt.want)
		})
	}
}

func TestRateLimiter(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	l := newRateLimiter(2, func() time.Time { return now })
	ok, _ := l.allow("a")
	is.True(ok)
	ok, _ = l.allow("a")
	is.True(ok)
	ok, wait := l.allow("a")
	is.True(!ok)                   // third within the minute
	is.Equal(wait, 30*time.Second) // one token every 30 s
	ok, _ = l.allow("b")
	is.True(ok) // per address
	now = now.Add(30 * time.Second)
	ok, _ = l.allow("a")
	is.True(ok) // refilled
	var off *rateLimiter
	ok, _ = off.allow("a")
	is.True(ok) // nil: off
}

// FuzzAccountBodies throws arbitrary bodies at the public account routes:
// the answer is always a 2xx or a 4xx problem, never a 500 or a panic.
func FuzzAccountBodies(f *testing.F) {
	for _, seed := range []string{
		`{"email":"a@b.c"}`, `{"email":"a@b.c","password":"p","otp":"1"}`, `{"accessToken":"a","refreshToken":"r"}`,
		`{"idToken":"x"}`, `{`, `[]`, `null`, `"x"`, `{"email":1}`, `{"email":"\u0000"}`, ``, `{"a":{"b":[1,2,{}]}}`,
		`{"email":"a@b.c"} trailing`, `{"EMAIL":"A@B.C"}`, "\xff\xfe",
	} {
		for _, p := range []string{"/api/account/login/get-otp", "/api/account/login", "/api/account/refresh-token", "/api/account/login/idp"} {
			f.Add(p, seed)
		}
	}
	h := NewHandler(Services{Accounts: stubAccounts{}}, Options{})
	f.Fuzz(func(t *testing.T, path, body string) {
		switch path {
		case "/api/account/login/get-otp", "/api/account/login", "/api/account/refresh-token", "/api/account/login/idp":
		default:
			path = "/api/account/login"
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest("POST", path, strings.NewReader(body)))
		if rec.Code >= 500 {
			t.Fatalf("%s %q: %d %s", path, body, rec.Code, rec.Body)
		}
		if rec.Code >= 400 {
			if rec.Header().Get("Content-Type") != "application/problem+json" {
				t.Fatalf("%s %q: %d without a problem body", path, body, rec.Code)
			}
			var p problem
			if err := json.Unmarshal(rec.Body.Bytes(), &p); err != nil || p.Status != rec.Code || p.Detail == "" {
				t.Fatalf("%s %q: bad problem %s", path, body, rec.Body)
			}
		}
	})
}

func TestPanicsBecomeProblems(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	s := &server{log: discard()}
	h := s.observe(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { panic("boom") }))
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("GET", "/x", nil))
	is.Equal(rec.Code, 500)
	is.Equal(rec.Header().Get("Content-Type"), "application/problem+json")
	is.True(!strings.Contains(rec.Body.String(), "boom")) // no internals in the body
}

func discard() *slog.Logger { return slog.New(slog.DiscardHandler) }

// TestExactRoutes checks the exact-path shortcut routes as the router
// would: a path's own methods reach its handler, other methods get the
// router's 405, near misses its 404, and every route without variables
// is in the shortcut.
func TestExactRoutes(t *testing.T) {
	t.Parallel()
	s := newServer(Services{Accounts: stubAccounts{}}, Options{})
	h := s.handler()
	n := 0
	for _, rt := range s.routes {
		if !strings.Contains(rt.path, "{") {
			n++
			if s.exact[rt.path][rt.method] == nil {
				t.Errorf("%s %s is not in the shortcut", rt.method, rt.path)
			}
		}
	}
	is := is.New(t)
	is.True(n > 10)
	for _, tc := range []struct {
		method, path string
		status       int
	}{
		{"POST", "/api/account/login/get-otp", 200}, // the stub answers
		{"GET", "/api/account/login/get-otp", 405},
		{"DELETE", "/healthz", 405},
		{"POST", "/api/account/login/get-otp/", 404},
		{"GET", "/API/me", 404},
		{"GET", "/healthz", 200},
	} {
		t.Run(tc.method+" "+tc.path, func(t *testing.T) {
			is := is.New(t)
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, httptest.NewRequest(tc.method, tc.path, strings.NewReader(`{"email":"a@b.c"}`)))
			is.Equal(rec.Code, tc.status)
			if tc.status >= 400 {
				is.Equal(rec.Header().Get("Content-Type"), "application/problem+json")
			}
		})
	}
}
