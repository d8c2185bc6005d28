package sqlite

import (
	"bytes"
	"context"
	"errors"
	"testing"
	"time"

	"counsel/domain"
	"counsel/domain/account"

	"github.com/matryer/is"
)

func TestTOTPKey(t *testing.T) {
	is := is.New(t)
	ctx := context.Background()
	s := NewTOTPStore(openDB(t))
	calls := 0
	create := func() ([]byte, error) { calls++; return bytes.Repeat([]byte{byte(calls)}, 32), nil }
	k1, err := s.TOTPKey(ctx, create)
	is.NoErr(err)
	k2, err := s.TOTPKey(ctx, create)
	is.NoErr(err)
	is.Equal(k1, k2)   // created once, then read
	is.Equal(calls, 1) // not made again
	_, err = NewTOTPStore(openDB(t)).TOTPKey(ctx, func() ([]byte, error) { return nil, errors.New("no randomness") })
	is.True(err != nil) // a failing maker is reported
}

func hash32(b byte) []byte { return bytes.Repeat([]byte{b}, recoveryHashSize) }

func TestTOTPStore(t *testing.T) {
	ctx := context.Background()
	db, accounts := bootstrapped(t)
	s := NewTOTPStore(db)
	uid := addUser(t, accounts, "jane@example.com")

	is := is.New(t)
	st, err := s.TOTPAccount(ctx, uid)
	is.NoErr(err)
	is.True(st.TOTP == nil)                            // none yet
	is.Equal(st.Credentials.Email, "jane@example.com") // the sign-in data comes along
	_, err = s.TOTPAccount(ctx, 999)
	is.Equal(code(err), domain.ENOTFOUND) // unknown user
	is.Equal(code(s.UpdateTOTP(ctx, 999, func(*account.TOTPAccount) error { return nil })), domain.ENOTFOUND)

	// A pending enrolment does not change the second factor.
	is.NoErr(s.UpdateTOTP(ctx, uid, func(st *account.TOTPAccount) error {
		st.TOTP = &account.TOTP{SealedSecret: []byte("sealed-1"), CreatedAt: t0}
		return nil
	}))
	c, err := accounts.CredentialsByEmail(ctx, "jane@example.com")
	is.NoErr(err)
	is.True(!c.TOTPEnabled) // pending is not on

	// Confirmed, with recovery codes and failure counters.
	confirmed := t0.Add(time.Minute)
	is.NoErr(s.UpdateTOTP(ctx, uid, func(st *account.TOTPAccount) error {
		st.TOTP.ConfirmedAt, st.TOTP.LastStep = &confirmed, 42
		st.TOTP.Recovery = [][]byte{hash32(1), hash32(2)}
		st.Credentials.FailedLogins = 3
		return nil
	}))
	st, err = s.TOTPAccount(ctx, uid)
	is.NoErr(err)
	is.Equal(st.TOTP.SealedSecret, []byte("sealed-1"))
	is.Equal(*st.TOTP.ConfirmedAt, confirmed)
	is.Equal(st.TOTP.LastStep, int64(42))
	is.Equal(st.TOTP.Recovery, [][]byte{hash32(1), hash32(2)})
	is.Equal(st.Credentials.FailedLogins, 3) // counters saved in the same transaction
	c, _ = accounts.CredentialsByEmail(ctx, "jane@example.com")
	is.True(c.TOTPEnabled) // on

	// Sign-in loads it and saves the used step with the session.
	err = accounts.Login(ctx, uid, "jane@example.com", func(ls *account.LoginState) error {
		is.True(ls.TOTP.Enabled()) // loaded in the sign-in transaction
		ls.TOTP.LastStep = 43
		ls.TOTP.Recovery = ls.TOTP.Recovery[1:]
		ls.NewSession, ls.RefreshHash = &account.Session{ID: "s1", UserID: uid, Method: account.MethodPassword, CreatedAt: t0, ExpiresAt: t0.Add(time.Hour)}, []byte("r1")
		return nil
	})
	is.NoErr(err)
	st, _ = s.TOTPAccount(ctx, uid)
	is.Equal(st.TOTP.LastStep, int64(43))           // step saved
	is.Equal(st.TOTP.Recovery, [][]byte{hash32(2)}) // the spent code is gone
	is.Equal(scalar[int](t, db, "SELECT count(*) FROM sessions WHERE id = 's1'"), 1)

	// An error from fn rolls everything back.
	boom := errors.New("boom")
	is.Equal(s.UpdateTOTP(ctx, uid, func(st *account.TOTPAccount) error { st.TOTP = nil; return boom }), boom)
	st, _ = s.TOTPAccount(ctx, uid)
	is.True(st.TOTP != nil) // kept

	// Removing revokes the other sessions and keeps the named one.
	newSession(t, accounts, "s2", uid, "r2")
	is.NoErr(s.UpdateTOTP(ctx, uid, func(st *account.TOTPAccount) error {
		st.TOTP, st.RevokeSessions, st.KeepSession = nil, true, "s2"
		return nil
	}))
	st, _ = s.TOTPAccount(ctx, uid)
	is.True(st.TOTP == nil) // removed
	is.Equal(scalar[int](t, db, "SELECT count(*) FROM sessions WHERE user_id = ? AND revoked_at IS NULL", uid), 1)
	is.Equal(scalar[string](t, db, "SELECT id FROM sessions WHERE user_id = ? AND revoked_at IS NULL", uid), "s2")

	// A bad stored hash length is an error, not a misread.
	exec(t, db, `INSERT INTO user_totp (user_id, sealed_secret, created_at, recovery_hashes) VALUES (?, x'00', 0, x'0102')`, uid)
	_, err = s.TOTPAccount(ctx, uid)
	is.True(err != nil)
}
