// Package blobfs keeps document files in a folder (COUNSEL_DATA_DIR), as
// the releases before documents lived in the database did; the service no
// longer uses it, and tests build databases of that layout with it.
//
// An upload streams into a temporary file in DIR/tmp while it is hashed
// and counted, so it is never held in memory. Committing it syncs the
// file, renames it to DIR/documents/<key> and syncs the folder: a file
// appears under its key complete and durable, or not at all. Temporary
// files are on the same file system as their destination, so the rename
// is atomic. Keys are 32 random hex digits; nothing a client sends ever
// becomes part of a path.
package blobfs

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"counsel/domain"
)

// staleAfter is the age at which Open removes leftover temporary files,
// the remains of a process that stopped during an upload. No upload of 20
// MiB takes this long.
const staleAfter = time.Hour

// Store keeps document files in a folder.
type Store struct {
	docs string // committed files
	tmp  string // uploads in progress
	rand io.Reader
}

// Open prepares dir (creating documents/ and tmp/ in it) and removes stale
// temporary files. random makes keys; nil means crypto/rand.
func Open(dir string, random io.Reader) (*Store, error) {
	if random == nil {
		random = rand.Reader
	}
	s := &Store{docs: filepath.Join(dir, "documents"), tmp: filepath.Join(dir, "tmp"), rand: random}
	// Owner-only whatever the umask, and tightened when an older version
	// made them wider: documents are clients' contracts. Files in them
	// are made 0600 by os.CreateTemp and keep that mode when renamed.
	for _, d := range []string{dir, s.docs, s.tmp} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			return nil, fmt.Errorf("blob folder: %w", err)
		}
		if err := os.Chmod(d, 0o700); err != nil {
			return nil, fmt.Errorf("blob folder: %w", err)
		}
	}
	entries, err := os.ReadDir(s.tmp)
	if err != nil {
		return nil, fmt.Errorf("blob folder: %w", err)
	}
	for _, e := range entries {
		if info, err := e.Info(); err == nil && time.Since(info.ModTime()) > staleAfter {
			os.Remove(filepath.Join(s.tmp, e.Name()))
		}
	}
	return s, nil
}

// ctxReader stops reading once ctx is done.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}

// Stage streams r into a temporary file while hashing and counting it,
// reading at most max bytes. ETOOLARGE when r holds more (the temporary
// file is removed); errors from r are returned wrapped.
func (s *Store) Stage(ctx context.Context, r io.Reader, max int64) (*Staged, error) {
	f, err := os.CreateTemp(s.tmp, "upload-*")
	if err != nil {
		return nil, fmt.Errorf("stage upload: %w", err)
	}
	b := &Staged{s: s, f: f}
	h := sha256.New()
	// One read past max tells a file of exactly max bytes from a larger one.
	n, err := io.Copy(io.MultiWriter(f, h), io.LimitReader(ctxReader{ctx, r}, max+1))
	if err != nil {
		b.Discard()
		return nil, fmt.Errorf("stage upload: %w", err)
	}
	if n > max {
		b.Discard()
		return nil, domain.Errorf(domain.ETOOLARGE, "the file is larger than %d bytes", max)
	}
	b.size, b.sum = n, hex.EncodeToString(h.Sum(nil))
	return b, nil
}

// Staged is a temporary file awaiting Commit or Discard. Exactly one of
// them must be called; Discard after Commit does nothing.
type Staged struct {
	s    *Store
	f    *os.File
	size int64
	sum  string
	done bool
}

func (b *Staged) ReadAt(p []byte, off int64) (int, error) { return b.f.ReadAt(p, off) }
func (b *Staged) Size() int64                             { return b.size }
func (b *Staged) SHA256() string                          { return b.sum }

// Commit makes the file durable under a new key and returns the key:
// sync, close, rename, sync folder.
func (b *Staged) Commit(ctx context.Context) (string, error) {
	if b.done {
		return "", errors.New("blob already committed or discarded")
	}
	if err := ctx.Err(); err != nil {
		return "", err
	}
	key, err := b.s.newKey()
	if err != nil {
		return "", err
	}
	if err := b.f.Sync(); err != nil {
		return "", fmt.Errorf("sync upload: %w", err)
	}
	if err := b.f.Close(); err != nil {
		return "", fmt.Errorf("close upload: %w", err)
	}
	if err := os.Rename(b.f.Name(), filepath.Join(b.s.docs, key)); err != nil {
		return "", fmt.Errorf("keep upload: %w", err)
	}
	b.done = true
	if err := syncDir(b.s.docs); err != nil {
		os.Remove(filepath.Join(b.s.docs, key))
		return "", err
	}
	return key, nil
}

// Discard removes the temporary file.
func (b *Staged) Discard() error {
	if b.done {
		return nil
	}
	b.done = true
	b.f.Close()
	if err := os.Remove(b.f.Name()); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}

// syncDir makes a rename in dir durable.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("sync folder: %w", err)
	}
	defer d.Close()
	if err := d.Sync(); err != nil {
		return fmt.Errorf("sync folder: %w", err)
	}
	return nil
}

// newKey returns 32 random hex digits.
func (s *Store) newKey() (string, error) {
	var b [16]byte
	if _, err := io.ReadFull(s.rand, b[:]); err != nil {
		return "", fmt.Errorf("blob key: %w", err)
	}
	return hex.EncodeToString(b[:]), nil
}

// path returns the file of key, refusing anything that is not a key this
// store made, so no key can reach outside the folder.
func (s *Store) path(key string) (string, error) {
	if len(key) != 32 {
		return "", domain.Errorf(domain.ENOTFOUND, "document file not found")
	}
	for i := 0; i < len(key); i++ {
		if c := key[i]; !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return "", domain.Errorf(domain.ENOTFOUND, "document file not found")
		}
	}
	return filepath.Join(s.docs, key), nil
}

// Open opens the file under key. ENOTFOUND if there is none.
func (s *Store) Open(ctx context.Context, key string) (io.ReadSeekCloser, error) {
	p, err := s.path(key)
	if err != nil {
		return nil, err
	}
	f, err := os.Open(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, &domain.Error{Code: domain.ENOTFOUND, Message: "document file not found", Err: err}
	}
	if err != nil {
		return nil, fmt.Errorf("open document file: %w", err)
	}
	return f, nil
}

// Delete removes the file under key; a missing file is not an error.
func (s *Store) Delete(ctx context.Context, key string) error {
	p, err := s.path(key)
	if err != nil {
		return nil
	}
	if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("delete document file: %w", err)
	}
	return nil
}
