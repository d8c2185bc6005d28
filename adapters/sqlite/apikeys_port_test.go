package sqlite_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"counsel/adapters/sqlite"
	"counsel/domain/account"
	"counsel/ports/porttest"
)

func TestAPIKeyStorePort(t *testing.T) {
	t.Parallel()
	porttest.APIKeyStore(t, func(t *testing.T) porttest.APIKeyStores {
		db, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "counsel.db"))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		accounts := db.Stores().Accounts
		if _, err := accounts.Bootstrap(context.Background(), account.NewUser{Email: "admin@example.com", PasswordHash: "h"}); err != nil {
			t.Fatal(err)
		}
		users := db.Stores().Users
		return porttest.APIKeyStores{Keys: db.Stores().APIKeys, Accounts: accounts, Users: users,
			DeleteUser: func(ctx context.Context, id int64) error { return users.DeleteUser(ctx, id, time.Now(), nil) }}
	})
}
