package postgres

import (
	"context"
	"time"

	"counsel/adapters/sqlrow"
	"counsel/domain/account"
	"counsel/ports"
)

// IdentityStore implements ports.IdentityStore over user_identities.
type IdentityStore struct{ db *DB }

var _ ports.IdentityStore = (*IdentityStore)(nil)

// NewIdentityStore returns the identity store of db.
func NewIdentityStore(db *DB) *IdentityStore { return &IdentityStore{db: db} }

// LinkedUser implements ports.IdentityStore.
func (s *IdentityStore) LinkedUser(ctx context.Context, issuer, subject string) (ports.IdentityUser, error) {
	u, err := sqlrow.LinkedUser(ctx, s.db.read(), dialect{}, issuer, subject)
	return u, formatError(err)
}

// UserByEmail implements ports.IdentityStore.
func (s *IdentityStore) UserByEmail(ctx context.Context, email string) (ports.IdentityUser, error) {
	u, err := sqlrow.UserByEmail(ctx, s.db.read(), email)
	return u, formatError(err)
}

// LinkIdentity implements ports.IdentityStore. The link is locked for the
// update and its user against a change (a restore) until commit, so what
// check saw holds. With no link, the plain INSERT loses to a concurrent
// one with a unique violation (ECONFLICT) rather than overwriting it.
func (s *IdentityStore) LinkIdentity(ctx context.Context, userID int64, issuer, subject, email string, at time.Time, check account.RelinkCheck) error {
	return s.db.tx(ctx, func(x q) error {
		return sqlrow.LinkIdentity(ctx, x, dialect{}, userID, issuer, subject, email, at, check, ` FOR NO KEY UPDATE OF i FOR SHARE OF u`)
	})
}

// ProvisionUser implements ports.IdentityStore.
func (s *IdentityStore) ProvisionUser(ctx context.Context, u account.NewUser, issuer, subject string, at time.Time) (int64, error) {
	var id int64
	err := s.db.tx(ctx, func(x q) error {
		var err error
		if id, err = sqlrow.CreateAccountUser(ctx, x, dialect{}, u, at); err != nil {
			return err
		}
		ports.Created(ctx, id)
		return sqlrow.InsertIdentity(ctx, x, dialect{}, id, issuer, subject, u.Email, at)
	})
	if err != nil {
		return 0, err
	}
	return id, nil
}

// SetUserState sets a user's active flag and soft-deletes or restores the
// user, straight in SQL (tests prepare users with it). ENOTFOUND for an
// unknown user.
func (s *IdentityStore) SetUserState(ctx context.Context, userID int64, active, deleted bool, at time.Time) error {
	return s.db.tx(ctx, func(x q) error {
		return sqlrow.SetUserState(ctx, x, dialect{}, userID, active, deleted, at)
	})
}
