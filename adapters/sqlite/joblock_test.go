package sqlite

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/matryer/is"
)

// TestTryLock: of two services on one file, one holds a job's lock at a
// time, until it unlocks; other jobs and other files have
// their own; the lock folder is owner-only.
func TestTryLock(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "counsel.db")
	a, b, other := openPath(t, path), openPath(t, path), openDB(t)
	ok, unlock, err := a.TryLock(ctx, "scheduled-backup")
	is.NoErr(err)
	is.True(ok) // a runs the job
	ok, _, err = b.TryLock(ctx, "scheduled-backup")
	is.NoErr(err)
	is.True(!ok) // b, on the same file, skips it
	for _, x := range []struct {
		db   *DB
		name string
	}{{b, "contract-expiry"}, {other, "scheduled-backup"}} {
		ok, u, err := x.db.TryLock(ctx, x.name)
		is.NoErr(err)
		is.True(ok) // another job, or another file, is another lock
		u()
	}
	unlock()
	ok, unlock, err = b.TryLock(ctx, "scheduled-backup")
	is.NoErr(err)
	is.True(ok) // free again
	unlock()
	info, err := os.Stat(path + "-locks")
	is.NoErr(err)
	is.Equal(info.Mode().Perm(), os.FileMode(0o700))
	for _, bad := range []string{"", "../x", ".hidden", `a\b`} {
		_, _, err := a.TryLock(ctx, bad)
		is.True(err != nil) // not a job's name
	}
}
