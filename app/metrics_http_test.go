package app_test

import (
	"bufio"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"counsel/app"
	"counsel/app/apptest"

	"github.com/matryer/is"
)

const metricsToken = "metrics-token-for-tests"

// metricsServer is a service with COUNSEL_METRICS_TOKEN set, and a plain
// server of its handler for /metrics (which is not in the API reference
// that apptest's server checks every exchange against).
func metricsServer(t *testing.T, change ...func(*app.Config)) (*apptest.Server, *httptest.Server) {
	t.Helper()
	s := apptest.New(t, append([]func(*app.Config){func(c *app.Config) { c.MetricsToken = metricsToken }}, change...)...)
	raw := httptest.NewServer(s.App.Handler())
	t.Cleanup(raw.Close)
	return s, raw
}

// scrape reads /metrics with token ("" sends none).
func scrape(t *testing.T, base, token string) (int, http.Header, string) {
	t.Helper()
	req, err := http.NewRequest("GET", base+"/metrics", nil)
	if err != nil {
		t.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return res.StatusCode, res.Header, string(b)
}

var sampleLine = regexp.MustCompile(`^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(?:[^"}]|"(?:[^"\\]|\\.)*")*\})? (\S+)$`)

// samples reads the text format into series (name{labels}) -> value.
func samples(t *testing.T, text string) map[string]float64 {
	t.Helper()
	out := map[string]float64{}
	sc := bufio.NewScanner(strings.NewReader(text))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		m := sampleLine.FindStringSubmatch(line)
		if m == nil {
			t.Fatalf("not a sample line: %q", line)
		}
		v, err := strconv.ParseFloat(m[3], 64)
		if err != nil {
			t.Fatalf("value of %q: %v", line, err)
		}
		out[m[1]+m[2]] = v
	}
	return out
}

// promtool returns the path of promtool (Debian's prometheus package;
// docs/testing.md), skipping the test when it is missing, except on CI
// (CI=true), where a missing promtool fails it.
func promtool(t *testing.T) string {
	t.Helper()
	p, err := exec.LookPath("promtool")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("CI=true but promtool is not on PATH: %v", err)
		}
		t.Skip("promtool is not installed (docs/testing.md)")
	}
	return p
}

func TestMetricsOffByDefault(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	s := apptest.New(t)
	raw := httptest.NewServer(s.App.Handler())
	defer raw.Close()
	status, _, _ := scrape(t, raw.URL, "anything")
	is.Equal(status, 404)                 // no /metrics without COUNSEL_METRICS_TOKEN
	is.Equal(s.App.MetricsHandler(), nil) // nor a listener of its own
}

func TestMetricsToken(t *testing.T) {
	t.Parallel()
	_, raw := metricsServer(t)
	for _, tc := range []struct {
		name, header string
		status       int
	}{
		{"no header", "", 401},
		{"wrong token", "Bearer not-the-token", 401},
		{"token as basic", "Basic " + metricsToken, 401},
		{"a prefix of the token", "Bearer " + metricsToken[:5], 401},
		{"the token", "Bearer " + metricsToken, 200},
	} {
		t.Run(tc.name, func(t *testing.T) {
			is := is.New(t)
			req, _ := http.NewRequest("GET", raw.URL+"/metrics", nil)
			if tc.header != "" {
				req.Header.Set("Authorization", tc.header)
			}
			res, err := http.DefaultClient.Do(req)
			is.NoErr(err)
			b, _ := io.ReadAll(res.Body)
			res.Body.Close()
			is.Equal(res.StatusCode, tc.status)
			if tc.status == 401 {
				is.Equal(res.Header.Get("Content-Type"), "application/problem+json")     // a problem document
				is.True(strings.HasPrefix(res.Header.Get("WWW-Authenticate"), "Bearer")) // says how to authenticate
				is.True(strings.Contains(string(b), `"type":"/problems/unauthorized"`))
				is.True(!strings.Contains(string(b), "counsel_")) // no series leak
			} else {
				is.True(strings.HasPrefix(res.Header.Get("Content-Type"), "text/plain")) // the text format
			}
		})
	}
}

// TestMetricsSeries checks every series of docs/operations.md's list is there and
// moves with what it counts, and that promtool finds nothing to say.
func TestMetricsSeries(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	s, raw := metricsServer(t, func(c *app.Config) {
		c.LockoutThreshold, c.LockoutDuration = 2, 15*time.Minute
		c.Version = "v9.9.9-test"
	})
	email, pw := apptest.AdminEmail, apptest.AdminPassword
	tok := s.Login(t, email, pw)
	s.Do(t, "GET", "/api/me", tok.AccessToken, nil).Expect(t, 200, "me")
	fresh := s.Do(t, "POST", "/api/account/refresh-token", "", map[string]string{"accessToken": tok.AccessToken, "refreshToken": tok.RefreshToken}).Expect(t, 200, "refresh")
	_ = fresh
	// The rotated token again: reuse, which revokes the session.
	is.Equal(s.Do(t, "POST", "/api/account/refresh-token", "", map[string]string{"accessToken": tok.AccessToken, "refreshToken": tok.RefreshToken}).Status, 401)
	is.Equal(s.Do(t, "POST", "/api/account/refresh-token", "", map[string]string{"accessToken": "x", "refreshToken": "y"}).Status, 401)
	for i := 0; i < 2; i++ { // the second failure locks the account
		is.Equal(login(t, s, email, "wrong-password", getOTP(t, s, email)).Status, 401)
	}
	is.Equal(login(t, s, email, pw, getOTP(t, s, email)).Status, 401)     // locked
	is.Equal(s.Do(t, "POST", "/api/account/login", "", `{}`).Status, 400) // no credentials: not a sign-in

	// The sweeps and housekeeping run at start, in the background.
	var got map[string]float64
	var text string
	deadline := time.Now().Add(30 * time.Second)
	for {
		status, _, body := scrape(t, raw.URL, metricsToken)
		is.Equal(status, 200)
		text, got = body, samples(t, body)
		if got[`counsel_job_last_success_timestamp_seconds{job="sweep"}`] > 0 &&
			got[`counsel_job_last_success_timestamp_seconds{job="housekeeping"}`] > 0 &&
			got[`counsel_job_last_success_timestamp_seconds{job="outbox"}`] > 0 &&
			got[`counsel_job_last_success_timestamp_seconds{job="key_dates"}`] > 0 &&
			got[`counsel_job_last_success_timestamp_seconds{job="reminders"}`] > 0 || time.Now().After(deadline) {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	at := float64(s.Clock.Now().Unix())
	want := map[string]float64{
		`counsel_build_info{version="v9.9.9-test"}`:                                        1,
		`counsel_sign_ins_total{method="password",outcome="success"}`:                      1,
		`counsel_sign_ins_total{method="password",outcome="failure"}`:                      3,
		`counsel_sign_ins_total{method="password",outcome="error"}`:                        0,
		`counsel_sign_ins_total{method="idp",outcome="success"}`:                           0,
		`counsel_token_refreshes_total{outcome="success"}`:                                 1,
		`counsel_token_refreshes_total{outcome="reused"}`:                                  1,
		`counsel_token_refreshes_total{outcome="failure"}`:                                 1,
		`counsel_lockouts_total`:                                                           1,
		`counsel_job_last_success_timestamp_seconds{job="sweep"}`:                          at,
		`counsel_job_last_success_timestamp_seconds{job="housekeeping"}`:                   at,
		`counsel_job_last_success_timestamp_seconds{job="signing_sweep"}`:                  at,
		`counsel_job_last_success_timestamp_seconds{job="evidence"}`:                       at,
		`counsel_job_last_success_timestamp_seconds{job="outbox"}`:                         at,
		`counsel_job_last_success_timestamp_seconds{job="key_dates"}`:                      at,
		`counsel_job_last_success_timestamp_seconds{job="reminders"}`:                      at,
		`counsel_backup_last_success_timestamp_seconds`:                                    0,
		`counsel_outbox_pending{kind="mail"}`:                                              0,
		`counsel_outbox_pending{kind="webhook"}`:                                           0,
		`counsel_http_requests_total{code="200",method="GET",route="/api/me"}`:             1,
		`counsel_http_requests_total{code="401",method="POST",route="/api/account/login"}`: 3,
		`counsel_http_request_duration_seconds_count{method="GET",route="/api/me"}`:        1,
	}
	for k, v := range want {
		g, ok := got[k]
		if !ok {
			t.Errorf("no series %s", k)
		} else if g != v {
			t.Errorf("%s = %v, want %v", k, g, v)
		}
	}
	for _, name := range []string{`counsel_db_connections{state="in_use"}`, `counsel_db_connections{state="idle"}`,
		"go_goroutines", "process_resident_memory_bytes"} {
		_, ok := got[name]
		is.True(ok) // runtime, process and database series are there
	}
	if t.Failed() {
		t.Logf("metrics:\n%s", text)
	}

	cmd := exec.Command(promtool(t), "check", "metrics")
	cmd.Stdin = strings.NewReader(text)
	out, err := cmd.CombinedOutput()
	if err != nil || len(strings.TrimSpace(string(out))) > 0 {
		t.Fatalf("promtool check metrics: %v\n%s", err, out)
	}
}

// TestMetricsRouteCardinality requests many distinct ids and unknown
// paths: the route label takes route templates only, and every unknown
// path shares one value.
func TestMetricsRouteCardinality(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	s, raw := metricsServer(t)
	admin := s.Admin(t)
	count := func() (int, map[string]bool) {
		_, _, body := scrape(t, raw.URL, metricsToken)
		routes := map[string]bool{}
		n := 0
		for k := range samples(t, body) {
			if strings.HasPrefix(k, "counsel_http_requests_total{") || strings.HasPrefix(k, "counsel_http_request_duration_seconds_bucket{") {
				n++
				routes[regexp.MustCompile(`route="([^"]*)"`).FindStringSubmatch(k)[1]] = true
			}
		}
		return n, routes
	}
	burst := func(from, to int) {
		for i := from; i < to; i++ {
			for _, path := range []string{
				fmt.Sprintf("/api/users/%d", 1000+i),
				fmt.Sprintf("/api/contracts/%d", 1000+i),
				fmt.Sprintf("/no/such/path/%d", i),
				fmt.Sprintf("/api/users/%d/nothing", i),
			} {
				req, _ := http.NewRequest("GET", raw.URL+path, nil)
				req.Header.Set("Authorization", "Bearer "+admin)
				res, err := http.DefaultClient.Do(req)
				is.NoErr(err)
				res.Body.Close()
			}
			req, _ := http.NewRequest(fmt.Sprintf("M%d", i), raw.URL+"/api/me", nil) // odd methods too
			res, err := http.DefaultClient.Do(req)
			is.NoErr(err)
			res.Body.Close()
		}
	}
	burst(0, 20)
	count() // the scrape's own series
	n1, routes := count()
	burst(20, 120)
	n2, _ := count()
	is.Equal(n1, n2) // 100 more distinct paths and methods add no series
	for r := range routes {
		is.True(!regexp.MustCompile(`[0-9]`).MatchString(r)) // no id in a route label
	}
	is.True(routes["/api/users/{id}"])     // the template of /api/users/1000...
	is.True(routes["/api/contracts/{id}"]) // and of /api/contracts/1000...
	is.True(routes["unmatched"])           // every unknown path
}
