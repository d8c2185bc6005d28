package sqlrow

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"

	"counsel/domain"
	"counsel/ports"
)

// ChunkSize is the size of one stored piece of a document: a 20 MiB file
// is 80 rows, and reading or writing one holds a quarter of a MiB.
const ChunkSize = 256 << 10

// SpoolPrefix starts the name of every spooled upload.
const SpoolPrefix = "counsel-upload-"

// LoadChunk reads chunk seq of the blob under key into buf (reusing its
// memory, growing it to ChunkSize at most) and returns it; an error when
// the chunk is missing.
type LoadChunk func(ctx context.Context, key string, seq int, buf []byte) ([]byte, error)

// BlobStore implements ports.BlobStore in the database (document_blobs
// and document_chunks), so the database is the whole record and every
// instance reads what any stored. An upload is spooled to a temporary
// file first (hashed and counted on the way: the use case needs its type
// and size before keeping it); the contract store then copies it in,
// chunk by chunk, in the transaction that inserts its document's row (each
// engine's writeDocumentBytes), so no more than one chunk is in memory at
// a time and a row and its bytes are written together or not at all. The
// trigger contract_documents_bytes removes the bytes with their row.
type BlobStore struct {
	e     Engine
	spool string
	load  LoadChunk
}

var _ ports.BlobStore = BlobStore{}

// NewBlobStore returns the blob store of e, spooling uploads in spool (""
// for the system's temporary folder) and reading chunks with load.
func NewBlobStore(e Engine, spool string, load LoadChunk) BlobStore {
	return BlobStore{e: e, spool: spool, load: load}
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
func (s BlobStore) Stage(ctx context.Context, r io.Reader, max int64) (ports.StagedBlob, error) {
	f, err := os.CreateTemp(s.spool, SpoolPrefix+"*")
	if err != nil {
		return nil, fmt.Errorf("stage upload: %w", err)
	}
	b := &staged{f: f}
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
	f    *os.File
	size int64
	sum  string
	done bool
	m    MappedFile
}

// Bytes lends the staged bytes without copying them (a memory map,
// released by Discard).
func (b *staged) Bytes() ([]byte, error) { return b.m.Map(b.f, b.size) }

func (b *staged) ReadAt(p []byte, off int64) (int, error) { return b.f.ReadAt(p, off) }
func (b *staged) Size() int64                             { return b.size }
func (b *staged) SHA256() string                          { return b.sum }

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
func (s BlobStore) Open(ctx context.Context, key string) (io.ReadSeekCloser, error) {
	var size int64
	err := s.e.Read().Row(ctx, `SELECT size FROM document_blobs WHERE storage_key = ?`, key).Scan(&size)
	if NoRows(err) {
		return nil, domain.Errorf(domain.ENOTFOUND, "document file not found")
	} else if err != nil {
		return nil, s.e.FormatError(err)
	}
	return &blobReader{ctx: context.WithoutCancel(ctx), load: s.load, key: key, size: size, seq: -1}, nil
}

// blobReader reads a stored blob chunk by chunk, holding one chunk.
type blobReader struct {
	ctx   context.Context
	load  LoadChunk
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
	seq := int(r.pos / ChunkSize)
	if seq != r.seq {
		if r.buf == nil {
			r.buf = make([]byte, 0, ChunkSize)
		}
		buf, err := r.load(r.ctx, r.key, seq, r.buf[:0])
		if err != nil {
			r.seq = -1
			return 0, fmt.Errorf("read document chunk %d: %w", seq, err)
		}
		r.buf, r.seq = buf, seq
	}
	off := int(r.pos - int64(seq)*ChunkSize)
	if off >= len(r.buf) {
		return 0, io.ErrUnexpectedEOF
	}
	n := copy(p, r.buf[off:])
	r.pos += int64(n)
	return n, nil
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
