package porttest

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"sync"
	"testing"
	"time"

	"github.com/matryer/is"

	"counsel/domain"
	"counsel/domain/account"
	"counsel/domain/contract"
	"counsel/domain/decimal"
	"counsel/domain/remuneration"
	"counsel/domain/user"
	"counsel/ports"
)

// Stores are one database's implementations of the store ports. The
// suites below hold every engine to the same contract.
type Stores struct {
	Accounts      ports.AccountStore
	Roles         ports.RoleStore
	Users         ports.UserStore
	Remunerations ports.RemunerationStore
	Identities    ports.IdentityStore
	Contracts     ContractStores
	Blobs         ports.BlobStore
	Audit         ports.AuditStore
	KeyDates      ports.KeyDateStore
	Signing       ports.SigningStore
	Webhooks      ports.WebhookStore
	// Rows counts the rows of a table, for the suites to see what no
	// port shows (bytes no document names).
	Rows func(ctx context.Context, table string) (int64, error)
}

// ContractStores is the contract store with its signing and evidence
// lookups.
type ContractStores interface {
	ports.ContractStore
	ports.ContractSigningStore
	ports.EvidenceStore
}

// StoreSuites runs every store suite. open returns the stores of a new,
// empty, migrated database; it is called once per suite.
func StoreSuites(t *testing.T, open func(t *testing.T) Stores) {
	suites := []struct {
		name string
		run  func(*testing.T, Stores)
	}{
		{"Accounts", AccountsSuite}, {"RefreshBatch", RefreshBatchSuite}, {"Rotation", RotationSuite}, {"ConsoleSessions", ConsoleSessionsSuite}, {"Sessions", SessionsSuite}, {"Audit", AuditSuite}, {"Roles", RolesSuite}, {"AdminRule", AdminRuleSuite}, {"RoleCheck", RoleCheckSuite}, {"Users", UsersSuite}, {"UserPages", UserPagesSuite}, {"Identities", IdentitiesSuite},
		{"Remunerations", RemunerationsSuite}, {"Contracts", ContractsSuite}, {"ContractList", ContractListSuite},
		{"Blobs", BlobsSuite}, {"DocumentBytes", DocumentBytesSuite},
		{"SigningRecords", SigningRecordsSuite}, {"Effects", EffectsSuite}, {"KeyDates", KeyDatesSuite},
		{"SigningReminders", SigningRemindersSuite}, {"Webhooks", WebhooksSuite},
	}
	for _, s := range suites {
		t.Run(s.name, func(t *testing.T) {
			t.Parallel()
			s.run(t, open(t))
		})
	}
}

// T0 is the suites' reference time (whole milliseconds, as every engine
// keeps them).
var T0 = time.Date(2026, 3, 2, 10, 0, 0, 0, time.UTC)

func bootstrap(t testing.TB, s Stores) int64 {
	t.Helper()
	ctx := context.Background()
	if _, err := s.Accounts.Bootstrap(ctx, account.NewUser{Email: "Admin@Example.com", FirstName: "Ada", LastName: "Admin", PasswordHash: "h"}); err != nil {
		t.Fatalf("bootstrap: %v", err)
	}
	c, err := s.Accounts.CredentialsByEmail(ctx, "admin@example.com")
	if err != nil {
		t.Fatalf("admin credentials: %v", err)
	}
	return c.UserID
}

func code(err error) string { return domain.ErrorCode(err) }

// AccountsSuite covers sign-in state: bootstrap, users, one-time
// passwords, login, sessions, refresh rotation, access, keys and secrets.
func AccountsSuite(t *testing.T, s Stores) {
	ctx := context.Background()
	is := is.New(t)
	has, err := s.Accounts.HasUsers(ctx)
	is.NoErr(err)
	is.True(!has) // empty database
	adminID := bootstrap(t, s)
	created, err := s.Accounts.Bootstrap(ctx, account.NewUser{Email: "other@example.com"})
	is.NoErr(err)
	is.True(!created) // bootstrap runs once
	has, err = s.Accounts.HasUsers(ctx)
	is.NoErr(err)
	is.True(has)

	c, err := s.Accounts.CredentialsByEmail(ctx, "admin@example.com")
	is.NoErr(err)
	is.Equal(c, account.Credentials{UserID: adminID, Email: "admin@example.com", PasswordHash: "h", Active: true})
	_, err = s.Accounts.CredentialsByEmail(ctx, "nobody@example.com")
	is.Equal(code(err), domain.ENOTFOUND)

	staffID, err := createUser(ctx, s.Users, account.NewUser{Email: "staff@example.com", FirstName: "Sam", PasswordHash: "p"})
	is.NoErr(err)
	is.True(staffID > adminID)
	_, err = createUser(ctx, s.Users, account.NewUser{Email: "STAFF@example.com"})
	is.Equal(code(err), domain.ECONFLICT) // taken email
	_, err = createUser(ctx, s.Users, account.NewUser{Email: "x@example.com", Roles: []string{"Nope"}})
	is.Equal(code(err), domain.EINVALID) // unknown role
	_, err = s.Accounts.CredentialsByEmail(ctx, "x@example.com")
	is.Equal(code(err), domain.ENOTFOUND) // rolled back

	perms, admin, err := s.Accounts.UserAccess(ctx, adminID)
	is.NoErr(err)
	is.True(admin)
	is.Equal(perms, account.AllPermissionSet)
	perms, admin, err = s.Accounts.UserAccess(ctx, staffID)
	is.NoErr(err)
	is.True(!admin)
	is.Equal(perms, account.NewPermissionSet(account.ContractView)) // the default Staff role
	_, _, err = s.Accounts.UserAccess(ctx, 9999)
	is.Equal(code(err), domain.ENOTFOUND)

	// One-time passwords round-trip, and an error from fn changes nothing.
	st := account.OTPState{CodeHash: []byte{1, 2, 3}, ExpiresAt: T0.Add(5 * time.Minute), Attempts: 2, Sends: []time.Time{T0, T0.Add(time.Minute)}}
	is.NoErr(s.Accounts.UpdateOTP(ctx, "staff@example.com", func(o *account.OTPState) error {
		is.Equal(*o, account.OTPState{}) // none yet
		*o = st
		return nil
	}))
	boom := fmt.Errorf("boom")
	is.Equal(s.Accounts.UpdateOTP(ctx, "staff@example.com", func(o *account.OTPState) error {
		is.Equal(o.CodeHash, st.CodeHash)
		is.True(o.ExpiresAt.Equal(st.ExpiresAt))
		is.Equal(o.Attempts, 2)
		is.Equal(len(o.Sends), 2)
		is.True(o.Sends[1].Equal(T0.Add(time.Minute)))
		o.Attempts = 5
		return boom
	}), boom)

	// Login: counters and OTP saved, session created, all or nothing.
	sess := account.Session{ID: "sess-1", UserID: staffID, Method: "password", CreatedAt: T0, ExpiresAt: T0.Add(time.Hour)}
	is.NoErr(s.Accounts.Login(ctx, staffID, "staff@example.com", func(ls *account.LoginState) error {
		is.Equal(ls.OTP.Attempts, 2) // the failed update left it
		ls.Credentials.FailedLogins = 3
		ls.Credentials.LockedUntil = T0.Add(time.Minute)
		ls.OTP.CodeHash = nil
		ls.NewSession, ls.RefreshHash = &sess, []byte("refresh-1")
		return nil
	}))
	c, err = s.Accounts.CredentialsByEmail(ctx, "staff@example.com")
	is.NoErr(err)
	is.Equal(c.FailedLogins, 3)
	is.True(c.LockedUntil.Equal(T0.Add(time.Minute)))
	is.Equal(code(s.Accounts.Login(ctx, adminID, "staff@example.com", func(*account.LoginState) error { return nil })), domain.ENOTFOUND) // id and email disagree
	got, err := s.Accounts.Session(ctx, "sess-1")
	is.NoErr(err)
	is.Equal(got.UserID, staffID)
	is.True(got.ExpiresAt.Equal(sess.ExpiresAt) && got.CreatedAt.Equal(T0) && got.RevokedAt == nil)
	_, err = s.Accounts.Session(ctx, "nope")
	is.Equal(code(err), domain.ENOTFOUND)

	// Refresh rotates; the old hash then reads as used.
	is.NoErr(s.Accounts.Refresh(ctx, account.Rotation{TokenHash: []byte("refresh-1")}, func(r *account.RefreshState) error {
		is.True(!r.Used && r.UserActive)
		is.Equal(r.Session.ID, "sess-1")
		r.NewTokenHash = []byte("refresh-2")
		return nil
	}))
	is.NoErr(s.Accounts.Refresh(ctx, account.Rotation{TokenHash: []byte("refresh-1")}, func(r *account.RefreshState) error {
		is.True(r.Used) // rotated
		r.Revoke = true
		return nil
	}))
	got, err = s.Accounts.SessionByRefreshHash(ctx, []byte("refresh-2"))
	is.NoErr(err)
	is.True(got.RevokedAt != nil) // reuse revoked the session
	is.Equal(code(s.Accounts.Refresh(ctx, account.Rotation{TokenHash: []byte("unknown")}, func(*account.RefreshState) error { return nil })), domain.ENOTFOUND)
	_, err = s.Accounts.SessionByRefreshHash(ctx, []byte("unknown"))
	is.Equal(code(err), domain.ENOTFOUND)

	// One refresh token presented at once by several clients: exactly one
	// rotates it; every other sees it used and revokes the session (reuse).
	is.NoErr(s.Accounts.CreateSession(ctx, account.Session{ID: "sess-race", UserID: staffID, Method: "password", CreatedAt: T0, ExpiresAt: T0.Add(time.Hour)}, []byte("race-0")))
	const racers = 8
	var wg sync.WaitGroup
	results := make(chan struct {
		rotated, revoked bool
		err              error
	}, racers)
	for i := 1; i <= racers; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var rotated, revoked bool // as the last call of fn decided
			err := s.Accounts.Refresh(ctx, account.Rotation{TokenHash: []byte("race-0")}, func(r *account.RefreshState) error {
				rotated, revoked = false, false
				switch {
				case r.Used:
					r.Revoke, revoked = r.Session.RevokedAt == nil, true
				case r.Session.RevokedAt == nil:
					r.NewTokenHash, rotated = []byte(fmt.Sprint("race-", i)), true
				}
				return nil
			})
			results <- struct {
				rotated, revoked bool
				err              error
			}{rotated, revoked, err}
		}()
	}
	wg.Wait()
	close(results)
	winners, reusers := 0, 0
	for r := range results {
		is.NoErr(r.err)
		if r.rotated {
			winners++
		}
		if r.revoked {
			reusers++
		}
	}
	is.Equal(winners, 1)        // exactly one rotation
	is.Equal(reusers, racers-1) // every other saw a reuse
	found := 0
	for i := 1; i <= racers; i++ {
		if got, err := s.Accounts.SessionByRefreshHash(ctx, []byte(fmt.Sprint("race-", i))); err == nil {
			found++
			is.True(got.RevokedAt != nil) // the reuse revoked the session
		}
	}
	is.Equal(found, 1) // one new token stored

	// Revocation, one session and all of a user's.
	for i, id := range []string{"sess-2", "sess-3"} {
		is.NoErr(s.Accounts.CreateSession(ctx, account.Session{ID: id, UserID: staffID, Method: "password", CreatedAt: T0, ExpiresAt: T0.Add(time.Hour)}, []byte{byte(i)}))
	}
	is.NoErr(s.Accounts.RevokeSession(ctx, "sess-2", T0.Add(time.Second)))
	is.NoErr(s.Accounts.RevokeSession(ctx, "sess-2", T0.Add(time.Hour))) // again: no error, first time kept
	got, _ = s.Accounts.Session(ctx, "sess-2")
	is.True(got.RevokedAt != nil && got.RevokedAt.Equal(T0.Add(time.Second)))
	is.NoErr(s.Accounts.RevokeUserSessions(ctx, staffID, T0.Add(2*time.Second)))
	got, _ = s.Accounts.Session(ctx, "sess-3")
	is.True(got.RevokedAt != nil && got.RevokedAt.Equal(T0.Add(2*time.Second)))

	// SetPassword resets the counters and revokes.
	is.NoErr(s.Accounts.CreateSession(ctx, account.Session{ID: "sess-4", UserID: staffID, Method: "password", CreatedAt: T0, ExpiresAt: T0.Add(time.Hour)}, []byte("r4")))
	is.NoErr(s.Accounts.SetPassword(ctx, staffID, "new-hash", T0.Add(3*time.Second), nil))
	c, _ = s.Accounts.CredentialsByEmail(ctx, "staff@example.com")
	is.Equal(c.PasswordHash, "new-hash")
	is.Equal(c.FailedLogins, 0)
	is.True(c.LockedUntil.IsZero())
	got, _ = s.Accounts.Session(ctx, "sess-4")
	is.True(got.RevokedAt != nil)
	is.Equal(code(s.Accounts.SetPassword(ctx, 9999, "x", T0, nil)), domain.ENOTFOUND)

	// The first key is stored once, whoever offers one after it; keys
	// newest first; a secret is created once.
	is.NoErr(s.Accounts.EnsureSigningKey(ctx, account.SigningKey{ID: "k0", PrivateKey: []byte("seed0"), CreatedAt: T0.Add(-time.Minute)}))
	is.NoErr(s.Accounts.EnsureSigningKey(ctx, account.SigningKey{ID: "k0b", PrivateKey: []byte("other"), CreatedAt: T0}))
	keys, err := s.Accounts.SigningKeys(ctx)
	is.NoErr(err)
	is.Equal(len(keys), 1)
	is.Equal(keys[0].ID, "k0")
	retired := T0.Add(time.Hour)
	is.NoErr(s.Accounts.AddSigningKey(ctx, account.SigningKey{ID: "k1", PrivateKey: []byte("seed1"), CreatedAt: T0, RetiredAt: &retired}))
	is.NoErr(s.Accounts.AddSigningKey(ctx, account.SigningKey{ID: "k2", PrivateKey: []byte("seed2"), CreatedAt: T0.Add(time.Minute)}))
	keys, err = s.Accounts.SigningKeys(ctx)
	is.NoErr(err)
	is.Equal(len(keys), 3)
	is.Equal(keys[0].ID, "k2")
	is.Equal(keys[1].PrivateKey, []byte("seed1"))
	is.True(keys[1].RetiredAt != nil && keys[1].RetiredAt.Equal(retired))
	v1, err := s.Accounts.Secret(ctx, "k", func() ([]byte, error) { return []byte("first"), nil })
	is.NoErr(err)
	v2, err := s.Accounts.Secret(ctx, "k", func() ([]byte, error) { return []byte("second"), nil })
	is.NoErr(err)
	is.Equal(v1, []byte("first"))
	is.Equal(v2, []byte("first"))
}

// RolesSuite covers roles, permissions, holders and the last-admin rule.
func RolesSuite(t *testing.T, s Stores) {
	ctx := context.Background()
	is := is.New(t)
	keep := account.KeepAnAdmin(account.LastAdminRole)
	adminID := bootstrap(t, s)
	roles, err := s.Roles.Roles(ctx)
	is.NoErr(err)
	is.Equal(len(roles), 2)
	is.Equal(roles[0].Name, account.AdministratorRole) // by name
	is.True(roles[0].IsSystemAdmin && roles[1].IsDefaultRole)

	r, err := s.Roles.CreateRole(ctx, account.RoleInput{Name: " auditors "})
	is.NoErr(err)
	is.Equal(r.Name, "auditors")
	_, err = s.Roles.CreateRole(ctx, account.RoleInput{Name: "AUDITORS"})
	is.Equal(code(err), domain.ECONFLICT) // names compare without case
	r, err = s.Roles.SetRolePermissions(ctx, r.ID, perms(account.NewPermissionSet(account.ContractView, account.ContractEdit)))
	is.NoErr(err)
	is.Equal(r.Permissions, account.NewPermissionSet(account.ContractView, account.ContractEdit))
	_, err = s.Roles.SetRolePermissions(ctx, 999, perms(0))
	is.Equal(code(err), domain.ENOTFOUND)
	r, err = s.Roles.UpdateRole(ctx, r.ID, roleInput(account.RoleInput{Name: "Auditors", IsDefaultRole: true}), keep)
	is.NoErr(err)
	is.True(r.IsDefaultRole)
	is.Equal(r.Permissions.List(), account.NewPermissionSet(account.ContractView, account.ContractEdit).List()) // kept
	_, err = s.Roles.UpdateRole(ctx, 999, roleInput(account.RoleInput{Name: "x"}), keep)
	is.Equal(code(err), domain.ENOTFOUND)
	_, err = s.Roles.UpdateRole(ctx, r.ID, roleInput(account.RoleInput{Name: "staff"}), keep)
	is.Equal(code(err), domain.ECONFLICT)
	roles, _ = s.Roles.Roles(ctx)
	is.Equal([]string{roles[0].Name, roles[1].Name, roles[2].Name}, []string{account.AdministratorRole, "Auditors", account.StaffRole})

	uid, err := createUser(ctx, s.Users, account.NewUser{Email: "u@example.com"})
	is.NoErr(err)
	held, err := s.Roles.UserRoles(ctx, uid)
	is.NoErr(err)
	is.Equal(len(held), 2) // both default roles
	is.NoErr(s.Roles.AddUserRole(ctx, uid, roles[0].ID, nil))
	is.NoErr(s.Roles.AddUserRole(ctx, uid, roles[0].ID, nil)) // held: no error
	is.Equal(code(s.Roles.AddUserRole(ctx, uid, 999, nil)), domain.ENOTFOUND)
	is.Equal(code(s.Roles.AddUserRole(ctx, 999, roles[0].ID, nil)), domain.ENOTFOUND)
	perms, admin, err := s.Accounts.UserAccess(ctx, uid)
	is.NoErr(err)
	is.True(admin && perms == account.AllPermissionSet)
	is.NoErr(s.Roles.RemoveUserRole(ctx, uid, roles[0].ID, nil, keep))
	_, err = s.Roles.UserRoles(ctx, 999)
	is.Equal(code(err), domain.ENOTFOUND)

	// The last system administrator keeps the role.
	is.Equal(code(s.Roles.RemoveUserRole(ctx, adminID, roles[0].ID, nil, keep)), domain.ECONFLICT)
	_, err = s.Roles.UpdateRole(ctx, roles[0].ID, roleInput(account.RoleInput{Name: account.AdministratorRole}), keep)
	is.Equal(code(err), domain.ECONFLICT)
	is.Equal(code(s.Roles.DeleteRole(ctx, roles[0].ID, nil, keep)), domain.ECONFLICT)
	is.NoErr(s.Roles.DeleteRole(ctx, r.ID, nil, keep))
	is.Equal(code(s.Roles.DeleteRole(ctx, r.ID, nil, keep)), domain.ENOTFOUND)
	held, _ = s.Roles.UserRoles(ctx, uid)
	is.Equal(len(held), 1) // the deleted role's holders lost it
}

// createUser adds the user nu describes through the user store's one way
// of creating users, with the roles named (the default roles when none);
// names are not validated, as only the use cases validate.
func createUser(ctx context.Context, users ports.UserStore, nu account.NewUser) (int64, error) {
	u := user.New()
	u.Apply(user.Patch{Email: &nu.Email, FirstName: &nu.FirstName, LastName: &nu.LastName})
	p, err := users.CreateUser(ctx, u, nu.PasswordHash, func(a *user.Aggregate) error { return a.GiveRoleNames(nu.Roles) })
	return p.ID, err
}

func newUser(email, first, last string) user.User {
	u := user.New()
	u.Email, u.FirstName, u.LastName = email, first, last
	return u
}

// UsersSuite covers profiles, the user list, offices and reviewers.
func UsersSuite(t *testing.T, s Stores) {
	ctx := context.Background()
	is := is.New(t)
	adminID := bootstrap(t, s)
	_, err := s.Users.Office(ctx, 1)
	is.Equal(code(err), domain.ENOTFOUND)
	sydney, err := s.Users.CreateOffice(ctx, user.Office{Name: "sydney", Active: true, Address: user.Address{Suburb: "CBD"}})
	is.NoErr(err)
	melb, err := s.Users.CreateOffice(ctx, user.Office{Name: "Melbourne", Phone: "03"})
	is.NoErr(err)
	offices, err := s.Users.Offices(ctx)
	is.NoErr(err)
	is.Equal([]string{offices[0].Name, offices[1].Name}, []string{"Melbourne", "sydney"}) // without case
	melb, err = s.Users.UpdateOffice(ctx, melb.ID, func(o *user.Office) error { o.Active = true; return nil })
	is.NoErr(err)
	is.True(melb.Active)
	_, err = s.Users.UpdateOffice(ctx, 999, func(*user.Office) error { return nil })
	is.Equal(code(err), domain.ENOTFOUND)

	u := newUser("elodie@example.com", "Élodie", "zola")
	u.OfficeID, u.IsLegal, u.BillingRate = sydney.ID, true, decimal.MustParse("350.50")
	adm := T0.AddDate(-5, 0, 0)
	u.AdmissionDate = &adm
	p, err := s.Users.CreateUser(ctx, u, "", nil)
	is.NoErr(err)
	is.True(p.ID > adminID)
	is.Equal(p.Office.Name, "sydney")
	is.Equal(p.BillingRate.String(), "350.5")
	is.True(p.AdmissionDate.Equal(adm))
	is.Equal(len(p.Roles), 1) // default
	_, err = s.Users.CreateUser(ctx, newUser("elodie@example.com", "", ""), "", nil)
	is.Equal(code(err), domain.ECONFLICT)
	bad := newUser("b@example.com", "", "")
	bad.OfficeID = 999
	_, err = s.Users.CreateUser(ctx, bad, "", nil)
	is.Equal(code(err), domain.ENOTFOUND)
	_, err = s.Users.CreateUser(ctx, newUser("b@example.com", "", ""), "", SetRoles(999))
	is.Equal(code(err), domain.ENOTFOUND)

	names := [][2]string{{"bob", "Adams"}, {"Carol", "adams"}, {"Dan", "Brown"}, {"eve", "Zed"}}
	ids := []int64{}
	for i, n := range names {
		nu := newUser(fmt.Sprintf("user%d@example.com", i), n[0], n[1])
		nu.Active = i != 3
		nu.OfficeID = melb.ID
		q, err := s.Users.CreateUser(ctx, nu, "", SetRoles())
		is.NoErr(err)
		is.Equal(len(q.Roles), 0)
		ids = append(ids, q.ID)
	}
	list := func(f user.Filter) ([]string, int64) {
		t.Helper()
		f.Normalize()
		us, n, err := s.Users.Users(ctx, f)
		is.NoErr(err)
		out := []string{}
		for _, u := range us {
			out = append(out, u.FirstName)
		}
		return out, n
	}
	yes, no := true, false
	tests := []struct {
		name  string
		f     user.Filter
		want  []string
		count int64
	}{
		{"all by last, first name", user.Filter{Limit: 10}, []string{"bob", "Carol", "Ada", "Dan", "eve", "Élodie"}, 6},
		{"page", user.Filter{Limit: 2, Offset: 1}, []string{"Carol", "Ada"}, 6},
		{"past the end", user.Filter{Limit: 2, Offset: 10}, []string{}, 6},
		{"count only", user.Filter{Limit: 0}, []string{}, 6},
		{"search name folds case", user.Filter{Search: "ÉLO", Limit: 10}, []string{"Élodie"}, 1},
		{"search across first and last", user.Filter{Search: "carol  ADAMS", Limit: 10}, []string{"Carol"}, 1},
		{"search email", user.Filter{Search: "user2@", Limit: 10}, []string{"Dan"}, 1},
		{"search wildcard is literal", user.Filter{Search: "%", Limit: 10}, []string{}, 0},
		{"inactive", user.Filter{Active: &no, Limit: 10}, []string{"eve"}, 1},
		{"legal", user.Filter{IsLegal: &yes, Limit: 10}, []string{"Élodie"}, 1},
		{"office", user.Filter{OfficeID: &melb.ID, Active: &yes, Limit: 10}, []string{"bob", "Carol", "Dan"}, 3},
		{"billing rate", user.Filter{RequireBillingRate: true, Limit: 10}, []string{"Élodie"}, 1},
	}
	for _, tt := range tests {
		got, n := list(tt.f)
		if fmt.Sprint(got) != fmt.Sprint(tt.want) || n != tt.count {
			t.Errorf("%s: got %v (%d), want %v (%d)", tt.name, got, n, tt.want, tt.count)
		}
	}

	// Update: email conflict, roles replaced, last admin kept.
	_, err = s.Users.UpdateUser(ctx, ids[0], Edit(func(u *user.User) error { u.Email = "elodie@example.com"; return nil }))
	is.Equal(code(err), domain.ECONFLICT)
	p, err = s.Users.UpdateUser(ctx, ids[0], Edit(func(u *user.User) error { u.FirstName = "Bobby"; return nil }, SetRoles(1)))
	is.NoErr(err)
	is.Equal(p.FirstName, "Bobby")
	is.Equal(len(p.Roles), 1)
	got, _ := list(user.Filter{Search: "bobby", Limit: 10})
	is.Equal(got, []string{"Bobby"}) // search follows the name
	_, err = s.Users.UpdateUser(ctx, adminID, Edit(func(*user.User) error { return nil }, SetRoles()))
	is.NoErr(err) // Bobby is an administrator now
	_, err = s.Users.UpdateUser(ctx, ids[0], Edit(func(u *user.User) error { u.Active = false; return nil }))
	is.Equal(code(err), domain.ECONFLICT) // the last active one
	is.NoErr(s.Accounts.CreateSession(ctx, account.Session{ID: "s1", UserID: ids[1], Method: "password", CreatedAt: T0, ExpiresAt: T0.Add(time.Hour)}, []byte("r")))
	is.NoErr(s.Users.DeleteUser(ctx, ids[1], T0, KeepAdmin))
	ss, _ := s.Accounts.Session(ctx, "s1")
	is.True(ss.RevokedAt != nil) // deleting revokes
	is.Equal(code(s.Users.DeleteUser(ctx, ids[1], T0, KeepAdmin)), domain.ENOTFOUND)
	is.Equal(code(s.Users.DeleteUser(ctx, ids[0], T0, KeepAdmin)), domain.ECONFLICT)
	_, err = s.Users.User(ctx, ids[1])
	is.Equal(code(err), domain.ENOTFOUND)
	_, n := list(user.Filter{Limit: 10})
	is.Equal(n, int64(5))
	_, err = s.Users.CreateUser(ctx, newUser("user1@example.com", "Again", ""), "", nil)
	is.NoErr(err) // a deleted user's email is free

	// Reviewers.
	_, err = s.Users.AddReviewers(ctx, 7, []int64{ids[0], 999})
	is.Equal(code(err), domain.ENOTFOUND)
	rv, err := s.Users.AddReviewers(ctx, 7, []int64{ids[2], ids[0]})
	is.NoErr(err)
	is.Equal(rv, []int64{ids[0], ids[2]})
	rv, err = s.Users.AddReviewers(ctx, 8, []int64{ids[0]})
	is.NoErr(err)
	is.Equal(rv, []int64{ids[0]})
	got, n = list(user.Filter{Reviewers: true, OfferingIDs: []int64{7, 8}, Limit: 10})
	is.Equal(got, []string{"Bobby"})
	is.Equal(n, int64(1))
	got, _ = list(user.Filter{Reviewers: true, Limit: 10})
	is.Equal(got, []string{"Bobby", "Dan"})
	rv, err = s.Users.RemoveReviewers(ctx, 7, []int64{ids[0], 999})
	is.NoErr(err)
	is.Equal(rv, []int64{ids[2]})
}

// IdentitiesSuite covers identity links and provisioning.
func IdentitiesSuite(t *testing.T, s Stores) {
	ctx := context.Background()
	is := is.New(t)
	adminID := bootstrap(t, s)
	_, err := s.Identities.LinkedUser(ctx, "iss", "sub")
	is.Equal(code(err), domain.ENOTFOUND)
	u, err := s.Identities.UserByEmail(ctx, " ADMIN@example.com")
	is.NoErr(err)
	is.Equal(u, ports.IdentityUser{UserID: adminID, Active: true})
	is.NoErr(s.Identities.LinkIdentity(ctx, adminID, "iss", "sub", "Admin@Example.com", T0, account.CheckRelink))
	u, err = s.Identities.LinkedUser(ctx, "iss", "sub")
	is.NoErr(err)
	is.Equal(u.UserID, adminID)
	is.Equal(code(s.Identities.LinkIdentity(ctx, adminID, "iss", "sub2", "", T0, account.CheckRelink)), domain.ECONFLICT) // one subject per issuer
	is.Equal(code(s.Identities.LinkIdentity(ctx, 999, "iss", "sub3", "", T0, account.CheckRelink)), domain.ENOTFOUND)
	id, err := s.Identities.ProvisionUser(ctx, account.NewUser{Email: "new@example.com", FirstName: "N"}, "iss", "sub4", T0)
	is.NoErr(err)
	u, _ = s.Identities.LinkedUser(ctx, "iss", "sub4")
	is.Equal(u.UserID, id)
	_, err = s.Identities.ProvisionUser(ctx, account.NewUser{Email: "other@example.com"}, "iss", "sub4", T0)
	is.Equal(code(err), domain.ECONFLICT)
	_, err = s.Identities.UserByEmail(ctx, "other@example.com")
	is.Equal(code(err), domain.ENOTFOUND) // nothing created
	is.Equal(code(s.Identities.LinkIdentity(ctx, adminID, "iss", "sub4", "", T0, account.CheckRelink)), domain.ECONFLICT)
	// A link to a deleted user is replaced.
	is.NoErr(s.Users.DeleteUser(ctx, id, T0, KeepAdmin))
	u, _ = s.Identities.LinkedUser(ctx, "iss", "sub4")
	is.True(u.Deleted)
	is.NoErr(s.Identities.LinkIdentity(ctx, adminID, "iss2", "sub4", "", T0, account.CheckRelink))
	other, err := createUser(ctx, s.Users, account.NewUser{Email: "o@example.com"})
	is.NoErr(err)
	is.NoErr(s.Identities.LinkIdentity(ctx, other, "iss", "sub4", "", T0, account.CheckRelink))
	u, _ = s.Identities.LinkedUser(ctx, "iss", "sub4")
	is.Equal(u.UserID, other)

	// The relink check sees the linked user's state as the transaction
	// reads it (deleted just before the call), and its refusal leaves the
	// link as it was; a new link runs no check.
	is.NoErr(s.Users.DeleteUser(ctx, other, T0, KeepAdmin))
	third, err := createUser(ctx, s.Users, account.NewUser{Email: "third@example.com"})
	is.NoErr(err)
	boom := errors.New("refused by the use case")
	var sawID int64
	var sawDeleted bool
	err = s.Identities.LinkIdentity(ctx, third, "iss", "sub4", "", T0, func(id int64, deleted bool) error {
		sawID, sawDeleted = id, deleted
		return boom
	})
	is.Equal(err, boom)
	is.Equal(sawID, other)
	is.True(sawDeleted)
	u, _ = s.Identities.LinkedUser(ctx, "iss", "sub4")
	is.Equal(u.UserID, other) // not replaced
	ran := false
	is.NoErr(s.Identities.LinkIdentity(ctx, third, "iss3", "fresh", "", T0, func(int64, bool) error { ran = true; return boom }))
	is.True(!ran)
	// The domain's rule: a link to an undeleted user stays, with its message.
	err = s.Identities.LinkIdentity(ctx, third, "iss", "sub", "", T0, account.CheckRelink)
	is.Equal(code(err), domain.ECONFLICT)
	is.Equal(domain.ErrorMessage(err), "the identity is already linked to a user")
	u, _ = s.Identities.LinkedUser(ctx, "iss", "sub")
	is.Equal(u.UserID, adminID)
}

// RemunerationsSuite covers remunerations, the latest one, the billing
// rate it sets, and PQE adjustments.
func RemunerationsSuite(t *testing.T, s Stores) {
	ctx := context.Background()
	is := is.New(t)
	bootstrap(t, s)
	u := newUser("staff@example.com", "Sam", "Staff")
	adm := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)
	u.AdmissionDate = &adm
	p, err := s.Users.CreateUser(ctx, u, "", nil)
	is.NoErr(err)
	_, err = s.Remunerations.LatestRemuneration(ctx, p.ID)
	is.Equal(code(err), domain.ENOTFOUND)
	_, err = s.Remunerations.CreatePQEAdjustment(ctx, remuneration.PQEAdjustment{StaffID: 999, Name: "x", StartDate: T0, EndDate: T0})
	is.Equal(code(err), domain.ENOTFOUND)
	for i := 0; i < 3; i++ {
		start := time.Date(2021+i, 1, 1, 0, 0, 0, 0, time.UTC)
		a, err := s.Remunerations.CreatePQEAdjustment(ctx, remuneration.PQEAdjustment{StaffID: p.ID, Name: fmt.Sprint("leave ", i), StartDate: start, EndDate: start.AddDate(0, 1, 0)})
		is.NoErr(err)
		is.Equal(a.Staff.Email, "staff@example.com")
	}
	as, n, err := s.Remunerations.PQEAdjustments(ctx, p.ID, 2, 0)
	is.NoErr(err)
	is.Equal(n, int64(3))
	is.Equal([]string{as[0].Name, as[1].Name}, []string{"leave 2", "leave 1"}) // newest start first
	_, _, err = s.Remunerations.PQEAdjustments(ctx, 999, 2, 0)
	is.Equal(code(err), domain.ENOTFOUND)

	mk := func(date time.Time, rate string) user.StaffRemuneration {
		t.Helper()
		r := remuneration.Remuneration{StaffID: p.ID, FTELoad: decimal.MustParse("0.75"), RemunerationIncSuper: decimal.MustParse("150000"),
			BillingRate: decimal.MustParse(rate), BillablePercentage: decimal.MustParse("85.5"), RemunerationDate: date, CommencementDate: adm}
		var gotPeriods int
		sr, err := s.Remunerations.CreateRemuneration(ctx, r, func(r remuneration.Remuneration, a *time.Time, ps []remuneration.Period) remuneration.Remuneration {
			is.True(a != nil && a.Equal(adm))
			gotPeriods = len(ps)
			return remuneration.Compute(r, a, ps)
		})
		is.NoErr(err)
		is.Equal(gotPeriods, 3) // the adjustments were read in the transaction
		return sr
	}
	r1 := mk(T0, "400")
	is.Equal(r1.BillingRate.String(), "400")
	is.Equal(r1.FTELoad.String(), "0.75")
	is.True(r1.PQY != nil)
	is.Equal(r1.Staff.BillingRate.String(), "400") // became the latest
	r2 := mk(T0.AddDate(-1, 0, 0), "300")          // older: not the latest
	is.Equal(r2.Staff.BillingRate.String(), "400")
	latest, err := s.Remunerations.LatestRemuneration(ctx, p.ID)
	is.NoErr(err)
	is.Equal(latest.ID, r1.ID)
	got, err := s.Remunerations.Remuneration(ctx, r2.ID)
	is.NoErr(err)
	is.Equal(got.BillingRate.String(), "300")
	is.Equal(got.KPI.String(), r2.KPI.String())
	is.True(got.RemunerationDate.Equal(T0.AddDate(-1, 0, 0)))
	_, err = s.Remunerations.Remuneration(ctx, 999)
	is.Equal(code(err), domain.ENOTFOUND)
	list, n, err := s.Remunerations.Remunerations(ctx, user.Filter{Search: "sam", Limit: 1})
	is.NoErr(err)
	is.Equal(n, int64(2))
	is.Equal(list[0].ID, r1.ID) // newest first
	_, n, err = s.Remunerations.Remunerations(ctx, user.Filter{Search: "nobody", Limit: 1})
	is.NoErr(err)
	is.Equal(n, int64(0))
	prof, err := s.Users.Profile(ctx, p.ID, false)
	is.NoErr(err)
	is.Equal(prof.Latest.ID, r1.ID)
	is.Equal(len(prof.Adjustments), 3)
	is.Equal(prof.BillingRate.String(), "400")
}

// BlobsSuite covers staging uploads and the bytes the contract store
// keeps with a document: written from the staged file in the transaction
// of the document's row, read back chunk by chunk, large ones included.
func BlobsSuite(t *testing.T, s Stores) {
	ctx := context.Background()
	is := is.New(t)
	uid := bootstrap(t, s)
	c, err := s.Contracts.CreateContract(ctx, contract.Contract{UUID: "5d0c4a52-0f0e-4c57-a2a4-8d6c0e1f2b3a", Name: "Blobs",
		Type: contract.Other, Status: contract.Draft, CreatedAt: T0, UpdatedAt: T0}, nil)
	is.NoErr(err)
	doc := func(st ports.StagedBlob) ports.NewDocument {
		return ports.NewDocument{Document: contract.Document{ContractID: c.ID, FileName: "big.pdf", ContentType: contract.ContentTypePDF,
			Size: st.Size(), SHA256: st.SHA256(), UploadedAt: T0, UploadedBy: uid}, Body: st}
	}
	data := make([]byte, 3<<20+12345) // several chunks of any engine
	for i := range data {
		data[i] = byte(i * 7 % 251)
	}
	st, err := s.Blobs.Stage(ctx, bytes.NewReader(data), int64(len(data)))
	is.NoErr(err)
	sum := sha256.Sum256(data)
	is.Equal(st.SHA256(), hex.EncodeToString(sum[:]))
	is.Equal(st.Size(), int64(len(data)))
	head := make([]byte, 4)
	_, err = st.ReadAt(head, 0)
	is.NoErr(err)
	is.Equal(head, data[:4])
	d, err := s.Contracts.AddDocument(ctx, doc(st), nil, nil)
	is.NoErr(err)
	is.NoErr(st.Discard())
	is.NoErr(st.Discard()) // again: nothing
	f, err := s.Blobs.Open(ctx, d.StorageKey)
	is.NoErr(err)
	all, err := io.ReadAll(f)
	is.NoErr(err)
	is.True(bytes.Equal(all, data))
	pos, err := f.Seek(-100, io.SeekEnd)
	is.NoErr(err)
	is.Equal(pos, int64(len(data)-100))
	tail, err := io.ReadAll(f)
	is.NoErr(err)
	is.True(bytes.Equal(tail, data[len(data)-100:]))
	_, err = f.Seek(1<<20-3, io.SeekStart)
	is.NoErr(err)
	mid := make([]byte, 6)
	_, err = io.ReadFull(f, mid)
	is.NoErr(err)
	is.Equal(mid, data[1<<20-3:1<<20+3]) // across a chunk boundary
	is.NoErr(f.Close())

	_, err = s.Blobs.Stage(ctx, bytes.NewReader(data), 100)
	is.Equal(code(err), domain.ETOOLARGE)
	st, err = s.Blobs.Stage(ctx, bytes.NewReader([]byte("x")), 100)
	is.NoErr(err)
	is.NoErr(st.Discard())
	empty, err := s.Blobs.Stage(ctx, bytes.NewReader(nil), 100)
	is.NoErr(err)
	ed, err := s.Contracts.AddDocument(ctx, doc(empty), nil, nil)
	is.NoErr(err)
	empty.Discard()
	f, err = s.Blobs.Open(ctx, ed.StorageKey)
	is.NoErr(err)
	all, _ = io.ReadAll(f)
	is.Equal(len(all), 0)
	f.Close()
	_, err = s.Blobs.Open(ctx, "no-such-key")
	is.Equal(code(err), domain.ENOTFOUND)
}
