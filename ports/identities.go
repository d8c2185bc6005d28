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
	// recording email as the provider sent it. When the identity is
	// linked already, check (the use case's rule, account.CheckRelink)
	// runs in the same transaction on the linked user's state read and
	// locked there: nil from it replaces the link, an error is returned as
	// is and the link stays; a nil check replaces any link. ENOTFOUND if
	// the user is unknown or deleted; ECONFLICT if userID is already
	// linked to another subject of issuer, or another transaction linked
	// the identity first.
	LinkIdentity(ctx context.Context, userID int64, issuer, subject, email string, at time.Time, check account.RelinkCheck) error
	// ProvisionUser creates u (the default roles when u.Roles is empty)
	// and links (issuer, subject) to it, in one transaction. ECONFLICT if
	// an undeleted user has the email or the identity is already linked;
	// nothing is created then.
	ProvisionUser(ctx context.Context, u account.NewUser, issuer, subject string, at time.Time) (int64, error)
}
