package app

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"counsel/adapters/argon2"
	"counsel/adapters/docuseal"
	"counsel/domain/audit"
	"counsel/domain/contract"
	"counsel/ports"
)

// Config is what New takes: the settings, and apart from them what the
// process (the command line, tests) injects. Both are embedded, so
// cfg.DB and cfg.Clock read alike.
type Config struct {
	Options
	Injections
}

// Options are every setting of the service (Settings describes them):
// each field has an env name in settings(), read from COUNSEL_* and from
// a flag of `counsel serve`.
type Options struct {
	Addr    string
	DB      string
	DataDir string
	// SpoolDir is where uploads wait before they are copied into the
	// database ("": DataDir/tmp on SQLite, the system's temporary folder
	// on PostgreSQL).
	SpoolDir  string
	PublicURL string
	LogLevel  string
	LogFormat string

	AccessTTL  time.Duration
	RefreshTTL time.Duration
	OTPTTL     time.Duration

	CORSOrigins    []string
	TrustedProxies []netip.Prefix
	FrameAncestors []string
	LinkTTL        time.Duration

	AdminEmail    string
	AdminPassword string

	OTPDelivery       string
	OTPResendInterval time.Duration
	OTPHourlyLimit    int
	LockoutThreshold  int
	LockoutDuration   time.Duration
	AuthRateLimit     int
	HashConcurrency   int
	TOTPIssuer        string

	SMTPAddr     string
	SMTPFrom     string
	SMTPUsername string
	SMTPPassword string

	SigningProvider       string
	DocuSealURL           string
	DocuSealAPIKey        string
	DocuSealWebhookSecret string
	DocuSealWebhookHeader string
	DocuSealUserEmail     string
	// SigningReminderInterval and SigningReminderMax are the embedded
	// signer's automatic reminders (docs/decisions.md §16): one every
	// interval after the invitation, at most max; 0 turns them off.
	SigningReminderInterval time.Duration
	SigningReminderMax      int

	FirmName string
	PDFCert  string
	PDFKey   string

	OIDCIssuer         string
	OIDCClientID       string
	OIDCClientSecret   string
	OIDCRedirectURI    string
	OIDCJWKSURL        string
	OIDCAutoProvision  bool
	OIDCAllowedDomains []string
	OIDCName           string

	ConsoleIdle time.Duration
	// ReauthWindow is how long a sign-in or re-authentication lets a
	// session change how the account signs in (docs/security.md, "Recent
	// authentication").
	ReauthWindow time.Duration
	// KeyDateReminders are the thresholds, in days before a contract's
	// notice date, announced in the owner's key-date digest (ascending;
	// docs/decisions.md §16).
	KeyDateReminders []int
	// KeyDateInterval is how often the key-date job looks for thresholds
	// crossed.
	KeyDateInterval time.Duration
	// AuditRetention is how long security events are kept
	// (docs/decisions.md §18); housekeeping removes older ones.
	AuditRetention time.Duration
	// WebhookAllowPrivate lets webhooks reach loopback, private,
	// link-local and unique-local addresses (development and tests).
	WebhookAllowPrivate bool
	// WebhookRetryScale multiplies the webhook retry schedule and the
	// five days after which failing subscriptions are disabled.
	WebhookRetryScale float64

	// MetricsToken turns GET /metrics on on the main listener, for
	// callers sending it as a bearer token; MetricsAddr serves /metrics
	// alone on a listener of its own, without a token (metrics.go).
	MetricsToken string
	MetricsAddr  string

	// Scheduled backups (docs/operations.md, "Backups, restore and replication"): off
	// while BackupDir is empty.
	BackupDir      string
	BackupInterval time.Duration
	BackupKeep     int
	// ReplicaURL streams a SQLite database to a Litestream replica
	// (file:// or s3://); empty: off.
	ReplicaURL string
}

// Injections are not settings: what tests and the command line hand the
// service. Their zero values are production's.
type Injections struct {
	HashParams *argon2.Params // nil: argon2.DefaultParams; tests use cheaper ones
	Clock      ports.Clock    // nil: the system clock
	Rand       io.Reader      // nil: crypto/rand
	Stderr     io.Writer      // where the first admin password is printed; nil: discarded
	Logger     *slog.Logger   // nil: built from LogLevel and LogFormat on Stderr
	Version    string
	// BackupEvery, when set, makes scheduled backups this often, below
	// the 1m that COUNSEL_BACKUP_INTERVAL allows (tests).
	BackupEvery time.Duration
	// WrapEvidence, when set, wraps the signed-evidence maker (tests
	// make it fail to simulate a crash).
	WrapEvidence func(ports.PDFEvidence) ports.PDFEvidence
	// MailAttachLimit is the most bytes of signed evidence attached to a
	// completion email; past it the email carries signed links instead.
	// 0: 10 MiB (docs/decisions.md §16); tests lower it.
	MailAttachLimit int64
}

// setting is one COUNSEL_* variable: its flag name, default and parser.
type setting struct {
	env, def, help string
	set            func(c *Options, v string) error
}

func str(p func(*Options) *string) func(*Options, string) error {
	return func(c *Options, v string) error { *p(c) = strings.TrimSpace(v); return nil }
}

func dur(p func(*Options) *time.Duration) func(*Options, string) error {
	return func(c *Options, v string) error {
		v = strings.TrimSpace(v)
		// Plain seconds; negative or overflowing counts fall through to
		// ParseDuration, which refuses them.
		if n, err := strconv.Atoi(v); err == nil && n >= 0 && n <= int(math.MaxInt64/time.Second) {
			*p(c) = time.Duration(n) * time.Second
			return nil
		}
		d, err := time.ParseDuration(v)
		if err != nil || d < 0 {
			return fmt.Errorf("want a duration such as 15m or 30s, got %q", v)
		}
		*p(c) = d
		return nil
	}
}

func num(p func(*Options) *int) func(*Options, string) error {
	return func(c *Options, v string) error {
		n, err := strconv.Atoi(strings.TrimSpace(v))
		if err != nil || n < 0 {
			return fmt.Errorf("want a non-negative integer, got %q", v)
		}
		*p(c) = n
		return nil
	}
}

func list(v string) []string {
	var out []string
	for _, f := range strings.Split(v, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}

// settings lists every COUNSEL_* setting with its default (docs/decisions.md §8).
func settings() []setting {
	return []setting{
		{"COUNSEL_ADDR", "127.0.0.1:8080", "address to listen on", str(func(c *Options) *string { return &c.Addr })},
		{"COUNSEL_DB", "./counsel.db", "SQLite database file, or a postgres:// URL", str(func(c *Options) *string { return &c.DB })},
		{"COUNSEL_DATA_DIR", "./data", "SQLite: folder of uploads on their way into the database (documents are in the database)", str(func(c *Options) *string { return &c.DataDir })},
		{"COUNSEL_PUBLIC_URL", "", "external base URL (signing links, token issuer, the passkeys' relying party); default http://ADDR", str(func(c *Options) *string { return &c.PublicURL })},
		{"COUNSEL_LOG_LEVEL", "info", "debug, info, warn or error", str(func(c *Options) *string { return &c.LogLevel })},
		{"COUNSEL_LOG_FORMAT", "text", "text or json", str(func(c *Options) *string { return &c.LogFormat })},
		{"COUNSEL_ACCESS_TTL", "15m", "access token lifetime", dur(func(c *Options) *time.Duration { return &c.AccessTTL })},
		{"COUNSEL_REFRESH_TTL", "720h", "session lifetime from sign-in (refresh tokens)", dur(func(c *Options) *time.Duration { return &c.RefreshTTL })},
		{"COUNSEL_OTP_TTL", "5m", "one-time password lifetime", dur(func(c *Options) *time.Duration { return &c.OTPTTL })},
		{"COUNSEL_CORS_ORIGINS", "", "comma-separated browser origins allowed to call the API", func(c *Options, v string) error { c.CORSOrigins = list(v); return nil }},
		{"COUNSEL_TRUSTED_PROXIES", "", "comma-separated proxy addresses or CIDRs whose X-Forwarded-For is trusted", func(c *Options, v string) error {
			c.TrustedProxies = nil
			for _, f := range list(v) {
				if !strings.Contains(f, "/") {
					a, err := netip.ParseAddr(f)
					if err != nil {
						return fmt.Errorf("%q is not an address or CIDR", f)
					}
					f = a.String() + "/" + strconv.Itoa(a.BitLen())
				}
				p, err := netip.ParsePrefix(f)
				if err != nil {
					return fmt.Errorf("%q is not an address or CIDR", f)
				}
				c.TrustedProxies = append(c.TrustedProxies, p.Masked())
			}
			return nil
		}},
		{"COUNSEL_FRAME_ANCESTORS", "", "comma-separated origins (https://www.firm.example) that may frame the signer's pages; empty: none", func(c *Options, v string) error {
			c.FrameAncestors = nil
			for _, o := range list(v) {
				origin, ok := parseOrigin(o)
				if !ok {
					return fmt.Errorf("%q is not an http(s) origin such as https://www.firm.example", o)
				}
				c.FrameAncestors = append(c.FrameAncestors, origin)
			}
			return nil
		}},
		{"COUNSEL_LINK_TTL", "1h", "lifetime of the signed links to documents of signing templates", dur(func(c *Options) *time.Duration { return &c.LinkTTL })},
		{"COUNSEL_ADMIN_EMAIL", "admin@localhost", "first administrator's email (first start only)", str(func(c *Options) *string { return &c.AdminEmail })},
		{"COUNSEL_ADMIN_PASSWORD", "", "first administrator's password (first start only); empty: random, printed once", func(c *Options, v string) error { c.AdminPassword = v; return nil }},
		{"COUNSEL_OTP_DELIVERY", "response", "response, log or smtp", str(func(c *Options) *string { return &c.OTPDelivery })},
		{"COUNSEL_OTP_RESEND_INTERVAL", "30s", "least time between two codes for one email; 0 off", dur(func(c *Options) *time.Duration { return &c.OTPResendInterval })},
		{"COUNSEL_OTP_HOURLY_LIMIT", "10", "most codes per email per hour; 0 off", num(func(c *Options) *int { return &c.OTPHourlyLimit })},
		{"COUNSEL_LOCKOUT_THRESHOLD", "10", "consecutive failed sign-ins that lock an account; 0 off", num(func(c *Options) *int { return &c.LockoutThreshold })},
		{"COUNSEL_LOCKOUT_DURATION", "15m", "how long a locked account stays locked", dur(func(c *Options) *time.Duration { return &c.LockoutDuration })},
		{"COUNSEL_AUTH_RATE_LIMIT", "30", "requests a minute per client address on public sign-in routes; 0 off", num(func(c *Options) *int { return &c.AuthRateLimit })},
		{"COUNSEL_HASH_CONCURRENCY", "0", "password hashes computed at once (19 MiB each); 0: one per CPU", num(func(c *Options) *int { return &c.HashConcurrency })},
		{"COUNSEL_TOTP_ISSUER", "Counsel", "issuer name authenticator apps show", str(func(c *Options) *string { return &c.TOTPIssuer })},
		{"COUNSEL_SMTP_ADDR", "", "SMTP relay host:port", str(func(c *Options) *string { return &c.SMTPAddr })},
		{"COUNSEL_SMTP_FROM", "", "sender address of emails", str(func(c *Options) *string { return &c.SMTPFrom })},
		{"COUNSEL_SMTP_USERNAME", "", "SMTP user; empty: no authentication", str(func(c *Options) *string { return &c.SMTPUsername })},
		{"COUNSEL_SMTP_PASSWORD", "", "SMTP password", func(c *Options, v string) error { c.SMTPPassword = v; return nil }},
		{"COUNSEL_SIGNING_PROVIDER", "embedded", "embedded or docuseal", str(func(c *Options) *string { return &c.SigningProvider })},
		{"COUNSEL_DOCUSEAL_URL", "", "DocuSeal API base URL, e.g. https://api.docuseal.com", str(func(c *Options) *string { return &c.DocuSealURL })},
		{"COUNSEL_DOCUSEAL_API_KEY", "", "DocuSeal API key (X-Auth-Token)", str(func(c *Options) *string { return &c.DocuSealAPIKey })},
		{"COUNSEL_DOCUSEAL_WEBHOOK_SECRET", "", "HMAC secret of DocuSeal webhooks: the whsec_ value DocuSeal (2.5.3+) generates", func(c *Options, v string) error { c.DocuSealWebhookSecret = v; return nil }},
		{"COUNSEL_DOCUSEAL_WEBHOOK_HEADER", "", `custom header of DocuSeal webhooks, "Name: value" (for DocuSeal before 2.5.3, which signs nothing)`, func(c *Options, v string) error { c.DocuSealWebhookHeader = v; return nil }},
		{"COUNSEL_DOCUSEAL_USER_EMAIL", "", "DocuSeal account email for the form builder", str(func(c *Options) *string { return &c.DocuSealUserEmail })},
		{"COUNSEL_SIGNING_REMINDER_INTERVAL", "72h", "embedded signer: remind a signer who has neither signed nor declined this long after the invitation and after each reminder; at least 1s; 0 off", dur(func(c *Options) *time.Duration { return &c.SigningReminderInterval })},
		{"COUNSEL_SIGNING_REMINDER_MAX", "3", "embedded signer: most automatic reminders per signer, 0 to 100; 0 off", num(func(c *Options) *int { return &c.SigningReminderMax })},
		{"COUNSEL_FIRM_NAME", "Counsel", "the firm's name: subject of the signing certificate made on first start, and named on signed evidence", str(func(c *Options) *string { return &c.FirmName })},
		{"COUNSEL_PDF_CERT", "", "PEM file of the firm's own certificate (and chain) to sign evidence PDFs; empty: a self-signed one made on first start", str(func(c *Options) *string { return &c.PDFCert })},
		{"COUNSEL_PDF_KEY", "", "PEM file of the private key of COUNSEL_PDF_CERT", str(func(c *Options) *string { return &c.PDFKey })},
		{"COUNSEL_OIDC_ISSUER", "", "OpenID Connect issuer URL; empty: identity-provider sign-in off", str(func(c *Options) *string { return &c.OIDCIssuer })},
		{"COUNSEL_OIDC_CLIENT_ID", "", "OpenID Connect client id", str(func(c *Options) *string { return &c.OIDCClientID })},
		{"COUNSEL_OIDC_CLIENT_SECRET", "", "client secret; set it to exchange the authorization code", func(c *Options, v string) error { c.OIDCClientSecret = v; return nil }},
		{"COUNSEL_OIDC_REDIRECT_URI", "", "redirect URI used for the code exchange", str(func(c *Options) *string { return &c.OIDCRedirectURI })},
		{"COUNSEL_OIDC_JWKS_URL", "", "key set URL; empty: from discovery", str(func(c *Options) *string { return &c.OIDCJWKSURL })},
		{"COUNSEL_OIDC_AUTO_PROVISION", "false", "create unknown users of allowed domains on first sign-in", func(c *Options, v string) error {
			b, err := strconv.ParseBool(strings.TrimSpace(v))
			if err != nil {
				return fmt.Errorf("want true or false, got %q", v)
			}
			c.OIDCAutoProvision = b
			return nil
		}},
		{"COUNSEL_OIDC_ALLOWED_DOMAINS", "", "comma-separated email domains that may be auto-provisioned", func(c *Options, v string) error {
			c.OIDCAllowedDomains = nil
			for _, d := range list(v) {
				c.OIDCAllowedDomains = append(c.OIDCAllowedDomains, strings.ToLower(strings.TrimPrefix(d, "@")))
			}
			return nil
		}},
		{"COUNSEL_OIDC_NAME", "identity provider", "the provider's name on the console's sign-in button", str(func(c *Options) *string { return &c.OIDCName })},
		{"COUNSEL_CONSOLE_IDLE", "8h", "console sessions end after this long unused; 0 never", dur(func(c *Options) *time.Duration { return &c.ConsoleIdle })},
		{"COUNSEL_WEBHOOK_ALLOW_PRIVATE", "false", "let webhook subscriptions reach loopback, private, link-local and unique-local addresses (development and tests only)", func(c *Options, v string) error {
			b, err := strconv.ParseBool(strings.TrimSpace(v))
			c.WebhookAllowPrivate = b
			return err
		}},
		{"COUNSEL_WEBHOOK_RETRY_SCALE", "1", "multiplies the webhook retry schedule (5s, 5m, 30m, 2h, 5h, 10h, 10h, 14h) and the 5 days of failures that disable a subscription; between 0.0001 and 1 (below 1 for tests only)", func(c *Options, v string) error {
			f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
			if err != nil {
				return err
			}
			if f < 0.0001 || f > 1 {
				return fmt.Errorf("want between 0.0001 and 1, got %q", v)
			}
			c.WebhookRetryScale = f
			return nil
		}},
		{"COUNSEL_AUDIT_RETENTION", "8760h", "security and administration events older than this are removed by housekeeping; at least 720h", func(c *Options, v string) error {
			if err := dur(func(c *Options) *time.Duration { return &c.AuditRetention })(c, v); err != nil {
				return err
			}
			if c.AuditRetention < audit.MinRetention {
				return fmt.Errorf("want at least 720h, got %q", v)
			}
			return nil
		}},
		{"COUNSEL_REAUTH_WINDOW", "10m", "how long a sign-in or re-authentication lets a session change how the account signs in (password, authenticator app); at least 1s", func(c *Options, v string) error {
			if err := dur(func(c *Options) *time.Duration { return &c.ReauthWindow })(c, v); err != nil {
				return err
			}
			if c.ReauthWindow < time.Second {
				return fmt.Errorf("want at least 1s, got %q", v)
			}
			return nil
		}},
		{"COUNSEL_KEY_DATE_REMINDERS", contract.DefaultKeyDateReminders, "comma-separated days before a contract's notice date at which its owner's daily digest announces it (each 0..3650, at most 10)", func(c *Options, v string) error {
			ts, err := contract.ParseKeyDateReminders(v)
			if err != nil {
				return err
			}
			c.KeyDateReminders = ts
			return nil
		}},
		{"COUNSEL_KEY_DATE_INTERVAL", "1h", "how often the key-date job looks for notice dates that crossed a reminder threshold (it also runs at start); at least 1s", func(c *Options, v string) error {
			if err := dur(func(c *Options) *time.Duration { return &c.KeyDateInterval })(c, v); err != nil {
				return err
			}
			if c.KeyDateInterval < time.Second {
				return fmt.Errorf("want at least 1s, got %q", v)
			}
			return nil
		}},
		{"COUNSEL_METRICS_TOKEN", "", "serve GET /metrics on COUNSEL_ADDR to callers sending Authorization: Bearer <this token>; empty: not there", func(c *Options, v string) error { c.MetricsToken = strings.TrimSpace(v); return nil }},
		{"COUNSEL_METRICS_ADDR", "", "serve GET /metrics without a token on this address of its own (e.g. 127.0.0.1:9090); empty: no such listener", str(func(c *Options) *string { return &c.MetricsAddr })},
		{"COUNSEL_BACKUP_DIR", "", "folder of scheduled backups (counsel-YYYYMMDDTHHMMSSZ.db); empty: off", str(func(c *Options) *string { return &c.BackupDir })},
		{"COUNSEL_BACKUP_INTERVAL", "24h", "time between scheduled backups (at least 1m)", dur(func(c *Options) *time.Duration { return &c.BackupInterval })},
		{"COUNSEL_BACKUP_KEEP", "7", "scheduled backups kept, newest first (at least 1)", num(func(c *Options) *int { return &c.BackupKeep })},
		{"COUNSEL_REPLICA_URL", "", "Litestream replica of a SQLite database: file:///path or s3://bucket/path; empty: off", str(func(c *Options) *string { return &c.ReplicaURL })},
	}
}

// parseOrigin accepts scheme://host[:port] with an http(s) scheme and
// nothing else (no path, query, user or wildcard), and returns it in
// lower case as browsers compare it.
func parseOrigin(s string) (string, bool) {
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil ||
		(u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.Fragment != "" || u.Opaque != "" ||
		strings.ContainsAny(u.Host, "*;, '\"") {
		return "", false
	}
	return strings.ToLower(u.Scheme + "://" + u.Host), true
}

// flagName is the flag of an env name: COUNSEL_DATA_DIR gives data-dir.
func flagName(env string) string {
	return strings.ReplaceAll(strings.ToLower(strings.TrimPrefix(env, "COUNSEL_")), "_", "-")
}

// DefaultConfig returns the defaults of every setting.
func DefaultConfig() Config {
	var c Config
	for _, s := range settings() {
		if err := s.set(&c.Options, s.def); err != nil {
			panic(fmt.Sprintf("default of %s: %v", s.env, err)) // static data
		}
	}
	return c
}

// LoadConfig reads defaults, then COUNSEL_* variables through getenv, then
// the flags in args (which win). Every value is validated.
func LoadConfig(fs *flag.FlagSet, args []string, getenv func(string) string) (Config, error) {
	c := DefaultConfig()
	var errs []error
	for _, s := range settings() {
		if v := getenv(s.env); v != "" {
			if err := s.set(&c.Options, v); err != nil {
				errs = append(errs, fmt.Errorf("%s: %w", s.env, err))
			}
		}
	}
	for _, s := range settings() {
		fs.Func(flagName(s.env), s.help+" ("+s.env+")", func(v string) error { return s.set(&c.Options, v) })
	}
	if err := fs.Parse(args); err != nil {
		return c, err
	}
	if err := errors.Join(errs...); err != nil {
		return c, err
	}
	return c, c.Validate()
}

// Validate checks the settings together.
func (c Options) Validate() error {
	var errs []error
	bad := func(format string, a ...any) { errs = append(errs, fmt.Errorf(format, a...)) }
	if len(c.KeyDateReminders) == 0 {
		bad("COUNSEL_KEY_DATE_REMINDERS: want at least one threshold")
	}
	if c.KeyDateInterval < time.Second {
		bad("COUNSEL_KEY_DATE_INTERVAL: want at least 1s, got %s", c.KeyDateInterval)
	}
	if c.BackupInterval < time.Minute {
		bad("COUNSEL_BACKUP_INTERVAL must be at least 1m")
	}
	if c.BackupKeep < 1 {
		bad("COUNSEL_BACKUP_KEEP must be at least 1")
	}
	if c.ReplicaURL != "" {
		if Engine(c.DB) == "postgres" {
			bad("COUNSEL_REPLICA_URL replicates a SQLite database; PostgreSQL has its own replication")
		} else if !strings.HasPrefix(c.ReplicaURL, "file://") && !strings.HasPrefix(c.ReplicaURL, "s3://") {
			bad("COUNSEL_REPLICA_URL must be a file:// or s3:// URL")
		}
	}
	if c.Addr == "" {
		bad("COUNSEL_ADDR is empty")
	}
	if c.DB == "" {
		bad("COUNSEL_DB is empty")
	}
	if c.DataDir == "" {
		bad("COUNSEL_DATA_DIR is empty")
	}
	if c.PublicURL != "" {
		if u, err := url.Parse(c.PublicURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			bad("COUNSEL_PUBLIC_URL must be an http(s) URL, got %q", c.PublicURL)
		}
	}
	switch strings.ToLower(c.LogLevel) {
	case "debug", "info", "warn", "error":
	default:
		bad("COUNSEL_LOG_LEVEL must be debug, info, warn or error")
	}
	switch c.LogFormat {
	case "text", "json":
	default:
		bad("COUNSEL_LOG_FORMAT must be text or json")
	}
	if c.AccessTTL < time.Minute || c.AccessTTL > 24*time.Hour {
		bad("COUNSEL_ACCESS_TTL must be between 1m and 24h")
	}
	if c.RefreshTTL < c.AccessTTL {
		bad("COUNSEL_REFRESH_TTL must not be shorter than COUNSEL_ACCESS_TTL")
	}
	if c.LinkTTL < time.Minute || c.LinkTTL > 168*time.Hour {
		bad("COUNSEL_LINK_TTL must be between 1m and 168h")
	}
	if c.SigningReminderInterval != 0 && (c.SigningReminderInterval < time.Second || c.SigningReminderInterval > 8760*time.Hour) {
		bad("COUNSEL_SIGNING_REMINDER_INTERVAL must be 0 (off) or between 1s and 8760h")
	}
	if c.SigningReminderMax < 0 || c.SigningReminderMax > 100 {
		bad("COUNSEL_SIGNING_REMINDER_MAX must be between 0 and 100")
	}
	if c.OTPTTL < 10*time.Second || c.OTPTTL > time.Hour {
		bad("COUNSEL_OTP_TTL must be between 10s and 1h")
	}
	switch c.OTPDelivery {
	case "response", "log":
	case "smtp":
		if c.SMTPAddr == "" || c.SMTPFrom == "" {
			bad("COUNSEL_OTP_DELIVERY=smtp needs COUNSEL_SMTP_ADDR and COUNSEL_SMTP_FROM")
		}
	default:
		bad("COUNSEL_OTP_DELIVERY must be response, log or smtp")
	}
	if n := utf8.RuneCountInString(c.TOTPIssuer); n < 1 || n > 100 || strings.Contains(c.TOTPIssuer, ":") {
		// The colon separates issuer and account in an otpauth label.
		bad("COUNSEL_TOTP_ISSUER must be 1 to 100 characters without a colon")
	}
	if c.LockoutThreshold > 0 && c.LockoutDuration <= 0 {
		bad("COUNSEL_LOCKOUT_DURATION must be positive when lockout is on")
	}
	switch c.SigningProvider {
	case "embedded":
	case "docuseal":
		if c.DocuSealURL == "" || c.DocuSealAPIKey == "" {
			bad("COUNSEL_SIGNING_PROVIDER=docuseal needs COUNSEL_DOCUSEAL_URL and COUNSEL_DOCUSEAL_API_KEY")
		}
		if c.DocuSealWebhookSecret == "" && c.DocuSealWebhookHeader == "" {
			bad("COUNSEL_SIGNING_PROVIDER=docuseal needs COUNSEL_DOCUSEAL_WEBHOOK_SECRET (the whsec_ secret DocuSeal shows in its webhook settings) or, for DocuSeal before 2.5.3, COUNSEL_DOCUSEAL_WEBHOOK_HEADER")
		}
		if _, _, err := docuseal.ParseWebhookHeader(c.DocuSealWebhookHeader); err != nil {
			bad("COUNSEL_DOCUSEAL_WEBHOOK_HEADER: %s", strings.TrimPrefix(err.Error(), "WebhookHeader "))
		}
	default:
		bad("COUNSEL_SIGNING_PROVIDER must be embedded or docuseal")
	}
	if (c.PDFCert == "") != (c.PDFKey == "") {
		bad("COUNSEL_PDF_CERT and COUNSEL_PDF_KEY go together")
	}
	if c.FirmName == "" {
		bad("COUNSEL_FIRM_NAME is empty")
	}
	if (c.OIDCIssuer == "") != (c.OIDCClientID == "") {
		bad("COUNSEL_OIDC_ISSUER and COUNSEL_OIDC_CLIENT_ID go together")
	}
	if c.AdminPassword != "" && (len([]rune(c.AdminPassword)) < 8 || len([]rune(c.AdminPassword)) > 128) {
		bad("COUNSEL_ADMIN_PASSWORD must be 8 to 128 characters")
	}
	if c.MetricsAddr != "" && c.MetricsAddr == c.Addr && !strings.HasSuffix(c.Addr, ":0") {
		bad("COUNSEL_METRICS_ADDR must differ from COUNSEL_ADDR (set COUNSEL_METRICS_TOKEN for /metrics on the main listener)")
	}
	return errors.Join(errs...)
}

// Settings describes every setting for help texts and docs/configuration.md:
// env name, flag, default and help.
func Settings() [][4]string {
	var out [][4]string
	for _, s := range settings() {
		out = append(out, [4]string{s.env, "--" + flagName(s.env), s.def, s.help})
	}
	return out
}
