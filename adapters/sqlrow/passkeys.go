package sqlrow

import (
	"context"
	"fmt"
	"time"

	"counsel/domain"
	"counsel/domain/account"
	"counsel/ports"
)

// PasskeyStore implements ports.PasskeyStore on any Engine, but for
// RemoveUserPasskeys, whose role check is the engine's (each engine's
// store embeds this one and adds it, with DeleteUserPasskeys).
type PasskeyStore struct{ e Engine }

// NewPasskeyStore returns the passkey store of e.
func NewPasskeyStore(e Engine) PasskeyStore { return PasskeyStore{e: e} }

const passkeyColumns = `id, user_id, credential_id, name, credential, sign_count, created_at, last_used_at`

func (s PasskeyStore) scan(row Scanner) (account.Passkey, error) {
	var p account.Passkey
	var count int64
	err := row.Scan(&p.ID, &p.UserID, &p.CredentialID, &p.Name, &p.Credential, &count,
		Time(s.e, &p.CreatedAt), NullTime(s.e, &p.LastUsedAt))
	p.SignCount = uint32(count)
	return p, err
}

// SaveChallenge implements ports.PasskeyStore.
func (s PasskeyStore) SaveChallenge(ctx context.Context, c account.PasskeyChallenge, now time.Time) error {
	return s.e.WriteTx(ctx, func(x Querier) error {
		// Expired challenges go as new ones come: the table holds at most
		// five minutes of ceremonies begun.
		if _, err := x.Exec(ctx, `DELETE FROM passkey_challenges WHERE expires_at <= ?`, s.e.Arg(now)); err != nil {
			return fmt.Errorf("remove expired passkey challenges: %w", err)
		}
		if _, err := x.Exec(ctx, `INSERT INTO passkey_challenges (id, purpose, user_id, session, expires_at) VALUES (?, ?, ?, ?, ?)`,
			c.ID, c.Purpose, c.UserID, c.Session, s.e.Arg(c.ExpiresAt)); err != nil {
			return fmt.Errorf("save passkey challenge: %w", s.e.FormatError(err))
		}
		return nil
	})
}

// TakeChallenge implements ports.PasskeyStore. The DELETE decides: of two
// takes of one id, only one deletes the row.
func (s PasskeyStore) TakeChallenge(ctx context.Context, id, purpose string, now time.Time) (account.PasskeyChallenge, error) {
	var c account.PasskeyChallenge
	err := s.e.WriteTx(ctx, func(x Querier) error {
		err := x.Row(ctx, `DELETE FROM passkey_challenges WHERE id = ? RETURNING id, purpose, user_id, session, expires_at`, id).
			Scan(&c.ID, &c.Purpose, &c.UserID, &c.Session, Time(s.e, &c.ExpiresAt))
		return IfNoRows(err, "challenge")
	})
	if err != nil {
		return account.PasskeyChallenge{}, err
	}
	if c.Purpose != purpose || !now.Before(c.ExpiresAt) {
		return account.PasskeyChallenge{}, NotFound("challenge")
	}
	return c, nil
}

// AddPasskey implements ports.PasskeyStore.
func (s PasskeyStore) AddPasskey(ctx context.Context, p account.Passkey) (account.Passkey, error) {
	err := s.e.WriteTx(ctx, func(x Querier) error {
		if err := UserExists(ctx, x, p.UserID); err != nil {
			return err
		}
		id, err := x.Insert(ctx, `INSERT INTO passkeys (user_id, credential_id, name, credential, sign_count, created_at) VALUES (?, ?, ?, ?, ?, ?)`,
			p.UserID, p.CredentialID, p.Name, p.Credential, int64(p.SignCount), s.e.Arg(p.CreatedAt))
		if err != nil {
			err = s.e.FormatError(err)
			if domain.ErrorCode(err) == domain.ECONFLICT {
				return domain.Errorf(domain.ECONFLICT, "this passkey is registered already")
			}
			return fmt.Errorf("add passkey of user %d: %w", p.UserID, err)
		}
		ports.Created(ctx, id)
		p, err = s.scan(x.Row(ctx, `SELECT `+passkeyColumns+` FROM passkeys WHERE id = ?`, id))
		return err
	})
	return p, err
}

// Passkeys implements ports.PasskeyStore.
func (s PasskeyStore) Passkeys(ctx context.Context, userID int64) ([]account.Passkey, error) {
	ps, err := QueryAll(ctx, s.e.Read(), s.scan, `SELECT `+passkeyColumns+` FROM passkeys WHERE user_id = ? ORDER BY id`, userID)
	if err != nil {
		return nil, fmt.Errorf("passkeys of user %d: %w", userID, err)
	}
	return ps, nil
}

// PasskeyByCredentialID implements ports.PasskeyStore.
func (s PasskeyStore) PasskeyByCredentialID(ctx context.Context, credentialID []byte) (account.Passkey, error) {
	p, err := s.scan(s.e.Read().Row(ctx, `SELECT `+passkeyColumns+` FROM passkeys WHERE credential_id = ?`, credentialID))
	return p, IfNoRows(err, "passkey")
}

// RenamePasskey implements ports.PasskeyStore.
func (s PasskeyStore) RenamePasskey(ctx context.Context, userID, id int64, name string) (account.Passkey, error) {
	var p account.Passkey
	err := s.e.WriteTx(ctx, func(x Querier) error {
		n, err := x.Exec(ctx, `UPDATE passkeys SET name = ? WHERE id = ? AND user_id = ?`, name, id, userID)
		if err != nil {
			return fmt.Errorf("rename passkey %d: %w", id, err)
		}
		if n == 0 {
			return NotFound("passkey")
		}
		p, err = s.scan(x.Row(ctx, `SELECT `+passkeyColumns+` FROM passkeys WHERE id = ?`, id))
		return err
	})
	return p, err
}

// RemovePasskey implements ports.PasskeyStore.
func (s PasskeyStore) RemovePasskey(ctx context.Context, userID, id int64) error {
	return s.e.WriteTx(ctx, func(x Querier) error {
		n, err := x.Exec(ctx, `DELETE FROM passkeys WHERE id = ? AND user_id = ?`, id, userID)
		if err != nil {
			return fmt.Errorf("remove passkey %d: %w", id, err)
		}
		if n == 0 {
			return NotFound("passkey")
		}
		return nil
	})
}

// DeleteUserPasskeys removes every passkey of an undeleted user inside an
// engine's transaction (its RemoveUserPasskeys, after the role check).
func DeleteUserPasskeys(ctx context.Context, x Querier, userID int64) (int, error) {
	if err := UserExists(ctx, x, userID); err != nil {
		return 0, err
	}
	n, err := x.Exec(ctx, `DELETE FROM passkeys WHERE user_id = ?`, userID)
	if err != nil {
		return 0, fmt.Errorf("remove passkeys of user %d: %w", userID, err)
	}
	return int(n), nil
}

// UsePasskey implements ports.PasskeyStore: one conditional UPDATE, so
// two assertions with the same counter cannot both pass.
func (s PasskeyStore) UsePasskey(ctx context.Context, id int64, signCount uint32, at time.Time) error {
	return s.e.WriteTx(ctx, func(x Querier) error {
		n, err := x.Exec(ctx, `UPDATE passkeys SET sign_count = ?, last_used_at = ?
			WHERE id = ? AND (sign_count < ? OR (sign_count = 0 AND ? = 0))`,
			int64(signCount), s.e.Arg(at), id, int64(signCount), int64(signCount))
		if err != nil {
			return fmt.Errorf("record use of passkey %d: %w", id, err)
		}
		if n == 1 {
			return nil
		}
		var one int
		if err := x.Row(ctx, `SELECT 1 FROM passkeys WHERE id = ?`, id).Scan(&one); err != nil {
			return IfNoRows(err, "passkey")
		}
		return domain.Errorf(domain.ECONFLICT, "the passkey's signature counter did not advance")
	})
}

// RemoveUserPasskeys implements ports.PasskeyStore, the role check run
// with the user's row locked (RunRoleCheck).
func (s PasskeyStore) RemoveUserPasskeys(ctx context.Context, userID int64, check account.RoleCheck) (int, error) {
	var n int
	err := s.e.WriteTx(ctx, func(x Querier) error {
		if err := RunRoleCheck(ctx, s.e, x, userID, check); err != nil {
			return err
		}
		var err error
		n, err = DeleteUserPasskeys(ctx, x, userID)
		return err
	})
	return n, err
}
