// Package contracts is the contract use case: listing and reading
// contracts, creating and editing them, status changes through the state
// machine of domain/contract (one at a time or in bulk), deleting Drafts,
// documents, the audit trail, and the expiry sweep.
//
// Every change goes through Service.change: load the contract, let the
// domain decide, save it and its audit entries in one transaction
// (ports.ContractStore.UpdateContract). Signing flows (submit for signing,
// provider events) are meant to use the same path with their own actor
// and action. Authorization is checked here, in addition to the route
// level.
package contracts

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"time"

	"counsel/domain"
	"counsel/domain/account"
	"counsel/domain/contract"
	"counsel/domain/user"
	"counsel/ports"
)

// Deps are what the service needs.
type Deps struct {
	Store ports.ContractStore
	Blobs ports.BlobStore
	Clock ports.Clock
	// Rand is the source of contract UUIDs.
	Rand   io.Reader
	Logger *slog.Logger
	// Users finds a contract's new owner (ENOTFOUND for an unknown or
	// deleted user).
	Users Users
	// Render renders a contract as the API returns it, for the webhook
	// events of its changes; nil leaves that to the delivery worker.
	Render func(ctx context.Context, v any) (json.RawMessage, error)
}

// events are the webhook events of a change of c that writes entries,
// each carrying c as the API returns it (rendered in the change's
// transaction, so a later change or deletion does not alter it).
func (s *Service) events(ctx context.Context, c contract.Contract, entries []contract.AuditEntry) []ports.Effect {
	return ports.RenderedContractEvents(ctx, s.d.Render, s.d.Logger, c, entries)
}

// Users is what the service reads of users.
type Users interface {
	User(ctx context.Context, id int64) (user.User, error)
}

// Service implements ports.ContractService.
type Service struct{ d Deps }

var _ ports.ContractService = (*Service)(nil)

// New returns the contract service.
func New(d Deps) *Service {
	if d.Logger == nil {
		d.Logger = slog.New(slog.DiscardHandler)
	}
	return &Service{d: d}
}

// Contracts implements ports.ContractService.
func (s *Service) Contracts(ctx context.Context, f contract.Filter) ([]contract.Contract, int64, error) {
	if _, err := account.Require(ctx, account.ContractView); err != nil {
		return nil, 0, err
	}
	if err := f.Validate(); err != nil {
		return nil, 0, err
	}
	return s.d.Store.Contracts(ctx, f)
}

// Contract implements ports.ContractService.
func (s *Service) Contract(ctx context.Context, id int64) (contract.Contract, error) {
	if _, err := account.Require(ctx, account.ContractView); err != nil {
		return contract.Contract{}, err
	}
	return s.d.Store.Contract(ctx, id)
}

// CreateContract implements ports.ContractService. Only the writable
// fields of in are used: the status is Draft, the contract is unsigned and
// not digital, and it gets a new UUID.
func (s *Service) CreateContract(ctx context.Context, in contract.Contract) (contract.Contract, error) {
	p, err := account.Require(ctx, account.ContractCreate)
	if err != nil {
		return contract.Contract{}, err
	}
	now := s.d.Clock.Now()
	c := contract.Contract{
		Name: in.Name, Description: in.Description, Type: in.Type, Status: contract.Draft,
		StartDate: in.StartDate, EndDate: in.EndDate, Amount: in.Amount, Currency: in.Currency, Comments: in.Comments,
		MatterID: in.MatterID, ClientID: in.ClientID, ProjectID: in.ProjectID,
		OwnerID: in.OwnerID, NoticeDays: in.NoticeDays, AutoRenew: in.AutoRenew,
		CreatedAt: now, UpdatedAt: now,
	}
	if c.OwnerID == 0 {
		c.OwnerID = p.UserID
	}
	c.Normalize()
	err = c.Validate()
	if c.OwnerID != p.UserID && c.OwnerID > 0 {
		err = s.checkOwner(ctx, c.OwnerID, err)
	}
	if err != nil {
		return contract.Contract{}, err
	}
	if c.UUID, err = contract.NewUUID(s.d.Rand); err != nil {
		return contract.Contract{}, fmt.Errorf("contract uuid: %w", err)
	}
	audit := []contract.AuditEntry{{Action: contract.ActionCreated, To: contract.Draft, Actor: contract.ActorUser, ActorUserID: p.UserID, At: now}}
	ctx, fx := ports.WithEffects(ctx)
	fx.Add(ports.Deferred(func(id int64) (ports.Effect, error) {
		created := c
		created.ID = id
		return s.events(ctx, created, audit)[0], nil
	}))
	return s.d.Store.CreateContract(ctx, c, audit)
}

// change loads contract id, lets fn change it at now, and saves it with
// the entries fn returns, in one transaction. When fn returns entries the
// contract's UpdatedAt moves to now. Every status change of a contract,
// whoever makes it, goes through here. A change that moves the notice
// date re-arms, in the same transaction, the key-date thresholds not yet
// reached with the new date (docs/decisions.md §16).
func (s *Service) change(ctx context.Context, id int64, fn func(c *contract.Contract, now time.Time) ([]contract.AuditEntry, error)) (contract.Contract, error) {
	now := s.d.Clock.Now()
	ctx, fx := ports.WithEffects(ctx)
	return s.d.Store.UpdateContract(ctx, id, func(c *contract.Contract) ([]contract.AuditEntry, error) {
		before := *c
		entries, err := fn(c, now)
		if err != nil {
			return nil, err
		}
		if contract.KeyDatesChanged(before, *c) {
			fx.Add(ports.RearmKeyDates{ContractID: c.ID, Below: contract.KeyDatesRearmBelow(now, c.NoticeDate())})
		}
		if len(entries) > 0 {
			c.UpdatedAt = now
		}
		fx.Add(s.events(ctx, *c, entries)...)
		return entries, nil
	})
}

// UpdateContract implements ports.ContractService.
func (s *Service) UpdateContract(ctx context.Context, id int64, e contract.Edit) (contract.Contract, error) {
	p, err := account.Require(ctx, account.ContractEdit)
	if err != nil {
		return contract.Contract{}, err
	}
	// The new owner is looked up before the change; an owner given again
	// unchanged is kept even if no longer active, so a client may send
	// back what it read.
	var ownerErr error
	if e.OwnerID != nil {
		ownerErr = s.checkOwner(ctx, *e.OwnerID, nil)
		if domain.ErrorCode(ownerErr) != domain.EINVALID && ownerErr != nil {
			return contract.Contract{}, ownerErr
		}
	}
	return s.change(ctx, id, func(c *contract.Contract, now time.Time) ([]contract.AuditEntry, error) {
		if ownerErr != nil && *e.OwnerID != c.OwnerID {
			return nil, ownerErr
		}
		res, err := c.Apply(e)
		if err != nil {
			return nil, err
		}
		return res.Audit(p.UserID, now), nil
	})
}

// checkOwner adds to err (nil or an EINVALID of the contract's fields)
// the field error of ownerId unless user id is active (docs/decisions.md
// §16); any other failure to read the user is returned alone.
func (s *Service) checkOwner(ctx context.Context, id int64, err error) error {
	f := domain.FieldErrors{}
	if de, ok := err.(*domain.Error); ok && de.Code == domain.EINVALID {
		for k, v := range de.Fields {
			f[k] = append(f[k], v...)
		}
	} else if err != nil {
		return err
	}
	if id <= 0 {
		f.Add("ownerId", "ownerId must be a positive integer")
		return f.Err()
	}
	u, uerr := s.d.Users.User(ctx, id)
	switch {
	case domain.ErrorCode(uerr) == domain.ENOTFOUND || uerr == nil && !u.Active:
		f.Add("ownerId", "ownerId must be an active user")
	case uerr != nil:
		return fmt.Errorf("look up owner %d: %w", id, uerr)
	}
	return f.Err()
}

// ChangeStatuses implements ports.ContractService.
func (s *Service) ChangeStatuses(ctx context.Context, ids []int64, to contract.Status) ([]ports.StatusResult, error) {
	p, err := account.Require(ctx, account.ContractEdit)
	if err != nil {
		return nil, err
	}
	f := domain.FieldErrors{}
	switch {
	case len(ids) == 0:
		f.Add("ids", "ids must list at least one contract id")
	case len(ids) > contract.MaxBulkIDs:
		f.Add("ids", fmt.Sprintf("ids must list at most %d contract ids", contract.MaxBulkIDs))
	}
	for _, id := range ids {
		if id <= 0 {
			f.Add("ids", "ids must be positive integers")
			break
		}
	}
	if !to.Valid() {
		f.Add("status", "status is required")
	}
	if err := f.Err(); err != nil {
		return nil, err
	}
	out := make([]ports.StatusResult, 0, len(ids))
	for _, id := range ids {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		var current contract.Status
		c, err := s.change(ctx, id, func(c *contract.Contract, now time.Time) ([]contract.AuditEntry, error) {
			current = c.Status
			ch, err := c.ChangeStatus(to, contract.ActorUser)
			if err != nil {
				return nil, err
			}
			return ch.Audit(contract.ActionStatusChanged, p.UserID, now, ""), nil
		})
		r := ports.StatusResult{ID: id, OK: err == nil, Status: c.Status, Err: err}
		if err != nil {
			r.Status = current
			if domain.ErrorCode(err) == domain.EINTERNAL {
				s.d.Logger.ErrorContext(ctx, "bulk status change", "contract", id, "err", err)
			}
		}
		out = append(out, r)
	}
	return out, nil
}

// DeleteContract implements ports.ContractService. The contract's
// documents, rows and bytes, go in the store's transaction.
func (s *Service) DeleteContract(ctx context.Context, id int64) error {
	p, err := account.Require(ctx, account.ContractDelete)
	if err != nil {
		return err
	}
	now := s.d.Clock.Now()
	ctx, fx := ports.WithEffects(ctx)
	_, err = s.d.Store.DeleteContract(ctx, id, func(c contract.Contract) ([]contract.AuditEntry, error) {
		if err := contract.CheckDelete(c.Status); err != nil {
			return nil, err
		}
		entries := []contract.AuditEntry{{Action: contract.ActionDeleted, From: c.Status, Actor: contract.ActorUser, ActorUserID: p.UserID, At: now,
			Details: fmt.Sprintf("deleted %q (%s)", c.Name, c.UUID)}}
		fx.Add(s.events(ctx, c, entries)...)
		return entries, nil
	})
	return err
}

// History implements ports.ContractService.
func (s *Service) History(ctx context.Context, id int64, limit, offset int64) ([]contract.AuditEntry, int64, error) {
	if _, err := account.Require(ctx, account.ContractView); err != nil {
		return nil, 0, err
	}
	return s.d.Store.History(ctx, id, limit, offset)
}
