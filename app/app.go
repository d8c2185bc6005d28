// Package app is Counsel's composition root: it reads the configuration,
// opens the database, builds the adapters, wires them into the use cases
// of app/<module>, and hands the HTTP adapter its services. Only app and
// cmd see every package; arch_test.go keeps the other dependency arrows
// pointing inward.
package app

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"sync"
	"time"

	"counsel/adapters/argon2"
	"counsel/adapters/console"
	httpadapter "counsel/adapters/http"
	"counsel/adapters/jwt"
	"counsel/adapters/litestream"
	"counsel/adapters/metrics"
	"counsel/adapters/oidc"
	"counsel/adapters/otp"
	"counsel/adapters/pages"
	"counsel/adapters/smtp"
	"counsel/adapters/sqlite"
	"counsel/adapters/totp"
	"counsel/adapters/webauthn"
	"counsel/app/accounts"
	"counsel/app/auditlog"
	"counsel/app/backups"
	"counsel/app/calendar"
	"counsel/app/contracts"
	"counsel/app/keydates"
	"counsel/app/outbox"
	"counsel/app/remunerations"
	"counsel/app/signatures"
	"counsel/app/stores"
	"counsel/app/users"
	"counsel/domain/account"
	"counsel/domain/mail"
	"counsel/domain/webhook"
	"counsel/ports"
)

// App is a wired Counsel service.
type App struct {
	cfg Config
	log *slog.Logger

	closeOnce sync.Once
	closeErr  error
	// replica streams a SQLite database to COUNSEL_REPLICA_URL; nil off.
	replica *litestream.Replicator
	// logs batches the server log's request lines (logbuffer.go); nil with a
	// Logger of the caller's.
	logs     *logBuffer
	db       *Stores
	handler  http.Handler
	Accounts *accounts.Service
	// AuditLog reads and prunes the security events.
	AuditLog *auditlog.Service
	hasher   *argon2.Hasher
	store    AccountStore
	// bg is the context of background work; stop cancels it and loops
	// counts the goroutines Close waits for (background.go).
	bg      context.Context
	stop    context.CancelFunc
	loops   sync.WaitGroup
	closers []func() error
	// metrics is nil when metrics are off (metrics.go).
	metrics *metrics.Registry

	// mailer is the one SMTP sender of every email; nil without
	// COUNSEL_SMTP_ADDR and COUNSEL_SMTP_FROM.
	mailer *smtp.Mailer
	// Outbox sends queued mail (app/outbox); tests drive it (RunOnce).
	Outbox *outbox.Worker
	// Webhooks delivers the webhook outbox (app/outbox).
	Webhooks *outbox.WebhookWorker

	// Contracts is the contract use case; tests drive its expiry sweep
	// (ExpireDue) with the fake clock.
	Contracts *contracts.Service
	// KeyDates is the key-date digest job; tests run it (Run) with the
	// fake clock.
	KeyDates *keydates.Service
	// Signing is the digital-signing use case (see signing.go).
	Signing       *signatures.Service
	signingPages  ports.SigningPages
	contractStore ContractStore
	blobs         ports.BlobStore
}

type systemClock struct{}

func (systemClock) Now() time.Time { return time.Now().UTC() }

// NewLogger builds the logger of the settings, writing to w.
func NewLogger(cfg Config, w io.Writer) *slog.Logger {
	if w == nil {
		w = io.Discard
	}
	var level slog.Level
	_ = level.UnmarshalText([]byte(cfg.LogLevel))
	opts := &slog.HandlerOptions{Level: level}
	if cfg.LogFormat == "json" {
		return slog.New(slog.NewJSONHandler(w, opts))
	}
	return slog.New(newTextHandler(w, opts))
}

// New opens the database, bootstraps it on first start, and wires the
// service. Close releases everything.
func New(ctx context.Context, cfg Config) (*App, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if cfg.Clock == nil {
		cfg.Clock = systemClock{}
	}
	if cfg.Rand == nil {
		cfg.Rand = rand.Reader
	}
	var logs *logBuffer
	if cfg.Logger == nil {
		var w io.Writer
		if cfg.Stderr != nil {
			logs = newLogBuffer(cfg.Stderr)
			w = logs
		}
		cfg.Logger = NewLogger(cfg, w)
	}
	// No log line shows a configured secret, whoever writes it.
	cfg.Logger = slog.New(newRedactHandler(cfg.Logger.Handler(), secretsOf(cfg.Options)))
	a := &App{cfg: cfg, log: cfg.Logger, logs: logs}
	a.bg, a.stop = context.WithCancel(context.Background())
	spool := cfg.SpoolDir
	if Engine(cfg.DB) == "sqlite" && spool == "" {
		// Documents are rows on both engines; on SQLite the data folder
		// holds only uploads on their way in (and, from an older
		// version, files MoveDocumentFiles moves into the database).
		spool = filepath.Join(cfg.DataDir, "tmp")
		if err := ownerOnlyDirs(cfg.DataDir); err != nil {
			a.Close()
			return nil, err
		}
		if err := sqlite.CleanSpool(spool); err != nil {
			a.Close()
			return nil, err
		}
	}
	// With a replica, Litestream owns the WAL's checkpoints.
	db, err := stores.OpenWith(ctx, cfg.DB, spool, sqlite.Options{ExternalCheckpoints: cfg.ReplicaURL != ""}, cfg.Clock.Now)
	if err != nil {
		a.Close()
		return nil, err
	}
	a.db = db
	// The outbox worker exists before any write, so that a commit that
	// queued mail wakes it (wireMail starts it).
	a.mailer = newMailer(cfg)
	a.Outbox = outbox.NewWorker(outbox.Worker{Store: db.Outbox, Sender: a.mailSender(), Clock: cfg.Clock, Log: a.log})
	// The one path by which cached principals learn of a change: the
	// stores announce it after the commit (and other instances' commits
	// through followChanges).
	db.OnChange(func() {
		if a.Accounts != nil {
			a.Accounts.Invalidate()
		}
	})
	a.Webhooks = outbox.NewWebhookWorker(outbox.WebhookWorker{Store: db.Webhooks, Clock: cfg.Clock, Log: a.log, Scale: cfg.WebhookRetryScale})
	db.OnEffects(func(fx []ports.Effect) {
		for _, e := range fx {
			switch e.(type) {
			case ports.Mail:
				a.Outbox.Wake()
			case ports.WebhookEvent:
				a.Webhooks.Wake()
			}
		}
	})
	if cfg.ReplicaURL != "" {
		r, err := litestream.Start(ctx, cfg.DB, cfg.ReplicaURL, a.log)
		if err != nil {
			a.Close()
			return nil, err
		}
		a.replica = r
		a.log.Info("replicating the database with Litestream", "replica", RedactDSN(cfg.ReplicaURL))
	}
	moved, err := db.MoveDocumentFiles(ctx, cfg.DataDir)
	if err != nil {
		a.Close()
		return nil, fmt.Errorf("move documents into the database: %w", err)
	}
	if moved.Count > 0 {
		a.log.Info("documents moved into the database, each checked against its SHA-256; the files under the folder are no longer used and may be removed",
			"documents", moved.Count, "bytes", moved.Bytes, "folder", moved.Folder)
	}
	if err := a.wire(ctx); err != nil {
		a.Close()
		return nil, err
	}
	// The first start hashes the admin password (19 MiB): hand that memory
	// back now rather than idling on it.
	debug.FreeOSMemory()
	return a, nil
}

func (a *App) wire(ctx context.Context) error {
	cfg := a.cfg
	store := a.db.Accounts
	hp := argon2.DefaultParams
	if cfg.HashParams != nil {
		hp = *cfg.HashParams
	}
	hasher := argon2.New(argon2.Options{Params: hp, Concurrency: cfg.HashConcurrency, Rand: cfg.Rand})
	a.hasher, a.store = hasher, store
	a.metrics = a.newMetrics()
	if err := a.bootstrap(ctx, store, hasher); err != nil {
		return err
	}
	keys, err := ensureSigningKey(ctx, store, cfg)
	if err != nil {
		return err
	}
	tokens, err := jwt.New(a.issuer(), keys)
	if err != nil {
		return err
	}
	otpKey, err := store.Secret(ctx, "otp_hmac_key", func() ([]byte, error) { return randomBytes(cfg.Rand, 32) })
	if err != nil {
		return fmt.Errorf("otp key: %w", err)
	}
	var sender ports.OTPSender
	switch cfg.OTPDelivery {
	case "response":
		a.log.Warn("COUNSEL_OTP_DELIVERY=response: one-time passwords are returned in the get-otp response; use log or smtp outside development")
	case "log":
		sender = logSender{a.log}
	case "smtp":
		sender = mailSender{a.mailer}
	}
	totpStore := a.db.TOTP
	vault, err := newVault(ctx, totpStore, cfg)
	if err != nil {
		return err
	}
	idp, linker, err := a.identityProvider(ctx)
	if err != nil {
		return err
	}
	var ceremony ports.PasskeyCeremony
	if c, err := webauthn.New(a.issuer()); err != nil {
		a.log.Warn("passkeys are off: the relying party comes from COUNSEL_PUBLIC_URL", "err", err)
	} else {
		ceremony = c
	}
	a.Accounts = accounts.New(accounts.Config{
		AccessTTL:  cfg.AccessTTL,
		RefreshTTL: cfg.RefreshTTL,
		OTP: account.OTPPolicy{TTL: cfg.OTPTTL, ResendInterval: cfg.OTPResendInterval,
			HourlyLimit: cfg.OTPHourlyLimit, MaxAttempts: 5},
		Lockout:      account.LockoutPolicy{Threshold: cfg.LockoutThreshold, Duration: cfg.LockoutDuration},
		Delivery:     cfg.OTPDelivery,
		ConsoleIdle:  cfg.ConsoleIdle,
		ReauthWindow: cfg.ReauthWindow,
		PublicURL:    cfg.PublicURL,
	}, accounts.Deps{
		Store: store, Hasher: hasher, Tokens: tokens, Codes: otp.New(otpKey, cfg.Rand), Sender: sender,
		TOTP: totp.New(cfg.TOTPIssuer, cfg.Rand), Vault: vault, TOTPStore: totpStore,
		IdP: idp, Users: linker, APIKeys: a.db.APIKeys, Ceremony: ceremony, Passkeys: a.db.Passkeys,
		Clock: cfg.Clock, Rand: cfg.Rand, NewID: accounts.NewID, Logger: a.log,
		Observer: a.accountObserver(), Events: a.db.Audit,
	})
	a.AuditLog = auditlog.New(a.db.Audit, cfg.Clock)
	a.startHousekeeping(store)
	a.followChanges()
	if a.metrics != nil {
		a.metrics.Job(metrics.JobOutbox)
		a.metrics.Outbox(metrics.OutboxMail, a.db.Outbox.PendingMail)
		a.Outbox.Succeeded = func() { a.jobSucceeded(metrics.JobOutbox) }
	}
	a.goBackground(func(ctx context.Context) { a.Outbox.Run(ctx, mailPoll) })
	roleStore := a.db.Roles
	roles := accounts.NewRoles(roleStore)
	apiKeys := accounts.NewAPIKeys(a.Accounts, a.db.APIKeys, roleStore)
	userSvc := users.New(users.Deps{Store: a.db.Users, Roles: roleStore, Hasher: hasher,
		Passwords: a.Accounts, TOTP: a.Accounts, Passkeys: a.Accounts, Recent: a.Accounts, Clock: cfg.Clock, Sessions: a.Accounts,
		Render: httpadapter.WebhookData})
	remunerationSvc := remunerations.New(a.db.Remunerations)
	if err := a.wireContracts(); err != nil {
		return err
	}
	if err := a.wireSigning(ctx, store, a.db.Users); err != nil {
		return err
	}
	webhookSvc, err := a.wireWebhooks(ctx)
	if err != nil {
		return err
	}
	consoleKey, err := store.Secret(ctx, "console_key", func() ([]byte, error) { return randomBytes(cfg.Rand, 32) })
	if err != nil {
		return fmt.Errorf("console key: %w", err)
	}
	backupSvc := &backups.Service{Log: a.db.BackupLog}
	if err := a.scheduleBackups(); err != nil {
		return err
	}
	web := console.NewHandler(console.Services{
		Accounts: a.Accounts, TOTP: a.Accounts, Passkeys: a.Accounts, Reauth: a.Accounts, APIKeys: apiKeys, Sessions: a.Accounts, Roles: roles, Users: userSvc, Remunerations: remunerationSvc, IdP: a.consoleIdP(),
		Contracts: a.Contracts, Signing: a.Signing, Backups: backupSvc, Mail: outbox.Service{Store: a.db.Outbox}, Audit: a.AuditLog,
		Webhooks: webhookSvc,
	}, console.Options{
		Logger: a.log, PublicURL: cfg.PublicURL, Key: consoleKey, DevOTP: cfg.OTPDelivery == "response",
		IdPName: cfg.OIDCName, Now: cfg.Clock.Now,
	})
	pg := pages.New(pages.Services{
		SigningPages: a.signingPages, Evidence: a.Signing,
		APIDocument: sync.OnceValue(func() []byte { return httpadapter.DocumentVersion(cfg.Version) }),
	}, pages.Options{Logger: a.log, FrameAncestors: cfg.FrameAncestors})
	// FrameGuard again around the whole handler: pages of other adapters
	// mounted here later refuse framing as well (docs/decisions.md §12).
	a.handler = httpadapter.FrameGuard(httpadapter.NewHandler(httpadapter.Services{
		Console:       web,
		Accounts:      a.Accounts,
		TOTP:          a.Accounts,
		Sessions:      a.Accounts,
		Audit:         a.AuditLog,
		Passkeys:      a.Accounts,
		Reauth:        a.Accounts,
		APIKeys:       apiKeys,
		Roles:         roles,
		Users:         userSvc,
		Remunerations: remunerationSvc,
		Contracts:     a.Contracts,
		Signing:       a.Signing,
		Evidence:      a.Signing,
		Pages:         pg.Handlers(),
		Backups:       backupSvc,
		Mail:          outbox.Service{Store: a.db.Outbox},
		Webhooks:      webhookSvc,
		Calendar: calendar.New(calendar.Deps{Store: a.db.Calendars, Contracts: a.contractStore, Access: store,
			Clock: cfg.Clock, Rand: cfg.Rand, PublicURL: a.issuer()}),
		Ready: a.db.Ping,
	}, httpadapter.Options{
		Logger:         a.log,
		CORSOrigins:    cfg.CORSOrigins,
		TrustedProxies: cfg.TrustedProxies,
		AuthRateLimit:  cfg.AuthRateLimit,
		RateLimiter:    a.rateLimiter(),
		Now:            cfg.Clock.Now,
		Version:        cfg.Version,
		Requests:       a.requestObserver(),
		Metrics:        a.mainMetrics(),
		MetricsToken:   cfg.MetricsToken,
	}))
	return nil
}

// newVault opens the authenticator-app vault under its key, which is
// made on first start and kept in a table of its own.
func newVault(ctx context.Context, store ports.TOTPStore, cfg Config) (*totp.Vault, error) {
	key, err := store.TOTPKey(ctx, func() ([]byte, error) { return randomBytes(cfg.Rand, totp.KeySize) })
	if err != nil {
		return nil, fmt.Errorf("totp key: %w", err)
	}
	return totp.NewVault(key, cfg.Rand)
}

// identityProvider builds the OpenID Connect provider and the linker of
// its identities to users when COUNSEL_OIDC_ISSUER and
// COUNSEL_OIDC_CLIENT_ID are set; both are nil otherwise, and sign-in
// through an identity provider answers 401. Nothing is fetched here: the
// provider may be down while the service starts.
func (a *App) identityProvider(ctx context.Context) (ports.IdentityProvider, accounts.IdentityLinker, error) {
	cfg := a.cfg
	if cfg.OIDCIssuer == "" || cfg.OIDCClientID == "" {
		if cfg.OIDCAutoProvision {
			a.log.Warn("COUNSEL_OIDC_AUTO_PROVISION is set but COUNSEL_OIDC_ISSUER and COUNSEL_OIDC_CLIENT_ID are not: identity-provider sign-in is off")
		}
		return nil, nil, nil
	}
	p, err := oidc.New(ctx, oidc.Config{
		Issuer:       cfg.OIDCIssuer,
		ClientID:     cfg.OIDCClientID,
		ClientSecret: cfg.OIDCClientSecret,
		RedirectURI:  cfg.OIDCRedirectURI,
		JWKSURL:      cfg.OIDCJWKSURL,
		Now:          cfg.Clock.Now,
	})
	if err != nil {
		return nil, nil, fmt.Errorf("identity provider: %w", err)
	}
	a.closers = append(a.closers, p.Close)
	if cfg.OIDCAutoProvision && len(cfg.OIDCAllowedDomains) == 0 {
		a.log.Warn("COUNSEL_OIDC_AUTO_PROVISION is on but COUNSEL_OIDC_ALLOWED_DOMAINS is empty: no user will be provisioned")
	}
	a.log.Info("identity-provider sign-in on", "issuer", cfg.OIDCIssuer, "code_exchange", cfg.OIDCClientSecret != "",
		"auto_provision", cfg.OIDCAutoProvision, "allowed_domains", strings.Join(cfg.OIDCAllowedDomains, ","))
	linker := accounts.NewIdentities(a.db.Identities, accounts.IdentityPolicy{
		AutoProvision:  cfg.OIDCAutoProvision,
		AllowedDomains: cfg.OIDCAllowedDomains,
	}, cfg.Clock, a.log)
	return p, linker, nil
}

// ownerOnlyDirs creates dataDir 0700 and tightens it, and the documents
// folder an older version kept there, when wider: the files left in it
// are clients' contracts until someone removes them.
func ownerOnlyDirs(dataDir string) error {
	if err := os.MkdirAll(dataDir, 0o700); err != nil {
		return fmt.Errorf("data dir: %w", err)
	}
	for _, d := range []string{dataDir, filepath.Join(dataDir, "documents")} {
		if err := os.Chmod(d, 0o700); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("data dir: %w", err)
		}
	}
	return nil
}

// sweepInterval is how often Signed contracts past their end date are
// expired (docs/decisions.md §5).
const sweepInterval = time.Minute

// wireContracts builds the contract module over the database and the
// document folder, and starts the expiry sweep, which Close stops.
func (a *App) wireContracts() error {
	blobs := a.db.Blobs
	a.contractStore, a.blobs = a.db.Contracts, blobs
	a.Contracts = contracts.New(contracts.Deps{
		Store: a.contractStore, Blobs: blobs, Clock: a.cfg.Clock, Rand: a.cfg.Rand, Logger: a.log, Users: a.db.Users,
		Render: httpadapter.WebhookData,
	})
	a.every(sweepInterval, a.counted("contract expiry sweep", a.exclusive("contract-expiry", a.tracked(metrics.JobSweep, a.Contracts.ExpireDue))))
	a.KeyDates = keydates.New(keydates.Deps{Store: a.db.KeyDates, Clock: a.cfg.Clock, Links: mail.Links{PublicURL: a.issuer()},
		Thresholds: a.cfg.KeyDateReminders})
	a.every(a.cfg.KeyDateInterval, a.counted("key-date digests", a.exclusive("key-dates", a.tracked(metrics.JobKeyDates, a.KeyDates.Run))))
	return nil
}

// issuer is the iss claim of access tokens.
func (a *App) issuer() string {
	if a.cfg.PublicURL != "" {
		return strings.TrimRight(a.cfg.PublicURL, "/")
	}
	return "http://" + a.cfg.Addr
}

func randomBytes(r io.Reader, n int) ([]byte, error) {
	b := make([]byte, n)
	_, err := io.ReadFull(r, b)
	return b, err
}

// ensureSigningKey creates the access-token key on first start and returns
// the keys still needed: the newest, and retired ones whose tokens may not
// have expired yet.
func ensureSigningKey(ctx context.Context, store ports.AccountStore, cfg Config) ([]account.SigningKey, error) {
	keys, err := store.SigningKeys(ctx)
	if err != nil {
		return nil, fmt.Errorf("signing keys: %w", err)
	}
	if len(keys) == 0 {
		seed, err := randomBytes(cfg.Rand, 32)
		if err != nil {
			return nil, err
		}
		kidb, err := randomBytes(cfg.Rand, 12)
		if err != nil {
			return nil, err
		}
		k := jwt.NewKey(base64.RawURLEncoding.EncodeToString(kidb), seed, cfg.Clock.Now())
		// Instances starting together on an empty database each offer a
		// key; the store keeps exactly one, which all of them read back.
		if err := store.EnsureSigningKey(ctx, k); err != nil {
			return nil, fmt.Errorf("signing key: %w", err)
		}
		if keys, err = store.SigningKeys(ctx); err != nil {
			return nil, err
		}
	}
	now := cfg.Clock.Now()
	var live []account.SigningKey
	for i, k := range keys {
		if i == 0 || k.RetiredAt == nil || now.Sub(*k.RetiredAt) < cfg.AccessTTL {
			live = append(live, k)
		}
	}
	return live, nil
}

// bootstrap creates the roles and the first administrator on an empty
// database, printing a random password once when none is configured.
func (a *App) bootstrap(ctx context.Context, store ports.AccountStore, hasher ports.PasswordHasher) error {
	password, generated := a.cfg.AdminPassword, false
	if password == "" {
		b, err := randomBytes(a.cfg.Rand, 15)
		if err != nil {
			return err
		}
		password, generated = base64.RawURLEncoding.EncodeToString(b), true
	}
	// Hashing costs 19 MiB and tens of milliseconds: only on an empty database.
	if has, err := store.HasUsers(ctx); err != nil {
		return err
	} else if has {
		password = ""
	}
	hash := ""
	if password != "" {
		var err error
		if hash, err = hasher.Hash(ctx, password); err != nil {
			return err
		}
	}
	created, err := store.Bootstrap(ctx, account.NewUser{Email: a.cfg.AdminEmail, FirstName: "Admin", LastName: "", PasswordHash: hash})
	if err != nil {
		return fmt.Errorf("bootstrap: %w", err)
	}
	if created {
		a.log.Info("created the first administrator", "email", account.NormalizeEmail(a.cfg.AdminEmail))
		if generated && a.cfg.Stderr != nil {
			if a.logs != nil {
				a.logs.Flush() // the log's lines first
			}
			fmt.Fprintf(a.cfg.Stderr, "\nFirst start: created administrator %s with password\n\n    %s\n\nIt is shown only this once. Sign in and change it.\n\n",
				account.NormalizeEmail(a.cfg.AdminEmail), password)
		}
	}
	return nil
}

// CreateUser adds a user with a password (default roles when u.Roles is
// empty). Tests and tools use it; the API has POST /api/users.
func (a *App) CreateUser(ctx context.Context, u account.NewUser, password string) (int64, error) {
	nu, err := newUser(u)
	if err != nil {
		return 0, err
	}
	if err := account.ValidatePassword("password", password); err != nil {
		return 0, err
	}
	hash, err := a.hasher.Hash(ctx, password)
	if err != nil {
		return 0, err
	}
	ctx, fx := ports.WithEffects(ctx)
	fx.Add(ports.Deferred(func(id int64) (ports.Effect, error) { return ports.UserEvent(webhook.UserCreated, id), nil }))
	return createUser(ctx, a.db.Users, nu, u.Roles, hash)
}

// Handler returns the HTTP handler.
func (a *App) Handler() http.Handler { return a.handler }

// Logger returns the service's logger.
func (a *App) Logger() *slog.Logger { return a.log }

// DB returns the SQLite database (for SQLite-specific tests and
// benchmarks); nil on PostgreSQL.
func (a *App) DB() *sqlite.DB { return a.db.SQLite() }

// Stores returns the database's stores, whichever the engine.
func (a *App) Stores() *Stores { return a.db }

// Close stops background work and closes the database. Calls after the
// first return the first call's result.
func (a *App) Close() error {
	a.closeOnce.Do(func() { a.closeErr = a.close() })
	return a.closeErr
}

func (a *App) close() error {
	a.stop()
	a.loops.Wait()
	if a.Accounts != nil {
		a.Accounts.Wait()
	}
	var errs []error
	for i := len(a.closers) - 1; i >= 0; i-- {
		errs = append(errs, a.closers[i]())
	}
	if a.db != nil {
		errs = append(errs, a.db.Close())
	}
	if a.replica != nil { // after the database: the last writes are shipped
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		errs = append(errs, a.replica.Close(ctx))
		cancel()
	}
	if a.logs != nil {
		errs = append(errs, a.logs.Close())
	}
	return errors.Join(errs...)
}

type logSender struct{ log *slog.Logger }

// SendOTP writes the code to the server log: COUNSEL_OTP_DELIVERY=log.
func (l logSender) SendOTP(ctx context.Context, email, code string) error {
	l.log.InfoContext(ctx, "one-time password (COUNSEL_OTP_DELIVERY=log)", "email", email, "otp", code)
	return nil
}

// mailPoll is how often the outbox worker looks for retries due (and
// anything a lost notification missed); queued mail wakes it at once.
const mailPoll = time.Second

// newMailer is the one SMTP sender, or nil when SMTP is not configured.
func newMailer(cfg Config) *smtp.Mailer {
	if cfg.SMTPAddr == "" || cfg.SMTPFrom == "" {
		return nil
	}
	return smtp.New(smtp.Config{Addr: cfg.SMTPAddr, From: cfg.SMTPFrom, Username: cfg.SMTPUsername, Password: cfg.SMTPPassword})
}

// mailSender is the outbox's sender: nil (keep the mail) without SMTP.
func (a *App) mailSender() ports.MailSender {
	if a.mailer == nil {
		return nil
	}
	return a.mailer
}

type mailSender struct{ m ports.Mailer }

// SendOTP emails the code.
func (m mailSender) SendOTP(ctx context.Context, email, code string) error {
	return m.m.Send(ctx, email, "Your Counsel sign-in code",
		"Your one-time sign-in code is "+code+".\n\nIt is valid for a few minutes and can be used once. If you did not ask for it, ignore this email.\n")
}

// consoleIdP is the console's identity-provider sign-in: the
// authorization-code flow needs a client secret, so without one (or
// without a provider) the console offers no button.
func (a *App) consoleIdP() console.IdentityProvider {
	if a.cfg.OIDCIssuer == "" || a.cfg.OIDCClientID == "" || a.cfg.OIDCClientSecret == "" {
		return nil
	}
	return a.Accounts
}
