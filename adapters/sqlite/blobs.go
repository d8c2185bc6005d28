package sqlite

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"counsel/domain"
	"counsel/domain/contract"
	"counsel/ports"

	"counsel/adapters/sqlrow"
)

// chunkSize is the size of one stored piece of a document, as on
// PostgreSQL: a 20 MiB file is 80 rows, and reading or writing one holds
// a quarter of a MiB.
const chunkSize = 256 << 10

// BlobStore implements ports.BlobStore in the database file
// (document_blobs and document_chunks), so the file is the whole record.
// An upload is spooled to a temporary file first (hashed and counted on
// the way: the use case needs its type and size before keeping it); the
// contract store then copies it in, chunk by chunk, in the transaction
// that inserts its document's row (writeDocumentBytes), so no more than
// one chunk is in memory at a time and a row and its bytes are written
// together or not at all. The trigger contract_documents_bytes removes
// the bytes with their row.
type BlobStore struct {
	db    *DB
	spool string
}

var _ ports.BlobStore = (*BlobStore)(nil)

// NewBlobStore returns the blob store of db, spooling uploads in spool
// ("" for the system's temporary folder).
func NewBlobStore(db *DB, spool string) *BlobStore { return &BlobStore{db: db, spool: spool} }

// spoolPrefix starts the name of every spooled upload.
const spoolPrefix = "counsel-upload-"

// staleSpool is the age at which CleanSpool removes a spooled upload, the
// remains of a process that stopped during one. No upload of 20 MiB takes
// this long.
const staleSpool = time.Hour

// CleanSpool creates dir owner-only (tightening it when wider) and
// removes the uploads left in it by a process that stopped mid-upload.
func CleanSpool(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("upload folder: %w", err)
	}
	if err := os.Chmod(dir, 0o700); err != nil {
		return fmt.Errorf("upload folder: %w", err)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return fmt.Errorf("upload folder: %w", err)
	}
	for _, e := range entries {
		if !strings.HasPrefix(e.Name(), spoolPrefix) && !strings.HasPrefix(e.Name(), "upload-") {
			continue
		}
		if info, err := e.Info(); err == nil && time.Since(info.ModTime()) > staleSpool {
			os.Remove(filepath.Join(dir, e.Name()))
		}
	}
	return nil
}

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
	f, err := os.CreateTemp(s.spool, spoolPrefix+"*")
	if err != nil {
		return nil, fmt.Errorf("stage upload: %w", err)
	}
	b := &staged{s: s, f: f}
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

// staged is a spooled upload awaiting Commit or Discard.
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
// key in tx, and fails (the caller rolling tx back) unless they are the
// size and SHA-256 d states.
func writeDocumentBytes(ctx context.Context, tx *sql.Tx, d contract.Document, key string, r io.Reader, now int64) error {
	size, sum, err := writeBlob(ctx, tx, key, r, now)
	if err != nil {
		return err
	}
	return sqlrow.CheckBytes(d, size, sum)
}

// writeBlob stores r under key in tx, reading one chunk at a time into
// one buffer, and returns the size and SHA-256 of what it stored.
func writeBlob(ctx context.Context, tx *sql.Tx, key string, r io.Reader, now int64) (int64, string, error) {
	stmt, err := tx.PrepareContext(ctx, `INSERT INTO document_chunks (storage_key, seq, data) VALUES (?, ?, ?)`)
	if err != nil {
		return 0, "", err
	}
	defer stmt.Close()
	if _, err := tx.ExecContext(ctx, `INSERT INTO document_blobs (storage_key, size, created_at) VALUES (?, 0, ?)`, key, now); err != nil {
		return 0, "", err
	}
	h := sha256.New()
	buf := make([]byte, chunkSize)
	var size int64
	for seq := 0; ; seq++ {
		n, err := io.ReadFull(r, buf)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) {
			return 0, "", err
		}
		h.Write(buf[:n])
		if _, err := stmt.ExecContext(ctx, key, seq, buf[:n]); err != nil {
			return 0, "", err
		}
		size += int64(n)
		if n < chunkSize {
			break
		}
	}
	if _, err := tx.ExecContext(ctx, `UPDATE document_blobs SET size = ? WHERE storage_key = ?`, size, key); err != nil {
		return 0, "", err
	}
	return size, hex.EncodeToString(h.Sum(nil)), nil
}

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
	err := s.db.read.QueryRowContext(ctx, `SELECT size FROM document_blobs WHERE storage_key = ?`, key).Scan(&size)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, domain.Errorf(domain.ENOTFOUND, "document file not found")
	} else if err != nil {
		return nil, formatError(err)
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

// load reads chunk seq into the reader's one buffer, copying the column
// from the driver's memory rather than keeping a new slice per chunk.
func (r *blobReader) load(seq int) error {
	rows, err := r.db.read.QueryContext(r.ctx, `SELECT data FROM document_chunks WHERE storage_key = ? AND seq = ?`, r.key, seq)
	if err != nil {
		return formatError(err)
	}
	defer rows.Close()
	if !rows.Next() {
		if err := rows.Err(); err != nil {
			return formatError(err)
		}
		return errors.New("chunk missing")
	}
	var raw sql.RawBytes
	if err := rows.Scan(&raw); err != nil {
		return err
	}
	if r.buf == nil {
		r.buf = make([]byte, 0, chunkSize)
	}
	r.buf = append(r.buf[:0], raw...)
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
	return db.writeTx(ctx, func(tx *sql.Tx) error {
		if err := writeDocumentBytes(ctx, tx, d, d.StorageKey, r, ms(db.Now())); err != nil {
			return err
		}
		return insertRows(ctx, tx, "contract_documents", cols, [][]any{row})
	})
}
