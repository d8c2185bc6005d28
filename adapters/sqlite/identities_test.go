package sqlite_test

import (
	"context"
	"database/sql"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/matryer/is"

	"counsel/adapters/sqlite"
	"counsel/adapters/sqlrow"
	"counsel/domain"
	"counsel/domain/account"
	"counsel/ports"
)

const (
	issuerA = "https://idp-a.example"
	issuerB = "https://idp-b.example"
)

var linkedAt = time.Date(2026, 11, 21, 9, 30, 0, 0, time.UTC)

// identityStore is the identity store with the state setter the tests
// prepare users with.
type identityStore struct {
	sqlrow.IdentityStore
	db *sqlite.DB
}

// SetUserState sets a user's active flag and soft-deletes (deleted) or
// restores the user, straight in SQL through a connection of its own and
// nothing else. ENOTFOUND for an unknown user.
func (s identityStore) SetUserState(ctx context.Context, userID int64, active, deleted bool, at time.Time) error {
	db, err := sql.Open("sqlite", "file:"+strings.NewReplacer("%", "%25", "#", "%23", "?", "%3f").Replace(s.db.Path())+"?_pragma=busy_timeout(10000)")
	if err != nil {
		return err
	}
	defer db.Close()
	var deletedAt any
	if deleted {
		deletedAt = at.UnixMilli()
	}
	res, err := db.ExecContext(ctx, `UPDATE users SET active = ?, deleted_at = ?, updated_at = ? WHERE id = ?`, active, deletedAt, at.UnixMilli(), userID)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return &domain.Error{Code: domain.ENOTFOUND, Message: "user not found"}
	}
	return nil
}

// identityFixture opens a database with the default roles and two users,
// ada (Staff, the default role) and bob.
func identityFixture(t *testing.T) (*sqlite.DB, identityStore, int64, int64) {
	t.Helper()
	ctx := context.Background()
	db, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "x.db"))
	if err != nil {
		t.Fatalf("open: %v", err)
	}
	t.Cleanup(func() { _ = db.Close() })
	accounts := db.Stores().Accounts
	if err := accounts.EnsureRoles(ctx); err != nil {
		t.Fatalf("roles: %v", err)
	}
	ada, err := sqlite.CreateUser(ctx, accounts, account.NewUser{Email: "Ada@Example.com", FirstName: "Ada"})
	if err != nil {
		t.Fatalf("ada: %v", err)
	}
	bob, err := sqlite.CreateUser(ctx, accounts, account.NewUser{Email: "bob@example.com", FirstName: "Bob"})
	if err != nil {
		t.Fatalf("bob: %v", err)
	}
	return db, identityStore{db.Stores().Identities, db}, ada, bob
}

func TestIdentityMigration(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	db, _, _, _ := identityFixture(t)
	names, err := db.Migrations(context.Background())
	is.NoErr(err)                                          // list migrations
	is.True(slices.Contains(names, "0005_identities.sql")) // applied
}

func TestUserByEmail(t *testing.T) {
	t.Parallel()
	_, st, ada, _ := identityFixture(t)
	ctx := context.Background()
	tests := []struct {
		name  string
		email string
		want  int64
		code  string
	}{
		{"exact", "ada@example.com", ada, ""},
		{"case-insensitive", "ADA@EXAMPLE.COM", ada, ""},
		{"trimmed", "  ada@example.com ", ada, ""},
		{"unknown", "ghost@example.com", 0, domain.ENOTFOUND},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			u, err := st.UserByEmail(ctx, tt.email)
			is.Equal(domain.ErrorCode(err), tt.code) // outcome
			is.Equal(u.UserID, tt.want)              // user
			if tt.code == "" {
				is.True(u.Active && !u.Deleted) // state
			}
		})
	}
	t.Run("deleted users are not found, inactive ones are", func(t *testing.T) {
		is := is.New(t)
		is.NoErr(st.SetUserState(ctx, ada, false, false, linkedAt)) // deactivate
		u, err := st.UserByEmail(ctx, "ada@example.com")
		is.NoErr(err)                                               // still found
		is.Equal(u, ports.IdentityUser{UserID: ada, Active: false}) // inactive
		is.NoErr(st.SetUserState(ctx, ada, true, true, linkedAt))   // delete
		_, err = st.UserByEmail(ctx, "ada@example.com")
		is.Equal(domain.ErrorCode(err), domain.ENOTFOUND) // deleted
	})
}

func TestLinkIdentity(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	db, st, ada, bob := identityFixture(t)
	ctx := context.Background()

	_, err := st.LinkedUser(ctx, issuerA, "sub-ada")
	is.Equal(domain.ErrorCode(err), domain.ENOTFOUND) // not linked yet

	is.NoErr(st.LinkIdentity(ctx, ada, issuerA, "sub-ada", "ada@example.com", linkedAt, account.CheckRelink)) // link
	u, err := st.LinkedUser(ctx, issuerA, "sub-ada")
	is.NoErr(err)                                              // found by link
	is.Equal(u, ports.IdentityUser{UserID: ada, Active: true}) // ada

	_, err = st.LinkedUser(ctx, issuerB, "sub-ada")
	is.Equal(domain.ErrorCode(err), domain.ENOTFOUND) // the issuer is part of the identity

	tests := []struct {
		name    string
		user    int64
		issuer  string
		subject string
		code    string
	}{
		{"identity linked to another user", bob, issuerA, "sub-ada", domain.ECONFLICT},
		{"identity linked again to the same user", ada, issuerA, "sub-ada", domain.ECONFLICT},
		{"user linked to another subject of the issuer", ada, issuerA, "sub-other", domain.ECONFLICT},
		{"unknown user", 999, issuerA, "sub-x", domain.ENOTFOUND},
		{"same subject at another issuer", bob, issuerB, "sub-ada", ""},
		{"user linked at a second issuer", ada, issuerB, "sub-ada-b", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			err := st.LinkIdentity(ctx, tt.user, tt.issuer, tt.subject, "x@example.com", linkedAt, account.CheckRelink)
			is.Equal(domain.ErrorCode(err), tt.code) // outcome
		})
	}

	t.Run("linked users keep their state visible", func(t *testing.T) {
		is := is.New(t)
		is.NoErr(st.SetUserState(ctx, ada, false, false, linkedAt)) // deactivate
		u, err := st.LinkedUser(ctx, issuerA, "sub-ada")
		is.NoErr(err)                                               // still linked
		is.Equal(u, ports.IdentityUser{UserID: ada, Active: false}) // inactive
		is.NoErr(st.SetUserState(ctx, ada, true, true, linkedAt))   // delete
		u, err = st.LinkedUser(ctx, issuerA, "sub-ada")
		is.NoErr(err)                                                             // a deleted user's link stays
		is.Equal(u, ports.IdentityUser{UserID: ada, Active: true, Deleted: true}) // deleted
		err = st.LinkIdentity(ctx, ada, issuerA, "sub-new", "ada@example.com", linkedAt, account.CheckRelink)
		is.Equal(domain.ErrorCode(err), domain.ENOTFOUND) // no new link to a deleted user
	})

	t.Run("a link to a deleted user moves to an undeleted one", func(t *testing.T) {
		is := is.New(t)
		dora, err := sqlite.CreateUser(ctx, db.Stores().Accounts, account.NewUser{Email: "dora@example.com", FirstName: "Dora"})
		is.NoErr(err)                                                                                               // a new account
		is.NoErr(st.LinkIdentity(ctx, dora, issuerA, "sub-ada", "dora@example.com", linkedAt, account.CheckRelink)) // replaces the deleted user's link
		u, err := st.LinkedUser(ctx, issuerA, "sub-ada")
		is.NoErr(err)            // linked
		is.Equal(u.UserID, dora) // to the undeleted user
		err = st.LinkIdentity(ctx, bob, issuerA, "sub-ada", "bob@example.com", linkedAt, account.CheckRelink)
		is.Equal(domain.ErrorCode(err), domain.ECONFLICT) // a link to an undeleted user stays
	})
}

func TestProvisionUser(t *testing.T) {
	t.Parallel()
	db, st, ada, _ := identityFixture(t)
	ctx := context.Background()
	roles := db.Stores().Roles

	t.Run("created with the default roles and linked", func(t *testing.T) {
		is := is.New(t)
		id, err := st.ProvisionUser(ctx, account.NewUser{Email: "Eve@Example.com", FirstName: "Eve", LastName: "Adams"}, issuerA, "sub-eve", linkedAt)
		is.NoErr(err) // provisioned
		u, err := st.LinkedUser(ctx, issuerA, "sub-eve")
		is.NoErr(err)                                             // linked
		is.Equal(u, ports.IdentityUser{UserID: id, Active: true}) // the new user
		byEmail, err := st.UserByEmail(ctx, "eve@example.com")
		is.NoErr(err)                // email normalised
		is.Equal(byEmail.UserID, id) // same user
		rs, err := roles.UserRoles(ctx, id)
		is.NoErr(err)                           // roles
		is.Equal(len(rs), 1)                    // one role
		is.Equal(rs[0].Name, account.StaffRole) // the default role
		is.True(rs[0].IsDefaultRole)            // flagged default
		var first, last, hash string
		is.NoErr(db.Read().QueryRowContext(ctx, `SELECT first_name, last_name, password_hash FROM users WHERE id = ?`, id).Scan(&first, &last, &hash))
		is.Equal(first, "Eve")  // first name
		is.Equal(last, "Adams") // last name
		is.Equal(hash, "")      // no password sign-in
	})

	tests := []struct {
		name    string
		email   string
		subject string
	}{
		{"email taken", "ADA@example.com", "sub-new"},
		{"identity already linked", "new@example.com", "sub-eve"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			_, err := st.ProvisionUser(ctx, account.NewUser{Email: tt.email, FirstName: "X"}, issuerA, tt.subject, linkedAt)
			is.Equal(domain.ErrorCode(err), domain.ECONFLICT) // refused
			var n int
			is.NoErr(db.Read().QueryRowContext(ctx, `SELECT count(*) FROM users`).Scan(&n))
			is.Equal(n, 3) // ada, bob and eve: nothing half-made
			is.NoErr(db.Read().QueryRowContext(ctx, `SELECT count(*) FROM user_identities WHERE subject = ?`, tt.subject).Scan(&n))
			is.True(n <= 1) // no stray link
		})
	}

	t.Run("a deleted user's email may be provisioned", func(t *testing.T) {
		is := is.New(t)
		is.NoErr(st.SetUserState(ctx, ada, true, true, linkedAt)) // delete ada
		id, err := st.ProvisionUser(ctx, account.NewUser{Email: "ada@example.com", FirstName: "Ada"}, issuerA, "sub-ada-2", linkedAt)
		is.NoErr(err)      // the email is free again
		is.True(id != ada) // a new user
	})
}

func TestSetUserState(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	_, st, ada, _ := identityFixture(t)
	ctx := context.Background()
	err := st.SetUserState(ctx, 999, true, false, linkedAt)
	is.Equal(domain.ErrorCode(err), domain.ENOTFOUND)          // unknown user
	is.NoErr(st.SetUserState(ctx, ada, true, true, linkedAt))  // delete
	is.NoErr(st.SetUserState(ctx, ada, true, false, linkedAt)) // restore
	u, err := st.UserByEmail(ctx, "ada@example.com")
	is.NoErr(err)                                              // found again
	is.Equal(u, ports.IdentityUser{UserID: ada, Active: true}) // restored
}
