package sqlite_test

import (
	"context"
	"path/filepath"
	"testing"

	"counsel/adapters/sqlite"
	"counsel/domain/account"
	"counsel/ports/porttest"
)

func TestTOTPStorePort(t *testing.T) {
	t.Parallel()
	porttest.TOTPStore(t, func(t *testing.T) porttest.TOTPStores {
		db, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "counsel.db"))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		accounts := db.Stores().Accounts
		if _, err := accounts.Bootstrap(context.Background(), account.NewUser{Email: "admin@example.com", PasswordHash: "h"}); err != nil {
			t.Fatal(err)
		}
		return porttest.TOTPStores{TOTP: db.Stores().TOTP, Accounts: accounts, Users: db.Stores().Users}
	})
}
