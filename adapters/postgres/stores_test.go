package postgres

import (
	"context"
	"testing"
	"time"

	"counsel/adapters/postgres/pgtest"
	"counsel/domain/account"
	"counsel/ports/porttest"
)

// openDB opens a migrated database in a schema of its own.
func openDB(t testing.TB) *DB {
	t.Helper()
	db, err := Open(context.Background(), pgtest.URL(t))
	if err != nil {
		t.Fatalf("open: %v", err)
	}
	db.Now = func() time.Time { return porttest.T0 }
	t.Cleanup(func() { db.Close() })
	return db
}

// TestStoreSuites holds the PostgreSQL stores to the engine-neutral
// suites the SQLite stores pass.
func TestStoreSuites(t *testing.T) {
	pgtest.Skip(t)
	porttest.StoreSuites(t, func(t *testing.T) porttest.Stores {
		db := openDB(t)
		return porttest.Stores{
			Accounts: NewAccountStore(db), Roles: NewRoleStore(db), Users: NewUserStore(db),
			Remunerations: NewRemunerationStore(db), Identities: NewIdentityStore(db),
			Contracts: NewContractStore(db), Blobs: NewBlobStore(db, t.TempDir()),
		}
	})
}

// TestTOTPStorePort runs the authenticator-app store suite on PostgreSQL.
func TestTOTPStorePort(t *testing.T) {
	pgtest.Skip(t)
	porttest.TOTPStore(t, func(t *testing.T) porttest.TOTPStores {
		db := openDB(t)
		accounts := NewAccountStore(db)
		if _, err := accounts.Bootstrap(context.Background(), account.NewUser{Email: "admin@example.com", PasswordHash: "h"}); err != nil {
			t.Fatal(err)
		}
		return porttest.TOTPStores{TOTP: NewTOTPStore(db), Accounts: accounts}
	})
}
