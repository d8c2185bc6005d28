package postgres

import (
	"context"
	"time"

	"counsel/adapters/sqlrow"
	"counsel/domain/account"
)

// otpRows keeps an email's sends as an array of timestamps. A missing row
// is created first, so there is a row to lock.
type otpRows struct{}

func (otpRows) LoadOTP(ctx context.Context, x sqlrow.Querier, email string) (account.OTPState, error) {
	if _, err := x.Exec(ctx, `INSERT INTO otps (email) VALUES (?) ON CONFLICT (email) DO NOTHING`, email); err != nil {
		return account.OTPState{}, err
	}
	var st account.OTPState
	var expires *time.Time
	var sends []time.Time
	if err := x.Row(ctx, `SELECT code_hash, expires_at, attempts, sends FROM otps WHERE email = ? FOR UPDATE`, email).
		Scan(&st.CodeHash, &expires, &st.Attempts, &sends); err != nil {
		return st, err
	}
	if expires != nil {
		st.ExpiresAt = expires.UTC()
	}
	for _, t := range sends {
		st.Sends = append(st.Sends, t.UTC())
	}
	return st, nil
}

func (otpRows) SaveOTP(ctx context.Context, x sqlrow.Querier, email string, st account.OTPState) error {
	var hash any
	if len(st.CodeHash) > 0 {
		hash = st.CodeHash
	}
	sends := st.Sends
	if sends == nil {
		sends = []time.Time{}
	}
	_, err := x.Exec(ctx, `UPDATE otps SET code_hash = ?, expires_at = ?, attempts = ?, sends = ? WHERE email = ?`,
		hash, nullTime(&st.ExpiresAt), st.Attempts, sends, email)
	return err
}
