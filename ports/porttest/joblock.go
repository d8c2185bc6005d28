package porttest

import (
	"context"
	"testing"

	"github.com/matryer/is"
)

// TryLock takes a background job's lock of one database instance
// (Stores.TryLock in app): whether it was free, and its release.
type TryLock func(ctx context.Context, name string) (bool, func(), error)

// TryLockSuite holds every engine's job lock to one rule: of a and b, two
// instances of one database, one holds a job's lock at a time, until it
// unlocks; another job, or another database (other), is another lock.
func TryLockSuite(t *testing.T, a, b, other TryLock) {
	is := is.New(t)
	ctx := context.Background()
	ok, unlock, err := a(ctx, "scheduled-backup")
	is.NoErr(err)
	is.True(ok) // a runs the job
	ok, _, err = b(ctx, "scheduled-backup")
	is.NoErr(err)
	is.True(!ok) // b, on the same database, skips it
	for _, x := range []struct {
		lock TryLock
		name string
	}{{b, "contract-expiry"}, {other, "scheduled-backup"}} {
		ok, u, err := x.lock(ctx, x.name)
		is.NoErr(err)
		is.True(ok) // another job, or another database, is another lock
		u()
	}
	unlock()
	ok, unlock, err = b(ctx, "scheduled-backup")
	is.NoErr(err)
	is.True(ok) // free again
	unlock()
}
