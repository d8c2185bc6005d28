package porttest

import (
	"bytes"
	"context"
	"sync"
	"testing"
	"time"

	"github.com/matryer/is"

	"counsel/domain"
	"counsel/domain/account"
	"counsel/ports"
)

// APIKeyStores are the stores the APIKeyStore suite works on: the store
// under test and the account store of the same database (to make and
// delete users).
type APIKeyStores struct {
	Keys     ports.APIKeyStore
	Accounts ports.AccountStore
	Users    ports.UserStore
}

// APIKeyStore runs the acceptance suite of ports.APIKeyStore. newStores
// is called once per case with a fresh database (the suite adds its first administrator).
func APIKeyStore(t *testing.T, newStores func(t *testing.T) APIKeyStores) {
	newStores = bootstrapped(newStores, func(s APIKeyStores) ports.AccountStore { return s.Accounts })
	ctx := context.Background()
	t0 := time.Date(2026, 5, 4, 10, 0, 0, 0, time.UTC)
	newUser := func(t *testing.T, s APIKeyStores, email string) int64 {
		t.Helper()
		id, err := createUser(ctx, s.Users, account.NewUser{Email: email, FirstName: "F", LastName: "L", PasswordHash: "hash"})
		if err != nil {
			t.Fatalf("create user: %v", err)
		}
		return id
	}
	key := func(uid int64, b byte, at time.Time) account.APIKey {
		exp := at.Add(24 * time.Hour)
		return account.APIKey{UserID: uid, Name: "ci key", Prefix: "cnsl_abcde",
			Permissions: account.NewPermissionSet(account.ContractView, account.UsersView),
			Hash:        bytes.Repeat([]byte{b}, 32), CreatedAt: at, ExpiresAt: &exp}
	}

	t.Run("created keys read back by hash and in the user's list, newest first", func(t *testing.T) {
		is := is.New(t)
		s := newStores(t)
		uid := newUser(t, s, "a@example.com")
		id1, err := s.Keys.CreateAPIKey(ctx, key(uid, 1, t0), 10)
		is.NoErr(err)
		k2 := key(uid, 2, t0.Add(time.Minute))
		k2.ExpiresAt = nil
		id2, err := s.Keys.CreateAPIKey(ctx, k2, 10)
		is.NoErr(err)
		is.True(id2 > id1)
		got, err := s.Keys.APIKeyByHash(ctx, bytes.Repeat([]byte{1}, 32))
		is.NoErr(err)
		is.Equal(got.ID, id1)
		is.Equal(got.UserID, uid)
		is.Equal(got.Name, "ci key")
		is.Equal(got.Prefix, "cnsl_abcde")
		is.Equal(got.Permissions, account.NewPermissionSet(account.ContractView, account.UsersView))
		is.True(got.CreatedAt.Equal(t0))
		is.True(got.ExpiresAt != nil && got.ExpiresAt.Equal(t0.Add(24*time.Hour)))
		is.True(got.LastUsedAt == nil && got.RevokedAt == nil)
		list, err := s.Keys.APIKeys(ctx, uid)
		is.NoErr(err)
		is.Equal(len(list), 2)
		is.Equal(list[0].ID, id2) // newest first
		is.True(list[0].ExpiresAt == nil)
		other, err := s.Keys.APIKeys(ctx, uid+1000)
		is.NoErr(err)
		is.Equal(len(other), 0)
	})

	t.Run("unknown hash, unknown or deleted user, duplicate hash", func(t *testing.T) {
		is := is.New(t)
		s := newStores(t)
		_, err := s.Keys.APIKeyByHash(ctx, bytes.Repeat([]byte{9}, 32))
		is.Equal(domain.ErrorCode(err), domain.ENOTFOUND)
		_, err = s.Keys.CreateAPIKey(ctx, key(99999, 1, t0), 10)
		is.Equal(domain.ErrorCode(err), domain.ENOTFOUND)
		uid := newUser(t, s, "b@example.com")
		_, err = s.Keys.CreateAPIKey(ctx, key(uid, 1, t0), 10)
		is.NoErr(err)
		_, err = s.Keys.CreateAPIKey(ctx, key(uid, 1, t0), 10)
		is.True(err != nil) // the hash is unique
		is.NoErr(s.Users.DeleteUser(ctx, uid, time.Now(), nil))
		_, err = s.Keys.CreateAPIKey(ctx, key(uid, 2, t0), 10)
		is.Equal(domain.ErrorCode(err), domain.ENOTFOUND)
	})

	t.Run("revoking: only the owner's unrevoked key, the row stays", func(t *testing.T) {
		is := is.New(t)
		s := newStores(t)
		a, b := newUser(t, s, "a@example.com"), newUser(t, s, "b@example.com")
		id, err := s.Keys.CreateAPIKey(ctx, key(a, 1, t0), 10)
		is.NoErr(err)
		is.Equal(domain.ErrorCode(s.Keys.RevokeAPIKey(ctx, b, id, t0)), domain.ENOTFOUND) // not b's
		is.NoErr(s.Keys.RevokeAPIKey(ctx, a, id, t0.Add(time.Minute)))
		is.Equal(domain.ErrorCode(s.Keys.RevokeAPIKey(ctx, a, id, t0)), domain.ENOTFOUND) // already
		got, err := s.Keys.APIKeyByHash(ctx, bytes.Repeat([]byte{1}, 32))
		is.NoErr(err)
		is.True(got.RevokedAt != nil && got.RevokedAt.Equal(t0.Add(time.Minute)))
		is.True(!got.Usable(t0.Add(2 * time.Minute)))
		list, err := s.Keys.APIKeys(ctx, a)
		is.NoErr(err)
		is.Equal(len(list), 0) // revoked keys leave the list
	})

	t.Run("at most max keys that are not revoked, also when created at once", func(t *testing.T) {
		is := is.New(t)
		s := newStores(t)
		uid := newUser(t, s, "a@example.com")
		var wg sync.WaitGroup
		errs := make([]error, 6)
		for i := range errs {
			wg.Add(1)
			go func() {
				defer wg.Done()
				_, errs[i] = s.Keys.CreateAPIKey(ctx, key(uid, byte(10+i), t0), 3)
			}()
		}
		wg.Wait()
		ok, conflicts := 0, 0
		for _, err := range errs {
			switch domain.ErrorCode(err) {
			case "":
				ok++
			case domain.ECONFLICT:
				conflicts++
			default:
				t.Fatalf("create: %v", err)
			}
		}
		is.Equal(ok, 3)
		is.Equal(conflicts, 3)
		list, err := s.Keys.APIKeys(ctx, uid)
		is.NoErr(err)
		is.NoErr(s.Keys.RevokeAPIKey(ctx, uid, list[0].ID, t0))
		_, err = s.Keys.CreateAPIKey(ctx, key(uid, 99, t0), 3)
		is.NoErr(err) // a revoked key frees its place
	})

	t.Run("a use is recorded at most once a minute", func(t *testing.T) {
		is := is.New(t)
		s := newStores(t)
		uid := newUser(t, s, "a@example.com")
		id, err := s.Keys.CreateAPIKey(ctx, key(uid, 1, t0), 10)
		is.NoErr(err)
		lastUsed := func() *time.Time {
			k, err := s.Keys.APIKeyByHash(ctx, bytes.Repeat([]byte{1}, 32))
			is.NoErr(err)
			return k.LastUsedAt
		}
		is.NoErr(s.Keys.TouchAPIKey(ctx, id, t0.Add(time.Second)))
		is.True(lastUsed().Equal(t0.Add(time.Second)))
		is.NoErr(s.Keys.TouchAPIKey(ctx, id, t0.Add(30*time.Second)))
		is.True(lastUsed().Equal(t0.Add(time.Second))) // within the minute: kept
		is.NoErr(s.Keys.TouchAPIKey(ctx, id, t0.Add(61*time.Second)))
		is.True(lastUsed().Equal(t0.Add(61 * time.Second)))
		is.NoErr(s.Keys.TouchAPIKey(ctx, id+100, t0)) // unknown: no error
	})
}

// bootstrapped wraps newStores so that each case's database has its first
// administrator (user 1, admin@example.com), as the suites expect.
func bootstrapped[S any](newStores func(*testing.T) S, accounts func(S) ports.AccountStore) func(*testing.T) S {
	return func(t *testing.T) S {
		t.Helper()
		s := newStores(t)
		if _, err := accounts(s).Bootstrap(context.Background(), account.NewUser{Email: "admin@example.com", PasswordHash: "h"}); err != nil {
			t.Fatalf("bootstrap: %v", err)
		}
		return s
	}
}
