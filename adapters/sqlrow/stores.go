package sqlrow

import (
	"context"
	"fmt"
	"time"

	"counsel/domain/account"
	"counsel/domain/user"
	"counsel/ports"
)

// Parts are what an engine writes its own way in the stores of Stores.
type Parts struct {
	// Chunk reads a document's chunk (blobs).
	Chunk LoadChunk
	// OTP keeps sign-in codes, Refresh batches token refreshes (accounts).
	OTP     OTPRows
	Refresh Refresher
	// Users lists users and reads a profile; Profiles caches profiles.
	Users    UserRows
	Profiles *ProfileCache
}

// Stores are the stores written in this package, on one engine, with the
// engine's Parts: each engine's DB hands them out (DB.Stores), and builds
// itself only its contract store, whose list it plans its own way.
type Stores struct {
	e        Engine
	chunk    LoadChunk
	Accounts *Accounts
	Users    *Users

	Roles         RoleStore
	Identities    IdentityStore
	Remunerations RemunerationStore
	Signing       SigningStore
	TOTP          TOTPStore
	APIKeys       APIKeyStore
	Passkeys      PasskeyStore
	Calendars     CalendarStore
	Audit         AuditStore
	Outbox        OutboxStore
	KeyDates      KeyDateStore
	Webhooks      WebhookStore
	BackupLog     BackupLog
}

// NewStores returns the stores of e with its parts p.
func NewStores(e Engine, p Parts) Stores {
	return Stores{
		e: e, chunk: p.Chunk,
		Accounts: NewAccounts(e, p.OTP, p.Refresh), Users: NewUsers(e, p.Users, p.Profiles),
		Roles: NewRoleStore(e), Identities: NewIdentityStore(e), Remunerations: NewRemunerationStore(e),
		Signing: NewSigningStore(e), TOTP: NewTOTPStore(e), APIKeys: NewAPIKeyStore(e), Passkeys: NewPasskeyStore(e),
		Calendars: NewCalendarStore(e), Audit: AuditStore{E: e}, Outbox: NewOutboxStore(e), KeyDates: NewKeyDateStore(e),
		Webhooks: NewWebhookStore(e), BackupLog: BackupLog{e: e},
	}
}

// Blobs returns the blob store, spooling uploads in spool ("" for the
// system's temporary folder).
func (s Stores) Blobs(spool string) BlobStore { return NewBlobStore(s.e, spool, s.chunk) }

// BackupLog implements ports.BackupLog on any Engine.
type BackupLog struct{ e Engine }

var _ ports.BackupLog = BackupLog{}

// AddBackupRun implements ports.BackupLog: a run of the same name
// replaces the one recorded. It runs in the write transaction, so the
// run's effects (its security event) commit with it.
func (l BackupLog) AddBackupRun(ctx context.Context, r ports.BackupRun) error {
	return l.e.WriteTx(ctx, func(x Querier) error {
		_, err := x.Exec(ctx, `INSERT INTO backup_runs (name, created_at, size, ok, error) VALUES (?, ?, ?, ?, ?)
		ON CONFLICT (name) DO UPDATE SET created_at = excluded.created_at, size = excluded.size, ok = excluded.ok, error = excluded.error`,
			r.Name, l.e.Arg(r.CreatedAt), r.Size, r.OK, r.Error)
		return err
	})
}

// BackupRuns implements ports.BackupLog.
func (l BackupLog) BackupRuns(ctx context.Context, limit int) ([]ports.BackupRun, error) {
	out, err := QueryAll(ctx, l.e.Read(), func(s Scanner) (ports.BackupRun, error) {
		var r ports.BackupRun
		err := s.Scan(&r.Name, Time(l.e, &r.CreatedAt), &r.Size, &r.OK, &r.Error)
		return r, err
	}, `SELECT name, created_at, size, ok, error FROM backup_runs ORDER BY created_at DESC, name DESC LIMIT ?`, limit)
	return out, l.e.FormatError(err)
}

// DeleteBackupRuns implements ports.BackupLog.
func (l BackupLog) DeleteBackupRuns(ctx context.Context, names []string) error {
	if len(names) == 0 {
		return nil
	}
	args := make([]any, len(names))
	for i, n := range names {
		args[i] = n
	}
	return l.e.WriteTx(ctx, func(x Querier) error {
		_, err := x.Exec(ctx, `DELETE FROM backup_runs WHERE name IN (`+Placeholders(len(names))+`)`, args...)
		return err
	})
}

// Refresher is an engine's token refresh (ports.AccountStore.Refresh),
// which each engine batches its own way.
type Refresher interface {
	Refresh(ctx context.Context, rot account.Rotation, fn func(*account.RefreshState) error) error
}

// Accounts is ports.AccountStore on an engine: AccountStore, with the
// engine's OTP rows and batched Refresh, and the engine's upkeep after
// each Prune.
type Accounts struct {
	AccountStore
	Refresher
	eng Engine
}

var _ ports.AccountStore = (*Accounts)(nil)

// NewAccounts returns the account store of e.
func NewAccounts(e Engine, otp OTPRows, r Refresher) *Accounts {
	return &Accounts{AccountStore: NewAccountStore(e, otp), Refresher: r, eng: e}
}

// Prune is AccountStore's, then housekeeping's moment for the engine's
// upkeep (Engine.Upkeep).
func (s *Accounts) Prune(ctx context.Context, now time.Time) (int64, error) {
	n, err := s.AccountStore.Prune(ctx, now)
	if err != nil {
		return n, err
	}
	return n, s.eng.Upkeep(ctx)
}

// UserRows is what each engine reads its own way about users: the list,
// planned for its indexes, and the profile in one query.
type UserRows interface {
	ProfileReader
	ListUsers(ctx context.Context, f user.Filter) ([]user.User, int64, error)
}

// Users is ports.UserStore on an engine: UserStore, with the engine's
// list and its profile, cached.
type Users struct {
	UserStore
	rows  UserRows
	eng   Engine
	cache *ProfileCache
}

var _ ports.UserStore = (*Users)(nil)

// NewUsers returns the user store of e, whose profiles without roles
// cache keeps.
func NewUsers(e Engine, rows UserRows, cache *ProfileCache) *Users {
	return &Users{UserStore: NewUserStore(e, rows), rows: rows, eng: e, cache: cache}
}

// Users implements ports.UserStore.
func (s *Users) Users(ctx context.Context, f user.Filter) ([]user.User, int64, error) {
	us, n, err := s.rows.ListUsers(ctx, f)
	if err != nil {
		return nil, 0, fmt.Errorf("list users: %w", err)
	}
	return us, n, nil
}

// Profile implements ports.UserStore: without roles from the cache (a
// single query on a miss), with roles in one snapshot.
func (s *Users) Profile(ctx context.Context, id int64, withRoles bool) (user.Profile, error) {
	if !withRoles {
		return s.cache.Get(id, s.eng.Now(), func() (user.Profile, error) {
			return s.rows.LoadProfile(ctx, s.eng.Read(), id, false)
		})
	}
	var p user.Profile
	err := s.eng.ReadTx(ctx, func(x Querier) (err error) {
		p, err = s.rows.LoadProfile(ctx, x, id, true)
		return err
	})
	return p, err
}

// CreateUsers is UserStore's, then the engine's news of the tables it
// grew (Engine.Grown).
func (s *Users) CreateUsers(ctx context.Context, us []user.User) ([]int64, error) {
	ids, err := s.UserStore.CreateUsers(ctx, us)
	if err == nil {
		s.eng.Grown(ctx, len(us), "users", "user_roles")
	}
	return ids, err
}
