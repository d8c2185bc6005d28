package sqlrow

import (
	"context"
	"time"

	"counsel/domain/account"
	"counsel/ports"
)

// IdentityStore implements ports.IdentityStore over user_identities on
// any Engine.
type IdentityStore struct{ e Engine }

var _ ports.IdentityStore = IdentityStore{}

// NewIdentityStore returns the identity store of e.
func NewIdentityStore(e Engine) IdentityStore { return IdentityStore{e: e} }

// LinkedUser implements ports.IdentityStore.
func (s IdentityStore) LinkedUser(ctx context.Context, issuer, subject string) (ports.IdentityUser, error) {
	u, err := LinkedUser(ctx, s.e.Read(), s.e, issuer, subject)
	return u, s.e.FormatError(err)
}

// UserByEmail implements ports.IdentityStore.
func (s IdentityStore) UserByEmail(ctx context.Context, email string) (ports.IdentityUser, error) {
	u, err := UserByEmail(ctx, s.e.Read(), email)
	return u, s.e.FormatError(err)
}

// LinkIdentity implements ports.IdentityStore. Where rows lock (LockRow),
// the link is locked for the update and its user against a change (a
// restore) until commit, so what check saw holds; SQLite's one writer
// holds them all. With no link, the plain INSERT loses to a concurrent one
// with a unique violation (ECONFLICT) rather than overwriting it.
func (s IdentityStore) LinkIdentity(ctx context.Context, userID int64, issuer, subject, email string, at time.Time, check account.RelinkCheck) error {
	lock := ""
	if s.e.LockRow() != "" {
		lock = ` FOR NO KEY UPDATE OF i FOR SHARE OF u`
	}
	return s.e.WriteTx(ctx, func(x Querier) error {
		return LinkIdentity(ctx, x, s.e, userID, issuer, subject, email, at, check, lock)
	})
}

// ProvisionUser implements ports.IdentityStore.
func (s IdentityStore) ProvisionUser(ctx context.Context, u account.NewUser, issuer, subject string, at time.Time) (int64, error) {
	var id int64
	err := s.e.WriteTx(ctx, func(x Querier) error {
		var err error
		if id, err = CreateAccountUser(ctx, x, s.e, u, at); err != nil {
			return err
		}
		ports.Created(ctx, id)
		return InsertIdentity(ctx, x, s.e, id, issuer, subject, u.Email, at)
	})
	if err != nil {
		return 0, err
	}
	return id, nil
}
