package sqlite_test

import (
	"context"
	"path/filepath"
	"testing"

	"counsel/adapters/sqlite"
	"counsel/ports/porttest"
)

func TestPasskeyStorePort(t *testing.T) {
	t.Parallel()
	porttest.PasskeyStore(t, func(t *testing.T) porttest.PasskeyStores {
		db, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "counsel.db"))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		st := db.Stores()
		return porttest.PasskeyStores{Passkeys: st.Passkeys, Accounts: st.Accounts, Users: st.Users}
	})
}
