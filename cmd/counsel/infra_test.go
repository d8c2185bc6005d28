package main

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/matryer/is"
)

// notifySocket listens where NOTIFY_SOCKET will point, in a short folder
// (unix socket paths are limited to 108 bytes).
func notifySocket(t *testing.T) (*net.UnixConn, string) {
	t.Helper()
	dir, err := os.MkdirTemp("", "sd")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	path := filepath.Join(dir, "notify")
	c, err := net.ListenUnixgram("unixgram", &net.UnixAddr{Name: path, Net: "unixgram"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c, path
}

// next reads the next notify message.
func next(t *testing.T, c *net.UnixConn) string {
	t.Helper()
	c.SetReadDeadline(time.Now().Add(wait))
	b := make([]byte, 256)
	n, err := c.Read(b)
	if err != nil {
		t.Fatalf("read notify socket: %v", err)
	}
	return string(b[:n])
}

// TestSystemdNotify runs `counsel serve` as systemd would with
// Type=notify and WatchdogSec=: READY=1 once it serves, WATCHDOG=1 at
// half the interval, STOPPING=1 when it stops, in that order.
func TestSystemdNotify(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	sock, path := notifySocket(t)
	env := newEnv(t).with("NOTIFY_SOCKET", path, "WATCHDOG_USEC", "200000") // 0.2 s: a ping every 0.1 s
	s := startServe(t, env)
	is.Equal(next(t, sock), "READY=1")
	// Spaced, not a burst: in 0.6 s at most one ping per 0.1 s arrives
	// (plus one in flight), however late this test reads them.
	time.Sleep(600 * time.Millisecond)
	pings := 0
	for pings <= 8 {
		sock.SetReadDeadline(time.Now().Add(20 * time.Millisecond))
		b := make([]byte, 64)
		n, err := sock.Read(b)
		if err != nil {
			break
		}
		is.Equal(string(b[:n]), "WATCHDOG=1")
		pings++
	}
	is.True(pings >= 1 && pings <= 8) // spaced pings, no burst
	resp, err := http.Get(s.base + "/readyz")
	is.NoErr(err)
	resp.Body.Close()
	is.Equal(resp.StatusCode, 200) // READY=1 came while it serves
	is.NoErr(s.stop(t))
	for {
		m := next(t, sock)
		if m == "STOPPING=1" {
			break
		}
		is.Equal(m, "WATCHDOG=1") // nothing but pings before STOPPING=1
	}
	sock.SetReadDeadline(time.Now().Add(300 * time.Millisecond))
	_, err = sock.Read(make([]byte, 64))
	var ne net.Error
	is.True(errors.As(err, &ne) && ne.Timeout()) // nothing after STOPPING=1
}

// TestWatchdogOnlyWhileHealthy: no ping while the database does not
// answer, pings again once it does.
func TestWatchdogOnlyWhileHealthy(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	sock, path := notifySocket(t)
	n := newNotifier(environment{"NOTIFY_SOCKET": path, "WATCHDOG_USEC": "40000"}.get, os.Getpid())
	is.Equal(n.watchdog, 40*time.Millisecond)
	var down atomic.Bool
	down.Store(true)
	var checks atomic.Int64
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		n.watch(ctx, func(context.Context) error {
			checks.Add(1)
			if down.Load() {
				return errors.New("database down")
			}
			return nil
		}, nil)
	}()
	for checks.Load() < 5 {
		time.Sleep(5 * time.Millisecond)
	}
	sock.SetReadDeadline(time.Now().Add(10 * time.Millisecond))
	_, err := sock.Read(make([]byte, 64))
	is.True(err != nil) // no ping while unhealthy
	down.Store(false)
	is.Equal(next(t, sock), "WATCHDOG=1") // pings resume
	cancel()
	<-done

	// WATCHDOG_PID of another process, or no NOTIFY_SOCKET: no watchdog.
	is.Equal(newNotifier(environment{"NOTIFY_SOCKET": path, "WATCHDOG_USEC": "40000", "WATCHDOG_PID": "1"}.get, os.Getpid()).watchdog, time.Duration(0))
	is.Equal(newNotifier(environment{}.get, os.Getpid()), nil)
}

func TestHealthcheck(t *testing.T) {
	t.Parallel()
	s := startServe(t, newEnv(t))
	unready := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusServiceUnavailable)
	}))
	defer unready.Close()
	closed, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closedAddr := closed.Addr().String()
	closed.Close()
	_, port, _ := net.SplitHostPort(strings.TrimPrefix(s.base, "http://"))
	for _, tc := range []struct {
		name string
		env  environment
		args []string
		ok   bool
	}{
		{"ready server from COUNSEL_ADDR", environment{"COUNSEL_ADDR": strings.TrimPrefix(s.base, "http://")}, nil, true},
		{"wildcard listen address asks loopback", environment{"COUNSEL_ADDR": "0.0.0.0:" + port}, nil, true},
		{"--addr wins", environment{"COUNSEL_ADDR": closedAddr}, []string{"--addr", strings.TrimPrefix(s.base, "http://")}, true},
		{"readyz answers 503", environment{"COUNSEL_ADDR": strings.TrimPrefix(unready.URL, "http://")}, nil, false},
		{"nothing listens", environment{"COUNSEL_ADDR": closedAddr}, nil, false},
		{"not an address", environment{"COUNSEL_ADDR": "nonsense"}, nil, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			is := is.New(t)
			out := newOutput()
			err := run(context.Background(), append([]string{"healthcheck"}, tc.args...), tc.env.get, strings.NewReader(""), out, io.Discard)
			is.Equal(err == nil, tc.ok) // exit status 0 only when /readyz answers 200
			if tc.ok {
				is.Equal(out.String(), "ready\n")
			}
		})
	}
}

var metricsAddrRe = regexp.MustCompile(`Metrics are served on (http://127\.0\.0\.1:[0-9]+)/metrics`)

// TestMetricsListener: COUNSEL_METRICS_ADDR serves /metrics on a listener
// of its own without a token; the main listener has no /metrics then.
func TestMetricsListener(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	s := startServe(t, newEnv(t).with("COUNSEL_METRICS_ADDR", "127.0.0.1:0"))
	base := s.stdout.waitMatch(t, metricsAddrRe, s.done)[1]
	get := func(url string) (int, string) {
		resp, err := http.Get(url)
		is.NoErr(err)
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	get(s.base + "/healthz")
	status, body := get(base + "/metrics")
	is.Equal(status, 200)                                                                                    // no token needed
	is.True(strings.Contains(body, `counsel_http_requests_total{code="200",method="GET",route="/healthz"}`)) // the main listener's requests
	is.True(strings.Contains(body, `counsel_build_info{version="dev"}`))
	status, _ = get(base + "/")
	is.Equal(status, 404) // nothing but /metrics there
	status, _ = get(s.base + "/metrics")
	is.Equal(status, 404) // and no /metrics on the main listener without COUNSEL_METRICS_TOKEN
}
