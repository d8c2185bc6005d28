package sqlite_test

import (
	"context"
	"path/filepath"
	"testing"

	"counsel/adapters/sqlite"
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
		st := db.Stores()
		return porttest.APIKeyStores{Keys: st.APIKeys, Accounts: st.Accounts, Users: st.Users}
	})
}
