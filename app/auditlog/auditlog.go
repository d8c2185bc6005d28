// Package auditlog is reading the security and administration events
// (docs/decisions.md §18): the list and the export, for AuditView
// holders, and the retention the housekeeping applies. The events are
// written by the use cases that make the changes, as ports.AuditEvent
// effects of their transactions.
package auditlog

import (
	"context"
	"time"

	"counsel/domain/account"
	"counsel/domain/audit"
	"counsel/ports"
)

// Service implements ports.AuditService.
type Service struct {
	store ports.AuditStore
	clock ports.Clock
}

var _ ports.AuditService = (*Service)(nil)

// New returns the service over store.
func New(store ports.AuditStore, clock ports.Clock) *Service {
	return &Service{store: store, clock: clock}
}

// Events implements ports.AuditService.
func (s *Service) Events(ctx context.Context, f audit.Filter) ([]audit.Event, int64, error) {
	if _, err := account.Require(ctx, account.AuditView); err != nil {
		return nil, 0, err
	}
	if err := f.Validate(); err != nil {
		return nil, 0, err
	}
	f.Limit = min(f.Limit, audit.MaxLimit)
	return s.store.AuditEvents(ctx, f)
}

// ExportEvents implements ports.AuditService.
func (s *Service) ExportEvents(ctx context.Context, f audit.Filter, fn func(audit.Event) error) error {
	if _, err := account.Require(ctx, account.AuditView); err != nil {
		return err
	}
	if err := f.Validate(); err != nil {
		return err
	}
	return s.store.EachAuditEvent(ctx, f, fn)
}

// Prune removes the events older than retention (housekeeping) and
// returns how many.
func (s *Service) Prune(ctx context.Context, retention time.Duration) (int64, error) {
	if retention < audit.MinRetention { // an unset option: never less than the least allowed
		retention = audit.DefaultRetention
	}
	return s.store.PruneAuditEvents(ctx, s.clock.Now().Add(-retention))
}
