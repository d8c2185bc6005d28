package app

import (
	"context"

	"counsel/app/stores"
)

// Engine names the database a COUNSEL_DB value selects (stores.Engine).
func Engine(db string) string { return stores.Engine(db) }

// The stores of one engine (app/stores), under the names the rest of the
// composition root uses.
type (
	Stores        = stores.Stores
	AccountStore  = stores.AccountStore
	UserStore     = stores.UserStore
	IdentityStore = stores.IdentityStore
	ContractStore = stores.ContractStore
	Row           = stores.Row
)

// OpenStores opens (creating and migrating as needed) the database dsn
// names (stores.Open).
func OpenStores(ctx context.Context, dsn, spool string) (*Stores, error) {
	return stores.Open(ctx, dsn, spool)
}
