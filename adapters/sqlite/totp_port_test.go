package sqlite_test

import (
	"context"
	"path/filepath"
	"testing"

	"counsel/adapters/sqlite"
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
		st := db.Stores()
		return porttest.TOTPStores{TOTP: st.TOTP, Accounts: st.Accounts, Users: st.Users}
	})
}
