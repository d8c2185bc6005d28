package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"counsel/domain"
	"counsel/domain/account"
	"counsel/ports"
)

// IdentityStore implements ports.IdentityStore over the user_identities
// table.
type IdentityStore struct{ db *DB }

var _ ports.IdentityStore = (*IdentityStore)(nil)

// NewIdentityStore returns the identity store of db.
func NewIdentityStore(db *DB) *IdentityStore { return &IdentityStore{db: db} }

// LinkedUser implements ports.IdentityStore. The primary key finds the
// link; the join reads the user's state in the same query.
func (s *IdentityStore) LinkedUser(ctx context.Context, issuer, subject string) (ports.IdentityUser, error) {
	var u ports.IdentityUser
	var deleted sql.NullInt64
	err := s.db.queryRow(ctx, `SELECT u.id, u.active, u.deleted_at
		FROM user_identities i JOIN users u ON u.id = i.user_id
		WHERE i.issuer = ? AND i.subject = ?`, issuer, subject).Scan(&u.UserID, &u.Active, &deleted)
	if errors.Is(err, sql.ErrNoRows) {
		return u, notFound("identity")
	} else if err != nil {
		return u, err
	}
	u.Deleted = deleted.Valid
	return u, nil
}

// UserByEmail implements ports.IdentityStore. Emails are stored trimmed and
// lower-cased (account.NormalizeEmail), so normalising the argument makes
// the comparison case-insensitive and lets the unique partial index on
// undeleted users' emails answer it.
func (s *IdentityStore) UserByEmail(ctx context.Context, email string) (ports.IdentityUser, error) {
	var u ports.IdentityUser
	err := s.db.queryRow(ctx, `SELECT id, active FROM users WHERE email = ? AND deleted_at IS NULL`,
		account.NormalizeEmail(email)).Scan(&u.UserID, &u.Active)
	if errors.Is(err, sql.ErrNoRows) {
		return u, notFound("user")
	}
	return u, err
}

// LinkIdentity implements ports.IdentityStore.
func (s *IdentityStore) LinkIdentity(ctx context.Context, userID int64, issuer, subject, email string, at time.Time, check account.RelinkCheck) error {
	return s.db.writeTx(ctx, func(tx *sql.Tx) error {
		if err := userExists(ctx, tx, userID); err != nil {
			return err
		}
		// The write transaction holds the database's one writer, so the
		// link and its user's state read here hold until commit.
		var linked int64
		var deleted sql.NullInt64
		err := tx.QueryRowContext(ctx, `SELECT u.id, u.deleted_at FROM user_identities i JOIN users u ON u.id = i.user_id
			WHERE i.issuer = ? AND i.subject = ?`, issuer, subject).Scan(&linked, &deleted)
		if errors.Is(err, sql.ErrNoRows) {
			return insertIdentity(ctx, tx, userID, issuer, subject, email, at)
		} else if err != nil {
			return err
		}
		if check != nil {
			if err := check(linked, deleted.Valid); err != nil {
				return err
			}
		}
		_, err = tx.ExecContext(ctx, `UPDATE user_identities SET user_id = ?, email = ?, created_at = ? WHERE issuer = ? AND subject = ?`,
			userID, email, ms(at), issuer, subject)
		return linkConflict(err)
	})
}

// ProvisionUser implements ports.IdentityStore.
func (s *IdentityStore) ProvisionUser(ctx context.Context, u account.NewUser, issuer, subject string, at time.Time) (int64, error) {
	var id int64
	err := s.db.writeTx(ctx, func(tx *sql.Tx) error {
		var err error
		if id, err = createUser(ctx, tx, u, at); err != nil {
			return err
		}
		return insertIdentity(ctx, tx, id, issuer, subject, u.Email, at)
	})
	if err != nil {
		return 0, err
	}
	return id, nil
}

func insertIdentity(ctx context.Context, tx *sql.Tx, userID int64, issuer, subject, email string, at time.Time) error {
	_, err := tx.ExecContext(ctx, `INSERT INTO user_identities (issuer, subject, user_id, email, created_at) VALUES (?, ?, ?, ?, ?)`,
		issuer, subject, userID, email, ms(at))
	return linkConflict(err)
}

// linkConflict names the unique violations of user_identities: the
// identity is linked already, or the user is linked to another subject of
// the issuer.
func linkConflict(err error) error {
	if domain.ErrorCode(formatError(err)) == domain.ECONFLICT {
		return &domain.Error{Code: domain.ECONFLICT, Message: "the identity or the user is already linked", Err: err}
	}
	return err
}

// SetUserState sets a user's active flag and soft-deletes (deleted) or
// restores the user, straight in SQL and nothing else: no session is
// revoked and no cache is told. Tests use it to prepare inactive and
// deleted users; the users module owns these changes in the service.
// ENOTFOUND for an unknown user.
func (s *IdentityStore) SetUserState(ctx context.Context, userID int64, active, deleted bool, at time.Time) error {
	var deletedAt any
	if deleted {
		deletedAt = ms(at)
	}
	return s.db.writeTx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE users SET active = ?, deleted_at = ?, updated_at = ? WHERE id = ?`,
			active, deletedAt, ms(at), userID)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return notFound("user")
		}
		return nil
	})
}
