package porttest

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/matryer/is"

	"counsel/domain"
	"counsel/domain/account"
	"counsel/ports"
)

// PasskeyStores are the stores the PasskeyStore suite works on: the store
// under test and the account store of the same database (to make users).
type PasskeyStores struct {
	Passkeys ports.PasskeyStore
	Accounts ports.AccountStore
	Users    ports.UserStore
}

// PasskeyStore runs the acceptance suite of ports.PasskeyStore. newStores
// is called once per case with a fresh database (the suite adds its first administrator).
func PasskeyStore(t *testing.T, newStores func(t *testing.T) PasskeyStores) {
	newStores = bootstrapped(newStores, func(s PasskeyStores) ports.AccountStore { return s.Accounts })
	ctx := context.Background()
	t0 := time.Date(2026, 5, 4, 10, 0, 0, 0, time.UTC)
	newUser := func(t *testing.T, s PasskeyStores, email string) int64 {
		t.Helper()
		id, err := createUser(ctx, s.Users, account.NewUser{Email: email, FirstName: "F", LastName: "L", PasswordHash: "hash"})
		if err != nil {
			t.Fatalf("create user: %v", err)
		}
		return id
	}
	key := func(uid int64, cred string) account.Passkey {
		return account.Passkey{UserID: uid, CredentialID: []byte(cred), Name: "Laptop", Credential: []byte(`{"k":"` + cred + `"}`), CreatedAt: t0}
	}

	t.Run("a challenge is taken once, for its purpose, before it expires", func(t *testing.T) {
		is := is.New(t)
		s := newStores(t)
		c := account.PasskeyChallenge{ID: "c1", Purpose: account.PasskeyRegister, UserID: 7, Session: []byte("state"), ExpiresAt: t0.Add(5 * time.Minute)}
		is.NoErr(s.Passkeys.SaveChallenge(ctx, c, t0))
		got, err := s.Passkeys.TakeChallenge(ctx, "c1", account.PasskeyRegister, t0.Add(time.Minute))
		is.NoErr(err)
		is.Equal(got.UserID, int64(7))            // read back
		is.Equal(string(got.Session), "state")    // with its state
		is.True(got.ExpiresAt.Equal(c.ExpiresAt)) // and expiry
		_, err = s.Passkeys.TakeChallenge(ctx, "c1", account.PasskeyRegister, t0.Add(time.Minute))
		is.Equal(domain.ErrorCode(err), domain.ENOTFOUND) // used

		is.NoErr(s.Passkeys.SaveChallenge(ctx, account.PasskeyChallenge{ID: "c2", Purpose: account.PasskeyAssert, Session: []byte("s"), ExpiresAt: t0.Add(5 * time.Minute)}, t0))
		_, err = s.Passkeys.TakeChallenge(ctx, "c2", account.PasskeyRegister, t0)
		is.Equal(domain.ErrorCode(err), domain.ENOTFOUND) // another purpose
		_, err = s.Passkeys.TakeChallenge(ctx, "c2", account.PasskeyAssert, t0)
		is.Equal(domain.ErrorCode(err), domain.ENOTFOUND) // and it was spent by the wrong take

		is.NoErr(s.Passkeys.SaveChallenge(ctx, account.PasskeyChallenge{ID: "c3", Purpose: account.PasskeyAssert, Session: []byte("s"), ExpiresAt: t0.Add(5 * time.Minute)}, t0))
		_, err = s.Passkeys.TakeChallenge(ctx, "c3", account.PasskeyAssert, t0.Add(5*time.Minute))
		is.Equal(domain.ErrorCode(err), domain.ENOTFOUND) // expired
	})

	t.Run("concurrent takes of one challenge: one wins", func(t *testing.T) {
		is := is.New(t)
		s := newStores(t)
		is.NoErr(s.Passkeys.SaveChallenge(ctx, account.PasskeyChallenge{ID: "race", Purpose: account.PasskeyAssert, Session: []byte("s"), ExpiresAt: t0.Add(time.Minute)}, t0))
		var wg sync.WaitGroup
		var mu sync.Mutex
		wins := 0
		for range 8 {
			wg.Go(func() {
				if _, err := s.Passkeys.TakeChallenge(ctx, "race", account.PasskeyAssert, t0); err == nil {
					mu.Lock()
					wins++
					mu.Unlock()
				}
			})
		}
		wg.Wait()
		is.Equal(wins, 1) // single use
	})

	t.Run("saving removes expired challenges", func(t *testing.T) {
		is := is.New(t)
		s := newStores(t)
		is.NoErr(s.Passkeys.SaveChallenge(ctx, account.PasskeyChallenge{ID: "old", Purpose: account.PasskeyAssert, Session: []byte("s"), ExpiresAt: t0.Add(time.Minute)}, t0))
		is.NoErr(s.Passkeys.SaveChallenge(ctx, account.PasskeyChallenge{ID: "new", Purpose: account.PasskeyAssert, Session: []byte("s"), ExpiresAt: t0.Add(time.Hour)}, t0.Add(2*time.Minute)))
		// Taken at a time it would still be valid: the row is gone.
		_, err := s.Passkeys.TakeChallenge(ctx, "old", account.PasskeyAssert, t0)
		is.Equal(domain.ErrorCode(err), domain.ENOTFOUND) // swept
	})

	t.Run("passkeys are added, listed, found, renamed and removed", func(t *testing.T) {
		is := is.New(t)
		s := newStores(t)
		uid, other := newUser(t, s, "a@example.com"), newUser(t, s, "b@example.com")
		p, err := s.Passkeys.AddPasskey(ctx, key(uid, "cred-1"))
		is.NoErr(err)
		is.True(p.ID > 0)              // an id
		is.True(p.CreatedAt.Equal(t0)) // stored time
		is.True(p.LastUsedAt == nil)   // never used
		_, err = s.Passkeys.AddPasskey(ctx, key(other, "cred-1"))
		is.Equal(domain.ErrorCode(err), domain.ECONFLICT) // one credential, one owner
		_, err = s.Passkeys.AddPasskey(ctx, key(424242, "cred-x"))
		is.Equal(domain.ErrorCode(err), domain.ENOTFOUND) // unknown user
		p2, err := s.Passkeys.AddPasskey(ctx, key(uid, "cred-2"))
		is.NoErr(err)

		list, err := s.Passkeys.Passkeys(ctx, uid)
		is.NoErr(err)
		is.Equal(len(list), 2)     // both
		is.Equal(list[0].ID, p.ID) // oldest first
		is.Equal(string(list[1].Credential), `{"k":"cred-2"}`)

		found, err := s.Passkeys.PasskeyByCredentialID(ctx, []byte("cred-2"))
		is.NoErr(err)
		is.Equal(found.ID, p2.ID) // by credential id
		_, err = s.Passkeys.PasskeyByCredentialID(ctx, []byte("nope"))
		is.Equal(domain.ErrorCode(err), domain.ENOTFOUND) // unknown credential

		r, err := s.Passkeys.RenamePasskey(ctx, uid, p.ID, "Phone")
		is.NoErr(err)
		is.Equal(r.Name, "Phone") // renamed
		_, err = s.Passkeys.RenamePasskey(ctx, other, p.ID, "Mine")
		is.Equal(domain.ErrorCode(err), domain.ENOTFOUND) // not another user's

		is.Equal(domain.ErrorCode(s.Passkeys.RemovePasskey(ctx, other, p.ID)), domain.ENOTFOUND) // not another user's
		is.NoErr(s.Passkeys.RemovePasskey(ctx, uid, p.ID))
		is.Equal(domain.ErrorCode(s.Passkeys.RemovePasskey(ctx, uid, p.ID)), domain.ENOTFOUND) // gone
		list, err = s.Passkeys.Passkeys(ctx, uid)
		is.NoErr(err)
		is.Equal(len(list), 1) // one left
	})

	t.Run("the counter only advances", func(t *testing.T) {
		is := is.New(t)
		s := newStores(t)
		uid := newUser(t, s, "a@example.com")
		p, err := s.Passkeys.AddPasskey(ctx, key(uid, "cred"))
		is.NoErr(err)
		is.NoErr(s.Passkeys.UsePasskey(ctx, p.ID, 0, t0))                                       // no counter kept: both zero
		is.NoErr(s.Passkeys.UsePasskey(ctx, p.ID, 5, t0.Add(time.Minute)))                      // advances
		is.Equal(domain.ErrorCode(s.Passkeys.UsePasskey(ctx, p.ID, 5, t0)), domain.ECONFLICT)   // same
		is.Equal(domain.ErrorCode(s.Passkeys.UsePasskey(ctx, p.ID, 3, t0)), domain.ECONFLICT)   // backwards
		is.Equal(domain.ErrorCode(s.Passkeys.UsePasskey(ctx, p.ID, 0, t0)), domain.ECONFLICT)   // reset to zero
		is.Equal(domain.ErrorCode(s.Passkeys.UsePasskey(ctx, 424242, 9, t0)), domain.ENOTFOUND) // gone
		got, err := s.Passkeys.PasskeyByCredentialID(ctx, []byte("cred"))
		is.NoErr(err)
		is.Equal(got.SignCount, uint32(5))                                          // the last good one
		is.True(got.LastUsedAt != nil && got.LastUsedAt.Equal(t0.Add(time.Minute))) // when
	})

	t.Run("removing a user's passkeys runs the check in the transaction", func(t *testing.T) {
		is := is.New(t)
		s := newStores(t)
		uid := newUser(t, s, "a@example.com")
		_, err := s.Passkeys.AddPasskey(ctx, key(uid, "c1"))
		is.NoErr(err)
		_, err = s.Passkeys.AddPasskey(ctx, key(uid, "c2"))
		is.NoErr(err)
		refuse := domain.Errorf(domain.EFORBIDDEN, "no")
		var held []account.Role
		_, err = s.Passkeys.RemoveUserPasskeys(ctx, uid, func(h []account.Role, _ func(int64) (account.Role, error)) error {
			held = h
			return refuse
		})
		is.Equal(err, refuse)  // the refusal as is
		is.Equal(len(held), 1) // the default role, read in the transaction
		list, _ := s.Passkeys.Passkeys(ctx, uid)
		is.Equal(len(list), 2) // nothing removed
		n, err := s.Passkeys.RemoveUserPasskeys(ctx, uid, nil)
		is.NoErr(err)
		is.Equal(n, 2) // both
		_, err = s.Passkeys.RemoveUserPasskeys(ctx, 424242, nil)
		is.Equal(domain.ErrorCode(err), domain.ENOTFOUND) // unknown user
	})
}
