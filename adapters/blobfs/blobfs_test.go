package blobfs_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/matryer/is"

	"counsel/adapters/blobfs"
	"counsel/domain"
)

// files lists the files under dir/sub.
func files(t *testing.T, dir, sub string) []string {
	t.Helper()
	es, err := os.ReadDir(filepath.Join(dir, sub))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range es {
		out = append(out, e.Name())
	}
	return out
}

func TestStageCommitOpenDelete(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	ctx := context.Background()
	dir := t.TempDir()
	s, err := blobfs.Open(dir, nil)
	is.NoErr(err) // open
	data := []byte("%PDF-1.4 hello")
	b, err := s.Stage(ctx, bytes.NewReader(data), 100)
	is.NoErr(err)                        // staged
	is.Equal(b.Size(), int64(len(data))) // counted
	sum := sha256.Sum256(data)
	is.Equal(b.SHA256(), hex.EncodeToString(sum[:])) // hashed
	head := make([]byte, 5)
	_, err = b.ReadAt(head, 0)
	is.NoErr(err)
	is.Equal(string(head), "%PDF-")              // readable before commit
	is.Equal(len(files(t, dir, "tmp")), 1)       // in tmp
	is.Equal(len(files(t, dir, "documents")), 0) // not yet kept
	key, err := b.Commit(ctx)
	is.NoErr(err)                                       // committed
	is.Equal(len(key), 32)                              // hex key
	is.NoErr(b.Discard())                               // discard after commit does nothing
	is.Equal(files(t, dir, "documents"), []string{key}) // kept under its key
	is.Equal(len(files(t, dir, "tmp")), 0)              // moved, not copied
	f, err := s.Open(ctx, key)
	is.NoErr(err)
	got, _ := io.ReadAll(f)
	f.Close()
	is.Equal(got, data)          // same bytes
	is.NoErr(s.Delete(ctx, key)) // deleted
	is.NoErr(s.Delete(ctx, key)) // again: no error
	_, err = s.Open(ctx, key)
	is.Equal(domain.ErrorCode(err), domain.ENOTFOUND) // gone
}

func TestStageExactlyMax(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	s, err := blobfs.Open(t.TempDir(), nil)
	is.NoErr(err)
	b, err := s.Stage(context.Background(), bytes.NewReader(make([]byte, 64)), 64)
	is.NoErr(err)                 // exactly the limit is fine
	is.Equal(b.Size(), int64(64)) // all of it
	is.NoErr(b.Discard())
}

type failingReader struct{ n int }

func (r *failingReader) Read(p []byte) (int, error) {
	if r.n <= 0 {
		return 0, errors.New("connection reset")
	}
	n := min(len(p), r.n)
	r.n -= n
	return n, nil
}

func TestFailedStageLeavesNothing(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	tests := []struct {
		name string
		ctx  context.Context
		r    io.Reader
		code string
	}{
		{"too large", ctx, bytes.NewReader(make([]byte, 65)), domain.ETOOLARGE},
		{"reader fails midway", ctx, &failingReader{n: 10}, domain.EINTERNAL},
		{"reader fails with a domain error", ctx, io.MultiReader(strings.NewReader("abc"), errReader{domain.Errorf(domain.EINVALID, "cut off")}), domain.EINVALID},
		{"cancelled", cancelled, strings.NewReader("abc"), domain.EINTERNAL},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			dir := t.TempDir()
			s, err := blobfs.Open(dir, nil)
			is.NoErr(err)
			_, err = s.Stage(tt.ctx, tt.r, 64)
			is.Equal(domain.ErrorCode(err), tt.code)     // the cause, wrapped
			is.Equal(len(files(t, dir, "tmp")), 0)       // no temporary file left
			is.Equal(len(files(t, dir, "documents")), 0) // nothing kept
		})
	}
}

type errReader struct{ err error }

func (e errReader) Read([]byte) (int, error) { return 0, e.err }

func TestKeysCannotEscape(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := t.TempDir()
	s, err := blobfs.Open(filepath.Join(dir, "data"), nil)
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "secret"), []byte("x"), 0o600)
	for _, key := range []string{"../../secret", "", "ABCDEF0123456789ABCDEF0123456789", "0123456789abcdef0123456789abcde/", strings.Repeat("a", 33)} {
		t.Run(key, func(t *testing.T) {
			is := is.New(t)
			_, err := s.Open(ctx, key)
			is.Equal(domain.ErrorCode(err), domain.ENOTFOUND) // not a key of this store
			is.NoErr(s.Delete(ctx, key))                      // nothing to delete
		})
	}
	if _, err := os.Stat(filepath.Join(dir, "secret")); err != nil {
		t.Fatal("a file outside the store was touched")
	}
}

func TestOpenRemovesStaleUploads(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	dir := t.TempDir()
	_, err := blobfs.Open(dir, nil)
	is.NoErr(err)
	stale, fresh := filepath.Join(dir, "tmp", "upload-old"), filepath.Join(dir, "tmp", "upload-new")
	is.NoErr(os.WriteFile(stale, []byte("x"), 0o600))
	is.NoErr(os.WriteFile(fresh, []byte("x"), 0o600))
	old := time.Now().Add(-2 * time.Hour)
	is.NoErr(os.Chtimes(stale, old, old))
	_, err = blobfs.Open(dir, nil)
	is.NoErr(err)
	is.Equal(files(t, dir, "tmp"), []string{"upload-new"}) // only the stale one removed: another process may be uploading
}

func TestKeysFromRand(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	ctx := context.Background()
	s, err := blobfs.Open(t.TempDir(), bytes.NewReader(bytes.Repeat([]byte{0xab}, 16)))
	is.NoErr(err)
	b, err := s.Stage(ctx, strings.NewReader("x"), 10)
	is.NoErr(err)
	key, err := b.Commit(ctx)
	is.NoErr(err)
	is.Equal(key, strings.Repeat("ab", 16)) // from the injected source
	b, err = s.Stage(ctx, strings.NewReader("y"), 10)
	is.NoErr(err)
	_, err = b.Commit(ctx)
	is.True(err != nil) // the source ran dry: no key, no commit
	is.NoErr(b.Discard())
}
