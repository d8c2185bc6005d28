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
func (s *IdentityStore) LinkIdentity(ctx context.Context, userID int64, issuer, subject, email string, at time.Time, check account.RelinkCheck) error {
	return s.db.tx(ctx, func(x q) error {
		if err := userExists(ctx, x, userID); err != nil {
			return err
		}
		// The link is locked for the update and its user against a
		// change (a restore) until commit, so what check saw holds. With
		// no link, the plain INSERT below loses to a concurrent one with
		// a unique violation (ECONFLICT) rather than overwriting it.
		var linked int64
		var deleted *time.Time
		err := x.row(ctx, `SELECT u.id, u.deleted_at FROM user_identities i JOIN users u ON u.id = i.user_id
			WHERE i.issuer = ? AND i.subject = ? FOR NO KEY UPDATE OF i FOR SHARE OF u`, issuer, subject).Scan(&linked, &deleted)
		if noRows(err) {
			_, err = x.exec(ctx, `INSERT INTO user_identities (issuer, subject, user_id, email, created_at) VALUES (?, ?, ?, ?, ?)`,
				issuer, subject, userID, email, at)
			return linkConflict(err)
		} else if err != nil {
			return err
		}
		if check != nil {
			if err := check(linked, deleted != nil); err != nil {
				return err
			}
		}
		_, err = x.exec(ctx, `UPDATE user_identities SET user_id = ?, email = ?, created_at = ? WHERE issuer = ? AND subject = ?`,
			userID, email, at, issuer, subject)
		return linkConflict(err)
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
