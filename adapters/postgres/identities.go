package postgres

import (
	"context"
	"time"

	"counsel/domain"
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
	var u ports.IdentityUser
	var deleted *time.Time
	err := s.db.read().row(ctx, `SELECT u.id, u.active, u.deleted_at
		FROM user_identities i JOIN users u ON u.id = i.user_id
		WHERE i.issuer = ? AND i.subject = ?`, issuer, subject).Scan(&u.UserID, &u.Active, &deleted)
	if noRows(err) {
		return u, notFound("identity")
	} else if err != nil {
		return u, formatError(err)
	}
	u.Deleted = deleted != nil
	return u, nil
}

// UserByEmail implements ports.IdentityStore.
func (s *IdentityStore) UserByEmail(ctx context.Context, email string) (ports.IdentityUser, error) {
	var u ports.IdentityUser
	err := s.db.read().row(ctx, `SELECT id, active FROM users WHERE email = ? AND deleted_at IS NULL`,
		account.NormalizeEmail(email)).Scan(&u.UserID, &u.Active)
	if noRows(err) {
		return u, notFound("user")
	}
	return u, formatError(err)
}

// LinkIdentity implements ports.IdentityStore.
func (s *IdentityStore) LinkIdentity(ctx context.Context, userID int64, issuer, subject, email string, at time.Time) error {
	return s.db.tx(ctx, func(x q) error {
		if err := userExists(ctx, x, userID); err != nil {
			return err
		}
		// The upsert replaces only a link to a deleted user; a link to an
		// undeleted one leaves no row changed, which is the conflict.
		n, err := x.exec(ctx, `INSERT INTO user_identities AS i (issuer, subject, user_id, email, created_at)
			VALUES (?, ?, ?, ?, ?)
			ON CONFLICT (issuer, subject) DO UPDATE SET user_id = excluded.user_id, email = excluded.email, created_at = excluded.created_at
			WHERE (SELECT deleted_at FROM users WHERE id = i.user_id) IS NOT NULL`,
			issuer, subject, userID, email, at)
		if err != nil {
			return linkConflict(err)
		}
		if n == 0 {
			return &domain.Error{Code: domain.ECONFLICT, Message: "the identity is already linked to a user"}
		}
		return nil
	})
}

// ProvisionUser implements ports.IdentityStore.
func (s *IdentityStore) ProvisionUser(ctx context.Context, u account.NewUser, issuer, subject string, at time.Time) (int64, error) {
	var id int64
	err := s.db.tx(ctx, func(x q) error {
		var err error
		if id, err = createUser(ctx, x, u, at); err != nil {
			return err
		}
		_, err = x.exec(ctx, `INSERT INTO user_identities (issuer, subject, user_id, email, created_at) VALUES (?, ?, ?, ?, ?)`,
			issuer, subject, id, u.Email, at)
		return linkConflict(err)
	})
	if err != nil {
		return 0, err
	}
	return id, nil
}

// linkConflict names the unique violations of user_identities.
func linkConflict(err error) error {
	if err != nil && domain.ErrorCode(formatError(err)) == domain.ECONFLICT {
		return &domain.Error{Code: domain.ECONFLICT, Message: "the identity or the user is already linked", Err: err}
	}
	return err
}

// SetUserState sets a user's active flag and soft-deletes or restores the
// user, straight in SQL (tests prepare users with it). ENOTFOUND for an
// unknown user.
func (s *IdentityStore) SetUserState(ctx context.Context, userID int64, active, deleted bool, at time.Time) error {
	var deletedAt any
	if deleted {
		deletedAt = at
	}
	return s.db.tx(ctx, func(x q) error {
		n, err := x.exec(ctx, `UPDATE users SET active = ?, deleted_at = ?, updated_at = ? WHERE id = ?`, active, deletedAt, at, userID)
		if err != nil {
			return err
		}
		if n == 0 {
			return notFound("user")
		}
		return nil
	})
}
