// Package remunerations is the use case of staff remunerations and PQE
// adjustments: recording them with the figures of docs/decisions.md §4
// computed once, at creation (domain/remuneration.Compute), and reading
// them back with their staff member. Every method checks the caller's
// permission itself.
package remunerations

import (
	"context"
	"errors"
	"strconv"
	"unicode/utf8"

	"counsel/domain"
	"counsel/domain/account"
	"counsel/domain/audit"
	"counsel/domain/remuneration"
	"counsel/domain/user"
	"counsel/ports"
)

// MaxLimit is the largest page a list returns (docs/decisions.md §1).
const MaxLimit = 100

// Length limits of a PQE adjustment's text, in characters.
const (
	MaxNameLength    = 200
	MaxDetailsLength = 4000
)

// Service implements ports.RemunerationService.
type Service struct{ store ports.RemunerationStore }

var _ ports.RemunerationService = (*Service)(nil)

// New returns the remuneration service.
func New(store ports.RemunerationStore) *Service { return &Service{store: store} }

// Remunerations implements ports.RemunerationService.
func (s *Service) Remunerations(ctx context.Context, f user.Filter) ([]user.StaffRemuneration, int64, error) {
	if _, err := account.Require(ctx); err != nil {
		return nil, 0, err
	}
	if err := f.Prepare(MaxLimit); err != nil {
		return nil, 0, err
	}
	return s.store.Remunerations(ctx, f)
}

// Remuneration implements ports.RemunerationService.
func (s *Service) Remuneration(ctx context.Context, id int64) (user.StaffRemuneration, error) {
	if _, err := account.Require(ctx); err != nil {
		return user.StaffRemuneration{}, err
	}
	return s.store.Remuneration(ctx, id)
}

// LatestRemuneration implements ports.RemunerationService.
func (s *Service) LatestRemuneration(ctx context.Context, staffID int64) (user.StaffRemuneration, error) {
	if _, err := account.Require(ctx); err != nil {
		return user.StaffRemuneration{}, err
	}
	return s.store.LatestRemuneration(ctx, staffID)
}

// CreateRemuneration implements ports.RemunerationService. The client's
// id, if any, is ignored: the store assigns one.
func (s *Service) CreateRemuneration(ctx context.Context, r remuneration.Remuneration) (user.StaffRemuneration, error) {
	if _, err := account.Require(ctx, account.RemunerationsCreate); err != nil {
		return user.StaffRemuneration{}, err
	}
	r.ID = 0
	r.Normalize()
	if err := r.Validate(); err != nil {
		return user.StaffRemuneration{}, err
	}
	// The staff member is the target; the figures stay out of the event.
	ctx, fx := ports.WithEffects(ctx)
	fx.Add(ports.Deferred(func(id int64) (ports.Effect, error) {
		return ports.Audit(ctx, audit.RemunerationCreated, audit.TargetUser, strconv.FormatInt(r.StaffID, 10),
			map[string]any{"remunerationId": id}), nil
	}))
	return s.store.CreateRemuneration(ctx, r, remuneration.Compute)
}

// PQEAdjustments implements ports.RemunerationService.
func (s *Service) PQEAdjustments(ctx context.Context, staffID, limit, offset int64) ([]user.StaffAdjustment, int64, error) {
	if _, err := account.Require(ctx); err != nil {
		return nil, 0, err
	}
	f := domain.FieldErrors{}
	if limit < 0 {
		f.Add("Limit", "Limit must be a non-negative integer")
	}
	if offset < 0 {
		f.Add("Offset", "Offset must be a non-negative integer")
	}
	if err := f.Err(); err != nil {
		return nil, 0, err
	}
	return s.store.PQEAdjustments(ctx, staffID, min(limit, MaxLimit), offset)
}

// CreatePQEAdjustment implements ports.RemunerationService. Anyone may
// record an adjustment for themselves; for someone else it takes
// RemunerationsCreate. The permission is checked before the fields, so a
// caller without it learns nothing about other staff members.
func (s *Service) CreatePQEAdjustment(ctx context.Context, a remuneration.PQEAdjustment) (user.StaffAdjustment, error) {
	p, err := account.Require(ctx)
	if err != nil {
		return user.StaffAdjustment{}, err
	}
	if a.StaffID != p.UserID && a.StaffID > 0 && !p.Can(account.RemunerationsCreate) {
		return user.StaffAdjustment{}, domain.Errorf(domain.EFORBIDDEN, "recording another staff member's PQE adjustment requires the RemunerationsCreate permission")
	}
	a.ID = 0
	a.Normalize()
	f := domain.FieldErrors{}
	var de *domain.Error
	if err := a.Validate(); errors.As(err, &de) {
		f = de.Fields
	} else if err != nil {
		return user.StaffAdjustment{}, err
	}
	if utf8.RuneCountInString(a.Name) > MaxNameLength {
		f.Add("name", "name must be at most 200 characters")
	}
	if utf8.RuneCountInString(a.Details) > MaxDetailsLength {
		f.Add("details", "details must be at most 4000 characters")
	}
	if err := f.Err(); err != nil {
		return user.StaffAdjustment{}, err
	}
	ctx, fx := ports.WithEffects(ctx)
	fx.Add(ports.Deferred(func(id int64) (ports.Effect, error) {
		return ports.Audit(ctx, audit.PQEAdjustmentCreated, audit.TargetUser, strconv.FormatInt(a.StaffID, 10),
			map[string]any{"pqeAdjustmentId": id}), nil
	}))
	return s.store.CreatePQEAdjustment(ctx, a)
}
