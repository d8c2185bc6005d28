package sqlite

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"counsel/adapters/sqlrow"
	"counsel/domain"
	"counsel/domain/account"
)

// t0 is the fixed time of the tests' clock.
var t0 = time.Date(2026, 5, 4, 10, 0, 0, 0, time.UTC)

// openDB opens a fresh database in a temp folder, with db.Now fixed at t0,
// and closes it when the test ends.
func openDB(t testing.TB) *DB {
	t.Helper()
	return openPath(t, filepath.Join(t.TempDir(), "counsel.db"))
}

// openPath opens the database at path and closes it when the test ends.
func openPath(t testing.TB, path string) *DB {
	t.Helper()
	db, err := Open(context.Background(), path)
	if err != nil {
		t.Fatalf("open %s: %v", path, err)
	}
	db.Now = func() time.Time { return t0 }
	t.Cleanup(func() {
		if err := db.Close(); err != nil {
			t.Errorf("close %s: %v", path, err)
		}
	})
	return db
}

// exec runs a statement on the writer: how tests set up states no store
// method offers (deleted or inactive users, legacy rows).
func exec(t testing.TB, db *DB, query string, args ...any) {
	t.Helper()
	if _, err := db.write.ExecContext(context.Background(), query, args...); err != nil {
		t.Fatalf("exec %q: %v", query, err)
	}
}

// scalar reads one value.
func scalar[T any](t testing.TB, db *DB, query string, args ...any) T {
	t.Helper()
	var v T
	if err := db.read.QueryRowContext(context.Background(), query, args...).Scan(&v); err != nil {
		t.Fatalf("query %q: %v", query, err)
	}
	return v
}

// bootstrapped returns the account store of a fresh database holding the
// bootstrap roles and administrator (admin@example.com).
func bootstrapped(t testing.TB) (*DB, *AccountStore) {
	t.Helper()
	db := openDB(t)
	s := db.Stores().Accounts
	if _, err := s.Bootstrap(context.Background(), account.NewUser{Email: "admin@example.com", FirstName: "Admin", PasswordHash: "admin-hash"}); err != nil {
		t.Fatalf("bootstrap: %v", err)
	}
	return db, s
}

// addUser adds a user with the named roles (none: the default roles).
func addUser(t testing.TB, s *AccountStore, email string, roles ...string) int64 {
	t.Helper()
	id, err := CreateUser(context.Background(), s, account.NewUser{Email: email, FirstName: "F", LastName: "L", PasswordHash: "hash-" + email, Roles: roles})
	if err != nil {
		t.Fatalf("create user %s: %v", email, err)
	}
	return id
}

// code is the domain error code of err.
func code(err error) string { return domain.ErrorCode(err) }

// AccountStore is the account store of a DB (DB.Stores).
type AccountStore = sqlrow.Accounts

// dbOf is the database of an account store.
func dbOf(s *AccountStore) *DB { return s.Refresher.(refresher).db }
