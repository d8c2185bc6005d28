package ports

import (
	"context"
	"time"

	"counsel/domain/account"
)

// IdentityUser is the state of a user that an external identity resolves
// to: enough to decide whether the person may sign in.
type IdentityUser struct {
	UserID  int64
	Active  bool
	Deleted bool
}

// IdentityStore keeps the links between external identities (an OpenID
// Connect issuer and subject) and users, for identity-provider sign-in.
type IdentityStore interface {
	// LinkedUser returns the user (issuer, subject) is linked to, deleted
	// and inactive users included so that the caller can refuse them.
	// ENOTFOUND when the identity is not linked.
	LinkedUser(ctx context.Context, issuer, subject string) (IdentityUser, error)
	// UserByEmail returns the undeleted user whose email is email,
	// compared case-insensitively. ENOTFOUND if there is none.
	UserByEmail(ctx context.Context, email string) (IdentityUser, error)
	// LinkIdentity links (issuer, subject) to the undeleted user userID,
	// recording email as the provider sent it. A link of the identity to
	// a deleted user is replaced. ENOTFOUND if the user is unknown or
	// deleted; ECONFLICT if the identity is linked to an undeleted user or
	// userID is already linked to another subject of issuer.
	LinkIdentity(ctx context.Context, userID int64, issuer, subject, email string, at time.Time) error
	// ProvisionUser creates u (the default roles when u.Roles is empty)
	// and links (issuer, subject) to it, in one transaction. ECONFLICT if
	// an undeleted user has the email or the identity is already linked;
	// nothing is created then.
	ProvisionUser(ctx context.Context, u account.NewUser, issuer, subject string, at time.Time) (int64, error)
}
