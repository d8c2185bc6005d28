package sqlite

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"counsel/domain/contract"

	"counsel/adapters/sqlrow"
)

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
		if !strings.HasPrefix(e.Name(), sqlrow.SpoolPrefix) && !strings.HasPrefix(e.Name(), "upload-") {
			continue
		}
		if info, err := e.Info(); err == nil && time.Since(info.ModTime()) > staleSpool {
			os.Remove(filepath.Join(dir, e.Name()))
		}
	}
	return nil
}

// WriteDocumentBytes implements sqlrow.ContractRows.
func (r contractRows) WriteDocumentBytes(ctx context.Context, x sqlrow.Querier, d contract.Document, key string, body io.Reader) error {
	tx, err := writeTxOf(x)
	if err != nil {
		return err
	}
	size, sum, err := writeBlob(ctx, tx, key, body, ms(r.db.Now()))
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
	buf := make([]byte, sqlrow.ChunkSize)
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
		if n < sqlrow.ChunkSize {
			break
		}
	}
	if _, err := tx.ExecContext(ctx, `UPDATE document_blobs SET size = ? WHERE storage_key = ?`, size, key); err != nil {
		return 0, "", err
	}
	return size, hex.EncodeToString(h.Sum(nil)), nil
}

// loadChunk is sqlrow.LoadChunk: the column is copied from the driver's
// memory into buf rather than kept as a new slice per chunk.
func (db *DB) loadChunk(ctx context.Context, key string, seq int, buf []byte) ([]byte, error) {
	rows, err := db.read.QueryContext(ctx, `SELECT data FROM document_chunks WHERE storage_key = ? AND seq = ?`, key, seq)
	if err != nil {
		return buf, formatError(err)
	}
	defer rows.Close()
	if !rows.Next() {
		if err := rows.Err(); err != nil {
			return buf, formatError(err)
		}
		return buf, errors.New("chunk missing")
	}
	var raw sql.RawBytes
	if err := rows.Scan(&raw); err != nil {
		return buf, err
	}
	buf = append(buf[:0], raw...)
	rows.Close()
	return buf, rows.Err()
}

// ImportDocument writes one document copied from another database in one
// transaction: its bytes, read from r, under d.StorageKey, then its row
// (cols and row as Import takes them). Nothing is written unless the
// bytes are the size and SHA-256 d states. counsel copy and restore use
// it, into a database that holds nothing else.
func (db *DB) ImportDocument(ctx context.Context, d contract.Document, cols []string, row []any, r io.Reader) error {
	return db.writeTx(ctx, func(tx *sql.Tx) error {
		if err := (contractRows{db}).WriteDocumentBytes(ctx, sq{tx}, d, d.StorageKey, r); err != nil {
			return err
		}
		return insertRows(ctx, tx, "contract_documents", cols, [][]any{row})
	})
}
