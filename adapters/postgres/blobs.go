package postgres

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"hash"
	"io"

	"github.com/jackc/pgx/v5"

	"counsel/domain/contract"

	"counsel/adapters/sqlrow"
)

// WriteDocumentBytes implements sqlrow.ContractRows.
func (rows contractRows) WriteDocumentBytes(ctx context.Context, sx sqlrow.Querier, d contract.Document, key string, r io.Reader) error {
	x, ok := sx.(q)
	if !ok {
		return errors.New("write a document's bytes: not in a transaction")
	}
	if _, err := x.exec(ctx, `INSERT INTO document_blobs (storage_key, size, created_at) VALUES (?, ?, ?)`, key, d.Size, rows.db.Now()); err != nil {
		return err
	}
	c, ok := x.c.(interface {
		CopyFrom(context.Context, pgx.Identifier, []string, pgx.CopyFromSource) (int64, error)
	})
	if !ok {
		return errors.New("write chunks: not in a transaction")
	}
	src := &chunkSource{key: key, r: r, buf: make([]byte, sqlrow.ChunkSize), seq: -1, h: sha256.New()}
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

// loadChunk is sqlrow.LoadChunk: the raw column bytes are copied into
// buf rather than scanned into a new slice per chunk.
func (db *DB) loadChunk(ctx context.Context, key string, seq int, buf []byte) ([]byte, error) {
	rows, err := db.pool.Query(ctx, `SELECT data FROM document_chunks WHERE storage_key = $1 AND seq = $2`, key, seq)
	if err != nil {
		return buf, err
	}
	defer rows.Close()
	if !rows.Next() {
		if err := rows.Err(); err != nil {
			return buf, err
		}
		return buf, errors.New("chunk missing")
	}
	buf = append(buf[:0], rows.RawValues()[0]...)
	rows.Close()
	return buf, rows.Err()
}

// ImportDocument writes one document copied from another database in one
// transaction: its bytes, read from r, under d.StorageKey, then its row
// (cols and row as Import takes them). Nothing is written unless the
// bytes are the size and SHA-256 d states. counsel copy and restore use
// it, into a database that holds nothing else.
func (db *DB) ImportDocument(ctx context.Context, d contract.Document, cols []string, row []any, r io.Reader) error {
	return db.tx(ctx, func(x q) error {
		if err := (contractRows{db}).WriteDocumentBytes(ctx, x, d, d.StorageKey, r); err != nil {
			return err
		}
		return copyRows(ctx, x, "contract_documents", cols, [][]any{row})
	})
}
