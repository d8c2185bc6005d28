package postgres

import (
	"context"
	"testing"
	"time"

	"github.com/matryer/is"

	"counsel/adapters/postgres/pgtest"
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
	porttest.StoreSuites(t, func(t *testing.T) porttest.Stores { return stores(t, openDB(t)) })
}

func stores(t *testing.T, db *DB) porttest.Stores {
	return porttest.Stores{
		Accounts: db.Stores().Accounts, Roles: db.Stores().Roles, Users: db.Stores().Users,
		Remunerations: db.Stores().Remunerations, Identities: db.Stores().Identities,
		Contracts: NewContractStore(db), Blobs: db.Stores().Blobs(t.TempDir()), Audit: db.Stores().Audit, KeyDates: db.Stores().KeyDates, Signing: db.Stores().Signing, Webhooks: db.Stores().Webhooks,
		Rows: func(ctx context.Context, table string) (n int64, err error) {
			err = db.pool.QueryRow(ctx, `SELECT count(*) FROM `+table).Scan(&n)
			return n, err
		},
	}
}

// TestRotationAgrees runs the rotation suite and checks that the
// conditional write of a refresh agrees with account.Refresh: it is
// undone only where the suite's decision failed or was stricter than the
// domain's, never because the SQL approved a state the domain refuses.
func TestRotationAgrees(t *testing.T) {
	pgtest.Skip(t)
	is := is.New(t)
	db := openDB(t)
	porttest.RotationSuite(t, stores(t, db))
	is.Equal(db.refreshes.undone.Load(), int64(2)) // the failed and the stricter decision
	is.True(db.refreshes.wrote.Load() >= 3)        // and the rotations the domain approves
}

// TestAPIKeyStorePort runs the API key store suite on PostgreSQL.
func TestAPIKeyStorePort(t *testing.T) {
	pgtest.Skip(t)
	porttest.APIKeyStore(t, func(t *testing.T) porttest.APIKeyStores {
		db := openDB(t)
		st := db.Stores()
		return porttest.APIKeyStores{Keys: st.APIKeys, Accounts: st.Accounts, Users: st.Users}
	})
}

// TestPasskeyStorePort runs the passkey store suite on PostgreSQL.
func TestPasskeyStorePort(t *testing.T) {
	pgtest.Skip(t)
	porttest.PasskeyStore(t, func(t *testing.T) porttest.PasskeyStores {
		db := openDB(t)
		st := db.Stores()
		return porttest.PasskeyStores{Passkeys: st.Passkeys, Accounts: st.Accounts, Users: st.Users}
	})
}

// TestTOTPStorePort runs the authenticator-app store suite on PostgreSQL.
func TestTOTPStorePort(t *testing.T) {
	pgtest.Skip(t)
	porttest.TOTPStore(t, func(t *testing.T) porttest.TOTPStores {
		db := openDB(t)
		st := db.Stores()
		return porttest.TOTPStores{TOTP: st.TOTP, Accounts: st.Accounts, Users: st.Users}
	})
}
