package sqlrow

import (
	"context"

	"counsel/ports"
)

// Stores are the stores written whole in this package, on one engine:
// each engine's DB hands them out (DB.Stores), and builds itself only
// the stores it writes partly its own way (accounts, users, contracts).
type Stores struct {
	e     Engine
	chunk LoadChunk

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

// NewStores returns the stores of e, whose blobs' chunks chunk reads.
func NewStores(e Engine, chunk LoadChunk) Stores {
	return Stores{
		e: e, chunk: chunk,
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
