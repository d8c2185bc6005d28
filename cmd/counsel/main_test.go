package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"net/http/httptrace"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"counsel/adapters/http/openapitest"
	"counsel/adapters/postgres/pgtest"
	"counsel/adapters/sqlite"

	"github.com/matryer/is"
	pqtotp "github.com/pquerna/otp/totp"
)

// wait bounds how long a test waits for the program; it is a safety net
// against hangs, never part of what is checked.
const wait = 60 * time.Second

// output is an io.Writer that many goroutines may write to (the server's
// logger and handlers) and a test may read and wait on.
type output struct {
	mu      sync.Mutex
	buf     bytes.Buffer
	changed chan struct{}
}

func newOutput() *output { return &output{changed: make(chan struct{}, 1)} }

func (o *output) Write(p []byte) (int, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	n, err := o.buf.Write(p)
	select {
	case o.changed <- struct{}{}:
	default:
	}
	return n, err
}

func (o *output) String() string {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.buf.String()
}

// waitMatch waits until the output matches re and returns the submatches,
// or fails when run ends first.
func (o *output) waitMatch(t *testing.T, re *regexp.Regexp, done <-chan error) []string {
	t.Helper()
	timeout := time.After(wait)
	for {
		if m := re.FindStringSubmatch(o.String()); m != nil {
			return m
		}
		select {
		case <-o.changed:
		case err := <-done:
			t.Fatalf("run ended before printing %v: %v\noutput: %s", re, err, o.String())
		case <-timeout:
			t.Fatalf("no %v in output: %s", re, o.String())
		}
	}
}

// environment is a getenv over a map.
type environment map[string]string

func (e environment) get(k string) string { return e[k] }

// with returns a copy of e with kv (key, value, key, value...) set.
func (e environment) with(kv ...string) environment {
	c := environment{}
	for k, v := range e {
		c[k] = v
	}
	for i := 0; i < len(kv); i += 2 {
		c[kv[i]] = kv[i+1]
	}
	return c
}

// newEnv is the environment of a service over a temp database on a free
// loopback port.
func newEnv(t *testing.T) environment {
	dir := t.TempDir()
	return environment{
		"COUNSEL_DB":        filepath.Join(dir, "counsel.db"),
		"COUNSEL_DATA_DIR":  filepath.Join(dir, "data"),
		"COUNSEL_ADDR":      "127.0.0.1:0",
		"COUNSEL_LOG_LEVEL": "warn",
		// Tests sign in more than once a minute with one email; the
		// throttle itself is tested with a fake clock in domain/account.
		"COUNSEL_OTP_RESEND_INTERVAL": "0",
	}
}

// server is a `counsel serve` running in a goroutine.
type server struct {
	base           string
	stdout, stderr *output
	cancel         context.CancelFunc
	done           chan error
}

var servingRe = regexp.MustCompile(`serving on (http://127\.0\.0\.1:[0-9]+) `)

// startServe starts `counsel serve args...` and waits until /healthz answers.
// The server is stopped when the test ends if the test did not stop it.
func startServe(t *testing.T, env environment, args ...string) *server {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	s := &server{stdout: newOutput(), stderr: newOutput(), cancel: cancel, done: make(chan error, 1)}
	go func() {
		s.done <- run(ctx, append([]string{"serve"}, args...), env.get, strings.NewReader(""), s.stdout, s.stderr)
	}()
	t.Cleanup(func() {
		cancel()
		select {
		case <-s.done:
		case <-time.After(wait):
			t.Error("server did not stop")
		}
	})
	s.base = s.stdout.waitMatch(t, servingRe, s.done)[1]
	waitHealthy(t, s.base)
	return s
}

// stop cancels the context, as SIGTERM does, and returns run's result.
func (s *server) stop(t *testing.T) error {
	t.Helper()
	s.cancel()
	select {
	case err := <-s.done:
		s.done <- err // for the cleanup
		return err
	case <-time.After(wait):
		t.Fatal("server did not stop")
		return nil
	}
}

func waitHealthy(t *testing.T, base string) {
	t.Helper()
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	timeout := time.After(wait)
	for {
		resp, err := http.Get(base + "/healthz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return
			}
		}
		select {
		case <-tick.C:
		case <-timeout:
			t.Fatalf("%s/healthz never answered 200: %v", base, err)
		}
	}
}

// call sends a JSON request and decodes a JSON answer; an answer that is
// not an object is returned under "items".
func call(t *testing.T, method, url, token string, body any) (int, map[string]any) {
	t.Helper()
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			t.Fatal(err)
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, url, rd)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := openapitest.Client(t).Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	defer resp.Body.Close()
	var v any
	if b, _ := io.ReadAll(resp.Body); len(b) > 0 {
		if err := json.Unmarshal(b, &v); err != nil {
			t.Fatalf("%s %s: not JSON: %s", method, url, b)
		}
	}
	m, ok := v.(map[string]any)
	if !ok {
		m = map[string]any{"items": v}
	}
	return resp.StatusCode, m
}

// signIn asks for a one-time password (returned in the response, the
// default delivery) and signs in. It returns the login status and tokens.
func signIn(t *testing.T, base, email, password string) (int, map[string]any) {
	t.Helper()
	st, m := call(t, "POST", base+"/api/account/login/get-otp", "", map[string]string{"email": email})
	if st != 200 {
		t.Fatalf("get-otp %s: %d %v", email, st, m)
	}
	otp, _ := m["otp"].(string)
	return call(t, "POST", base+"/api/account/login", "", map[string]string{"email": email, "password": password, "otp": otp})
}

// cli runs one command to completion.
func cli(env environment, stdin string, args ...string) (stdout, stderr string, err error) {
	return cliContext(context.Background(), env, stdin, args...)
}

// cliContext runs one command with ctx.
func cliContext(ctx context.Context, env environment, stdin string, args ...string) (stdout, stderr string, err error) {
	var out, errb bytes.Buffer
	err = run(ctx, args, env.get, strings.NewReader(stdin), &out, &errb)
	return out.String(), errb.String(), err
}

// canceled is a context that has ended: `serve` with settings that are
// wrongly accepted then fails at once (opening the database) instead of
// serving forever.
func canceled() context.Context {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	return ctx
}

var firstAdminRe = regexp.MustCompile(`First start: created administrator (\S+) with password\n\n    (\S+)\n`)

func TestServe(t *testing.T) {
	t.Parallel()
	env := newEnv(t) // COUNSEL_ADMIN_PASSWORD unset: a random one is printed
	s := startServe(t, env)
	is := is.New(t)

	m := firstAdminRe.FindStringSubmatch(s.stderr.String())
	is.True(m != nil)                                                                      // the first administrator's password is printed to stderr
	is.Equal(m[1], "admin@localhost")                                                      // for the default admin email
	is.Equal(strings.Count(s.stderr.String(), "First start"), 1)                           // once
	is.True(!strings.Contains(s.stdout.String(), m[2]))                                    // and never to stdout
	is.True(strings.Contains(s.stdout.String(), s.base+"/docs"))                           // stdout says where the API reference is
	is.True(strings.Contains(s.stdout.String(), "Open the console at "+s.base+"/console")) // and where the console is
	password := m[2]

	st, body := call(t, "GET", s.base+"/readyz", "", nil)
	is.Equal(st, 200)                 // ready
	is.Equal(body["status"], "ready") // the database answers

	st, tokens := signIn(t, s.base, "admin@localhost", password)
	is.Equal(st, 200)                     // signed in with the printed password
	is.True(tokens["accessToken"] != "")  // access token
	is.True(tokens["refreshToken"] != "") // refresh token
	st, _ = call(t, "GET", s.base+"/api/permissions/me", tokens["accessToken"].(string), nil)
	is.Equal(st, 200) // the token works

	t.Run("graceful shutdown finishes an in-flight request and closes keep-alive connections", func(t *testing.T) {
		is := is.New(t)

		// An idle keep-alive connection.
		idle := &http.Client{Transport: &http.Transport{}}
		resp, err := idle.Get(s.base + "/healthz")
		is.NoErr(err) // keep-alive request
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()

		// A request whose handler is running: it has asked for the body
		// (100 Continue) and is waiting for it.
		pr, pw := io.Pipe()
		req, err := http.NewRequest("POST", s.base+"/api/account/login", pr)
		is.NoErr(err) // request
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Expect", "100-continue")
		reading := make(chan struct{})
		req = req.WithContext(httptrace.WithClientTrace(context.Background(), &httptrace.ClientTrace{
			Got100Continue: func() { close(reading) },
		}))
		type answer struct {
			status int
			body   map[string]any
			err    error
		}
		answered := make(chan answer, 1)
		go func() {
			c := &http.Client{Transport: &http.Transport{ExpectContinueTimeout: wait}}
			resp, err := c.Do(req)
			if err != nil {
				answered <- answer{err: err}
				return
			}
			defer resp.Body.Close()
			a := answer{status: resp.StatusCode}
			a.err = json.NewDecoder(resp.Body).Decode(&a.body)
			answered <- a
		}()
		select {
		case <-reading:
		case <-time.After(wait):
			t.Fatal("the handler never read the body")
		}

		s.cancel() // SIGTERM

		// Shutdown has begun when new connections are refused; run must
		// still be waiting for the in-flight request.
		refusedNew := false
		for range 1000 {
			c, err := net.Dial("tcp", strings.TrimPrefix(s.base, "http://"))
			if err != nil {
				refusedNew = true
				break
			}
			c.Close()
			select {
			case <-time.After(5 * time.Millisecond):
			case err := <-s.done:
				t.Fatalf("run returned (%v) with a request in flight", err)
			}
		}
		is.True(refusedNew) // the listener closed
		select {
		case err := <-s.done:
			t.Fatalf("run returned (%v) with a request in flight", err)
		default:
		}

		io.WriteString(pw, `{"email":"admin@localhost","password":"wrong-password","otp":"000000"}`)
		pw.Close()
		a := <-answered
		is.NoErr(a.err)                                    // the in-flight request got its answer
		is.Equal(a.status, 401)                            // a complete, ordinary answer
		is.Equal(a.body["type"], "/problems/unauthorized") // problem document

		select {
		case err := <-s.done:
			is.NoErr(err) // graceful shutdown: run returns nil
			s.done <- err
		case <-time.After(wait):
			t.Fatal("run did not return after the last request")
		}
		_, err = idle.Get(s.base + "/healthz")
		is.True(err != nil) // the server is gone
	})

	t.Run("second start: no new administrator, no password printed", func(t *testing.T) {
		is := is.New(t)
		s2 := startServe(t, env)
		is.True(!strings.Contains(s2.stderr.String(), "First start")) // nothing printed
		is.True(!strings.Contains(s2.stderr.String(), password))      // the old password is not repeated
		st, _ := signIn(t, s2.base, "admin@localhost", password)
		is.Equal(st, 200)    // the first password still works
		is.NoErr(s2.stop(t)) // clean stop
	})
}

func TestServeWithConfiguredAdminPassword(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	env := newEnv(t).with("COUNSEL_ADMIN_EMAIL", "Boss@Example.com", "COUNSEL_ADMIN_PASSWORD", "configured-pw-1", "COUNSEL_LOG_FORMAT", "json", "COUNSEL_LOG_LEVEL", "info")
	s := startServe(t, env)
	is.True(!strings.Contains(s.stderr.String(), "First start"))     // nothing to print
	is.True(!strings.Contains(s.stderr.String(), "configured-pw-1")) // the password never reaches the log
	var line map[string]any
	first, _, _ := strings.Cut(s.stderr.String(), "\n")
	is.NoErr(json.Unmarshal([]byte(first), &line)) // JSON logs
	st, _ := signIn(t, s.base, "boss@example.com", "configured-pw-1")
	is.Equal(st, 200)   // the configured password signs in
	is.NoErr(s.stop(t)) // clean stop
}

func TestServeFlagsOverrideEnvironment(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	// 30s is below the 1m minimum: the environment alone would fail.
	env := newEnv(t).with("COUNSEL_ACCESS_TTL", "30s", "COUNSEL_ADMIN_PASSWORD", "configured-pw-1")
	_, _, err := cliContext(canceled(), env, "", "serve")
	is.True(err != nil)                                          // the environment's value is refused
	is.True(strings.Contains(err.Error(), "COUNSEL_ACCESS_TTL")) // named
	s := startServe(t, env, "--access-ttl", "20m")
	is.NoErr(s.stop(t)) // the flag wins
}

func TestServeInvalidSettings(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		env  []string
		args []string
		want string // in the error
	}{
		{"log format", []string{"COUNSEL_LOG_FORMAT", "xml"}, nil, "COUNSEL_LOG_FORMAT"},
		{"log level", []string{"COUNSEL_LOG_LEVEL", "loud"}, nil, "COUNSEL_LOG_LEVEL"},
		{"smtp delivery without SMTP", []string{"COUNSEL_OTP_DELIVERY", "smtp"}, nil, "COUNSEL_SMTP_ADDR"},
		{"smtp delivery without sender", []string{"COUNSEL_OTP_DELIVERY", "smtp", "COUNSEL_SMTP_ADDR", "127.0.0.1:25"}, nil, "COUNSEL_SMTP_FROM"},
		{"unknown delivery", []string{"COUNSEL_OTP_DELIVERY", "pigeon"}, nil, "COUNSEL_OTP_DELIVERY"},
		{"bad duration", []string{"COUNSEL_ACCESS_TTL", "soon"}, nil, "COUNSEL_ACCESS_TTL"},
		{"negative duration", []string{"COUNSEL_OTP_TTL", "-5m"}, nil, "COUNSEL_OTP_TTL"},
		{"negative plain seconds (no range check would catch it)", []string{"COUNSEL_OTP_RESEND_INTERVAL", "-5"}, nil, "COUNSEL_OTP_RESEND_INTERVAL"},
		{"plain seconds overflowing a duration", []string{"COUNSEL_LOCKOUT_DURATION", "99999999999999"}, nil, "COUNSEL_LOCKOUT_DURATION"},
		{"duration out of range", []string{"COUNSEL_OTP_TTL", "2h"}, nil, "COUNSEL_OTP_TTL"},
		{"refresh shorter than access", []string{"COUNSEL_ACCESS_TTL", "1h", "COUNSEL_REFRESH_TTL", "30m"}, nil, "COUNSEL_REFRESH_TTL"},
		{"bad number", []string{"COUNSEL_OTP_HOURLY_LIMIT", "ten"}, nil, "COUNSEL_OTP_HOURLY_LIMIT"},
		{"bad proxy", []string{"COUNSEL_TRUSTED_PROXIES", "10.0.0.0/33"}, nil, "COUNSEL_TRUSTED_PROXIES"},
		{"bad public URL", []string{"COUNSEL_PUBLIC_URL", "ftp://example.com"}, nil, "COUNSEL_PUBLIC_URL"},
		{"short admin password", []string{"COUNSEL_ADMIN_PASSWORD", "short"}, nil, "COUNSEL_ADMIN_PASSWORD"},
		{"docuseal without URL", []string{"COUNSEL_SIGNING_PROVIDER", "docuseal"}, nil, "COUNSEL_DOCUSEAL_URL"},
		{"OIDC issuer without client", []string{"COUNSEL_OIDC_ISSUER", "https://idp.example.com"}, nil, "COUNSEL_OIDC_CLIENT_ID"},
		{"flag overrides a valid environment value with an invalid one", []string{"COUNSEL_ACCESS_TTL", "15m"}, []string{"--access-ttl", "30s"}, "COUNSEL_ACCESS_TTL"},
		{"bad flag value", nil, []string{"--lockout-threshold", "-1"}, "lockout-threshold"},
		{"unknown flag", nil, []string{"--colour", "blue"}, "colour"},
		{"several problems are reported together", []string{"COUNSEL_LOG_FORMAT", "xml", "COUNSEL_OTP_DELIVERY", "smtp"}, nil, "COUNSEL_SMTP_ADDR"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			env := newEnv(t).with(tt.env...)
			stdout, stderr, err := cliContext(canceled(), env, "", append([]string{"serve"}, tt.args...)...)
			is.True(err != nil)                                                                  // refused
			is.True(strings.Contains(err.Error(), tt.want) || strings.Contains(stderr, tt.want)) // names the setting
			is.True(!strings.Contains(stdout, "serving on"))                                     // before listening
			_, statErr := os.Stat(env["COUNSEL_DB"])
			is.True(errors.Is(statErr, os.ErrNotExist)) // and before touching the database
		})
	}

	t.Run("help", func(t *testing.T) {
		is := is.New(t)
		_, stderr, err := cli(newEnv(t), "", "serve", "-h")
		is.True(errors.Is(err, flag.ErrHelp))                   // main exits without an extra message
		is.True(strings.Contains(stderr, "-access-ttl"))        // every setting is a flag
		is.True(strings.Contains(stderr, "COUNSEL_ACCESS_TTL")) // named with its variable
	})

	t.Run("address in use", func(t *testing.T) {
		is := is.New(t)
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		is.NoErr(err) // hold a port
		defer ln.Close()
		ctx, cancel := context.WithTimeout(context.Background(), wait)
		defer cancel()
		_, _, err = cliContext(ctx, newEnv(t).with("COUNSEL_ADDR", ln.Addr().String(), "COUNSEL_ADMIN_PASSWORD", "configured-pw-1"), "", "serve")
		is.True(err != nil) // the listen error is returned
	})
}

func TestMigrate(t *testing.T) {
	t.Parallel()
	env := newEnv(t)
	db := env["COUNSEL_DB"]
	names, err := fs.Glob(os.DirFS("../../adapters/sqlite/migrations"), "*.sql")
	if err != nil || len(names) == 0 {
		t.Fatalf("list migrations: %v", err)
	}
	list := fmt.Sprintf("%d migrations applied: %s\n", len(names), strings.Join(names, ", "))
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"database from the environment", []string{"migrate"}, db + ": " + list},
		{"again: nothing new, same list", []string{"migrate"}, db + ": " + list},
		{"--db flag", []string{"migrate", "--db", db + "2"}, db + "2: " + list},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			stdout, _, err := cli(env, "", tt.args...)
			is.NoErr(err)             // migrated
			is.Equal(stdout, tt.want) // prints every embedded migration, in order
		})
	}

	t.Run("unwritable location", func(t *testing.T) {
		is := is.New(t)
		_, _, err := cli(env, "", "migrate", "--db", filepath.Join(t.TempDir(), "no", "such", "dir.db"))
		is.True(err != nil) // reported
	})
}

func TestUserCreate(t *testing.T) {
	t.Parallel()
	env := newEnv(t).with("COUNSEL_ADMIN_PASSWORD", "configured-pw-1")
	is := is.New(t)

	// Before the first serve: the roles are created on demand.
	stdout, _, err := cli(env, "partner-pw-1\n", "user", "create", "--email", " Partner@Example.com", "--first-name", "Pat", "--last-name", "Partner", "--role", "Administrator")
	is.NoErr(err)                                                                                       // created
	is.True(regexp.MustCompile(`^created user [0-9]+ \(partner@example\.com\)\n$`).MatchString(stdout)) // id and normalized email

	tests := []struct {
		name  string
		stdin string
		args  []string
		want  string
	}{
		{"duplicate email", "another-pw-1\n", []string{"--email", "partner@example.com", "--first-name", "A", "--last-name", "B"}, "already exists"},
		{"duplicate email in another case", "another-pw-1\n", []string{"--email", "PARTNER@example.com", "--first-name", "A", "--last-name", "B"}, "already exists"},
		{"unknown role", "another-pw-1\n", []string{"--email", "x@example.com", "--first-name", "A", "--last-name", "B", "--role", "Wizard"}, `--role: unknown role "Wizard"`},
		{"missing names", "another-pw-1\n", []string{"--email", "y@example.com"}, "required"},
		{"invalid email", "another-pw-1\n", []string{"--email", "nobody", "--first-name", "A", "--last-name", "B"}, "--email"},
		{"a name the API refuses", "another-pw-1\n", []string{"--email", "long@example.com", "--first-name", strings.Repeat("n", 201), "--last-name", "B"}, "--first-name: firstName must be at most"},
		{"short password", "short\n", []string{"--email", "z@example.com", "--first-name", "A", "--last-name", "B"}, "8 to 128"},
		{"no password", "", []string{"--email", "z@example.com", "--first-name", "A", "--last-name", "B"}, "standard input"},
		{"unknown flag", "another-pw-1\n", []string{"--mail", "z@example.com"}, "mail"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			stdout, stderr, err := cli(env, tt.stdin, append([]string{"user", "create"}, tt.args...)...)
			is.True(err != nil)                                                                  // refused
			is.True(strings.Contains(err.Error(), tt.want) || strings.Contains(stderr, tt.want)) // says why
			is.Equal(stdout, "")                                                                 // nothing created
		})
	}

	// Default roles, the password's last line ending optional (CRLF too).
	_, _, err = cli(env, "staff-pw-12\r\n", "user", "create", "--email", "staff@example.com", "--first-name", "S", "--last-name", "T")
	is.NoErr(err) // default roles

	s := startServe(t, env)
	st, tokens := signIn(t, s.base, "partner@example.com", "partner-pw-1")
	is.Equal(st, 200) // the created user signs in with the password from stdin
	st, roles := call(t, "GET", s.base+"/api/roles", tokens["accessToken"].(string), nil)
	is.Equal(st, 200)                        // an Administrator may list roles
	is.Equal(len(roles["items"].([]any)), 2) // the roles user create made: Administrator and Staff
	_, _, err = cli(env, "another-pw-1\n", "user", "create", "--email", "x@example.com", "--first-name", "A", "--last-name", "B")
	is.NoErr(err) // the command also works while the server runs
	st, _ = signIn(t, s.base, "x@example.com", "wrong-pw-12")
	is.Equal(st, 401) // and the server sees the new user (wrong password on purpose)
	is.True(!strings.Contains(s.stderr.String(), "First start"))
	is.NoErr(s.stop(t)) // clean stop
}

// serveUser creates user@example.com with password through the CLI,
// starts the server and signs the user in, failing the test unless each
// step works; it returns the environment, the server and the tokens.
func serveUser(t *testing.T, password string) (environment, *server, map[string]any) {
	t.Helper()
	env := newEnv(t).with("COUNSEL_ADMIN_PASSWORD", "configured-pw-1")
	if _, _, err := cli(env, password+"\n", "user", "create", "--email", "user@example.com", "--first-name", "U", "--last-name", "Ser"); err != nil {
		t.Fatalf("user create: %v", err)
	}
	s := startServe(t, env)
	st, tokens := signIn(t, s.base, "user@example.com", password)
	if st != 200 {
		t.Fatalf("sign in: %d", st)
	}
	return env, s, tokens
}

// refresh asks for new tokens with the access and refresh tokens of a
// sign-in.
func refresh(t *testing.T, base string, tokens map[string]any) (int, map[string]any) {
	t.Helper()
	return call(t, "POST", base+"/api/account/refresh-token", "", map[string]string{
		"accessToken": tokens["accessToken"].(string), "refreshToken": tokens["refreshToken"].(string)})
}

func TestUserSetPassword(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	env, s, tokens := serveUser(t, "old-password-1") // signed in with the old password

	stdout, _, err := cli(env, "new-password-1\n", "user", "set-password", "--email", "USER@example.com")
	is.NoErr(err)                                                                                // replaced while the server runs
	is.Equal(stdout, "password of user@example.com replaced; the user's sessions are revoked\n") // says so

	st, _ := signIn(t, s.base, "user@example.com", "old-password-1")
	is.Equal(st, 401) // the old password fails
	st, _ = signIn(t, s.base, "user@example.com", "new-password-1")
	is.Equal(st, 200) // the new one works
	st, body := refresh(t, s.base, tokens)
	is.Equal(st, 401)                                // the old session is revoked: its refresh token is refused
	is.Equal(body["type"], "/problems/unauthorized") // problem document

	tests := []struct {
		name  string
		stdin string
		args  []string
		want  string
	}{
		{"unknown email", "new-password-2\n", []string{"--email", "nobody@example.com"}, "no user"},
		{"short password", "short\n", []string{"--email", "user@example.com"}, "8 to 128"},
		{"no password", "", []string{"--email", "user@example.com"}, "standard input"},
		{"no email", "new-password-2\n", nil, "--email"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			_, _, err := cli(env, tt.stdin, append([]string{"user", "set-password"}, tt.args...)...)
			is.True(err != nil)                             // refused
			is.True(strings.Contains(err.Error(), tt.want)) // says why
		})
	}
	is.NoErr(s.stop(t)) // clean stop
}

func TestUserResetTOTP(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	env, s, tokens := serveUser(t, "user-password-1") // signed in with an emailed code
	access := tokens["accessToken"].(string)
	st, e := call(t, "POST", s.base+"/api/account/totp/enroll", access, nil)
	is.Equal(st, 200) // enrolling
	code, err := pqtotp.GenerateCode(e["secret"].(string), time.Now())
	is.NoErr(err)
	st, _ = call(t, "POST", s.base+"/api/account/totp/confirm", access, map[string]string{"otp": code})
	is.Equal(st, 200) // the app is on
	st, _ = signIn(t, s.base, "user@example.com", "user-password-1")
	is.Equal(st, 400) // get-otp gives no code now (login says otp is required): the phone is needed

	stdout, _, err := cli(env, "", "user", "reset-totp", "--email", "USER@example.com")
	is.NoErr(err) // reset while the server runs
	is.Equal(stdout, "authenticator app of user@example.com removed; the user's sessions are revoked and sign-in takes an emailed code again\n")
	st, _ = refresh(t, s.base, tokens)
	is.Equal(st, 401) // the old session is revoked
	st, _ = signIn(t, s.base, "user@example.com", "user-password-1")
	is.Equal(st, 200) // an emailed code signs in again

	stdout, _, err = cli(env, "", "user", "reset-totp", "--email", "user@example.com")
	is.NoErr(err)                                                                                    // nothing to remove is no error
	is.Equal(stdout, "user@example.com had no authenticator app; the user's sessions are revoked\n") // says so
	for _, args := range [][]string{{"--email", "nobody@example.com"}, nil} {
		_, _, err := cli(env, "", append([]string{"user", "reset-totp"}, args...)...)
		is.True(err != nil) // unknown or missing email
	}
	is.NoErr(s.stop(t)) // clean stop
}

func TestBackup(t *testing.T) {
	t.Parallel()
	env := newEnv(t).with("COUNSEL_ADMIN_PASSWORD", "configured-pw-1")
	is := is.New(t)
	_, _, err := cli(env, "user-password-1\n", "user", "create", "--email", "user@example.com", "--first-name", "U", "--last-name", "Ser")
	is.NoErr(err) // a user
	s := startServe(t, env)
	// The database was not empty at the first start (user create ran
	// first), so there is no bootstrap administrator: sign in as the user.
	st, _ := signIn(t, s.base, "user@example.com", "user-password-1")
	is.Equal(st, 200) // the server writes sessions meanwhile

	dest := filepath.Join(t.TempDir(), "copy.db")
	stdout, _, err := cli(env, "", "backup", dest)
	is.NoErr(err)                                                                                     // backed up while serving
	is.True(strings.Contains(stdout, fmt.Sprintf("backed up %s to %s in ", env["COUNSEL_DB"], dest))) // says so
	is.True(regexp.MustCompile(`(?m)^sessions +1 rows$`).MatchString(stdout))                         // with the row counts
	is.True(regexp.MustCompile(`(?m)^documents +0 \(0 bytes\)$`).MatchString(stdout))                 // and the documents
	stdout, _, err = cli(env, "", "backup", "--verify", dest)
	is.NoErr(err)                                  // verifies
	is.True(strings.Contains(stdout, dest+": ok")) // says so

	cp, err := sqlite.Open(context.Background(), dest)
	is.NoErr(err) // the copy opens
	defer cp.Close()
	users := cp.Stores().Accounts
	_, err = users.CredentialsByEmail(context.Background(), "user@example.com")
	is.NoErr(err) // the copy has the users
	_, _, err = users.UserAccess(context.Background(), 1)
	is.NoErr(err) // with their roles
	var sessions int
	is.NoErr(cp.Read().QueryRow("SELECT count(*) FROM sessions").Scan(&sessions))
	is.Equal(sessions, 1) // and what the server wrote before the copy

	tests := []struct {
		name string
		args []string
		want string
	}{
		{"existing file", []string{"backup", dest}, "exists"},
		{"the database itself", []string{"backup", env["COUNSEL_DB"]}, "exists"},
		{"no destination", []string{"backup"}, "usage"},
		{"two destinations", []string{"backup", dest + "1", dest + "2"}, "usage"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			_, _, err := cli(env, "", tt.args...)
			is.True(err != nil)                             // refused
			is.True(strings.Contains(err.Error(), tt.want)) // says why
		})
	}
	is.NoErr(s.stop(t)) // clean stop
}

func TestCommands(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		args   []string
		ok     bool
		stdout string // a substring of stdout
		stderr string // a substring of stderr
		err    string // a substring of the error
	}{
		{"version", []string{"version"}, true, "counsel dev\n", "", ""},
		{"--version", []string{"--version"}, true, "counsel dev\n", "", ""},
		{"help", []string{"help"}, true, "Usage:", "", ""},
		{"no command", nil, false, "", "Usage:", "no command"},
		{"unknown command", []string{"frobnicate"}, false, "", "Usage:", `unknown command "frobnicate"`},
		{"user without subcommand", []string{"user"}, false, "", "", "usage"},
		{"unknown user subcommand", []string{"user", "delete"}, false, "", "", `unknown user command "delete"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			stdout, stderr, err := cli(newEnv(t), "", tt.args...)
			if tt.ok {
				is.NoErr(err) // succeeds
			} else {
				is.True(err != nil)                            // fails
				is.True(strings.Contains(err.Error(), tt.err)) // error
			}
			is.True(strings.Contains(stdout, tt.stdout)) // stdout
			is.True(strings.Contains(stderr, tt.stderr)) // stderr
		})
	}
}

// TestCommandsOnPostgres runs migrate, user create and backup on
// PostgreSQL.
func TestCommandsOnPostgres(t *testing.T) {
	t.Parallel()
	pgtest.Skip(t)
	is := is.New(t)
	env := newEnv(t).with("COUNSEL_DB", pgtest.URL(t))
	stdout, _, err := cli(env, "", "migrate")
	is.NoErr(err)
	is.True(strings.Contains(stdout, "migrations applied")) // migrated
	_, _, err = cli(env, "user-password-1\n", "user", "create", "--email", "pg@example.com", "--first-name", "P", "--last-name", "G")
	is.NoErr(err) // a user on PostgreSQL
	dest := filepath.Join(t.TempDir(), "x.db")
	stdout, _, err = cli(env, "", "backup", dest)
	is.NoErr(err)                                                          // a SQLite file from PostgreSQL
	is.True(regexp.MustCompile(`(?m)^users +1 rows$`).MatchString(stdout)) // with the user
	_, _, err = cli(env, "", "backup", "--verify", dest)
	is.NoErr(err) // that verifies
}

// TestBackupRestoreThroughTheBinary backs up a serving database with
// `counsel backup`, verifies it, restores it with `counsel restore` onto
// the other engine (and SQLite again), serves the result and finds the
// same service: the access token issued before verifies, the contract is
// there. A second restore onto the same target is refused.
func TestBackupRestoreThroughTheBinary(t *testing.T) {
	t.Parallel()
	engines := []string{"sqlite"}
	if pgtest.Available() || pgtest.Required() {
		engines = append(engines, "postgres")
	}
	dsn := func(t *testing.T, engine string) string {
		if engine == "postgres" {
			return pgtest.URL(t)
		}
		return filepath.Join(t.TempDir(), "counsel.db")
	}
	for _, from := range engines {
		for _, to := range engines {
			t.Run(from+" to "+to, func(t *testing.T) {
				is := is.New(t)
				env := newEnv(t).with("COUNSEL_DB", dsn(t, from), "COUNSEL_ADMIN_EMAIL", "boss@example.com", "COUNSEL_ADMIN_PASSWORD", "configured-pw-1")
				s := startServe(t, env)
				st, tokens := signIn(t, s.base, "boss@example.com", "configured-pw-1")
				is.Equal(st, 200)
				access := tokens["accessToken"].(string)
				st, c := call(t, "POST", s.base+"/api/contracts", access, map[string]any{"contractName": "Backed-up lease"})
				is.Equal(st, 201)

				backup := filepath.Join(t.TempDir(), "backup.db")
				_, _, err := cli(env, "", "backup", backup)
				is.NoErr(err) // while serving
				_, _, err = cli(env, "", "backup", "--verify", backup)
				is.NoErr(err)
				target := dsn(t, to)
				stdout, _, err := cli(env, "", "restore", backup, "--to", target)
				is.NoErr(err)                                                              // restored
				is.True(regexp.MustCompile(`(?m)^contracts +1 rows$`).MatchString(stdout)) // counts printed
				is.True(strings.Contains(stdout, "every SHA-256 verified"))
				_, _, err = cli(env, "", "restore", backup, "--to", target)
				is.True(err != nil && strings.Contains(err.Error(), "not empty")) // refused the second time

				r := startServe(t, env.with("COUNSEL_DB", target, "COUNSEL_DATA_DIR", filepath.Join(t.TempDir(), "data")))
				st, got := call(t, "GET", fmt.Sprintf("%s/api/contracts/%v", r.base, c["id"]), access, nil)
				is.Equal(st, 200) // the old token verifies on the restored service
				is.Equal(got["contractName"], "Backed-up lease")
				is.NoErr(r.stop(t))
				is.NoErr(s.stop(t))
			})
		}
	}
}
