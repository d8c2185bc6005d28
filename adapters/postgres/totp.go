package postgres

import (
	"context"
	"fmt"

	"counsel/domain/account"
	"counsel/ports"
)

// TOTPStore implements ports.TOTPStore.
type TOTPStore struct{ db *DB }

var _ ports.TOTPStore = (*TOTPStore)(nil)

// NewTOTPStore returns the authenticator-app store of db.
func NewTOTPStore(db *DB) *TOTPStore { return &TOTPStore{db: db} }

const recoveryHashSize = 32

// TOTPKey implements ports.TOTPStore. Instances starting together agree:
// the first key wins, under a transaction-level advisory lock.
func (s *TOTPStore) TOTPKey(ctx context.Context, create func() ([]byte, error)) ([]byte, error) {
	var key []byte
	err := s.db.tx(ctx, func(x q) error {
		if _, err := x.exec(ctx, `SELECT pg_advisory_xact_lock(?)`, lockKey("totp-key")); err != nil {
			return err
		}
		err := x.row(ctx, `SELECT key FROM totp_keys ORDER BY id LIMIT 1`).Scan(&key)
		if !noRows(err) {
			return err
		}
		if key, err = create(); err != nil {
			return err
		}
		_, err = x.exec(ctx, `INSERT INTO totp_keys (key, created_at) VALUES (?, ?)`, key, s.db.Now())
		return err
	})
	return key, err
}

const totpSQL = `SELECT sealed_secret, created_at, confirmed_at, last_step, recovery_hashes FROM user_totp WHERE user_id = ?`

func scanTOTP(row interface{ Scan(...any) error }) (*account.TOTP, error) {
	var t account.TOTP
	var recovery []byte
	err := row.Scan(&t.SealedSecret, &t.CreatedAt, &t.ConfirmedAt, &t.LastStep, &recovery)
	if noRows(err) {
		return nil, nil
	} else if err != nil {
		return nil, err
	}
	if len(recovery)%recoveryHashSize != 0 {
		return nil, fmt.Errorf("user_totp: recovery_hashes of %d bytes", len(recovery))
	}
	t.CreatedAt, t.ConfirmedAt = utc(t.CreatedAt), utcp(t.ConfirmedAt)
	for i := 0; i < len(recovery); i += recoveryHashSize {
		t.Recovery = append(t.Recovery, recovery[i:i+recoveryHashSize])
	}
	return &t, nil
}

func saveTOTP(ctx context.Context, x q, userID int64, t *account.TOTP) error {
	if t == nil {
		_, err := x.exec(ctx, `DELETE FROM user_totp WHERE user_id = ?`, userID)
		return err
	}
	recovery := make([]byte, 0, len(t.Recovery)*recoveryHashSize)
	for _, h := range t.Recovery {
		if len(h) != recoveryHashSize {
			return fmt.Errorf("save totp: a recovery hash of %d bytes", len(h))
		}
		recovery = append(recovery, h...)
	}
	_, err := x.exec(ctx, `INSERT INTO user_totp (user_id, sealed_secret, created_at, confirmed_at, last_step, recovery_hashes)
		VALUES (?, ?, ?, ?, ?, ?)
		ON CONFLICT (user_id) DO UPDATE SET sealed_secret = excluded.sealed_secret, created_at = excluded.created_at,
		confirmed_at = excluded.confirmed_at, last_step = excluded.last_step, recovery_hashes = excluded.recovery_hashes`,
		userID, t.SealedSecret, t.CreatedAt, nullTime(t.ConfirmedAt), t.LastStep, recovery)
	return err
}

// TOTPAccount implements ports.TOTPStore.
func (s *TOTPStore) TOTPAccount(ctx context.Context, userID int64) (account.TOTPAccount, error) {
	var st account.TOTPAccount
	err := s.db.readTx(ctx, func(x q) error {
		var err error
		st, err = loadTOTPAccount(ctx, x, userID, "")
		return err
	})
	return st, err
}

// loadTOTPAccount reads a user's sign-in data and enrolment; lock locks
// the user's row (the step and recovery codes are decided on it).
func loadTOTPAccount(ctx context.Context, x q, userID int64, lock string) (account.TOTPAccount, error) {
	var email string
	err := x.row(ctx, `SELECT email FROM users WHERE id = ? AND deleted_at IS NULL`+lock, userID).Scan(&email)
	if noRows(err) {
		return account.TOTPAccount{}, notFound("user")
	} else if err != nil {
		return account.TOTPAccount{}, err
	}
	c, err := scanCredentials(x.row(ctx, credentialsSQL, email))
	if err != nil {
		return account.TOTPAccount{}, err
	}
	t, err := scanTOTP(x.row(ctx, totpSQL, userID))
	return account.TOTPAccount{Credentials: c, TOTP: t}, err
}

// UpdateTOTP implements ports.TOTPStore.
func (s *TOTPStore) UpdateTOTP(ctx context.Context, userID int64, check account.RoleCheck, fn func(*account.TOTPAccount) error) error {
	return s.db.tx(ctx, func(x q) error {
		if err := runRoleCheck(ctx, x, userID, check); err != nil {
			return err
		}
		st, err := loadTOTPAccount(ctx, x, userID, " FOR UPDATE")
		if err != nil {
			return err
		}
		if err := fn(&st); err != nil {
			return err
		}
		if err := saveCounters(ctx, x, userID, st.Credentials); err != nil {
			return err
		}
		if err := saveTOTP(ctx, x, userID, st.TOTP); err != nil {
			return err
		}
		if st.RevokeSessions {
			if _, err = x.exec(ctx, `UPDATE sessions SET revoked_at = ? WHERE user_id = ? AND revoked_at IS NULL AND id <> ?`,
				s.db.Now(), userID, st.KeepSession); err != nil {
				return err
			}
			return notify(ctx, x, changedPrincipals)
		}
		return nil
	})
}

// saveCounters writes a user's sign-in failure count and lock.
func saveCounters(ctx context.Context, x q, userID int64, c account.Credentials) error {
	_, err := x.exec(ctx, `UPDATE users SET failed_logins = ?, locked_until = ? WHERE id = ?`, c.FailedLogins, nullTime(&c.LockedUntil), userID)
	return err
}
