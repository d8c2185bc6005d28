package sqlrow

import (
	"context"
	"fmt"
	"time"

	"counsel/domain"
	"counsel/domain/account"
	"counsel/ports"
)

// LinkedUser returns the user an identity is linked to, with the user's
// state (the primary key finds the link; the join reads the user in the
// same query). ENOTFOUND ("identity") when it is not linked.
func LinkedUser(ctx context.Context, x Querier, tc Times, issuer, subject string) (ports.IdentityUser, error) {
	var u ports.IdentityUser
	var deleted *time.Time
	err := x.Row(ctx, `SELECT u.id, u.active, u.deleted_at
		FROM user_identities i JOIN users u ON u.id = i.user_id
		WHERE i.issuer = ? AND i.subject = ?`, issuer, subject).Scan(&u.UserID, &u.Active, NullTime(tc, &deleted))
	if err != nil {
		return u, IfNoRows(err, "identity")
	}
	u.Deleted = deleted != nil
	return u, nil
}

// UserByEmail finds an undeleted user by email. Emails are stored trimmed
// and lower-cased (account.NormalizeEmail), so normalising the argument
// makes the comparison case-insensitive and lets the unique partial index
// on undeleted users' emails answer it.
func UserByEmail(ctx context.Context, x Querier, email string) (ports.IdentityUser, error) {
	var u ports.IdentityUser
	err := x.Row(ctx, `SELECT id, active FROM users WHERE email = ? AND deleted_at IS NULL`,
		account.NormalizeEmail(email)).Scan(&u.UserID, &u.Active)
	return u, IfNoRows(err, "user")
}

// LinkIdentity links issuer's subject to userID, or relinks it after
// check (nil: none) has accepted the user it is linked to now; lock is
// appended to the read of the link and its user.
func LinkIdentity(ctx context.Context, x Querier, d Dialect, userID int64, issuer, subject, email string, at time.Time, check account.RelinkCheck, lock string) error {
	if err := UserExists(ctx, x, userID); err != nil {
		return err
	}
	var linked int64
	var deleted *time.Time
	err := x.Row(ctx, `SELECT u.id, u.deleted_at FROM user_identities i JOIN users u ON u.id = i.user_id
		WHERE i.issuer = ? AND i.subject = ?`+lock, issuer, subject).Scan(&linked, NullTime(d, &deleted))
	if NoRows(err) {
		return InsertIdentity(ctx, x, d, userID, issuer, subject, email, at)
	} else if err != nil {
		return fmt.Errorf("load the link of %s %s: %w", issuer, subject, err)
	}
	if check != nil {
		if err := check(linked, deleted != nil); err != nil {
			return err
		}
	}
	_, err = x.Exec(ctx, `UPDATE user_identities SET user_id = ?, email = ?, created_at = ? WHERE issuer = ? AND subject = ?`,
		userID, email, d.Arg(at), issuer, subject)
	return linkConflict(d, err)
}

// InsertIdentity links issuer's subject to userID.
func InsertIdentity(ctx context.Context, x Querier, d Dialect, userID int64, issuer, subject, email string, at time.Time) error {
	_, err := x.Exec(ctx, `INSERT INTO user_identities (issuer, subject, user_id, email, created_at) VALUES (?, ?, ?, ?, ?)`,
		issuer, subject, userID, email, d.Arg(at))
	return linkConflict(d, err)
}

// linkConflict names the unique violations of user_identities: the
// identity is linked already, or the user is linked to another subject of
// the issuer.
func linkConflict(d Dialect, err error) error {
	if err != nil && domain.ErrorCode(d.FormatError(err)) == domain.ECONFLICT {
		return &domain.Error{Code: domain.ECONFLICT, Message: "the identity or the user is already linked", Err: err}
	}
	return err
}
