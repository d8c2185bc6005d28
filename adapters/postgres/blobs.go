package postgres

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

	"github.com/jackc/pgx/v5"

	"counsel/domain"
	"counsel/ports"

	"counsel/adapters/sqlrow"
)

// chunkSize is the size of one stored piece of a document: large enough
// that a 20 MiB file is 80 rows, small enough that reading or writing
// one holds little memory.
const chunkSize = 256 << 10

// BlobStore implements ports.BlobStore in the database, so that every
// instance reads what any instance stored. An upload is spooled to a
// temporary file first (hashed and counted on the way, as the use case
// needs its type and size before keeping it), then copied into the
// database chunk by chunk in one transaction at Commit: a failed upload
// leaves no rows, and no more than one chunk is in memory at a time.
type BlobStore struct {
	db  *DB
	tmp string
}

var _ ports.BlobStore = (*BlobStore)(nil)

// NewBlobStore returns the blob store of db, spooling uploads in tmp
// ("" for the system's temporary folder).
func NewBlobStore(db *DB, tmp string) *BlobStore { return &BlobStore{db: db, tmp: tmp} }

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

// Stage implements ports.BlobStore.
func (s *BlobStore) Stage(ctx context.Context, r io.Reader, max int64) (ports.StagedBlob, error) {
	f, err := os.CreateTemp(s.tmp, "counsel-upload-*")
	if err != nil {
		return nil, fmt.Errorf("stage upload: %w", err)
	}
	b := &staged{s: s, f: f}
	h := sha256.New()
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

type staged struct {
	s    *BlobStore
	f    *os.File
	size int64
	sum  string
	done bool
	m    sqlrow.MappedFile
}

// Bytes lends the staged bytes without copying them (a memory map,
// released by Discard).
func (b *staged) Bytes() ([]byte, error) { return b.m.Map(b.f, b.size) }

func (b *staged) ReadAt(p []byte, off int64) (int, error) { return b.f.ReadAt(p, off) }
func (b *staged) Size() int64                             { return b.size }
func (b *staged) SHA256() string                          { return b.sum }

// Commit implements ports.StagedBlob: the chunks and the blob's row in
// one transaction, then the temporary file goes.
func (b *staged) Commit(ctx context.Context) (string, error) {
	if b.done {
		return "", errors.New("blob already committed or discarded")
	}
	var k [16]byte
	if _, err := rand.Read(k[:]); err != nil {
		return "", fmt.Errorf("blob key: %w", err)
	}
	key := hex.EncodeToString(k[:])
	err := b.s.db.tx(ctx, func(x q) error {
		if _, err := x.exec(ctx, `INSERT INTO document_blobs (storage_key, size, created_at) VALUES (?, ?, ?)`, key, b.size, b.s.db.Now()); err != nil {
			return err
		}
		return writeChunks(ctx, x, key, io.NewSectionReader(b.f, 0, b.size))
	})
	if err != nil {
		return "", fmt.Errorf("keep upload: %w", err)
	}
	b.Discard()
	return key, nil
}

// writeChunks stores r under key with COPY, reading one chunk at a time
// into one buffer: pgx encodes each row before asking for the next, so
// the upload is never in memory twice, nor once whole.
func writeChunks(ctx context.Context, x q, key string, r io.Reader) error {
	c, ok := x.c.(interface {
		CopyFrom(context.Context, pgx.Identifier, []string, pgx.CopyFromSource) (int64, error)
	})
	if !ok {
		return errors.New("write chunks: not in a transaction")
	}
	src := &chunkSource{key: key, r: r, buf: make([]byte, chunkSize), seq: -1}
	_, err := c.CopyFrom(ctx, pgx.Identifier{"document_chunks"}, []string{"storage_key", "seq", "data"}, src)
	return err
}

// chunkSource is the rows of one blob for COPY.
type chunkSource struct {
	key string
	r   io.Reader
	buf []byte
	n   int
	seq int
	err error
}

func (c *chunkSource) Next() bool {
	if c.err != nil {
		return false
	}
	n, err := io.ReadFull(c.r, c.buf)
	if errors.Is(err, io.EOF) {
		return false
	}
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) {
		c.err = err
		return false
	}
	c.n, c.seq = n, c.seq+1
	return true
}

func (c *chunkSource) Values() ([]any, error) { return []any{c.key, int32(c.seq), c.buf[:c.n]}, nil }
func (c *chunkSource) Err() error             { return c.err }

// Discard implements ports.StagedBlob.
func (b *staged) Discard() error {
	b.m.Unmap()
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

// Open implements ports.BlobStore: a reader that fetches one chunk at a
// time as it is read or seeked.
func (s *BlobStore) Open(ctx context.Context, key string) (io.ReadSeekCloser, error) {
	var size int64
	err := s.db.read().row(ctx, `SELECT size FROM document_blobs WHERE storage_key = ?`, key).Scan(&size)
	if noRows(err) {
		return nil, domain.Errorf(domain.ENOTFOUND, "document file not found")
	} else if err != nil {
		return nil, err
	}
	return &blobReader{ctx: context.WithoutCancel(ctx), db: s.db, key: key, size: size, seq: -1}, nil
}

// blobReader reads a stored blob chunk by chunk.
type blobReader struct {
	ctx   context.Context
	db    *DB
	key   string
	size  int64
	pos   int64
	seq   int    // the chunk in buf; -1 for none
	buf   []byte // chunk seq
	close bool
}

func (r *blobReader) Read(p []byte) (int, error) {
	if r.close {
		return 0, fs.ErrClosed
	}
	if r.pos >= r.size {
		return 0, io.EOF
	}
	seq := int(r.pos / chunkSize)
	if seq != r.seq {
		if err := r.load(seq); err != nil {
			r.seq = -1
			return 0, fmt.Errorf("read document chunk %d: %w", seq, err)
		}
		r.seq = seq
	}
	off := int(r.pos - int64(seq)*chunkSize)
	if off >= len(r.buf) {
		return 0, io.ErrUnexpectedEOF
	}
	n := copy(p, r.buf[off:])
	r.pos += int64(n)
	return n, nil
}

// load reads chunk seq into the reader's one buffer, copying the raw
// column bytes rather than scanning into a new slice per chunk.
func (r *blobReader) load(seq int) error {
	rows, err := r.db.pool.Query(r.ctx, `SELECT data FROM document_chunks WHERE storage_key = $1 AND seq = $2`, r.key, seq)
	if err != nil {
		return err
	}
	defer rows.Close()
	if !rows.Next() {
		if err := rows.Err(); err != nil {
			return err
		}
		return errors.New("chunk missing")
	}
	r.buf = append(r.buf[:0], rows.RawValues()[0]...)
	rows.Close()
	return rows.Err()
}

func (r *blobReader) Seek(offset int64, whence int) (int64, error) {
	var pos int64
	switch whence {
	case io.SeekStart:
		pos = offset
	case io.SeekCurrent:
		pos = r.pos + offset
	case io.SeekEnd:
		pos = r.size + offset
	default:
		return 0, errors.New("seek: invalid whence")
	}
	if pos < 0 {
		return 0, errors.New("seek: negative position")
	}
	r.pos = pos
	return pos, nil
}

func (r *blobReader) Close() error {
	r.close, r.buf = true, nil
	return nil
}

// Delete implements ports.BlobStore.
func (s *BlobStore) Delete(ctx context.Context, key string) error {
	return s.db.tx(ctx, func(x q) error {
		_, err := x.exec(ctx, `DELETE FROM document_blobs WHERE storage_key = ?`, key)
		return err
	})
}
