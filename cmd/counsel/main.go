// Command counsel runs the Counsel service and its administration
// commands: serve, migrate, user create, user set-password, user
// reset-totp, backup, copy, healthcheck and version. main only calls run,
// which tests drive end to end.
package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"sync"
	"syscall"
	"time"

	"counsel/app"
	"counsel/app/transfer"
	"counsel/domain/account"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "dev"

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Getenv, os.Stdin, os.Stdout, os.Stderr); err != nil {
		if !errors.Is(err, flag.ErrHelp) {
			fmt.Fprintln(os.Stderr, "counsel:", err)
		}
		os.Exit(1)
	}
}

const usage = `Counsel: the back office of a small law firm, in one binary and one database file.

Usage:
  counsel serve [flags]                  run the HTTP service (flags: counsel serve -h)
  counsel migrate [--db DB]            apply database migrations
  counsel user create --email E --first-name F --last-name L [--role NAME ...] [--db DB]
                                         add a user; the password is the first line of standard input
  counsel user set-password --email E [--db DB]
                                         replace a password (first line of standard input); revokes sessions
  counsel user reset-totp --email E [--db DB]
                                         remove a user's authenticator app (lost phone); revokes sessions
  counsel backup [--db DB] DEST          write the whole record (every table, document and key) to a new
                                         SQLite file from one consistent snapshot, also while serving
  counsel backup --verify FILE           check a backup: integrity, every document's SHA-256, every
                                         signed PDF's signature
  counsel restore FILE --to DST          verify FILE, then copy it into the empty database DST
                                         (SQLite file or postgres:// URL)
  counsel restore --replica URL --to FILE
                                         write the newest state of a Litestream replica to a new file
  counsel copy --from SRC --to DST       copy a whole database, documents included, between engines
                                         (SQLite file <-> postgres:// URL); the target must be empty
                                         [--from-data-dir DIR]: an older SQLite source's document files
  counsel healthcheck [--addr ADDR]      exit 0 when GET /readyz of COUNSEL_ADDR answers 200 (container
                                         health checks; a wildcard host is asked on loopback)
  counsel version                        print the version

DB is a SQLite file path or a postgres:// URL. Every setting is also an
environment variable (COUNSEL_DB, COUNSEL_ADDR, ...).
`

// run is the whole program, with its environment passed in.
func run(ctx context.Context, args []string, getenv func(string) string, stdin io.Reader, stdout, stderr io.Writer) (err error) {
	// An error on the way out may quote a database URL (a driver's
	// message): it is printed without passwords or configured secrets.
	defer func() {
		err = app.RedactError(err, app.Options{DB: getenv("COUNSEL_DB"), SMTPPassword: getenv("COUNSEL_SMTP_PASSWORD"),
			OIDCClientSecret: getenv("COUNSEL_OIDC_CLIENT_SECRET"), DocuSealAPIKey: getenv("COUNSEL_DOCUSEAL_API_KEY"),
			DocuSealWebhookSecret: getenv("COUNSEL_DOCUSEAL_WEBHOOK_SECRET"), AdminPassword: getenv("COUNSEL_ADMIN_PASSWORD")})
	}()
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return errors.New("no command given")
	}
	switch args[0] {
	case "serve":
		return serve(ctx, args[1:], getenv, stdout, stderr)
	case "migrate":
		fs, db := dbFlags("migrate", getenv, stderr)
		if err := fs.Parse(args[1:]); err != nil {
			return err
		}
		names, err := app.Migrate(ctx, *db)
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "%s: %d migrations applied: %s\n", app.RedactDSN(*db), len(names), strings.Join(names, ", "))
		return nil
	case "user":
		return userCommand(ctx, args[1:], getenv, stdin, stdout, stderr)
	case "backup":
		return backupCommand(ctx, args[1:], getenv, stdout, stderr)
	case "restore":
		return restoreCommand(ctx, args[1:], getenv, stdout, stderr)
	case "copy":
		fs := flag.NewFlagSet("copy", flag.ContinueOnError)
		fs.SetOutput(stderr)
		from := fs.String("from", "", "source: SQLite file or postgres:// URL")
		to := fs.String("to", "", "target (must be empty): SQLite file or postgres:// URL")
		fromData := fs.String("from-data-dir", getenv("COUNSEL_DATA_DIR"), "COUNSEL_DATA_DIR of a SQLite source whose documents an older version kept as files")
		if err := fs.Parse(args[1:]); err != nil {
			return err
		}
		if *from == "" || *to == "" || fs.NArg() > 0 {
			return errors.New("usage: counsel copy --from SRC --to DST")
		}
		return transfer.Copy(ctx, *from, *to, transfer.CopyOptions{FromDataDir: *fromData, Progress: stdout})
	case "healthcheck":
		return healthcheck(ctx, args[1:], getenv, stdout, stderr)
	case "version", "--version", "-version":
		fmt.Fprintln(stdout, "counsel", version)
		return nil
	case "help", "-h", "--help":
		fmt.Fprint(stdout, usage)
		return nil
	}
	fmt.Fprint(stderr, usage)
	return fmt.Errorf("unknown command %q", args[0])
}

// dbFlags is a flag set with --db defaulting to COUNSEL_DB.
func dbFlags(name string, getenv func(string) string, stderr io.Writer) (*flag.FlagSet, *string) {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	def := getenv("COUNSEL_DB")
	if def == "" {
		def = "./counsel.db"
	}
	return fs, fs.String("db", def, "SQLite database file or postgres:// URL (COUNSEL_DB)")
}

// readPassword reads the first line of stdin.
func readPassword(stdin io.Reader) (string, error) {
	line, err := bufio.NewReader(stdin).ReadString('\n')
	if err != nil && !errors.Is(err, io.EOF) {
		return "", err
	}
	line = strings.TrimRight(line, "\r\n")
	if line == "" {
		return "", errors.New("give the password as the first line of standard input")
	}
	return line, nil
}

type multi []string

func (m *multi) String() string     { return strings.Join(*m, ",") }
func (m *multi) Set(v string) error { *m = append(*m, v); return nil }

func userCommand(ctx context.Context, args []string, getenv func(string) string, stdin io.Reader, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		return errors.New("usage: counsel user create|set-password|reset-totp ...")
	}
	fs, db := dbFlags("user "+args[0], getenv, stderr)
	email := fs.String("email", "", "the user's email")
	switch args[0] {
	case "create":
		first := fs.String("first-name", "", "first name")
		last := fs.String("last-name", "", "last name")
		var roles multi
		fs.Var(&roles, "role", "role name (repeatable); default: the default roles")
		if err := fs.Parse(args[1:]); err != nil {
			return err
		}
		if *email == "" || *first == "" || *last == "" {
			return errors.New("--email, --first-name and --last-name are required")
		}
		pw, err := readPassword(stdin)
		if err != nil {
			return err
		}
		id, err := app.CreateUser(ctx, *db, account.NewUser{Email: *email, FirstName: *first, LastName: *last, Roles: roles}, pw)
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "created user %d (%s)\n", id, account.NormalizeEmail(*email))
		return nil
	case "set-password":
		if err := fs.Parse(args[1:]); err != nil {
			return err
		}
		if *email == "" {
			return errors.New("--email is required")
		}
		pw, err := readPassword(stdin)
		if err != nil {
			return err
		}
		if err := app.SetPassword(ctx, *db, *email, pw); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "password of %s replaced; the user's sessions are revoked\n", account.NormalizeEmail(*email))
		return nil
	case "reset-totp":
		if err := fs.Parse(args[1:]); err != nil {
			return err
		}
		if *email == "" {
			return errors.New("--email is required")
		}
		had, err := app.ResetTOTP(ctx, *db, *email)
		if err != nil {
			return err
		}
		if had {
			fmt.Fprintf(stdout, "authenticator app of %s removed; the user's sessions are revoked and sign-in takes an emailed code again\n", account.NormalizeEmail(*email))
		} else {
			fmt.Fprintf(stdout, "%s had no authenticator app; the user's sessions are revoked\n", account.NormalizeEmail(*email))
		}
		return nil
	}
	return fmt.Errorf("unknown user command %q", args[0])
}

// serve runs the HTTP service until ctx ends, then lets in-flight
// requests finish (up to 30 s) and closes the app, once, on every path
// (its error joins serve's).
func serve(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) (err error) {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	cfg, err := app.LoadConfig(fs, args, getenv)
	if err != nil {
		return err
	}
	cfg.Stderr = stderr
	cfg.Version = version
	a, err := app.New(ctx, cfg)
	if err != nil {
		return app.RedactError(err, cfg.Options)
	}
	defer func() { err = errors.Join(err, a.Close()) }()
	ln, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		return err
	}
	srv := app.NewHTTPServer(a.Handler())
	base := "http://" + ln.Addr().String()
	a.Logger().Info("counsel listening", "addr", ln.Addr().String(), "db", app.RedactDSN(cfg.DB), "version", version)
	fmt.Fprintf(stdout, "Counsel %s is serving on %s (API reference: %s/docs)\n", version, base, base)
	fmt.Fprintf(stdout, "Open the console at %s/console\n", base)
	errc := make(chan error, 2)
	var msrv *http.Server
	if h := a.MetricsHandler(); h != nil {
		mln, err := net.Listen("tcp", cfg.MetricsAddr)
		if err != nil {
			ln.Close()
			return fmt.Errorf("metrics listener: %w", err)
		}
		msrv = app.NewHTTPServer(h)
		fmt.Fprintf(stdout, "Metrics are served on http://%s/metrics\n", mln.Addr())
		go func() { errc <- msrv.Serve(mln) }()
	}
	go func() { errc <- srv.Serve(ln) }()
	go func() { // once the first requests are in, as a quiet moment
		select {
		case <-time.After(5 * time.Second):
			releaseStartupMemory()
		case <-ctx.Done():
		}
	}()
	stopNotify := notifyReady(ctx, newNotifier(getenv, os.Getpid()), a)
	defer stopNotify()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	stopNotify()
	a.Logger().Info("shutting down: finishing in-flight requests")
	shutdownCtx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if msrv != nil {
		msrv.Shutdown(shutdownCtx)
	}
	if err := srv.Shutdown(shutdownCtx); err != nil {
		return fmt.Errorf("shutdown: %w", err)
	}
	if err := <-errc; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// ready pings the database once, for at most 5 seconds.
func ready(ctx context.Context, a *app.App) bool {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	return a.Ready(ctx) == nil
}

// notifyReady tells systemd (n; nil: not under systemd) READY=1 once the
// database answers, then keeps its watchdog fed while it does. The
// function it returns stops that, sends STOPPING=1, and waits; calls after
// the first do nothing.
func notifyReady(ctx context.Context, n *notifier, a *app.App) (stop func()) {
	if n == nil {
		return func() {}
	}
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for !ready(ctx, a) {
			select {
			case <-ctx.Done():
				return
			case <-time.After(time.Second):
			}
		}
		if err := n.send("READY=1"); err != nil {
			a.Logger().Warn("systemd notify failed", "err", err)
		}
		n.watch(ctx, a.Ready, func(err error) {
			a.Logger().Error("the database does not answer: no watchdog ping", "err", err)
		})
	}()
	var once sync.Once
	return func() {
		once.Do(func() {
			cancel()
			<-done
			n.send("STOPPING=1")
		})
	}
}

// healthcheck asks GET /readyz of the server at --addr (COUNSEL_ADDR) and
// succeeds only on a 200 within 5 seconds. A wildcard listen address
// (0.0.0.0, [::], :8080) is asked on loopback, where the server also
// listens.
func healthcheck(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("healthcheck", flag.ContinueOnError)
	fs.SetOutput(stderr)
	def := getenv("COUNSEL_ADDR")
	if def == "" {
		def = "127.0.0.1:8080"
	}
	addr := fs.String("addr", def, "the server's listen address (COUNSEL_ADDR)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	host, port, err := net.SplitHostPort(*addr)
	if err != nil {
		return fmt.Errorf("healthcheck: %q is not host:port: %w", *addr, err)
	}
	if ip := net.ParseIP(host); host == "" || (ip != nil && ip.IsUnspecified()) {
		host = "127.0.0.1"
		if ip != nil && ip.To4() == nil {
			host = "::1"
		}
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	url := "http://" + net.JoinHostPort(host, port) + "/readyz"
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return fmt.Errorf("healthcheck: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("healthcheck: %s answered %s", url, resp.Status)
	}
	fmt.Fprintln(stdout, "ready")
	return nil
}

// backupCommand is `counsel backup [--db DB] DEST` and `counsel backup
// --verify FILE`.
func backupCommand(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	fs, db := dbFlags("backup", getenv, stderr)
	verify := fs.String("verify", "", "verify the backup FILE instead of writing one")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *verify != "" {
		if fs.NArg() != 0 {
			return errors.New("usage: counsel backup --verify FILE")
		}
		report, failures, err := transfer.VerifyBackup(ctx, *verify, verifyOptions(getenv))
		if err != nil {
			return err
		}
		if len(failures) > 0 {
			for _, f := range failures {
				fmt.Fprintln(stdout, "FAIL", f)
			}
			return fmt.Errorf("%s: %d problems", *verify, len(failures))
		}
		report.Print(stdout)
		fmt.Fprintf(stdout, "%s: ok (integrity, every document's SHA-256, every signed PDF's signature)\n", *verify)
		return nil
	}
	if fs.NArg() != 1 {
		return errors.New("usage: counsel backup [--db DB] DEST, or counsel backup --verify FILE")
	}
	dest := fs.Arg(0)
	start := time.Now()
	report, err := transfer.Backup(ctx, *db, dest, transfer.BackupOptions{DataDir: getenv("COUNSEL_DATA_DIR")})
	if err != nil {
		return err
	}
	report.Print(stdout)
	fmt.Fprintf(stdout, "backed up %s to %s in %s\n", app.RedactDSN(*db), dest, time.Since(start).Round(time.Millisecond))
	return nil
}

func verifyOptions(getenv func(string) string) transfer.VerifyOptions {
	return transfer.VerifyOptions{PDFCert: getenv("COUNSEL_PDF_CERT"), PDFKey: getenv("COUNSEL_PDF_KEY")}
}

// restoreCommand is `counsel restore FILE --to DST`.
func restoreCommand(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("restore", flag.ContinueOnError)
	fs.SetOutput(stderr)
	to := fs.String("to", "", "target (must be empty): SQLite file or postgres:// URL")
	replica := fs.String("replica", "", "restore the newest state of a Litestream replica (file:// or s3:// URL) into the new SQLite file --to")
	// FILE may come before or after the flags.
	var file string
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		file, args = args[0], args[1:]
	}
	if err := fs.Parse(args); err != nil {
		return err
	}
	if file == "" && fs.NArg() == 1 {
		file = fs.Arg(0)
	} else if fs.NArg() != 0 {
		file = ""
	}
	if *replica != "" && file == "" && *to != "" {
		report, err := transfer.RestoreReplica(ctx, *replica, *to, verifyOptions(getenv))
		if err != nil {
			return err
		}
		report.Print(stdout)
		fmt.Fprintf(stdout, "restored %s from the replica and verified\n", *to)
		return nil
	}
	if file == "" || *to == "" || *replica != "" {
		return errors.New("usage: counsel restore FILE --to DST, or counsel restore --replica URL --to FILE")
	}
	return transfer.Restore(ctx, file, *to, transfer.RestoreOptions{Progress: stdout, Verify: verifyOptions(getenv), Actor: app.CLIActor("restore")})
}
