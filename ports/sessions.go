package ports

import (
	"context"

	"counsel/domain/account"
)

// SessionService is the caller's own sessions (docs/decisions.md §18):
// the accounts service. Every method needs a signed-in caller
// (EUNAUTHORIZED otherwise); a revoked session's access tokens are
// refused at once on every instance.
type SessionService interface {
	// MySessions lists the caller's live sessions, newest first.
	MySessions(ctx context.Context) ([]account.Session, error)
	// RevokeMySession revokes one of the caller's sessions (the current
	// one too). ENOTFOUND when id is not a live session of the caller.
	RevokeMySession(ctx context.Context, id string) error
	// RevokeMyOtherSessions revokes every session of the caller but the
	// current one.
	RevokeMyOtherSessions(ctx context.Context) error
}

// SessionAdmin is what the users module asks of the accounts service
// for another user's sessions, after its own permission checks.
type SessionAdmin interface {
	// SessionsOf lists a user's live sessions, newest first.
	SessionsOf(ctx context.Context, userID int64) ([]account.Session, error)
	// EndSessionsOf revokes every session of a user.
	EndSessionsOf(ctx context.Context, userID int64) error
}
