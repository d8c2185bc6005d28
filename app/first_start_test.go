package app_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/matryer/is"

	"counsel/adapters/argon2"
	"counsel/adapters/postgres/pgtest"
	"counsel/app"
	"counsel/app/apptest"
)

// TestInstancesStartingTogetherCreateOnce: several instances started at
// the same moment on an empty PostgreSQL database create what a first
// start creates (the token signing key, the signing-link, TOTP, OTP and
// console keys, the evidence signing identity, the built-in roles and
// the first administrator) exactly once, so a token issued by any of
// them is accepted by all, and all serve one evidence certificate.
// Repeated, as the race it guards against showed in 2 starts of 6.
func TestInstancesStartingTogetherCreateOnce(t *testing.T) {
	pgtest.Skip(t)
	const rounds, n = 10, 3
	for round := range rounds {
		t.Run(fmt.Sprint("round ", round), func(t *testing.T) {
			is := is.New(t)
			url, dir := pgtest.URL(t), t.TempDir()
			clock := apptest.NewClock(apptest.Start)
			apps := make([]*app.App, n)
			errs := make([]error, n)
			cfgs := make([]app.Config, n)
			go1 := make(chan struct{})
			var wg sync.WaitGroup
			for i := range n {
				cfg := app.DefaultConfig()
				cfg.DB, cfg.DataDir, cfg.SpoolDir = url, dir, dir
				cfg.AdminEmail, cfg.AdminPassword = apptest.AdminEmail, apptest.AdminPassword
				cfg.OTPResendInterval, cfg.OTPHourlyLimit, cfg.AuthRateLimit = 0, 0, 0
				cfg.Clock = clock
				cfg.HashParams = &argon2.Params{MemoryKiB: 64, Time: 1, Threads: 1}
				cfg.LogLevel = "error"
				cfgs[i] = cfg
				wg.Add(1)
				go func() {
					defer wg.Done()
					<-go1
					apps[i], errs[i] = app.New(context.Background(), cfgs[i])
				}()
			}
			close(go1) // all at once
			wg.Wait()
			var servers []*apptest.Server
			for i, a := range apps {
				is.NoErr(errs[i]) // every instance starts
				srv := httptest.NewServer(a.Handler())
				t.Cleanup(func() {
					srv.Close()
					a.Close()
				})
				servers = append(servers, &apptest.Server{Server: srv, App: a, Clock: clock, Config: cfgs[i]})
			}

			count := func(q string) int {
				var v int
				is.NoErr(servers[0].QueryRow(context.Background(), q).Scan(&v))
				return v
			}
			is.Equal(count(`SELECT count(*) FROM signing_keys`), 1) // one token signing key
			is.Equal(count(`SELECT count(*) FROM totp_keys`), 1)    // one authenticator key
			is.Equal(count(`SELECT count(*) FROM users`), 1)        // one first administrator
			is.Equal(count(`SELECT count(*) FROM roles`), 2)        // Administrator and Staff, once
			is.Equal(count(`SELECT count(*) FROM settings WHERE name IN
				('otp_hmac_key', 'console_key', 'signing_pages_key', 'pdf_signing_identity')`), 4)

			var pem []byte
			for i, s := range servers {
				tok := s.Admin(t)
				for j, other := range servers {
					r := other.Do(t, "GET", "/api/me", tok, nil)
					if r.Status != 200 {
						t.Errorf("a token of instance %d on instance %d: %d %s", i, j, r.Status, r.Body)
					}
				}
				res, err := http.Get(s.URL + "/.well-known/counsel-signing.pem")
				is.NoErr(err)
				b, err := io.ReadAll(res.Body)
				res.Body.Close()
				is.NoErr(err)
				if i == 0 {
					pem = b
				}
				is.Equal(string(b), string(pem)) // one evidence certificate
			}
		})
	}
}
