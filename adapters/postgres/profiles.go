package postgres

import (
	"context"
	"time"
)

// profileTTL bounds how long a cached profile misses another instance's
// write when its notification is lost (see notify.go).
const profileTTL = 2 * time.Second

// profileTx is tx for writes that may change a profile: the commit
// tells every instance (a notification sent with it) and, after it, this
// instance's cache.
func (db *DB) profileTx(ctx context.Context, fn func(q) error) error {
	err := db.tx(ctx, func(x q) error {
		if err := fn(x); err != nil {
			return err
		}
		return notify(ctx, x, changedProfiles)
	})
	db.profiles.Stale()
	return err
}

// accessTx is tx for writes that change what a user may do: the commit
// tells every instance to check its cached principals again.
func (db *DB) accessTx(ctx context.Context, fn func(q) error) error {
	return db.tx(ctx, func(x q) error {
		if err := fn(x); err != nil {
			return err
		}
		return notify(ctx, x, changedPrincipals)
	})
}
