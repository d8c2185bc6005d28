package main

import (
	"net/url"
	"strings"
	"testing"

	"counsel/adapters/postgres/pgtest"

	"github.com/matryer/is"
)

// TestNoSecretsInLogs runs the server on PostgreSQL with a password in
// the database URL and an SMTP password, drives sign-in traffic that logs
// (failed email deliveries, failed sign-ins), stops it, and scans
// everything it wrote (standard output, the log on standard error, run's
// error) for either secret. Then a database that cannot be reached: the
// driver's error must not quote the password either.
func TestNoSecretsInLogs(t *testing.T) {
	t.Parallel()
	pgtest.Skip(t)
	const dbSecret, smtpSecret, adminSecret = "db-Pa55word-4711", "smtp-Pa55word-0815", "admin-Pa55word-1234"
	u, err := url.Parse(pgtest.URL(t))
	if err != nil {
		t.Fatal(err)
	}
	u.User = url.UserPassword(u.User.Username(), dbSecret) // trust authentication ignores it
	scan := func(t *testing.T, where, text string) {
		t.Helper()
		for _, s := range []string{dbSecret, smtpSecret, adminSecret, url.QueryEscape(dbSecret)} {
			if strings.Contains(text, s) {
				t.Errorf("%s holds a secret (%q):\n%s", where, s, text)
			}
		}
	}

	t.Run("serving", func(t *testing.T) {
		is := is.New(t)
		env := newEnv(t).with("COUNSEL_DB", u.String(), "COUNSEL_LOG_LEVEL", "debug",
			"COUNSEL_OTP_DELIVERY", "smtp", "COUNSEL_SMTP_ADDR", "127.0.0.1:1", "COUNSEL_SMTP_FROM", "counsel@firm.example",
			"COUNSEL_SMTP_USERNAME", "counsel", "COUNSEL_SMTP_PASSWORD", smtpSecret, "COUNSEL_ADMIN_PASSWORD", adminSecret)
		s := startServe(t, env)
		st, _ := call(t, "POST", s.base+"/api/account/login/get-otp", "", map[string]string{"email": "admin@localhost"})
		is.Equal(st, 200) // a code is emailed: the relay refuses, which is logged
		st, _ = call(t, "POST", s.base+"/api/account/login", "", map[string]string{"email": "admin@localhost", "password": adminSecret, "otp": "000000"})
		is.Equal(st, 401) // a wrong code
		err := s.stop(t)
		is.NoErr(err) // stopped cleanly
		out, logs := s.stdout.String(), s.stderr.String()
		scan(t, "standard output", out)
		scan(t, "the log", logs)
		is.True(strings.Contains(logs, "xxxxx"))                           // the database URL is logged, its password masked
		is.True(strings.Contains(logs, "one-time password not delivered")) // the failed delivery was logged
	})

	t.Run("unreachable database", func(t *testing.T) {
		is := is.New(t)
		bad := *u
		bad.Host = "127.0.0.1:1"
		for _, dsn := range []string{bad.String(), bad.String() + "&password=" + dbSecret} {
			env := newEnv(t).with("COUNSEL_DB", dsn, "COUNSEL_SMTP_PASSWORD", smtpSecret)
			stdout, stderr, err := cliContext(canceled(), env, "", "serve")
			is.True(err != nil) // no database
			scan(t, "run's error", err.Error())
			scan(t, "standard output", stdout)
			scan(t, "standard error", stderr)
			stdout, stderr, err = cli(env, "", "migrate")
			is.True(err != nil) // no database
			scan(t, "migrate's error", err.Error())
			scan(t, "standard output", stdout+stderr)
		}
	})
}
