package sqlite

import (
	"crypto/rand"
	"testing"

	"counsel/adapters/blobfs"
	"counsel/ports/porttest"
)

// TestStoreSuites holds the SQLite stores (with the document folder that
// keeps their bytes on this engine) to the engine-neutral suites.
func TestStoreSuites(t *testing.T) {
	t.Parallel()
	porttest.StoreSuites(t, func(t *testing.T) porttest.Stores {
		db := openDB(t)
		blobs, err := blobfs.Open(t.TempDir(), rand.Reader)
		if err != nil {
			t.Fatal(err)
		}
		return porttest.Stores{
			Accounts: NewAccountStore(db), Roles: NewRoleStore(db), Users: NewUserStore(db),
			Remunerations: NewRemunerationStore(db), Identities: NewIdentityStore(db),
			Contracts: NewContractStore(db), Blobs: blobs,
		}
	})
}
