package postgres

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"os"
	"time"

	"github.com/jackc/pgx/v5"

	"counsel/domain"
	"counsel/domain/contract"
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
// needs its type and size before keeping it); the contract store then
// copies it in, chunk by chunk, in the transaction that inserts its
// document's row (writeDocumentBytes), so no more than one chunk is in
// memory at a time and a row and its bytes are written together or not
// at all. The trigger contract_documents_bytes removes the bytes with
// their row.
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

// writeDocumentBytes stores the bytes of document d, read from r, under
// key in x's transaction, and fails (the caller rolling it back) unless
// they are the size and SHA-256 d states.
func writeDocumentBytes(ctx context.Context, x q, d contract.Document, key string, r io.Reader, now time.Time) error {
	if _, err := x.exec(ctx, `INSERT INTO document_blobs (storage_key, size, created_at) VALUES (?, ?, ?)`, key, d.Size, now); err != nil {
		return err
	}
	c, ok := x.c.(interface {
		CopyFrom(context.Context, pgx.Identifier, []string, pgx.CopyFromSource) (int64, error)
	})
	if !ok {
		return errors.New("write chunks: not in a transaction")
	}
	src := &chunkSource{key: key, r: r, buf: make([]byte, chunkSize), seq: -1, h: sha256.New()}
	if _, err := c.CopyFrom(ctx, pgx.Identifier{"document_chunks"}, []string{"storage_key", "seq", "data"}, src); err != nil {
		return err
	}
	return sqlrow.CheckBytes(d, src.size, hex.EncodeToString(src.h.Sum(nil)))
}

// chunkSource is the rows of one blob for COPY, read one chunk at a time
// into one buffer: pgx encodes each row before asking for the next, so
// the bytes are never in memory twice, nor once whole. It counts and
// hashes what it reads.
type chunkSource struct {
	key  string
	r    io.Reader
	buf  []byte
	n    int
	seq  int
	err  error
	h    hash.Hash
	size int64
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
	c.h.Write(c.buf[:n])
	c.size += int64(n)
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

// ImportDocument writes one document copied from another database in one
// transaction: its bytes, read from r, under d.StorageKey, then its row
// (cols and row as Import takes them). Nothing is written unless the
// bytes are the size and SHA-256 d states. counsel copy and restore use
// it, into a database that holds nothing else.
func (db *DB) ImportDocument(ctx context.Context, d contract.Document, cols []string, row []any, r io.Reader) error {
	return db.tx(ctx, func(x q) error {
		if err := writeDocumentBytes(ctx, x, d, d.StorageKey, r, db.Now()); err != nil {
			return err
		}
		return copyRows(ctx, x, "contract_documents", cols, [][]any{row})
	})
}
