// Package apptest runs a real Counsel service for tests: the composition
// root over a temporary SQLite file (or a PostgreSQL schema, see Engine), served by httptest, with a fake clock,
// one-time passwords in responses and rate limits off. Tests talk to it
// over HTTP only, as clients do, and every exchange is checked against the
// served /openapi.json (openapitest).
package apptest

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"counsel/adapters/argon2"
	"counsel/adapters/http/openapitest"
	"counsel/adapters/postgres/pgtest"
	"counsel/app"
	"counsel/domain"
	"counsel/domain/account"
	"counsel/ports/porttest"
)

// Clock is the fake clock tests move by hand (porttest.Clock, shared
// with the adapters' tests).
type Clock = porttest.Clock

// NewClock returns a clock at t.
func NewClock(t time.Time) *Clock { return porttest.NewClock(t) }

// AdminEmail and AdminPassword are the bootstrap administrator's.
const (
	AdminEmail    = "admin@example.com"
	AdminPassword = "admin-password-1"
)

// Start is the fake clock's starting time.
var Start = time.Date(2026, 11, 21, 9, 30, 0, 0, time.UTC)

// Engine is the database the tests run on: COUNSEL_TEST_ENGINE=postgres
// runs them on PostgreSQL (a schema of their own on the server
// COUNSEL_TEST_POSTGRES names), anything else on a SQLite file.
func Engine() string {
	if os.Getenv("COUNSEL_TEST_ENGINE") == "postgres" {
		return "postgres"
	}
	return "sqlite"
}

// Server is a running Counsel for one test.
type Server struct {
	*httptest.Server
	App    *app.App
	Clock  *Clock
	Config app.Config
	n      atomic.Int64
}

// New starts a service. change, if given, adjusts the configuration first
// (the defaults here: temp database and data dir, response OTP delivery,
// no rate limits, cheap password hashing, and COUNSEL_PUBLIC_URL the test
// server's own URL).
func New(t testing.TB, change ...func(*app.Config)) *Server {
	t.Helper()
	dir := t.TempDir()
	clock := NewClock(Start)
	cfg := app.DefaultConfig()
	cfg.DB = filepath.Join(dir, "counsel.db")
	// Before SpoolDir, which lies inside it: every test has its own, so
	// tests running in parallel do not see each other's uploads.
	cfg.DataDir = filepath.Join(dir, "data")
	if Engine() == "sqlite" {
		copyMigrated(t, cfg.DB)
	}
	if Engine() == "postgres" {
		cfg.DB = pgtest.URL(t)
		cfg.SpoolDir = filepath.Join(cfg.DataDir, "tmp")
		if err := os.MkdirAll(cfg.SpoolDir, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	cfg.AdminEmail, cfg.AdminPassword = AdminEmail, AdminPassword
	cfg.OTPResendInterval, cfg.OTPHourlyLimit, cfg.AuthRateLimit = 0, 0, 0
	cfg.Clock = clock
	cfg.HashParams = &argon2.Params{MemoryKiB: 64, Time: 1, Threads: 1}
	cfg.LogLevel = "error"
	cfg.Stderr = testWriter{t}
	// The listener comes first so the service knows its own address:
	// links it hands out (the embedded signer's embedSrc) point at it.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("listen: %v", err)
	}
	cfg.PublicURL = "http://" + ln.Addr().String()
	for _, f := range change {
		f(&cfg)
	}
	a, err := app.New(context.Background(), cfg)
	if err != nil {
		ln.Close()
		t.Fatalf("start app: %v", err)
	}
	s := &Server{App: a, Clock: clock, Config: cfg}
	// The real server's timeouts and bounds, so attacks meet them; every
	// exchange is checked against /openapi.json.
	s.Server = &httptest.Server{Listener: ln, Config: app.NewHTTPServer(openapitest.Handler(t, a.Handler()))}
	s.Server.Start()
	t.Cleanup(func() {
		s.Server.Close()
		if err := a.Close(); err != nil {
			t.Errorf("close app: %v", err)
		}
	})
	return s
}

// migrated is an empty SQLite database file with every migration applied,
// made once per test process: migrating takes a second or two under
// -race, and every test starts from the same schema. New copies it, and
// the service opens it as it opens any migrated file.
var migrated struct {
	once sync.Once
	file []byte
	err  error
}

// SQLiteFile returns the path of a fresh SQLite database, already
// migrated, in a temporary folder of t: for tests of adapters over SQLite
// that would otherwise migrate a new file each.
func SQLiteFile(t testing.TB) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "counsel.db")
	copyMigrated(t, path)
	return path
}

func copyMigrated(t testing.TB, path string) {
	t.Helper()
	migrated.once.Do(func() {
		dir, err := os.MkdirTemp("", "counsel-apptest-")
		if err != nil {
			migrated.err = err
			return
		}
		defer os.RemoveAll(dir)
		db := filepath.Join(dir, "migrated.db")
		s, err := app.OpenStores(context.Background(), db, "")
		if err != nil {
			migrated.err = err
			return
		}
		// Closing checkpoints the write-ahead log into the file.
		if migrated.err = s.Close(); migrated.err == nil {
			migrated.file, migrated.err = os.ReadFile(db)
		}
	})
	if migrated.err != nil {
		t.Fatalf("migrated template database: %v", migrated.err)
	}
	if err := os.WriteFile(path, migrated.file, 0o600); err != nil {
		t.Fatal(err)
	}
}

type testWriter struct{ t testing.TB }

func (w testWriter) Write(b []byte) (int, error) {
	w.t.Log(strings.TrimRight(string(b), "\n"))
	return len(b), nil
}

// Response is a finished request: status, headers and the body.
type Response struct {
	Status int
	Header http.Header
	Body   []byte
}

// JSON decodes the body into v, failing the test on error.
func (r *Response) JSON(t testing.TB, v any) {
	t.Helper()
	if err := json.Unmarshal(r.Body, v); err != nil {
		t.Fatalf("decode %s: %v", r.Body, err)
	}
}

// Map decodes the body as a JSON object.
func (r *Response) Map(t testing.TB) map[string]any {
	t.Helper()
	var m map[string]any
	r.JSON(t, &m)
	return m
}

// Do sends a request. body may be nil, a string or []byte (sent as is), or
// any other value (sent as JSON). token, if not empty, is sent as a bearer.
func (s *Server) Do(t testing.TB, method, path, token string, body any) *Response {
	t.Helper()
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		rd = strings.NewReader(b)
	case []byte:
		rd = bytes.NewReader(b)
	default:
		j, err := json.Marshal(b)
		if err != nil {
			t.Fatalf("encode body: %v", err)
		}
		rd = bytes.NewReader(j)
	}
	req, err := http.NewRequest(method, s.URL+path, rd)
	if err != nil {
		t.Fatalf("request: %v", err)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	return s.Send(t, req)
}

// Send sends a prepared request and reads the whole answer.
func (s *Server) Send(t testing.TB, req *http.Request) *Response {
	t.Helper()
	res, err := s.Client().Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", req.Method, req.URL.Path, err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatalf("read body: %v", err)
	}
	return &Response{Status: res.StatusCode, Header: res.Header, Body: b}
}

// Tokens are a signed-in user's tokens.
type Tokens struct {
	UserID       string `json:"userId"`
	AccessToken  string `json:"accessToken"`
	RefreshToken string `json:"refreshToken"`
}

// Login signs in through get-otp and login and fails the test unless both
// answer 200.
func (s *Server) Login(t testing.TB, email, password string) Tokens {
	t.Helper()
	r := s.Do(t, "POST", "/api/account/login/get-otp", "", map[string]string{"email": email})
	if r.Status != 200 {
		t.Fatalf("get-otp %s: %d %s", email, r.Status, r.Body)
	}
	var otp struct{ OTP string }
	r.JSON(t, &otp)
	r = s.Do(t, "POST", "/api/account/login", "", map[string]string{"email": email, "password": password, "otp": otp.OTP})
	if r.Status != 200 {
		t.Fatalf("login %s: %d %s", email, r.Status, r.Body)
	}
	var tok Tokens
	r.JSON(t, &tok)
	return tok
}

// Admin signs in the bootstrap administrator and returns its access token.
func (s *Server) Admin(t testing.TB) string {
	t.Helper()
	return s.Login(t, AdminEmail, AdminPassword).AccessToken
}

// User creates a user holding exactly perms (through a new role; no role
// at all when perms is empty), signs it in, and returns its id and token.
func (s *Server) User(t testing.TB, perms ...account.Permission) (int64, string) {
	t.Helper()
	n := s.n.Add(1)
	email := fmt.Sprintf("user%d@example.com", n)
	role := fmt.Sprintf("test-role-%d", n)
	var roles []string
	if len(perms) > 0 {
		admin := s.Admin(t)
		r := s.Do(t, "POST", "/api/roles", admin, map[string]any{"name": role}).Expect(t, 201, "create role")
		var created struct{ ID int64 }
		r.JSON(t, &created)
		names := make([]string, len(perms))
		for i, p := range perms {
			names[i] = p.String()
		}
		if r = s.Do(t, "POST", fmt.Sprintf("/api/roles/%d/permissions", created.ID), admin, names); r.Status != 200 {
			t.Fatalf("set permissions: %d %s", r.Status, r.Body)
		}
		roles = []string{role}
	} else {
		roles = []string{"no-permissions"}
		s.ensureEmptyRole(t)
	}
	id, err := s.App.CreateUser(context.Background(), account.NewUser{Email: email, FirstName: "Test", LastName: fmt.Sprintf("User%d", n), Roles: roles}, "password-123")
	if err != nil {
		t.Fatalf("create user: %v", err)
	}
	return id, s.Login(t, email, "password-123").AccessToken
}

var emptyRoleOnce sync.Map

// ensureEmptyRole creates a role without permissions, so users made
// without permissions do not get the default role's ContractView.
func (s *Server) ensureEmptyRole(t testing.TB) {
	if _, done := emptyRoleOnce.LoadOrStore(s, true); done {
		return
	}
	r := s.Do(t, "POST", "/api/roles", s.Admin(t), map[string]any{"name": "no-permissions"})
	if r.Status != 201 && r.Status != 409 {
		t.Fatalf("create empty role: %d %s", r.Status, r.Body)
	}
}

// Exec runs a statement on the server's database outside every store,
// whatever the engine: tests that break the schema on purpose use it.
func (s *Server) Exec(t testing.TB, statement string) {
	t.Helper()
	ctx := context.Background()
	if Engine() == "postgres" {
		conn, err := pgx.Connect(ctx, s.Config.DB)
		if err != nil {
			t.Fatalf("exec: %v", err)
		}
		defer conn.Close(ctx)
		if _, err := conn.Exec(ctx, statement); err != nil {
			t.Fatalf("exec %s: %v", statement, err)
		}
		return
	}
	// The service's background writers (outboxes, jobs) hold the file's
	// one write lock now and then: wait for it as the service does.
	db, err := sql.Open("sqlite", "file:"+s.App.DB().Path()+"?_pragma=busy_timeout(10000)")
	if err != nil {
		t.Fatalf("exec: %v", err)
	}
	defer db.Close()
	if _, err := db.ExecContext(ctx, statement); err != nil {
		t.Fatalf("exec %s: %v", statement, err)
	}
}

// Row is one row of a read.
type Row interface{ Scan(dest ...any) error }

// QueryRow reads one row written with ? placeholders, on a connection of
// its own, whatever the engine: tests look at rows no port shows.
func (s *Server) QueryRow(ctx context.Context, query string, args ...any) Row {
	if s.App.DB() == nil { // PostgreSQL
		conn, err := pgx.Connect(ctx, s.Config.DB)
		if err != nil {
			return errRow{err}
		}
		return closingRow{conn.QueryRow(ctx, dollars(query), args...), func() { conn.Close(context.Background()) }}
	}
	db, err := s.sqliteConn()
	if err != nil {
		return errRow{err}
	}
	return closingRow{db.QueryRowContext(ctx, query, args...), func() { db.Close() }}
}

// SetUserState sets a user's active flag and soft-deletes (deleted) or
// restores the user, straight in SQL and nothing else: no session is
// revoked and no cache is told (the users module owns these changes in
// the service). ENOTFOUND for an unknown user.
func (s *Server) SetUserState(ctx context.Context, userID int64, active, deleted bool, at time.Time) error {
	const update = `UPDATE users SET active = ?, deleted_at = ?, updated_at = ? WHERE id = ?`
	var deletedAt any
	var n int64
	if s.App.DB() == nil { // PostgreSQL
		if deleted {
			deletedAt = at
		}
		conn, err := pgx.Connect(ctx, s.Config.DB)
		if err != nil {
			return err
		}
		defer conn.Close(ctx)
		tag, err := conn.Exec(ctx, dollars(update), active, deletedAt, at, userID)
		if err != nil {
			return err
		}
		n = tag.RowsAffected()
	} else {
		if deleted {
			deletedAt = at.UnixMilli()
		}
		db, err := s.sqliteConn()
		if err != nil {
			return err
		}
		defer db.Close()
		res, err := db.ExecContext(ctx, update, active, deletedAt, at.UnixMilli(), userID)
		if err != nil {
			return err
		}
		n, _ = res.RowsAffected()
	}
	if n == 0 {
		return &domain.Error{Code: domain.ENOTFOUND, Message: "user not found"}
	}
	return nil
}

// sqliteConn opens the server's SQLite file beside the service, waiting
// for its write lock as the service does.
func (s *Server) sqliteConn() (*sql.DB, error) {
	path := strings.NewReplacer("%", "%25", "#", "%23", "?", "%3f").Replace(s.App.DB().Path())
	return sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(10000)")
}

// dollars numbers the ? placeholders of query as PostgreSQL's $1, $2...
func dollars(query string) string {
	parts := strings.Split(query, "?")
	for i := 1; i < len(parts); i++ {
		parts[i] = "$" + strconv.Itoa(i) + parts[i]
	}
	return strings.Join(parts, "")
}

// closingRow closes its connection once scanned.
type closingRow struct {
	row   Row
	close func()
}

func (r closingRow) Scan(dest ...any) error {
	defer r.close()
	return r.row.Scan(dest...)
}

type errRow struct{ err error }

func (r errRow) Scan(...any) error { return r.err }

// Expect fails the test unless the answer has status want, naming what
// was asked in the message, and returns r for reading.
func (r *Response) Expect(t testing.TB, want int, what string) *Response {
	t.Helper()
	if r.Status != want {
		t.Fatalf("%s: %d %s", what, r.Status, r.Body)
	}
	return r
}
