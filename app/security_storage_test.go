//go:build unix

package app_test

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"counsel/app"
	"counsel/app/apptest"
	"counsel/app/transfer"
	"counsel/ports/porttest"

	"github.com/matryer/is"
)

// TestSecurityStorageOwnerOnly: hole 4. The database, its WAL and the
// documents folder were created 0644/0750. Under the common umask 022
// every file is now 0600 and every folder 0700, for files made later
// too (WAL, SHM, backups, uploads, temporary files), and files an older
// version left wider are tightened at start.
func TestSecurityStorageOwnerOnly(t *testing.T) {
	old := syscall.Umask(0o022)
	defer syscall.Umask(old)
	dir := t.TempDir()
	db, data := filepath.Join(dir, "counsel.db"), filepath.Join(dir, "data")
	// What an older version left behind: a wide folder and WAL.
	is := is.New(t)
	is.NoErr(os.MkdirAll(filepath.Join(data, "documents"), 0o755))
	is.NoErr(os.WriteFile(db+"-wal", nil, 0o644))
	s := apptest.New(t, func(c *app.Config) { c.DB, c.DataDir, c.SpoolDir = db, data, "" })
	admin := s.Admin(t)
	c := contractCreate(t, s, admin, map[string]any{"contractName": "Storage"})
	r := contractUpload(t, s, admin, contractID(c), "a.pdf", porttest.MinimalPDF(1))
	is.Equal(r.Status, 201) // a document written
	backup := filepath.Join(dir, "backup.db")
	_, err := transfer.Backup(context.Background(), db, backup, transfer.BackupOptions{DataDir: data})
	is.NoErr(err) // a backup while serving

	checked := 0
	for _, root := range []string{dir} {
		err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil || p == dir {
				return err
			}
			info, err := d.Info()
			if err != nil {
				return err
			}
			want := fs.FileMode(0o600)
			if d.IsDir() {
				want = 0o700
			}
			if info.Mode().Perm() != want {
				t.Errorf("%s is %v, want %v", p, info.Mode().Perm(), want)
			}
			checked++
			return nil
		})
		is.NoErr(err)
	}
	for _, p := range []string{db, db + "-wal", db + "-shm", backup, filepath.Join(data, "documents"), filepath.Join(data, "tmp")} {
		_, err := os.Stat(p)
		is.NoErr(err) // each kind of file was there to check
	}
	var docs int
	is.NoErr(s.QueryRow(context.Background(), `SELECT count(*) FROM document_blobs`).Scan(&docs))
	is.Equal(docs, 1) // the upload is in the database file checked above
	is.True(checked >= 7)
}
