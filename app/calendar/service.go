// Package calendar is the personal calendar feed (docs/decisions.md §16):
// a secret URL per user that calendar applications poll, listing the end
// date and the notice date of every contract the user owns.
//
// The URL's token is 256 random bits in base64url; only its SHA-256 is
// stored, so the database never holds a working feed address. The feed
// shows contracts only while its user is active and holds ContractView.
package calendar

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"io"
	"strings"

	"counsel/domain"
	"counsel/domain/account"
	"counsel/domain/contract"
	"counsel/ports"
)

// MaxContracts bounds the contracts one feed lists (the owner's first
// by creation), so one request is bounded work.
const MaxContracts = 5000

// Deps are what the service needs.
type Deps struct {
	Store     ports.CalendarStore
	Contracts ports.ContractStore
	// Access reads the feed user's permissions (ENOTFOUND when inactive).
	Access interface {
		UserAccess(ctx context.Context, userID int64) (account.PermissionSet, bool, error)
	}
	Clock ports.Clock
	Rand  io.Reader
	// PublicURL is COUNSEL_PUBLIC_URL, without a trailing slash.
	PublicURL string
}

// Service implements ports.CalendarService.
type Service struct{ d Deps }

var _ ports.CalendarService = (*Service)(nil)

// New returns the calendar feed service.
func New(d Deps) *Service {
	d.PublicURL = strings.TrimRight(d.PublicURL, "/")
	return &Service{d: d}
}

// tokenBytes is the token's length before encoding (256 bits).
const tokenBytes = 32

func hash(token string) []byte {
	h := sha256.Sum256([]byte(token))
	return h[:]
}

// CreateCalendarFeed implements ports.CalendarService.
func (s *Service) CreateCalendarFeed(ctx context.Context) (string, error) {
	p, err := account.Require(ctx)
	if err != nil {
		return "", err
	}
	b := make([]byte, tokenBytes)
	if _, err := io.ReadFull(s.d.Rand, b); err != nil {
		return "", fmt.Errorf("calendar token: %w", err)
	}
	token := base64.RawURLEncoding.EncodeToString(b)
	if err := s.d.Store.SetCalendarFeed(ctx, p.UserID, hash(token), s.d.Clock.Now()); err != nil {
		return "", err
	}
	return s.d.PublicURL + "/calendar/" + token + ".ics", nil
}

// RemoveCalendarFeed implements ports.CalendarService.
func (s *Service) RemoveCalendarFeed(ctx context.Context) error {
	p, err := account.Require(ctx)
	if err != nil {
		return err
	}
	return s.d.Store.RemoveCalendarFeed(ctx, p.UserID)
}

// CalendarFeed implements ports.CalendarService. A token of the wrong
// shape, unknown, revoked, or of a user who may no longer read contracts
// is ENOTFOUND alike.
func (s *Service) CalendarFeed(ctx context.Context, token string) (ports.CalendarFeed, error) {
	notFound := domain.Errorf(domain.ENOTFOUND, "calendar feed not found")
	if b, err := base64.RawURLEncoding.DecodeString(token); err != nil || len(b) != tokenBytes {
		return ports.CalendarFeed{}, notFound
	}
	uid, err := s.d.Store.CalendarFeedUser(ctx, hash(token))
	if err != nil {
		return ports.CalendarFeed{}, err
	}
	perms, _, err := s.d.Access.UserAccess(ctx, uid)
	if domain.ErrorCode(err) == domain.ENOTFOUND || err == nil && !perms.Has(account.ContractView) {
		return ports.CalendarFeed{}, notFound
	}
	if err != nil {
		return ports.CalendarFeed{}, err
	}
	feed := ports.CalendarFeed{ConsoleURL: s.d.PublicURL + "/console"}
	f := contract.Filter{OwnerID: &uid, SortBy: contract.SortCreatedAt, Limit: contract.MaxLimit}
	for f.Offset < MaxContracts {
		page, n, err := s.d.Contracts.Contracts(ctx, f)
		if err != nil {
			return ports.CalendarFeed{}, err
		}
		for _, c := range page {
			if c.EndDate != nil {
				feed.Contracts = append(feed.Contracts, c)
			}
		}
		f.Offset += int64(len(page))
		if len(page) == 0 || f.Offset >= n {
			break
		}
	}
	return feed, nil
}
