// Package stores opens one engine's stores, SQLite or PostgreSQL, behind
// the same ports, and names the database a COUNSEL_DB value selects. It
// is part of the composition root: it imports the engine adapters, and
// gives the engine-specific databases (SQLite, Postgres) only to the
// composition root and app/transfer, which copies between engines.
package stores

import (
	"context"
	"log/slog"
	"time"

	"counsel/adapters/postgres"
	"counsel/adapters/sqlite"
	"counsel/adapters/sqlrow"
	"counsel/domain/contract"
	"counsel/domain/user"
	"counsel/ports"
)

// Engine names the database a COUNSEL_DB value selects: a postgres:// or
// postgresql:// URL is PostgreSQL, anything else a SQLite file path.
func Engine(db string) string {
	if postgres.IsURL(db) {
		return "postgres"
	}
	return "sqlite"
}

// AccountStore is the account store with what commands and housekeeping
// need beyond the port.
type AccountStore interface {
	ports.AccountStore
	EnsureRoles(ctx context.Context) error
	UserIDByEmail(ctx context.Context, email string) (int64, error)
	Prune(ctx context.Context, now time.Time) (int64, error)
}

// UserStore is the user store with its bulk import.
type UserStore interface {
	ports.UserStore
	CreateUsers(ctx context.Context, us []user.User) ([]int64, error)
}

// IdentityStore is the identity store.
type IdentityStore = ports.IdentityStore

// ContractStore is the contract store with its signing lookups and bulk
// import.
type ContractStore interface {
	ports.ContractStore
	ports.ContractSigningStore
	ports.EvidenceStore
	ImportContracts(ctx context.Context, cs []contract.Contract, userID int64) error
}

// Row is one row of a query.
type Row interface{ Scan(dest ...any) error }

// Stores are one engine's stores, the same ports whichever engine.
type Stores struct {
	Engine        string
	Accounts      AccountStore
	Roles         ports.RoleStore
	Users         UserStore
	Remunerations ports.RemunerationStore
	Identities    IdentityStore
	Contracts     ContractStore
	Signing       ports.SigningStore
	TOTP          ports.TOTPStore
	APIKeys       ports.APIKeyStore
	Passkeys      ports.PasskeyStore
	// Blobs keeps document bytes in the database, on both engines.
	Blobs ports.BlobStore
	// BackupLog records the scheduled backups.
	BackupLog ports.BackupLog
	// Calendars keeps the calendar feed tokens.
	Calendars ports.CalendarStore
	// Outbox is the mail outbox.
	Outbox ports.OutboxStore
	// KeyDates keeps the key-date thresholds announced.
	KeyDates ports.KeyDateStore
	// Webhooks keeps the webhook subscriptions and their deliveries.
	Webhooks ports.WebhookStore
	// OnEffects hears of the effects each write transaction committed.
	OnEffects func(func([]ports.Effect))
	// OnChange hears, after the commit and before the write returns, of
	// each write in this process that changed principals or profiles.
	OnChange func(func())
	// Audit keeps the security and administration events.
	Audit ports.AuditStore
	Ping  func(ctx context.Context) error

	// TryLock runs a background job on one instance at a time: a
	// PostgreSQL advisory lock, or on SQLite a lock of the machine's
	// file system beside the file (sqlite.DB.TryLock), for the services
	// a restart may overlap on it.
	TryLock func(ctx context.Context, name string) (bool, func(), error)

	// What several instances on one PostgreSQL database share; nil on
	// SQLite, whose single file is served by one process.
	//
	// Listen follows other instances' changes until ctx ends (see
	// postgres.DB.Listen); RateLimiter counts the sign-in limit in the
	// database.
	Listen      func(ctx context.Context, log *slog.Logger, onChange func(payload string))
	RateLimiter interface {
		ports.RateLimiter
		PruneRates(ctx context.Context, now time.Time) error
	}
	close func() error

	sqlite *sqlite.DB
	pg     *postgres.DB
}

// SQLite is the SQLite database of the stores; nil on PostgreSQL.
func (s *Stores) SQLite() *sqlite.DB { return s.sqlite }

// Postgres is the PostgreSQL database of the stores; nil on SQLite.
func (s *Stores) Postgres() *postgres.DB { return s.pg }

// Close closes the database.
func (s *Stores) Close() error { return s.close() }

// Open opens (creating and migrating as needed) the database dsn
// names: a SQLite file path or a PostgreSQL URL. Uploads are spooled in
// spool ("" for the system's temporary folder) until they are kept.
func Open(ctx context.Context, dsn, spool string) (*Stores, error) {
	return OpenWith(ctx, dsn, spool, sqlite.Options{}, nil)
}

// OpenWith is Open with the options of a SQLite database and the clock
// the stores stamp their own writes with (nil: time.Now).
func OpenWith(ctx context.Context, dsn, spool string, o sqlite.Options, now func() time.Time) (*Stores, error) {
	if postgres.IsURL(dsn) {
		db, err := postgres.Open(ctx, dsn)
		if err != nil {
			return nil, err
		}
		if now != nil {
			db.Now = now
		}
		s := shared(db.Stores(), spool)
		s.Engine, s.pg = "postgres", db
		s.Contracts = postgres.NewContractStore(db)
		s.OnEffects, s.OnChange, s.Ping, s.close = db.OnEffects, db.OnChange, db.Ping, db.Close
		s.Listen, s.TryLock, s.RateLimiter = db.Listen, db.TryLock, postgres.NewRateLimiter(db)
		return s, nil
	}
	db, err := sqlite.OpenWith(ctx, dsn, o)
	if err != nil {
		return nil, err
	}
	if now != nil {
		db.Now = now
	}
	s := shared(db.Stores(), spool)
	s.Engine, s.sqlite = "sqlite", db
	s.Contracts = sqlite.NewContractStore(db)
	s.OnEffects, s.OnChange, s.Ping, s.close, s.TryLock = db.OnEffects, db.OnChange, db.Ping, db.Close, db.TryLock
	return s, nil
}

// shared are the stores both engines build from the SQL written once
// (adapters/sqlrow), documents spooled in spool.
func shared(sh sqlrow.Stores, spool string) *Stores {
	return &Stores{
		Accounts: sh.Accounts, Roles: sh.Roles, Users: sh.Users,
		Remunerations: sh.Remunerations, Identities: sh.Identities,
		Signing: sh.Signing, TOTP: sh.TOTP, APIKeys: sh.APIKeys, Passkeys: sh.Passkeys,
		Blobs: sh.Blobs(spool), BackupLog: sh.BackupLog, Calendars: sh.Calendars, Audit: sh.Audit,
		Outbox: sh.Outbox, KeyDates: sh.KeyDates, Webhooks: sh.Webhooks,
	}
}

// MoveDocumentFiles moves into a SQLite database the documents an older
// version kept as files under dataDir (sqlite.DB.MoveDocumentFiles); on
// PostgreSQL, whose documents were always rows, it does nothing.
func (s *Stores) MoveDocumentFiles(ctx context.Context, dataDir string) (sqlite.MovedDocuments, error) {
	if s.sqlite == nil {
		return sqlite.MovedDocuments{}, nil
	}
	return s.sqlite.MoveDocumentFiles(ctx, dataDir)
}

// RowCount returns the number of rows of table (a name of the schema,
// never input).
func (s *Stores) RowCount(ctx context.Context, table string) (n int64, err error) {
	q := `SELECT count(*) FROM ` + table
	if s.pg != nil {
		err = s.pg.Pool().QueryRow(ctx, q).Scan(&n)
	} else {
		err = s.sqlite.Read().QueryRowContext(ctx, q).Scan(&n)
	}
	return n, err
}

// Migrations returns the applied migrations' names, oldest first.
func (s *Stores) Migrations(ctx context.Context) ([]string, error) {
	if s.pg != nil {
		return s.pg.Migrations(ctx)
	}
	return s.sqlite.Migrations(ctx)
}
