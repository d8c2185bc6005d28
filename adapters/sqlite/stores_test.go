package sqlite

import (
	"context"
	"testing"

	"counsel/ports/porttest"
)

// TestStoreSuites holds the SQLite stores (documents in the database, as on
// PostgreSQL) to the engine-neutral suites.
func TestStoreSuites(t *testing.T) {
	t.Parallel()
	porttest.StoreSuites(t, func(t *testing.T) porttest.Stores {
		db := openDB(t)
		blobs := db.Stores().Blobs(t.TempDir())
		return porttest.Stores{
			Accounts: db.Stores().Accounts, Roles: db.Stores().Roles, Users: db.Stores().Users,
			Remunerations: db.Stores().Remunerations, Identities: db.Stores().Identities,
			Contracts: NewContractStore(db), Blobs: blobs, Audit: db.Stores().Audit, KeyDates: db.Stores().KeyDates, Signing: db.Stores().Signing, Webhooks: db.Stores().Webhooks,
			Rows: func(ctx context.Context, table string) (n int64, err error) {
				err = db.read.QueryRowContext(ctx, `SELECT count(*) FROM `+table).Scan(&n)
				return n, err
			},
		}
	})
}
