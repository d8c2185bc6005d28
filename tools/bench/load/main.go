// Command load puts a running Counsel under load from another process.
//
//	-mode refresh: signs in N sessions, then each worker refreshes its own
//	session in a loop (every refresh rotates the token, so each worker
//	carries its latest pair) and reports refreshes per second.
//	-mode login: N workers sign in (get-otp + login) in a loop, to watch
//	memory while argon2id runs under a flood; reports logins per second
//	and how many were refused with 429.
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// procCPU is the CPU time (user and system) process pid has used so far,
// from /proc/pid/stat (Linux; 100 ticks a second).
func procCPU(pid int) (time.Duration, bool) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, false
	}
	// The fields after the command name, which is in parentheses.
	f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
	if len(f) < 13 {
		return 0, false
	}
	var ticks int64
	for _, s := range f[11:13] { // utime, stime
		var v int64
		fmt.Sscan(s, &v)
		ticks += v
	}
	return time.Duration(ticks) * 10 * time.Millisecond, true
}

// cpu is this process's CPU time so far (user and system): the load
// competes with the server for the machine's cores, so it reports its own
// share.
func cpu() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

type tokens struct {
	AccessToken  string `json:"accessToken"`
	RefreshToken string `json:"refreshToken"`
}

func post(c *http.Client, url string, in any, out any) (int, error) {
	b, _ := json.Marshal(in)
	res, err := c.Post(url, "application/json", bytes.NewReader(b))
	if err != nil {
		return 0, err
	}
	defer res.Body.Close()
	if out != nil && res.StatusCode == 200 {
		err = json.NewDecoder(res.Body).Decode(out)
	}
	return res.StatusCode, err
}

// refresher refreshes over one kept-alive HTTP/1.1 connection of its own,
// as wrk does, without net/http's client (its connection pool and the two
// goroutines it runs per connection cost as much CPU a refresh as the
// server's own handling, on the same cores as the server).
type refresher struct {
	conn net.Conn
	r    *bufio.Reader
	host string
	path string
}

func dialRefresher(base string) (*refresher, error) {
	u, err := url.Parse(base)
	if err != nil || u.Scheme != "http" {
		return nil, fmt.Errorf("refresh needs an http:// URL, not %q", base)
	}
	conn, err := net.Dial("tcp", u.Host)
	if err != nil {
		return nil, err
	}
	return &refresher{conn: conn, r: bufio.NewReader(conn), host: u.Host, path: strings.TrimSuffix(u.Path, "/") + "/api/account/refresh-token"}, nil
}

// refresh sends t and returns the pair answered; anything but a 200 with
// both tokens is an error.
func (c *refresher) refresh(t tokens) (tokens, error) {
	body, _ := json.Marshal(t)
	req := fmt.Appendf(nil, "POST %s HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n", c.path, c.host, len(body))
	if _, err := c.conn.Write(append(req, body...)); err != nil {
		return tokens{}, err
	}
	res, err := http.ReadResponse(c.r, nil)
	if err != nil {
		return tokens{}, err
	}
	b, err := io.ReadAll(res.Body)
	res.Body.Close()
	if err != nil {
		return tokens{}, err
	}
	if res.StatusCode != 200 {
		return tokens{}, fmt.Errorf("%s: %s", res.Status, b)
	}
	var next tokens
	if err := json.Unmarshal(b, &next); err != nil || next.AccessToken == "" || next.RefreshToken == "" {
		return tokens{}, fmt.Errorf("no token pair in %s (%v)", b, err)
	}
	return next, nil
}

func main() {
	base := flag.String("url", "http://127.0.0.1:18080", "Counsel base URL")
	email := flag.String("email", "admin@localhost", "user to sign in")
	password := flag.String("password", "", "the user's password")
	workers := flag.Int("c", 16, "concurrent sessions")
	dur := flag.Duration("d", 10*time.Second, "how long to run")
	mode := flag.String("mode", "refresh", "refresh or login")
	serverPID := flag.Int("server-pid", 0, "refresh: also report this local process's CPU time a refresh (the server's)")
	flag.Parse()
	if *mode == "login" {
		logins(*base, *email, *password, *workers, *dur)
		return
	}
	c := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: *workers * 2}}
	sessions := make([]tokens, *workers)
	for i := range sessions {
		var otp struct{ OTP string }
		if st, err := post(c, *base+"/api/account/login/get-otp", map[string]string{"email": *email}, &otp); st != 200 {
			fmt.Fprintln(os.Stderr, "get-otp:", st, err)
			os.Exit(1)
		}
		if st, err := post(c, *base+"/api/account/login", map[string]string{"email": *email, "password": *password, "otp": otp.OTP}, &sessions[i]); st != 200 {
			fmt.Fprintln(os.Stderr, "login:", st, err)
			os.Exit(1)
		}
	}
	var ok, failed atomic.Int64
	var mu sync.Mutex
	var lat []time.Duration
	cpu0 := cpu()
	srv0, srvOK := procCPU(*serverPID)
	deadline := time.Now().Add(*dur)
	var wg sync.WaitGroup
	for i := range sessions {
		wg.Add(1)
		go func(t tokens) {
			defer wg.Done()
			var mine []time.Duration
			defer func() {
				mu.Lock()
				lat = append(lat, mine...)
				mu.Unlock()
			}()
			rc, err := dialRefresher(*base)
			if err != nil {
				fmt.Fprintln(os.Stderr, "refresh:", err)
				failed.Add(1)
				return
			}
			defer rc.conn.Close()
			for time.Now().Before(deadline) {
				start := time.Now()
				next, err := rc.refresh(t)
				mine = append(mine, time.Since(start))
				if err != nil {
					fmt.Fprintln(os.Stderr, "refresh:", err)
					failed.Add(1)
					return
				}
				ok.Add(1)
				t = next
			}
		}(sessions[i])
	}
	wg.Wait()
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	pct := func(p float64) time.Duration {
		if len(lat) == 0 {
			return 0
		}
		return lat[int(p*float64(len(lat)-1))]
	}
	used := cpu() - cpu0
	n := max(1, ok.Load()+failed.Load())
	server := ""
	if srv1, ok := procCPU(*serverPID); ok && srvOK && *serverPID > 0 {
		server = fmt.Sprintf(", server CPU %s a refresh", ((srv1 - srv0) / time.Duration(n)).Round(time.Microsecond))
	}
	fmt.Printf("refreshes: %d ok, %d failed in %s = %.0f/s; latency p50 %s p99 %s; load tool CPU %s a refresh%s\n",
		ok.Load(), failed.Load(), *dur, float64(ok.Load())/dur.Seconds(), pct(0.5), pct(0.99),
		(used / time.Duration(n)).Round(time.Microsecond), server)
}

func logins(base, email, password string, workers int, dur time.Duration) {
	c := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: workers * 2}}
	var ok, limited, failed atomic.Int64
	deadline := time.Now().Add(dur)
	var wg sync.WaitGroup
	for i := range workers {
		wg.Add(1)
		email := email
		if strings.Contains(email, "%d") { // one user per worker: a newer code replaces the older
			email = fmt.Sprintf(email, i)
		}
		go func() {
			defer wg.Done()
			for time.Now().Before(deadline) {
				var otp struct{ OTP string }
				if st, _ := post(c, base+"/api/account/login/get-otp", map[string]string{"email": email}, &otp); st != 200 {
					failed.Add(1)
					continue
				}
				switch st, _ := post(c, base+"/api/account/login", map[string]string{"email": email, "password": password, "otp": otp.OTP}, nil); st {
				case 200:
					ok.Add(1)
				case 429:
					limited.Add(1)
				default:
					failed.Add(1)
				}
			}
		}()
	}
	wg.Wait()
	fmt.Printf("logins: %d ok, %d refused with 429, %d failed in %s = %.1f/s with %d concurrent clients\n",
		ok.Load(), limited.Load(), failed.Load(), dur, float64(ok.Load())/dur.Seconds(), workers)
}
