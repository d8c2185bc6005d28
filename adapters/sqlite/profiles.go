package sqlite

import (
	"context"
	"database/sql"
	"time"
)

// profileTTL bounds how long a cached profile misses writes by another
// process on the same file (the command line creates users but never
// edits profiles).
const profileTTL = 10 * time.Second

// profileWriteTx is writeTx for writes that may change a profile: after
// the commit it makes every cached profile stale.
func (db *DB) profileWriteTx(ctx context.Context, fn func(*sql.Tx) error) error {
	err := db.writeTx(ctx, fn)
	db.profiles.Stale()
	return err
}
