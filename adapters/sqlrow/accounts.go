package sqlrow

import (
	"context"
	"fmt"
	"time"

	"counsel/domain/account"
)

// CredentialsSQL reads the sign-in data of an undeleted user by email
// (an engine may append a row lock on users).
const CredentialsSQL = `SELECT id, email, password_hash, active, failed_logins, locked_until,
	EXISTS (SELECT 1 FROM user_totp t WHERE t.user_id = users.id AND t.confirmed_at IS NOT NULL)
	FROM users WHERE email = ? AND deleted_at IS NULL`

// ScanCredentials reads CredentialsSQL's row; ENOTFOUND ("user") for
// none. A lock at or before the epoch is no lock (SQLite stores 0 for
// none, PostgreSQL NULL).
func ScanCredentials(tc Times, row Scanner) (account.Credentials, error) {
	var c account.Credentials
	var locked *time.Time
	err := row.Scan(&c.UserID, &c.Email, &c.PasswordHash, &c.Active, &c.FailedLogins, NullTime(tc, &locked), &c.TOTPEnabled)
	if err != nil {
		return c, IfNoRows(err, "user")
	}
	if locked != nil && locked.After(time.Unix(0, 0)) {
		c.LockedUntil = *locked
	}
	return c, nil
}

// TOTPSQL reads a user's authenticator-app enrolment.
const TOTPSQL = `SELECT sealed_secret, created_at, confirmed_at, last_step, recovery_hashes FROM user_totp WHERE user_id = ?`

// RecoveryHashSize is the length of one stored recovery-code hash.
const RecoveryHashSize = 32

// ScanTOTP reads TOTPSQL's row; nil without error when there is none.
func ScanTOTP(tc Times, row Scanner) (*account.TOTP, error) {
	var t account.TOTP
	var recovery []byte
	err := row.Scan(&t.SealedSecret, Time(tc, &t.CreatedAt), NullTime(tc, &t.ConfirmedAt), &t.LastStep, &recovery)
	if NoRows(err) {
		return nil, nil
	} else if err != nil {
		return nil, err
	}
	if len(recovery)%RecoveryHashSize != 0 {
		return nil, fmt.Errorf("user_totp: recovery_hashes of %d bytes", len(recovery))
	}
	for i := 0; i < len(recovery); i += RecoveryHashSize {
		t.Recovery = append(t.Recovery, recovery[i:i+RecoveryHashSize])
	}
	return &t, nil
}

// SaveTOTP writes a user's enrolment, or removes it when t is nil.
func SaveTOTP(ctx context.Context, x Querier, tc Times, userID int64, t *account.TOTP) error {
	if t == nil {
		_, err := x.Exec(ctx, `DELETE FROM user_totp WHERE user_id = ?`, userID)
		return err
	}
	recovery := make([]byte, 0, len(t.Recovery)*RecoveryHashSize)
	for _, h := range t.Recovery {
		if len(h) != RecoveryHashSize {
			return fmt.Errorf("save totp: a recovery hash of %d bytes", len(h))
		}
		recovery = append(recovery, h...)
	}
	_, err := x.Exec(ctx, `INSERT INTO user_totp (user_id, sealed_secret, created_at, confirmed_at, last_step, recovery_hashes)
		VALUES (?, ?, ?, ?, ?, ?)
		ON CONFLICT (user_id) DO UPDATE SET sealed_secret = excluded.sealed_secret, created_at = excluded.created_at,
		confirmed_at = excluded.confirmed_at, last_step = excluded.last_step, recovery_hashes = excluded.recovery_hashes`,
		userID, t.SealedSecret, tc.Arg(t.CreatedAt), NullArg(tc, t.ConfirmedAt), t.LastStep, recovery)
	return err
}

// LoadTOTPAccount reads a user's sign-in data and enrolment; lock is
// appended to the user's read (the step and recovery codes are decided
// on it).
func LoadTOTPAccount(ctx context.Context, x Querier, tc Times, userID int64, lock string) (account.TOTPAccount, error) {
	var email string
	err := x.Row(ctx, `SELECT email FROM users WHERE id = ? AND deleted_at IS NULL`+lock, userID).Scan(&email)
	if err != nil {
		return account.TOTPAccount{}, fmt.Errorf("load user %d: %w", userID, IfNoRows(err, "user"))
	}
	c, err := ScanCredentials(tc, x.Row(ctx, CredentialsSQL, email))
	if err != nil {
		return account.TOTPAccount{}, fmt.Errorf("load the credentials of user %d: %w", userID, err)
	}
	t, err := ScanTOTP(tc, x.Row(ctx, TOTPSQL, userID))
	if err != nil {
		return account.TOTPAccount{}, fmt.Errorf("load the authenticator of user %d: %w", userID, err)
	}
	return account.TOTPAccount{Credentials: c, TOTP: t}, nil
}

// InsertSession writes a new session: a console session with its token
// hash, any other with its first refresh token.
func InsertSession(ctx context.Context, x Querier, tc Times, ss account.Session, refreshHash []byte) error {
	if ss.Kind == account.SessionConsole {
		// A console session is carried by its cookie; it has no refresh token.
		_, err := x.Exec(ctx, `INSERT INTO sessions (id, user_id, method, created_at, expires_at, kind, token_hash, last_seen, ip, user_agent)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			ss.ID, ss.UserID, ss.Method, tc.Arg(ss.CreatedAt), tc.Arg(ss.ExpiresAt), ss.Kind, ss.TokenHash, tc.Arg(ss.LastSeen),
			ss.IP, ss.UserAgent)
		if err != nil {
			return fmt.Errorf("insert session of user %d: %w", ss.UserID, err)
		}
		return nil
	}
	if _, err := x.Exec(ctx, `INSERT INTO sessions (id, user_id, method, created_at, expires_at, last_seen, ip, user_agent)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
		ss.ID, ss.UserID, ss.Method, tc.Arg(ss.CreatedAt), tc.Arg(ss.ExpiresAt), tc.Arg(ss.CreatedAt), ss.IP, ss.UserAgent); err != nil {
		return fmt.Errorf("insert session of user %d: %w", ss.UserID, err)
	}
	if _, err := x.Exec(ctx, `INSERT INTO refresh_tokens (hash, session_id, created_at) VALUES (?, ?, ?)`,
		refreshHash, ss.ID, tc.Arg(ss.CreatedAt)); err != nil {
		return fmt.Errorf("insert refresh token of user %d: %w", ss.UserID, err)
	}
	return nil
}

// TOTPKey returns the key that seals authenticator secrets, creating it
// with create when there is none.
func TOTPKey(ctx context.Context, x Querier, tc Times, create func() ([]byte, error), now time.Time) ([]byte, error) {
	var key []byte
	err := x.Row(ctx, `SELECT key FROM totp_keys ORDER BY id LIMIT 1`).Scan(&key)
	if !NoRows(err) {
		return key, err
	}
	if key, err = create(); err != nil {
		return nil, err
	}
	_, err = x.Exec(ctx, `INSERT INTO totp_keys (key, created_at) VALUES (?, ?)`, key, tc.Arg(now))
	return key, err
}

// SaveTOTPAccount writes the enrolment of st and, when st asks, revokes
// the user's other sessions at now; it reports whether it revoked. The
// engine writes the sign-in counters (their storage differs).
func SaveTOTPAccount(ctx context.Context, x Querier, tc Times, userID int64, st account.TOTPAccount, now time.Time) (bool, error) {
	if err := SaveTOTP(ctx, x, tc, userID, st.TOTP); err != nil {
		return false, fmt.Errorf("save the authenticator of user %d: %w", userID, err)
	}
	if !st.RevokeSessions {
		return false, nil
	}
	if _, err := x.Exec(ctx, `UPDATE sessions SET revoked_at = ? WHERE user_id = ? AND revoked_at IS NULL AND id <> ?`,
		tc.Arg(now), userID, st.KeepSession); err != nil {
		return false, fmt.Errorf("revoke the sessions of user %d: %w", userID, err)
	}
	return true, nil
}

// RenewAuthentication records that session id of userID authenticated
// again at at. ENOTFOUND when it is not a live session of that user.
func RenewAuthentication(ctx context.Context, x Querier, tc Times, id string, userID int64, at time.Time) error {
	n, err := x.Exec(ctx, `UPDATE sessions SET authenticated_at = ? WHERE id = ? AND user_id = ? AND revoked_at IS NULL`,
		tc.Arg(at), id, userID)
	if err != nil {
		return fmt.Errorf("renew the authentication of session of user %d: %w", userID, err)
	}
	if n == 0 {
		return NotFound("session")
	}
	return nil
}
