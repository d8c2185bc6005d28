package sqlite

import (
	"context"
	"database/sql"
	"time"

	"counsel/adapters/sqlrow"
	"counsel/domain/account"
	"counsel/ports"
)

// IdentityStore implements ports.IdentityStore over the user_identities
// table.
type IdentityStore struct{ db *DB }

var _ ports.IdentityStore = (*IdentityStore)(nil)

// NewIdentityStore returns the identity store of db.
func NewIdentityStore(db *DB) *IdentityStore { return &IdentityStore{db: db} }

// LinkedUser implements ports.IdentityStore.
func (s *IdentityStore) LinkedUser(ctx context.Context, issuer, subject string) (ports.IdentityUser, error) {
	return sqlrow.LinkedUser(ctx, sq{reader{s.db}}, dialect{}, issuer, subject)
}

// UserByEmail implements ports.IdentityStore.
func (s *IdentityStore) UserByEmail(ctx context.Context, email string) (ports.IdentityUser, error) {
	return sqlrow.UserByEmail(ctx, sq{reader{s.db}}, email)
}

// LinkIdentity implements ports.IdentityStore. The write transaction
// holds the database's one writer, so the link and its user's state read
// in it hold until commit.
func (s *IdentityStore) LinkIdentity(ctx context.Context, userID int64, issuer, subject, email string, at time.Time, check account.RelinkCheck) error {
	return s.db.writeTx(ctx, func(tx *sql.Tx) error {
		return sqlrow.LinkIdentity(ctx, sq{tx}, dialect{}, userID, issuer, subject, email, at, check, "")
	})
}

// ProvisionUser implements ports.IdentityStore.
func (s *IdentityStore) ProvisionUser(ctx context.Context, u account.NewUser, issuer, subject string, at time.Time) (int64, error) {
	var id int64
	err := s.db.writeTx(ctx, func(tx *sql.Tx) error {
		var err error
		if id, err = sqlrow.CreateAccountUser(ctx, sq{tx}, dialect{}, u, at); err != nil {
			return err
		}
		ports.Created(ctx, id)
		return sqlrow.InsertIdentity(ctx, sq{tx}, dialect{}, id, issuer, subject, u.Email, at)
	})
	if err != nil {
		return 0, err
	}
	return id, nil
}

// SetUserState sets a user's active flag and soft-deletes (deleted) or
// restores the user, straight in SQL and nothing else. Tests use it to
// prepare inactive and deleted users; the users module owns these
// changes in the service. ENOTFOUND for an unknown user.
func (s *IdentityStore) SetUserState(ctx context.Context, userID int64, active, deleted bool, at time.Time) error {
	return s.db.writeTx(ctx, func(tx *sql.Tx) error {
		return sqlrow.SetUserState(ctx, sq{tx}, dialect{}, userID, active, deleted, at)
	})
}
