package porttest

import (
	"bytes"
	"context"
	"errors"
	"testing"
	"time"

	"github.com/matryer/is"

	"counsel/domain"
	"counsel/domain/account"
	"counsel/ports"
)

// TOTPStores are the stores the TOTPStore suite works on: the store under
// test and the account store of the same database (to make users and
// sessions, and to sign in).
type TOTPStores struct {
	TOTP     ports.TOTPStore
	Accounts ports.AccountStore
	Users    ports.UserStore
}

// TOTPStore runs the acceptance suite of ports.TOTPStore. newStores is
// called once per case with a fresh database (the suite adds its first administrator). Recovery
// hashes are 32 bytes (HMAC-SHA256), as the vault makes them.
func TOTPStore(t *testing.T, newStores func(t *testing.T) TOTPStores) {
	newStores = bootstrapped(newStores, func(s TOTPStores) ports.AccountStore { return s.Accounts })
	ctx := context.Background()
	t0 := time.Date(2026, 5, 4, 10, 0, 0, 0, time.UTC)
	hash := func(b byte) []byte { return bytes.Repeat([]byte{b}, 32) }
	newUser := func(t *testing.T, s TOTPStores, email string) int64 {
		t.Helper()
		id, err := createUser(ctx, s.Users, account.NewUser{Email: email, FirstName: "F", LastName: "L", PasswordHash: "hash"})
		if err != nil {
			t.Fatalf("create user: %v", err)
		}
		return id
	}
	session := func(id string, uid int64) account.Session {
		return account.Session{ID: id, UserID: uid, Method: account.MethodPassword, CreatedAt: t0, ExpiresAt: t0.Add(time.Hour)}
	}
	enable := func(st *account.TOTPAccount) error {
		c := t0
		st.TOTP = &account.TOTP{SealedSecret: []byte("sealed"), CreatedAt: t0, ConfirmedAt: &c, LastStep: 42, Recovery: [][]byte{hash(1), hash(2)}}
		return nil
	}

	t.Run("the key is made once", func(t *testing.T) {
		is := is.New(t)
		s := newStores(t)
		calls := 0
		create := func() ([]byte, error) { calls++; return hash(byte(calls)), nil }
		k1, err := s.TOTP.TOTPKey(ctx, create)
		is.NoErr(err)
		k2, err := s.TOTP.TOTPKey(ctx, create)
		is.NoErr(err)
		is.Equal(k1, k2)   // read back
		is.Equal(calls, 1) // not made again
	})

	t.Run("enrolment round trip", func(t *testing.T) {
		is := is.New(t)
		s := newStores(t)
		uid := newUser(t, s, "jane@example.com")
		st, err := s.TOTP.TOTPAccount(ctx, uid)
		is.NoErr(err)
		is.True(st.TOTP == nil)                            // none yet
		is.Equal(st.Credentials.Email, "jane@example.com") // the sign-in data comes along

		is.NoErr(s.TOTP.UpdateTOTP(ctx, uid, nil, func(st *account.TOTPAccount) error {
			st.TOTP = &account.TOTP{SealedSecret: []byte("pending"), CreatedAt: t0}
			return nil
		}))
		c, err := s.Accounts.CredentialsByEmail(ctx, "jane@example.com")
		is.NoErr(err)
		is.True(!c.TOTPEnabled) // pending is not on

		is.NoErr(s.TOTP.UpdateTOTP(ctx, uid, nil, func(st *account.TOTPAccount) error {
			st.Credentials.FailedLogins = 3
			return enable(st)
		}))
		st, err = s.TOTP.TOTPAccount(ctx, uid)
		is.NoErr(err)
		is.Equal(st.TOTP.SealedSecret, []byte("sealed"))
		is.Equal(*st.TOTP.ConfirmedAt, t0)
		is.Equal(st.TOTP.LastStep, int64(42))
		is.Equal(st.TOTP.Recovery, [][]byte{hash(1), hash(2)})
		is.Equal(st.Credentials.FailedLogins, 3) // counters saved with it
		c, _ = s.Accounts.CredentialsByEmail(ctx, "jane@example.com")
		is.True(c.TOTPEnabled) // on
	})

	t.Run("unknown user", func(t *testing.T) {
		is := is.New(t)
		s := newStores(t)
		_, err := s.TOTP.TOTPAccount(ctx, 999)
		is.Equal(domain.ErrorCode(err), domain.ENOTFOUND)
		err = s.TOTP.UpdateTOTP(ctx, 999, nil, func(*account.TOTPAccount) error { return nil })
		is.Equal(domain.ErrorCode(err), domain.ENOTFOUND)
	})

	t.Run("an error from fn changes nothing", func(t *testing.T) {
		is := is.New(t)
		s := newStores(t)
		uid := newUser(t, s, "jane@example.com")
		is.NoErr(s.TOTP.UpdateTOTP(ctx, uid, nil, enable))
		boom := errors.New("boom")
		is.Equal(s.TOTP.UpdateTOTP(ctx, uid, nil, func(st *account.TOTPAccount) error { st.TOTP = nil; return boom }), boom)
		st, _ := s.TOTP.TOTPAccount(ctx, uid)
		is.True(st.TOTP != nil) // kept
	})

	t.Run("check sees the roles held in the transaction and its refusal writes nothing", func(t *testing.T) {
		is := is.New(t)
		s := newStores(t)
		uid, err := createUser(ctx, s.Users, account.NewUser{Email: "admin2@example.com", FirstName: "F", LastName: "L",
			PasswordHash: "hash", Roles: []string{"Administrator"}})
		is.NoErr(err)
		is.NoErr(s.TOTP.UpdateTOTP(ctx, uid, nil, enable))
		boom := errors.New("refused by the use case")
		var held []account.Role
		fnRan := false
		err = s.TOTP.UpdateTOTP(ctx, uid, func(h []account.Role, _ func(int64) (account.Role, error)) error {
			held = h
			return boom
		}, func(st *account.TOTPAccount) error { fnRan = true; st.TOTP = nil; return nil })
		is.Equal(err, boom)
		is.Equal(len(held), 1)
		is.True(held[0].IsSystemAdmin) // the role given at creation, read there
		is.True(!fnRan)                // check runs first
		st, _ := s.TOTP.TOTPAccount(ctx, uid)
		is.True(st.TOTP != nil) // kept
		is.NoErr(s.TOTP.UpdateTOTP(ctx, uid, func([]account.Role, func(int64) (account.Role, error)) error { return nil },
			func(st *account.TOTPAccount) error { st.TOTP = nil; return nil }))
		st, _ = s.TOTP.TOTPAccount(ctx, uid)
		is.True(st.TOTP == nil) // passed: removed
	})

	t.Run("sign-in saves the used step and spent code with the session", func(t *testing.T) {
		is := is.New(t)
		s := newStores(t)
		uid := newUser(t, s, "jane@example.com")
		is.NoErr(s.TOTP.UpdateTOTP(ctx, uid, nil, enable))
		ss := session("s1", uid)
		is.NoErr(s.Accounts.Login(ctx, uid, "jane@example.com", func(ls *account.LoginState) error {
			is.True(ls.TOTP.Enabled()) // loaded in the sign-in transaction
			ls.TOTP.LastStep = 43
			ls.TOTP.Recovery = ls.TOTP.Recovery[1:]
			ls.NewSession, ls.RefreshHash = &ss, hash(9)
			return nil
		}))
		st, _ := s.TOTP.TOTPAccount(ctx, uid)
		is.Equal(st.TOTP.LastStep, int64(43))         // step saved
		is.Equal(st.TOTP.Recovery, [][]byte{hash(2)}) // spent code gone
		_, err := s.Accounts.Session(ctx, "s1")
		is.NoErr(err) // and the session is there
	})

	t.Run("removing revokes the other sessions", func(t *testing.T) {
		is := is.New(t)
		s := newStores(t)
		uid := newUser(t, s, "jane@example.com")
		is.NoErr(s.TOTP.UpdateTOTP(ctx, uid, nil, enable))
		for i, id := range []string{"keep", "other"} {
			is.NoErr(s.Accounts.CreateSession(ctx, session(id, uid), hash(byte(10+i))))
		}
		is.NoErr(s.TOTP.UpdateTOTP(ctx, uid, nil, func(st *account.TOTPAccount) error {
			st.TOTP, st.RevokeSessions, st.KeepSession = nil, true, "keep"
			return nil
		}))
		st, _ := s.TOTP.TOTPAccount(ctx, uid)
		is.True(st.TOTP == nil) // removed
		keep, _ := s.Accounts.Session(ctx, "keep")
		other, _ := s.Accounts.Session(ctx, "other")
		is.True(keep.RevokedAt == nil)  // the caller's session stays
		is.True(other.RevokedAt != nil) // the other one ends
	})
}
