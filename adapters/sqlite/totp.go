package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"counsel/domain/account"
	"counsel/ports"
)

// TOTPStore implements ports.TOTPStore.
type TOTPStore struct{ db *DB }

var _ ports.TOTPStore = (*TOTPStore)(nil)

// NewTOTPStore returns the authenticator-app store of db.
func NewTOTPStore(db *DB) *TOTPStore { return &TOTPStore{db: db} }

// recoveryHashSize is the length of one stored recovery-code hash.
const recoveryHashSize = 32

// TOTPKey implements ports.TOTPStore.
func (s *TOTPStore) TOTPKey(ctx context.Context, create func() ([]byte, error)) ([]byte, error) {
	var key []byte
	err := s.db.writeTx(ctx, func(tx *sql.Tx) error {
		err := tx.QueryRowContext(ctx, `SELECT key FROM totp_keys ORDER BY id LIMIT 1`).Scan(&key)
		if !errors.Is(err, sql.ErrNoRows) {
			return err
		}
		if key, err = create(); err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `INSERT INTO totp_keys (key, created_at) VALUES (?, ?)`, key, ms(s.db.Now()))
		return err
	})
	return key, err
}

const totpSQL = `SELECT sealed_secret, created_at, confirmed_at, last_step, recovery_hashes FROM user_totp WHERE user_id = ?`

// scanTOTP reads an enrolment; nil without error when there is none.
func scanTOTP(row rowScanner) (*account.TOTP, error) {
	var t account.TOTP
	var created int64
	var confirmed sql.NullInt64
	var recovery []byte
	err := row.Scan(&t.SealedSecret, &created, &confirmed, &t.LastStep, &recovery)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	} else if err != nil {
		return nil, err
	}
	if len(recovery)%recoveryHashSize != 0 {
		return nil, fmt.Errorf("user_totp: recovery_hashes of %d bytes", len(recovery))
	}
	t.CreatedAt, t.ConfirmedAt = fromMs(created), fromNullMs(confirmed)
	for i := 0; i < len(recovery); i += recoveryHashSize {
		t.Recovery = append(t.Recovery, recovery[i:i+recoveryHashSize])
	}
	return &t, nil
}

// saveTOTP writes a user's enrolment, or removes it when t is nil.
func saveTOTP(ctx context.Context, tx *sql.Tx, userID int64, t *account.TOTP) error {
	if t == nil {
		_, err := tx.ExecContext(ctx, `DELETE FROM user_totp WHERE user_id = ?`, userID)
		return err
	}
	recovery := make([]byte, 0, len(t.Recovery)*recoveryHashSize)
	for _, h := range t.Recovery {
		if len(h) != recoveryHashSize {
			return fmt.Errorf("save totp: a recovery hash of %d bytes", len(h))
		}
		recovery = append(recovery, h...)
	}
	_, err := tx.ExecContext(ctx, `INSERT INTO user_totp (user_id, sealed_secret, created_at, confirmed_at, last_step, recovery_hashes)
		VALUES (?, ?, ?, ?, ?, ?)
		ON CONFLICT (user_id) DO UPDATE SET sealed_secret = excluded.sealed_secret, created_at = excluded.created_at,
		confirmed_at = excluded.confirmed_at, last_step = excluded.last_step, recovery_hashes = excluded.recovery_hashes`,
		userID, t.SealedSecret, ms(t.CreatedAt), nullMs(t.ConfirmedAt), t.LastStep, recovery)
	return err
}

// TOTPAccount implements ports.TOTPStore.
func (s *TOTPStore) TOTPAccount(ctx context.Context, userID int64) (account.TOTPAccount, error) {
	var st account.TOTPAccount
	err := s.db.readTx(ctx, func(tx *sql.Tx) error {
		var err error
		st, err = loadTOTPAccount(ctx, tx, userID)
		return err
	})
	return st, err
}

func loadTOTPAccount(ctx context.Context, tx *sql.Tx, userID int64) (account.TOTPAccount, error) {
	var email string
	err := tx.QueryRowContext(ctx, `SELECT email FROM users WHERE id = ? AND deleted_at IS NULL`, userID).Scan(&email)
	if errors.Is(err, sql.ErrNoRows) {
		return account.TOTPAccount{}, notFound("user")
	} else if err != nil {
		return account.TOTPAccount{}, err
	}
	c, err := scanCredentials(tx.QueryRowContext(ctx, credentialsSQL, email))
	if err != nil {
		return account.TOTPAccount{}, err
	}
	t, err := scanTOTP(tx.QueryRowContext(ctx, totpSQL, userID))
	return account.TOTPAccount{Credentials: c, TOTP: t}, err
}

// UpdateTOTP implements ports.TOTPStore.
func (s *TOTPStore) UpdateTOTP(ctx context.Context, userID int64, check account.RoleCheck, fn func(*account.TOTPAccount) error) error {
	return s.db.writeTx(ctx, func(tx *sql.Tx) error {
		if err := runRoleCheck(ctx, tx, userID, check); err != nil {
			return err
		}
		st, err := loadTOTPAccount(ctx, tx, userID)
		if err != nil {
			return err
		}
		if err := fn(&st); err != nil {
			return err
		}
		if err := saveCounters(ctx, tx, userID, st.Credentials); err != nil {
			return err
		}
		if err := saveTOTP(ctx, tx, userID, st.TOTP); err != nil {
			return err
		}
		if st.RevokeSessions {
			_, err = tx.ExecContext(ctx, `UPDATE sessions SET revoked_at = ? WHERE user_id = ? AND revoked_at IS NULL AND id <> ?`,
				ms(s.db.Now()), userID, st.KeepSession)
		}
		return err
	})
}
