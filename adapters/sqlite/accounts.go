package sqlite

import (
	"context"
	"strconv"
	"strings"

	"counsel/adapters/sqlrow"
	"counsel/domain/account"
)

// otpRows keeps an email's sends as a comma-separated list of unix
// milliseconds; the write transaction is the lock.
type otpRows struct{}

func (otpRows) LoadOTP(ctx context.Context, x sqlrow.Querier, email string) (account.OTPState, error) {
	var st account.OTPState
	var sends string
	var expires int64
	err := x.Row(ctx, `SELECT code_hash, expires_at, attempts, sends FROM otps WHERE email = ?`, email).
		Scan(&st.CodeHash, &expires, &st.Attempts, &sends)
	if sqlrow.NoRows(err) {
		return st, nil
	} else if err != nil {
		return st, err
	}
	st.ExpiresAt = fromMs(expires)
	for _, f := range strings.Split(sends, ",") {
		if v, err := strconv.ParseInt(f, 10, 64); err == nil {
			st.Sends = append(st.Sends, fromMs(v))
		}
	}
	return st, nil
}

func (otpRows) SaveOTP(ctx context.Context, x sqlrow.Querier, email string, st account.OTPState) error {
	sends := make([]string, len(st.Sends))
	for i, t := range st.Sends {
		sends[i] = strconv.FormatInt(ms(t), 10)
	}
	var hash any
	if len(st.CodeHash) > 0 {
		hash = st.CodeHash
	}
	_, err := x.Exec(ctx, `INSERT INTO otps (email, code_hash, expires_at, attempts, sends) VALUES (?, ?, ?, ?, ?)
		ON CONFLICT (email) DO UPDATE SET code_hash = excluded.code_hash, expires_at = excluded.expires_at,
		attempts = excluded.attempts, sends = excluded.sends`,
		email, hash, ms(st.ExpiresAt), st.Attempts, strings.Join(sends, ","))
	return err
}

// The statements of a refresh, prepared once (stmt.go hotWrites).
const (
	refreshSelectSQL = `SELECT ` + sqlrow.SessionCols + `, t.used_at, u.active = 1 AND u.deleted_at IS NULL
		FROM refresh_tokens t JOIN sessions s ON s.id = t.session_id JOIN users u ON u.id = s.user_id
		WHERE t.hash = ?`
	revokeSessionSQL = `UPDATE sessions SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL`
	useRefreshSQL    = `UPDATE refresh_tokens SET used_at = ? WHERE hash = ?`
	insertRefreshSQL = `INSERT INTO refresh_tokens (hash, session_id, created_at) VALUES (?, ?, ?)`
)
