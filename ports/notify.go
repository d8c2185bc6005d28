package ports

import (
	"context"
	"time"

	"counsel/domain/contract"
)

// CalendarStore keeps each user's calendar feed token, as its SHA-256
// (docs/decisions.md §16).
type CalendarStore interface {
	// SetCalendarFeed makes hash user userID's feed token, replacing any
	// other. ENOTFOUND for an unknown or deleted user.
	SetCalendarFeed(ctx context.Context, userID int64, hash []byte, at time.Time) error
	// RemoveCalendarFeed turns user userID's feed off (nothing when off).
	RemoveCalendarFeed(ctx context.Context, userID int64) error
	// CalendarFeedUser returns the active user whose feed token hashes to
	// hash. ENOTFOUND for any other hash, and for a user deactivated or
	// deleted (whose feed the database removes).
	CalendarFeedUser(ctx context.Context, hash []byte) (int64, error)
}

// CalendarService is the personal calendar feed (docs/decisions.md §16).
type CalendarService interface {
	// CreateCalendarFeed gives the caller a new feed URL, replacing the
	// old one. EUNAUTHORIZED without a caller.
	CreateCalendarFeed(ctx context.Context) (url string, err error)
	// RemoveCalendarFeed turns the caller's feed off.
	RemoveCalendarFeed(ctx context.Context) error
	// CalendarFeed reads the feed of token: the contracts its user owns
	// that have an end date. ENOTFOUND for an unknown or revoked token.
	CalendarFeed(ctx context.Context, token string) (CalendarFeed, error)
}

// CalendarFeed is what a calendar feed shows.
type CalendarFeed struct {
	Contracts []contract.Contract
	// ConsoleURL is the console's address (COUNSEL_PUBLIC_URL + /console),
	// for each event's link.
	ConsoleURL string
}
