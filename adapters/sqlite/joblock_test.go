package sqlite

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/matryer/is"

	"counsel/ports/porttest"
)

// TestTryLock: of two services on one file, one holds a job's lock at a
// time, until it unlocks; other jobs and other files have their own
// (porttest.TryLockSuite); the lock folder is owner-only, and a job's
// name is a plain file name.
func TestTryLock(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "counsel.db")
	a, b, other := openPath(t, path), openPath(t, path), openDB(t)
	porttest.TryLockSuite(t, a.TryLock, b.TryLock, other.TryLock)
	info, err := os.Stat(path + "-locks")
	is.NoErr(err)
	is.Equal(info.Mode().Perm(), os.FileMode(0o700))
	for _, bad := range []string{"", "../x", ".hidden", `a\b`} {
		_, _, err := a.TryLock(ctx, bad)
		is.True(err != nil) // not a job's name
	}
}
