package ports

import (
	"context"
	"time"

	"counsel/domain/account"
	"counsel/domain/audit"
)

// AuditEvent is a security or administration event (docs/decisions.md
// §18) as an effect: written in the transaction of its change.
type AuditEvent struct{ audit.Event }

func (AuditEvent) effect() {}

// Audit returns the event of action on a target, made with ctx: its
// actor is the signed-in user of ctx, else the one audit.WithActor set,
// else the system; its address, user agent and request id are the
// request's (ports.RequestOf).
func Audit(ctx context.Context, action, targetType, targetID string, details map[string]any) AuditEvent {
	req := RequestOf(ctx)
	e := audit.Event{Action: action, TargetType: targetType, TargetID: targetID,
		IP: req.IP, UserAgent: account.CutUserAgent(req.UserAgent), RequestID: req.RequestID, Details: details}
	if p, ok := account.FromContext(ctx); ok && p.UserID != 0 {
		e.Actor = audit.Actor{Kind: audit.ActorUser, UserID: p.UserID}
		if p.ViaAPIKey() {
			e.Actor.Kind = audit.ActorAPIKey
		}
	} else if a, ok := audit.ActorOf(ctx); ok {
		e.Actor = a
	} else {
		e.Actor = audit.Actor{Kind: audit.ActorSystem}
	}
	return AuditEvent{e}
}

// DeviceSeen records that a user signed in from a device at At (its
// user-agent family and address network), in the sign-in's transaction.
type DeviceSeen struct {
	UserID int64
	Device account.Device
	At     time.Time
}

func (DeviceSeen) effect() {}

// AuditStore keeps the events (every engine; SQL written once in
// adapters/sqlrow).
type AuditStore interface {
	// AuditEvents returns a page of the events matching f, newest first
	// (at, then id), and how many match.
	AuditEvents(ctx context.Context, f audit.Filter) ([]audit.Event, int64, error)
	// EachAuditEvent calls fn for every event matching f (Limit and
	// Offset ignored), newest first, reading in bounded batches; an error
	// from fn stops it and is returned.
	EachAuditEvent(ctx context.Context, f audit.Filter, fn func(audit.Event) error) error
	// PruneAuditEvents removes the events older than before and returns
	// how many.
	PruneAuditEvents(ctx context.Context, before time.Time) (int64, error)
	// RecordEffects writes the effects ctx carries in a transaction of
	// their own: for an event whose change writes nothing (a sign-in
	// refused before any account was read).
	RecordEffects(ctx context.Context) error
}

// AuditService reads the events (AuditView; docs/decisions.md §18).
type AuditService interface {
	// Events returns a page of events and the count. EINVALID for a bad
	// filter, EFORBIDDEN without AuditView.
	Events(ctx context.Context, f audit.Filter) ([]audit.Event, int64, error)
	// ExportEvents streams every event matching f to fn (the rules of
	// Events).
	ExportEvents(ctx context.Context, f audit.Filter, fn func(audit.Event) error) error
}
