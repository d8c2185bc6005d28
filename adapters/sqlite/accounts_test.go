package sqlite

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"counsel/domain"
	"counsel/domain/account"

	"github.com/matryer/is"
)

func TestOpenMigrations(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	names, err := migrationFS.ReadDir("migrations")
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, n := range names {
		want = append(want, n.Name())
	}

	t.Run("reopening applies nothing twice and keeps data", func(t *testing.T) {
		is := is.New(t)
		path := filepath.Join(t.TempDir(), "x.db")
		db, err := Open(ctx, path)
		is.NoErr(err) // first open
		got, err := db.Migrations(ctx)
		is.NoErr(err)       // list
		is.Equal(got, want) // every embedded migration, in order
		_, err = CreateUser(ctx, db.Stores().Accounts, account.NewUser{Email: "a@example.com"})
		is.NoErr(err)        // write something
		is.NoErr(db.Close()) // close

		db = openPath(t, path)
		got, err = db.Migrations(ctx)
		is.NoErr(err)                                                                     // list again
		is.Equal(got, want)                                                               // nothing added
		is.Equal(scalar[int](t, db, "SELECT count(*) FROM schema_migrations"), len(want)) // one row each
		_, err = db.Stores().Accounts.CredentialsByEmail(ctx, "a@example.com")
		is.NoErr(err) // the data survived
	})

	t.Run("two opens of one file at once", func(t *testing.T) {
		is := is.New(t)
		path := filepath.Join(t.TempDir(), "x.db")
		var wg sync.WaitGroup
		errs := make([]error, 4)
		dbs := make([]*DB, 4)
		for i := range dbs {
			wg.Go(func() { dbs[i], errs[i] = Open(ctx, path) })
		}
		wg.Wait()
		for i, db := range dbs {
			is.NoErr(errs[i]) // every open succeeds
			defer db.Close()
		}
		is.Equal(scalar[int](t, dbs[0], "SELECT count(*) FROM schema_migrations"), len(want)) // applied once
		for _, pragma := range []struct {
			name string
			want string
		}{{"journal_mode", "wal"}, {"foreign_keys", "1"}, {"synchronous", "2"}} {
			var v string
			is.NoErr(dbs[1].write.QueryRow("PRAGMA " + pragma.name).Scan(&v)) // pragma
			is.Equal(v, pragma.want)                                          // set on the writer
		}
		var qo string
		is.NoErr(dbs[1].read.QueryRow("PRAGMA query_only").Scan(&qo)) // pragma
		is.Equal(qo, "1")                                             // readers cannot write
	})

	t.Run("empty path", func(t *testing.T) {
		is := is.New(t)
		_, err := Open(ctx, "")
		is.True(err != nil) // refused
	})

	t.Run("unwritable path", func(t *testing.T) {
		is := is.New(t)
		_, err := Open(ctx, filepath.Join(t.TempDir(), "missing", "dir", "x.db"))
		is.True(err != nil) // reported, not a panic
	})
}

func TestCredentialsByEmail(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db, s := bootstrapped(t)
	id := addUser(t, s, "  Mixed.Case@Example.COM ")
	gone := addUser(t, s, "gone@example.com")
	exec(t, db, "UPDATE users SET deleted_at = ? WHERE id = ?", ms(t0), gone)
	off := addUser(t, s, "off@example.com")
	exec(t, db, "UPDATE users SET active = 0, failed_logins = 4, locked_until = ? WHERE id = ?", ms(t0.Add(time.Minute)), off)

	tests := []struct {
		name   string
		email  string
		id     int64
		code   string
		active bool
	}{
		{"stored normalized", "mixed.case@example.com", id, "", true},
		{"the store expects normalized input", "Mixed.Case@Example.COM", 0, domain.ENOTFOUND, false},
		{"unknown", "nobody@example.com", 0, domain.ENOTFOUND, false},
		{"deleted", "gone@example.com", 0, domain.ENOTFOUND, false},
		{"inactive users are found (sign-in decides)", "off@example.com", off, "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			c, err := s.CredentialsByEmail(ctx, tt.email)
			is.Equal(code(err), tt.code) // error code
			if tt.code != "" {
				return
			}
			is.Equal(c.UserID, tt.id)     // user
			is.Equal(c.Email, tt.email)   // email
			is.True(c.PasswordHash != "") // hash
			is.Equal(c.Active, tt.active) // active flag
		})
	}

	t.Run("counters and lock", func(t *testing.T) {
		is := is.New(t)
		c, err := s.CredentialsByEmail(ctx, "off@example.com")
		is.NoErr(err)                                // found
		is.Equal(c.FailedLogins, 4)                  // failures
		is.Equal(c.LockedUntil, t0.Add(time.Minute)) // lock in UTC
		c, err = s.CredentialsByEmail(ctx, "admin@example.com")
		is.NoErr(err)                   // found
		is.True(c.LockedUntil.IsZero()) // 0 in the column is no lock
	})

	t.Run("UserIDByEmail normalizes", func(t *testing.T) {
		is := is.New(t)
		got, err := s.UserIDByEmail(ctx, " MIXED.case@example.com")
		is.NoErr(err)     // found
		is.Equal(got, id) // same user
		_, err = s.UserIDByEmail(ctx, "gone@example.com")
		is.Equal(code(err), domain.ENOTFOUND) // deleted
	})
}

func TestUpdateOTP(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	_, s := bootstrapped(t)
	email := "otp@example.com" // OTP rows do not need a user: unknown emails are throttled too

	is := is.New(t)
	var first account.OTPState
	is.NoErr(s.UpdateOTP(ctx, email, func(st *account.OTPState) error { first = *st; return nil })) // empty state
	is.Equal(first.CodeHash, nil)                                                                   // no code yet
	is.Equal(len(first.Sends), 0)                                                                   // no sends
	is.Equal(first.Attempts, 0)                                                                     // no tries

	sends := []time.Time{t0.Add(-50 * time.Minute), t0.Add(-time.Minute + 123*time.Millisecond), t0}
	want := account.OTPState{CodeHash: []byte{1, 2, 3, 0, 255}, ExpiresAt: t0.Add(5 * time.Minute), Attempts: 2, Sends: sends}
	is.NoErr(s.UpdateOTP(ctx, email, func(st *account.OTPState) error { *st = want; return nil })) // save

	var got account.OTPState
	is.NoErr(s.UpdateOTP(ctx, email, func(st *account.OTPState) error { got = *st; return nil })) // load
	is.Equal(got, want)                                                                           // round trip, sends list included

	t.Run("an error from fn rolls back", func(t *testing.T) {
		is := is.New(t)
		boom := errors.New("boom")
		err := s.UpdateOTP(ctx, email, func(st *account.OTPState) error {
			st.Attempts, st.CodeHash, st.Sends = 99, nil, nil
			return boom
		})
		is.True(errors.Is(err, boom)) // returned as is
		var after account.OTPState
		is.NoErr(s.UpdateOTP(ctx, email, func(st *account.OTPState) error { after = *st; return nil }))
		is.Equal(after, want) // unchanged
	})

	t.Run("a domain error from fn is returned as is", func(t *testing.T) {
		is := is.New(t)
		err := s.UpdateOTP(ctx, email, func(st *account.OTPState) error {
			return &domain.Error{Code: domain.ERATELIMITED, RetryAfter: 7 * time.Second}
		})
		var de *domain.Error
		is.True(errors.As(err, &de))           // domain error
		is.Equal(de.RetryAfter, 7*time.Second) // with its details
	})

	t.Run("a voided code is stored as none", func(t *testing.T) {
		is := is.New(t)
		is.NoErr(s.UpdateOTP(ctx, email, func(st *account.OTPState) error { st.CodeHash = nil; st.Sends = nil; return nil }))
		var after account.OTPState
		is.NoErr(s.UpdateOTP(ctx, email, func(st *account.OTPState) error { after = *st; return nil }))
		is.Equal(len(after.CodeHash), 0)                                                                               // no code
		is.Equal(len(after.Sends), 0)                                                                                  // no sends
		is.Equal(scalar[int](t, dbOf(s), "SELECT count(*) FROM otps WHERE code_hash IS NULL AND email = ?", email), 1) // NULL in the column
	})

	t.Run("emails are separate", func(t *testing.T) {
		is := is.New(t)
		var other account.OTPState
		is.NoErr(s.UpdateOTP(ctx, "other@example.com", func(st *account.OTPState) error { other = *st; return nil }))
		is.Equal(other.Attempts, 0) // nothing of otp@example.com
	})
}

func TestLogin(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	_, s := bootstrapped(t)
	uid := addUser(t, s, "user@example.com")
	setCode := func(t *testing.T) {
		t.Helper()
		if err := s.UpdateOTP(ctx, "user@example.com", func(st *account.OTPState) error {
			*st = account.OTPState{CodeHash: []byte("code"), ExpiresAt: t0.Add(time.Minute), Sends: []time.Time{t0}}
			return nil
		}); err != nil {
			t.Fatal(err)
		}
	}

	t.Run("fn sees credentials and OTP; failure counters and lock persist", func(t *testing.T) {
		is := is.New(t)
		setCode(t)
		err := s.Login(ctx, uid, "user@example.com", func(st *account.LoginState) error {
			is.Equal(st.Credentials.UserID, uid) // credentials loaded
			is.Equal(st.Credentials.PasswordHash, "hash-user@example.com")
			is.Equal(string(st.OTP.CodeHash), "code") // OTP loaded
			st.Credentials.FailedLogins = 3
			st.Credentials.LockedUntil = t0.Add(15 * time.Minute)
			st.OTP.Attempts = 1
			return nil
		})
		is.NoErr(err) // saved
		c, err := s.CredentialsByEmail(ctx, "user@example.com")
		is.NoErr(err)                                   // reload
		is.Equal(c.FailedLogins, 3)                     // counter persisted
		is.Equal(c.LockedUntil, t0.Add(15*time.Minute)) // lock persisted
		var otp account.OTPState
		is.NoErr(s.UpdateOTP(ctx, "user@example.com", func(st *account.OTPState) error { otp = *st; return nil }))
		is.Equal(otp.Attempts, 1)              // OTP tries persisted
		is.Equal(string(otp.CodeHash), "code") // code kept
	})

	t.Run("success creates the session with its refresh hash and clears the lock", func(t *testing.T) {
		is := is.New(t)
		setCode(t)
		ss := account.Session{ID: "sess-login", UserID: uid, Method: account.MethodPassword, CreatedAt: t0, ExpiresAt: t0.Add(720 * time.Hour), AuthenticatedAt: t0}
		err := s.Login(ctx, uid, "user@example.com", func(st *account.LoginState) error {
			st.Credentials.FailedLogins, st.Credentials.LockedUntil = 0, time.Time{}
			st.OTP.Consume()
			st.NewSession, st.RefreshHash = &ss, []byte("refresh-1")
			return nil
		})
		is.NoErr(err) // saved
		got, err := s.Session(ctx, "sess-login")
		is.NoErr(err)     // session stored
		is.Equal(got, ss) // every field
		got, err = s.SessionByRefreshHash(ctx, []byte("refresh-1"))
		is.NoErr(err)           // refresh hash stored
		is.Equal(got.ID, ss.ID) // for that session
		c, _ := s.CredentialsByEmail(ctx, "user@example.com")
		is.Equal(c.FailedLogins, 0)     // reset
		is.True(c.LockedUntil.IsZero()) // unlocked
		var otp account.OTPState
		is.NoErr(s.UpdateOTP(ctx, "user@example.com", func(st *account.OTPState) error { otp = *st; return nil }))
		is.Equal(len(otp.CodeHash), 0) // code consumed
		is.Equal(len(otp.Sends), 1)    // send history kept for throttling
	})

	t.Run("an error from fn rolls everything back", func(t *testing.T) {
		is := is.New(t)
		ss := account.Session{ID: "sess-rollback", UserID: uid, Method: account.MethodPassword, CreatedAt: t0, ExpiresAt: t0.Add(time.Hour)}
		err := s.Login(ctx, uid, "user@example.com", func(st *account.LoginState) error {
			st.Credentials.FailedLogins = 9
			st.NewSession, st.RefreshHash = &ss, []byte("refresh-rollback")
			return errors.New("stop")
		})
		is.True(err != nil) // returned
		_, err = s.Session(ctx, "sess-rollback")
		is.Equal(code(err), domain.ENOTFOUND) // no session
		c, _ := s.CredentialsByEmail(ctx, "user@example.com")
		is.Equal(c.FailedLogins, 0) // counter unchanged
	})

	t.Run("user vanished or email of another user", func(t *testing.T) {
		is := is.New(t)
		called := false
		fn := func(*account.LoginState) error { called = true; return nil }
		is.Equal(code(s.Login(ctx, uid, "nobody@example.com", fn)), domain.ENOTFOUND)    // unknown email
		is.Equal(code(s.Login(ctx, uid+1000, "user@example.com", fn)), domain.ENOTFOUND) // id and email disagree
		is.True(!called)                                                                 // fn not called
	})

	t.Run("a duplicate refresh hash fails the whole sign-in", func(t *testing.T) {
		is := is.New(t)
		ss := account.Session{ID: "sess-dup", UserID: uid, Method: account.MethodPassword, CreatedAt: t0, ExpiresAt: t0.Add(time.Hour)}
		err := s.Login(ctx, uid, "user@example.com", func(st *account.LoginState) error {
			st.NewSession, st.RefreshHash = &ss, []byte("refresh-1")
			return nil
		})
		is.Equal(code(err), domain.ECONFLICT) // unique hash
		_, err = s.Session(ctx, "sess-dup")
		is.Equal(code(err), domain.ENOTFOUND) // session rolled back too
	})
}

func newSession(t *testing.T, s *AccountStore, id string, uid int64, hash string) account.Session {
	t.Helper()
	ss := account.Session{ID: id, UserID: uid, Method: account.MethodIdP, CreatedAt: t0, ExpiresAt: t0.Add(time.Hour)}
	if err := s.CreateSession(context.Background(), ss, []byte(hash)); err != nil {
		t.Fatalf("create session: %v", err)
	}
	ss.AuthenticatedAt = t0 // until a re-authentication, the sign-in
	return ss
}

func TestRefresh(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db, s := bootstrapped(t)
	uid := addUser(t, s, "user@example.com")
	ss := newSession(t, s, "sess-1", uid, "h1")
	later := t0.Add(10 * time.Minute)
	db.Now = func() time.Time { return later }

	refresh := func(hash string, fn func(*account.RefreshState)) (account.RefreshState, error) {
		var seen account.RefreshState
		err := s.Refresh(ctx, account.Rotation{TokenHash: []byte(hash)}, func(st *account.RefreshState) error {
			seen = *st
			if fn != nil {
				fn(st)
			}
			return nil
		})
		return seen, err
	}

	t.Run("rotation marks the used token and stores the new one", func(t *testing.T) {
		is := is.New(t)
		seen, err := refresh("h1", func(st *account.RefreshState) { st.NewTokenHash = []byte("h2") })
		is.NoErr(err)                                                                                                                                     // rotated
		is.Equal(seen.Session, ss)                                                                                                                        // fn sees the session
		is.True(!seen.Used)                                                                                                                               // h1 was current
		is.Equal(scalar[int64](t, db, "SELECT used_at FROM refresh_tokens WHERE hash = ?", []byte("h1")), ms(later))                                      // h1 used at the store's clock
		is.Equal(scalar[int](t, db, "SELECT count(*) FROM refresh_tokens WHERE hash = ? AND used_at IS NULL AND session_id = 'sess-1'", []byte("h2")), 1) // h2 stored, current

		seen, err = refresh("h1", nil)
		is.NoErr(err)      // loaded
		is.True(seen.Used) // h1 is now a used token
		seen, err = refresh("h2", nil)
		is.NoErr(err)       // loaded
		is.True(!seen.Used) // h2 is current
	})

	t.Run("both tokens lead to the session", func(t *testing.T) {
		is := is.New(t)
		for _, h := range []string{"h1", "h2"} {
			got, err := s.SessionByRefreshHash(ctx, []byte(h))
			is.NoErr(err)              // found
			is.Equal(got.ID, "sess-1") // same session
		}
		_, err := s.SessionByRefreshHash(ctx, []byte("h9"))
		is.Equal(code(err), domain.ENOTFOUND) // unknown hash
	})

	t.Run("nothing set changes nothing", func(t *testing.T) {
		is := is.New(t)
		_, err := refresh("h2", nil)
		is.NoErr(err)                                                                                                           // no-op
		is.Equal(scalar[int](t, db, "SELECT count(*) FROM refresh_tokens WHERE hash = ? AND used_at IS NULL", []byte("h2")), 1) // still current
		got, _ := s.Session(ctx, "sess-1")
		is.Equal(got.RevokedAt, nil) // not revoked
	})

	t.Run("reuse: Revoke revokes the session", func(t *testing.T) {
		is := is.New(t)
		_, err := refresh("h1", func(st *account.RefreshState) { st.Revoke = true })
		is.NoErr(err) // saved
		got, err := s.Session(ctx, "sess-1")
		is.NoErr(err)                   // found
		is.True(got.RevokedAt != nil)   // revoked
		is.Equal(*got.RevokedAt, later) // at the store's clock
		seen, err := refresh("h2", nil)
		is.NoErr(err)                          // loaded
		is.True(seen.Session.RevokedAt != nil) // the current token's session is revoked too
	})

	t.Run("unknown token", func(t *testing.T) {
		is := is.New(t)
		called := false
		err := s.Refresh(ctx, account.Rotation{TokenHash: []byte("nope")}, func(*account.RefreshState) error { called = true; return nil })
		is.Equal(code(err), domain.ENOTFOUND) // ENOTFOUND
		is.True(!called)                      // fn not called
	})

	t.Run("an error from fn rolls back the rotation", func(t *testing.T) {
		is := is.New(t)
		newSession(t, s, "sess-2", uid, "k1")
		err := s.Refresh(ctx, account.Rotation{TokenHash: []byte("k1")}, func(st *account.RefreshState) error {
			st.NewTokenHash = []byte("k2")
			return errors.New("stop")
		})
		is.True(err != nil)                                                                                                     // returned
		is.Equal(scalar[int](t, db, "SELECT count(*) FROM refresh_tokens WHERE hash = ?", []byte("k2")), 0)                     // no new token
		is.Equal(scalar[int](t, db, "SELECT count(*) FROM refresh_tokens WHERE hash = ? AND used_at IS NULL", []byte("k1")), 1) // old one still current
	})
}

func TestRefreshConcurrent(t *testing.T) {
	t.Parallel()
	// Of several refreshes with one token at once, exactly one finds it
	// current: the others see it used (docs/decisions.md §2).
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "x.db")
	a, b := openPath(t, path), openPath(t, path)
	sa := a.Stores().Accounts
	if _, err := sa.Bootstrap(ctx, account.NewUser{Email: "admin@example.com"}); err != nil {
		t.Fatal(err)
	}
	newSession(t, sa, "sess", 1, "h0")
	stores := []*AccountStore{sa, b.Stores().Accounts}

	is := is.New(t)
	const n = 8
	var wg sync.WaitGroup
	var mu sync.Mutex
	current, used := 0, 0
	start := make(chan struct{})
	for i := range n {
		wg.Go(func() {
			<-start
			err := stores[i%2].Refresh(ctx, account.Rotation{TokenHash: []byte("h0")}, func(st *account.RefreshState) error {
				mu.Lock()
				defer mu.Unlock()
				if st.Used {
					used++
					return nil
				}
				current++
				st.NewTokenHash = []byte(fmt.Sprintf("h-%d", i))
				return nil
			})
			if err != nil {
				t.Error(err)
			}
		})
	}
	close(start)
	wg.Wait()
	is.Equal(current, 1)                                                                        // exactly one rotation
	is.Equal(used, n-1)                                                                         // the rest see a used token
	is.Equal(scalar[int](t, a, "SELECT count(*) FROM refresh_tokens WHERE used_at IS NULL"), 1) // one current token
}

func TestRevokeSessions(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	_, s := bootstrapped(t)
	a := addUser(t, s, "a@example.com")
	b := addUser(t, s, "b@example.com")
	newSession(t, s, "a1", a, "ha1")
	newSession(t, s, "a2", a, "ha2")
	newSession(t, s, "a3", a, "ha3")
	newSession(t, s, "b1", b, "hb1")
	revokedAt := func(id string) *time.Time {
		ss, err := s.Session(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		return ss.RevokedAt
	}

	is := is.New(t)
	first, second := t0.Add(time.Minute), t0.Add(2*time.Minute)
	is.NoErr(s.RevokeSession(ctx, "a1", first))   // revoke one
	is.Equal(*revokedAt("a1"), first)             // at the given time
	is.Equal(revokedAt("a2"), nil)                // others untouched
	is.NoErr(s.RevokeSession(ctx, "a1", second))  // again: no error
	is.Equal(*revokedAt("a1"), first)             // the first revocation time stays
	is.NoErr(s.RevokeSession(ctx, "nope", first)) // unknown: no error

	is.NoErr(s.RevokeUserSessions(ctx, a, second)) // every session of a
	is.Equal(*revokedAt("a1"), first)              // already revoked: unchanged
	is.Equal(*revokedAt("a2"), second)             // revoked
	is.Equal(*revokedAt("a3"), second)             // revoked
	is.Equal(revokedAt("b1"), nil)                 // another user's session is untouched

	_, err := s.Session(ctx, "nope")
	is.Equal(code(err), domain.ENOTFOUND) // unknown session
}

func TestUserAccess(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db, s := bootstrapped(t)
	roles := db.Stores().Roles
	viewers, err := roles.CreateRole(ctx, account.RoleInput{Name: "Viewers"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := roles.SetRolePermissions(ctx, viewers.ID, setPerms(account.NewPermissionSet(account.UsersView, account.ContractView))); err != nil {
		t.Fatal(err)
	}
	empty, err := roles.CreateRole(ctx, account.RoleInput{Name: "Empty"})
	if err != nil {
		t.Fatal(err)
	}
	adminID, err := s.UserIDByEmail(ctx, "admin@example.com")
	if err != nil {
		t.Fatal(err)
	}
	staff := addUser(t, s, "staff@example.com")
	both := addUser(t, s, "both@example.com", account.StaffRole, "Viewers")
	none := addUser(t, s, "none@example.com", "Empty")
	exec(t, db, "DELETE FROM user_roles WHERE user_id = ?", none)
	if _, err := roles.CreateRole(ctx, account.RoleInput{Name: "Bare"}); err != nil {
		t.Fatal(err)
	}
	onlyEmpty := addUser(t, s, "empty@example.com", "Bare")
	legacy := addUser(t, s, "legacy@example.com", "Empty")
	exec(t, db, "INSERT INTO role_permissions (role_id, permission) VALUES (?, 'RemovedPermission'), (?, 'rolesview')", empty.ID, empty.ID)
	deleted := addUser(t, s, "deleted@example.com", "Viewers")
	exec(t, db, "UPDATE users SET deleted_at = ? WHERE id = ?", ms(t0), deleted)
	inactive := addUser(t, s, "inactive@example.com", account.AdministratorRole)
	exec(t, db, "UPDATE users SET active = 0 WHERE id = ?", inactive)

	tests := []struct {
		name  string
		id    int64
		perms account.PermissionSet
		admin bool
		code  string
	}{
		{"system admin gets everything", adminID, account.AllPermissionSet, true, ""},
		{"default role", staff, account.NewPermissionSet(account.ContractView), false, ""},
		{"union of roles", both, account.NewPermissionSet(account.ContractView, account.UsersView), false, ""},
		{"no roles: no permissions, still found", none, 0, false, ""},
		{"a role without permissions", onlyEmpty, 0, false, ""},
		{"unknown stored names are skipped, case-insensitive ones kept", legacy, account.NewPermissionSet(account.RolesView), false, ""},
		{"deleted", deleted, 0, false, domain.ENOTFOUND},
		{"inactive, even an administrator", inactive, 0, false, domain.ENOTFOUND},
		{"unknown", 99999, 0, false, domain.ENOTFOUND},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			perms, admin, err := s.UserAccess(ctx, tt.id)
			is.Equal(code(err), tt.code) // error code
			is.Equal(perms, tt.perms)    // permissions
			is.Equal(admin, tt.admin)    // system admin
		})
	}
}

func TestSigningKeys(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	_, s := bootstrapped(t)
	is := is.New(t)
	keys, err := s.SigningKeys(ctx)
	is.NoErr(err)          // list
	is.Equal(len(keys), 0) // none yet

	retired := t0.Add(-30 * time.Minute)
	add := []account.SigningKey{
		{ID: "old", PrivateKey: []byte("seed-old"), CreatedAt: t0.Add(-time.Hour), RetiredAt: &retired},
		{ID: "newest", PrivateKey: []byte("seed-newest"), CreatedAt: t0.Add(time.Hour)},
		{ID: "b-same-time", PrivateKey: []byte("seed-b"), CreatedAt: t0},
		{ID: "a-same-time", PrivateKey: []byte("seed-a"), CreatedAt: t0},
	}
	for _, k := range add {
		is.NoErr(s.AddSigningKey(ctx, k)) // add
	}
	keys, err = s.SigningKeys(ctx)
	is.NoErr(err) // list
	var ids []string
	for _, k := range keys {
		ids = append(ids, k.ID)
	}
	is.Equal(ids, []string{"newest", "a-same-time", "b-same-time", "old"}) // newest first, ties by kid
	is.Equal(keys[3], add[0])                                              // every field round-trips, retirement included
	is.Equal(keys[0].RetiredAt, nil)                                       // live key

	is.Equal(code(s.AddSigningKey(ctx, account.SigningKey{ID: "old", PrivateKey: []byte("x"), CreatedAt: t0})), domain.ECONFLICT) // kid is unique
}

func TestSecret(t *testing.T) {
	t.Parallel()
	ctx := context.Background()

	t.Run("created once", func(t *testing.T) {
		is := is.New(t)
		_, s := bootstrapped(t)
		calls := 0
		create := func() ([]byte, error) { calls++; return []byte(fmt.Sprintf("secret-%d", calls)), nil }
		v1, err := s.Secret(ctx, "k", create)
		is.NoErr(err)                    // created
		is.Equal(string(v1), "secret-1") // the created value
		v2, err := s.Secret(ctx, "k", create)
		is.NoErr(err)                    // read
		is.Equal(string(v2), "secret-1") // the same value
		is.Equal(calls, 1)               // create called once
		v3, err := s.Secret(ctx, "other", create)
		is.NoErr(err)                    // another name
		is.Equal(string(v3), "secret-2") // its own value
	})

	t.Run("a failing create stores nothing", func(t *testing.T) {
		is := is.New(t)
		_, s := bootstrapped(t)
		boom := errors.New("no entropy")
		_, err := s.Secret(ctx, "k", func() ([]byte, error) { return nil, boom })
		is.True(errors.Is(err, boom)) // returned
		v, err := s.Secret(ctx, "k", func() ([]byte, error) { return []byte("later"), nil })
		is.NoErr(err)                // created later
		is.Equal(string(v), "later") // nothing was stored by the failure
	})

	t.Run("concurrent callers, also through two handles of one file, agree", func(t *testing.T) {
		is := is.New(t)
		path := filepath.Join(t.TempDir(), "x.db")
		stores := []*AccountStore{openPath(t, path).Stores().Accounts, openPath(t, path).Stores().Accounts}
		const n = 16
		got := make([][]byte, n)
		errs := make([]error, n)
		var wg sync.WaitGroup
		start := make(chan struct{})
		for i := range n {
			wg.Go(func() {
				<-start
				got[i], errs[i] = stores[i%2].Secret(ctx, "otp_hmac_key", func() ([]byte, error) { return []byte{byte(i)}, nil })
			})
		}
		close(start)
		wg.Wait()
		for i := range n {
			is.NoErr(errs[i])                    // no SQLITE_BUSY, no conflict
			is.True(bytes.Equal(got[i], got[0])) // one value for everybody
		}
		is.Equal(scalar[int](t, dbOf(stores[0]), "SELECT count(*) FROM settings WHERE name = 'otp_hmac_key'"), 1) // one row
	})
}

func TestBootstrap(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	is := is.New(t)
	db := openDB(t)
	s := db.Stores().Accounts
	roles := db.Stores().Roles

	created, err := s.Bootstrap(ctx, account.NewUser{Email: " Boss@Example.com ", FirstName: "Admin", PasswordHash: "h1"})
	is.NoErr(err)    // bootstrap
	is.True(created) // created the administrator

	rs, err := roles.Roles(ctx)
	is.NoErr(err)                                                                                                                                          // list roles
	is.Equal(len(rs), 2)                                                                                                                                   // Administrator and Staff
	is.Equal(rs[0], account.Role{ID: rs[0].ID, Name: account.AdministratorRole, IsSystemAdmin: true, Permissions: account.AllPermissionSet})               // every permission
	is.Equal(rs[1], account.Role{ID: rs[1].ID, Name: account.StaffRole, IsDefaultRole: true, Permissions: account.NewPermissionSet(account.ContractView)}) // default role

	c, err := s.CredentialsByEmail(ctx, "boss@example.com")
	is.NoErr(err)                  // admin stored under the normalized email
	is.Equal(c.PasswordHash, "h1") // with the hash
	is.True(c.Active)              // active
	ur, err := roles.UserRoles(ctx, c.UserID)
	is.NoErr(err)                                   // roles of the admin
	is.Equal(len(ur), 1)                            // only
	is.Equal(ur[0].Name, account.AdministratorRole) // Administrator, not the default role

	created, err = s.Bootstrap(ctx, account.NewUser{Email: "second@example.com", PasswordHash: "h2"})
	is.NoErr(err)                                                 // second call
	is.True(!created)                                             // creates nothing
	is.Equal(scalar[int](t, db, "SELECT count(*) FROM users"), 1) // still one user
	is.Equal(scalar[int](t, db, "SELECT count(*) FROM roles"), 2) // still two roles

	t.Run("roles kept when renamed; no admin once any user exists, even deleted", func(t *testing.T) {
		is := is.New(t)
		exec(t, db, "UPDATE roles SET name = 'Boss' WHERE name = 'Administrator'")
		exec(t, db, "UPDATE users SET deleted_at = 1")
		created, err := s.Bootstrap(ctx, account.NewUser{Email: "third@example.com", PasswordHash: "h3"})
		is.NoErr(err)                                                 // bootstrap
		is.True(!created)                                             // a used database is not re-bootstrapped
		is.Equal(scalar[int](t, db, "SELECT count(*) FROM roles"), 2) // roles not re-created
	})

	t.Run("roles exist, no user yet (user create ran first)", func(t *testing.T) {
		is := is.New(t)
		db := openDB(t)
		s := db.Stores().Accounts
		is.NoErr(s.EnsureRoles(ctx)) // roles only
		is.NoErr(s.EnsureRoles(ctx)) // idempotent
		is.Equal(scalar[int](t, db, "SELECT count(*) FROM roles"), 2)
		created, err := s.Bootstrap(ctx, account.NewUser{Email: "a@example.com", PasswordHash: "h"})
		is.NoErr(err)                                                 // bootstrap
		is.True(created)                                              // admin created
		is.Equal(scalar[int](t, db, "SELECT count(*) FROM roles"), 2) // no duplicate roles
	})

	t.Run("concurrent first starts create one administrator", func(t *testing.T) {
		is := is.New(t)
		path := filepath.Join(t.TempDir(), "x.db")
		stores := []*AccountStore{openPath(t, path).Stores().Accounts, openPath(t, path).Stores().Accounts}
		var wg sync.WaitGroup
		var mu sync.Mutex
		createdN := 0
		for i := range 6 {
			wg.Go(func() {
				ok, err := stores[i%2].Bootstrap(ctx, account.NewUser{Email: fmt.Sprintf("admin%d@example.com", i), PasswordHash: "h"})
				if err != nil {
					t.Error(err)
				}
				mu.Lock()
				if ok {
					createdN++
				}
				mu.Unlock()
			})
		}
		wg.Wait()
		is.Equal(createdN, 1)                                                      // exactly one reports creation
		is.Equal(scalar[int](t, dbOf(stores[0]), "SELECT count(*) FROM users"), 1) // one administrator
		is.Equal(scalar[int](t, dbOf(stores[0]), "SELECT count(*) FROM roles"), 2) // one set of roles
	})
}

func TestCreateUser(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db, s := bootstrapped(t)
	roles := db.Stores().Roles
	if _, err := roles.CreateRole(ctx, account.RoleInput{Name: "Also Default", IsDefaultRole: true}); err != nil {
		t.Fatal(err)
	}
	if _, err := roles.CreateRole(ctx, account.RoleInput{Name: "Partner"}); err != nil {
		t.Fatal(err)
	}
	gone := addUser(t, s, "reused@example.com")
	exec(t, db, "UPDATE users SET deleted_at = ? WHERE id = ?", ms(t0), gone)

	tests := []struct {
		name  string
		email string
		roles []string
		want  []string // role names, ordered by name
		code  string
		field string
	}{
		{"no roles: the default roles", "d@example.com", nil, []string{"Also Default", "Staff"}, "", ""},
		{"named roles only", "n@example.com", []string{"Partner", "Administrator"}, []string{"Administrator", "Partner"}, "", ""},
		{"role names ignore case", "c@example.com", []string{"partner"}, []string{"Partner"}, "", ""},
		{"a role named twice", "t@example.com", []string{"Partner", "Partner"}, []string{"Partner"}, "", ""},
		{"unknown role", "u@example.com", []string{"Partner", "Ghost"}, nil, domain.EINVALID, "roles"},
		{"duplicate email", "admin@example.com", nil, nil, domain.ECONFLICT, ""},
		{"duplicate email, other case and spaces", "  ADMIN@example.COM", nil, nil, domain.ECONFLICT, ""},
		{"a deleted user's email may be used again", "reused@example.com", nil, []string{"Also Default", "Staff"}, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			id, err := CreateUser(ctx, s, account.NewUser{Email: tt.email, FirstName: "F", LastName: "L", PasswordHash: "h", Roles: tt.roles})
			is.Equal(code(err), tt.code) // error code
			if tt.code != "" {
				is.Equal(id, int64(0)) // no id
				var de *domain.Error
				is.True(errors.As(err, &de))
				if tt.field != "" {
					is.True(len(de.Fields[tt.field]) > 0) // names the field
				}
				if tt.code == domain.EINVALID {
					_, err := s.CredentialsByEmail(ctx, account.NormalizeEmail(tt.email))
					is.Equal(code(err), domain.ENOTFOUND) // the user was rolled back with the roles
				}
				return
			}
			is.True(id != gone) // a new row
			ur, err := roles.UserRoles(ctx, id)
			is.NoErr(err) // roles
			var names []string
			for _, r := range ur {
				names = append(names, r.Name)
			}
			is.Equal(names, tt.want) // roles given
			var first, last string
			is.NoErr(db.read.QueryRow("SELECT first_name, last_name FROM users WHERE id = ?", id).Scan(&first, &last))
			is.Equal(first+" "+last, "F L") // names stored
		})
	}
}

func TestSetPassword(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db, s := bootstrapped(t)
	uid := addUser(t, s, "user@example.com")
	other := addUser(t, s, "other@example.com")
	exec(t, db, "UPDATE users SET failed_logins = 7, locked_until = ? WHERE id = ?", ms(t0.Add(time.Hour)), uid)
	newSession(t, s, "u1", uid, "hu1")
	newSession(t, s, "u2", uid, "hu2")
	newSession(t, s, "o1", other, "ho1")

	is := is.New(t)
	at := t0.Add(5 * time.Minute)
	is.NoErr(s.SetPassword(ctx, uid, "new-hash", at, nil)) // replaced
	c, err := s.CredentialsByEmail(ctx, "user@example.com")
	is.NoErr(err)                                                                            // reload
	is.Equal(c.PasswordHash, "new-hash")                                                     // new hash
	is.Equal(c.FailedLogins, 0)                                                              // counter reset
	is.True(c.LockedUntil.IsZero())                                                          // unlocked
	is.Equal(scalar[int64](t, db, "SELECT updated_at FROM users WHERE id = ?", uid), ms(at)) // updated_at
	for _, id := range []string{"u1", "u2"} {
		ss, err := s.Session(ctx, id)
		is.NoErr(err)                // session
		is.True(ss.RevokedAt != nil) // revoked
		is.Equal(*ss.RevokedAt, at)  // at the change
	}
	ss, _ := s.Session(ctx, "o1")
	is.Equal(ss.RevokedAt, nil) // another user's session stays

	is.Equal(code(s.SetPassword(ctx, 99999, "h", at, nil)), domain.ENOTFOUND) // unknown user
	exec(t, db, "UPDATE users SET deleted_at = 1 WHERE id = ?", other)
	is.Equal(code(s.SetPassword(ctx, other, "h", at, nil)), domain.ENOTFOUND) // deleted user
	ss, _ = s.Session(ctx, "o1")
	is.Equal(ss.RevokedAt, nil) // nothing revoked on failure
}

func TestConcurrentWriters(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "x.db")
	a := openPath(t, path)
	b := openPath(t, path) // a second process on the same file
	if _, err := a.Stores().Accounts.Bootstrap(ctx, account.NewUser{Email: "admin@example.com"}); err != nil {
		t.Fatal(err)
	}

	is := is.New(t)
	const perWriter = 25
	var wg sync.WaitGroup
	errs := make(chan error, 4*perWriter)
	start := make(chan struct{})
	for w, db := range []*DB{a, a, b, b} {
		s := db.Stores().Accounts
		wg.Go(func() {
			<-start
			for i := range perWriter {
				email := fmt.Sprintf("w%d-%d@example.com", w, i)
				if _, err := CreateUser(ctx, s, account.NewUser{Email: email}); err != nil {
					errs <- fmt.Errorf("create %s: %w", email, err)
					continue
				}
				errs <- s.UpdateOTP(ctx, email, func(st *account.OTPState) error { st.Attempts++; return nil })
			}
		})
	}
	// Readers run alongside: WAL lets them see a snapshot without waiting.
	wg.Go(func() {
		<-start
		for range 50 {
			if _, err := b.Stores().Accounts.CredentialsByEmail(ctx, "admin@example.com"); err != nil {
				errs <- err
			}
		}
	})
	close(start)
	wg.Wait()
	close(errs)
	for err := range errs {
		is.NoErr(err) // every write succeeds: no SQLITE_BUSY
	}
	is.Equal(scalar[int](t, a, "SELECT count(*) FROM users"), 1+4*perWriter) // every user written
	is.Equal(scalar[int](t, b, "SELECT count(*) FROM otps WHERE attempts = 1"), 4*perWriter)
}

func TestBackup(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db, s := bootstrapped(t)
	addUser(t, s, "user@example.com")
	dir := t.TempDir()

	is := is.New(t)
	dest := filepath.Join(dir, "copy.db")
	// Writers keep going while the copy is taken.
	var wg sync.WaitGroup
	wg.Go(func() {
		for i := range 20 {
			if _, err := CreateUser(ctx, s, account.NewUser{Email: fmt.Sprintf("busy%d@example.com", i)}); err != nil {
				t.Error(err)
			}
		}
	})
	is.NoErr(db.Backup(ctx, dest)) // backup while writing
	wg.Wait()

	cp := openPath(t, dest)
	cs := cp.Stores().Accounts
	for _, email := range []string{"admin@example.com", "user@example.com"} {
		_, err := cs.CredentialsByEmail(ctx, email)
		is.NoErr(err) // the copy has the users
	}
	n := scalar[int](t, cp, "SELECT count(*) FROM users")
	is.True(n >= 2 && n <= 22) // a consistent snapshot
	got, err := cp.Migrations(ctx)
	is.NoErr(err) // the copy is a migrated database
	want, err := db.Migrations(ctx)
	is.NoErr(err)
	is.Equal(got, want) // with its migrations recorded
	var check string
	is.NoErr(cp.read.QueryRow("PRAGMA integrity_check").Scan(&check))
	is.Equal(check, "ok") // intact

	t.Run("refuses an existing file", func(t *testing.T) {
		is := is.New(t)
		exists := filepath.Join(dir, "exists.db")
		is.NoErr(os.WriteFile(exists, []byte("precious"), 0o600))
		is.True(db.Backup(ctx, exists) != nil) // refused
		b, err := os.ReadFile(exists)
		is.NoErr(err)                   // still there
		is.Equal(string(b), "precious") // untouched
	})
}

func TestRefreshGroupCommit(t *testing.T) {
	t.Parallel()
	// Many refreshes at once, committed in shared transactions: each
	// session's token rotates exactly once, an unknown token and a
	// refresh whose decision fails fail alone (its writes undone), and
	// every rotation is on disk when Refresh returns.
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "x.db")
	db := openPath(t, path)
	s := db.Stores().Accounts
	if _, err := s.Bootstrap(ctx, account.NewUser{Email: "admin@example.com"}); err != nil {
		t.Fatal(err)
	}
	const sessions = 30
	for i := range sessions {
		newSession(t, s, fmt.Sprintf("s%d", i), 1, fmt.Sprintf("h%d", i))
	}
	is := is.New(t)
	var mu sync.Mutex
	rotated := map[string]int{}
	var wg sync.WaitGroup
	start := make(chan struct{})
	failing := errors.New("decision failed")
	for i := range 3 * sessions {
		wg.Go(func() {
			<-start
			hash := fmt.Sprintf("h%d", i%sessions)
			err := s.Refresh(ctx, account.Rotation{TokenHash: []byte(hash)}, func(st *account.RefreshState) error {
				if i >= 2*sessions { // a third of the calls: decide, then fail
					st.NewTokenHash = []byte(fmt.Sprintf("bad-%d", i))
					st.Revoke = true
					return failing
				}
				if !st.Used {
					st.NewTokenHash = []byte(fmt.Sprintf("n%d", i))
					mu.Lock()
					rotated[hash]++
					mu.Unlock()
				}
				return nil
			})
			if i >= 2*sessions && !errors.Is(err, failing) {
				t.Errorf("refresh %d: %v, want the decision's error", i, err)
			} else if i < 2*sessions && err != nil {
				t.Errorf("refresh %d: %v", i, err)
			}
		})
		wg.Go(func() {
			<-start
			err := s.Refresh(ctx, account.Rotation{TokenHash: []byte(fmt.Sprintf("unknown-%d", i))}, func(*account.RefreshState) error { return nil })
			if code(err) != domain.ENOTFOUND {
				t.Errorf("unknown token: %v", err)
			}
		})
	}
	close(start)
	wg.Wait()
	is.Equal(len(rotated), sessions) // every session rotated
	for _, n := range rotated {
		is.Equal(n, 1) // exactly once
	}
	is.Equal(scalar[int](t, db, "SELECT count(*) FROM refresh_tokens WHERE used_at IS NULL"), sessions)          // one current token each
	is.Equal(scalar[int](t, db, "SELECT count(*) FROM refresh_tokens WHERE CAST(hash AS TEXT) LIKE 'bad-%'"), 0) // failed decisions undone
	is.Equal(scalar[int](t, db, "SELECT count(*) FROM sessions WHERE revoked_at IS NOT NULL"), 0)                // their revocations too
	// Durable: a second connection to the file sees every rotation.
	other := openPath(t, path)
	is.Equal(scalar[int](t, other, "SELECT count(*) FROM refresh_tokens WHERE CAST(hash AS TEXT) LIKE 'n%'"), sessions)
}
