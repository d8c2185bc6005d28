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
)

// MovedDocuments is what MoveDocumentFiles moved.
type MovedDocuments struct {
	Count int
	Bytes int64
	// Folder holds the files moved, which the database no longer needs.
	Folder string
}

// fileDocument is a document row whose bytes are still a file.
type fileDocument struct {
	id, contractID int64
	name, sum, key string
	size           int64
}

// MoveDocumentFiles moves the documents that a database of the older
// layout kept as files, dir/documents/<storage key> (dir is
// COUNSEL_DATA_DIR), into the database: every document row without its
// bytes in document_blobs gets them from its file.
//
// First every file is read and checked against its row's size and
// SHA-256; a file missing or different stops the move before anything is
// written, with an error naming the document and the file. Then each
// file is written in a transaction of its own, hashed again on the way
// in and rolled back if it changed meanwhile, so a move interrupted
// half-way leaves only documents whose bytes are complete, and the next
// start moves the rest. The files are left where they are.
func (db *DB) MoveDocumentFiles(ctx context.Context, dir string) (MovedDocuments, error) {
	out := MovedDocuments{Folder: filepath.Join(dir, "documents")}
	var docs []fileDocument
	rows, err := db.read.QueryContext(ctx, `SELECT d.id, d.contract_id, d.file_name, d.size, d.sha256, d.storage_key
		FROM contract_documents d
		WHERE NOT EXISTS (SELECT 1 FROM document_blobs b WHERE b.storage_key = d.storage_key)
		ORDER BY d.id`)
	if err != nil {
		return out, formatError(err)
	}
	for rows.Next() {
		var d fileDocument
		if err := rows.Scan(&d.id, &d.contractID, &d.name, &d.size, &d.sum, &d.key); err != nil {
			rows.Close()
			return out, err
		}
		docs = append(docs, d)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return out, formatError(err)
	}
	if len(docs) == 0 {
		return out, nil
	}
	for _, d := range docs {
		if err := checkDocumentFile(out.Folder, d); err != nil {
			return out, fmt.Errorf("%w; no document was moved into the database", err)
		}
	}
	for _, d := range docs {
		if err := db.moveDocumentFile(ctx, out.Folder, d); err != nil {
			return out, err
		}
		out.Count++
		out.Bytes += d.size
	}
	return out, nil
}

// describe names a document in an error.
func (d fileDocument) describe(path string) string {
	return fmt.Sprintf("document %d of contract %d (%q): file %s", d.id, d.contractID, d.name, path)
}

// documentPath is the file of d, refusing a key that is not one the
// document folder made (32 lower-case hex digits), so no row can name a
// file outside the folder.
func documentPath(folder string, d fileDocument) (string, error) {
	ok := len(d.key) == 32
	for i := 0; ok && i < len(d.key); i++ {
		c := d.key[i]
		ok = c >= '0' && c <= '9' || c >= 'a' && c <= 'f'
	}
	if !ok {
		return "", fmt.Errorf("document %d of contract %d (%q): storage key %q names no file", d.id, d.contractID, d.name, d.key)
	}
	return filepath.Join(folder, d.key), nil
}

// checkDocumentFile reads d's file and checks its size and SHA-256.
func checkDocumentFile(folder string, d fileDocument) error {
	path, err := documentPath(folder, d)
	if err != nil {
		return err
	}
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("%s is missing", d.describe(path))
	} else if err != nil {
		return fmt.Errorf("%s: %w", d.describe(path), err)
	}
	defer f.Close()
	h := sha256.New()
	n, err := io.Copy(h, f)
	if err != nil {
		return fmt.Errorf("%s: %w", d.describe(path), err)
	}
	if sum := hex.EncodeToString(h.Sum(nil)); n != d.size || sum != d.sum {
		return fmt.Errorf("%s differs from its record (%d bytes, sha256 %s; the record says %d bytes, sha256 %s)",
			d.describe(path), n, sum, d.size, d.sum)
	}
	return nil
}

// moveDocumentFile writes d's file into the database in one transaction,
// which it rolls back if the bytes no longer match the row.
func (db *DB) moveDocumentFile(ctx context.Context, folder string, d fileDocument) error {
	path, err := documentPath(folder, d)
	if err != nil {
		return err
	}
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("%s: %w", d.describe(path), err)
	}
	defer f.Close()
	return db.writeTx(ctx, func(tx *sql.Tx) error {
		n, sum, err := writeBlob(ctx, tx, d.key, f, ms(db.Now()))
		if err != nil {
			return fmt.Errorf("%s: %w", d.describe(path), err)
		}
		if n != d.size || sum != d.sum {
			return fmt.Errorf("%s changed while it was moved into the database (%d bytes, sha256 %s; the record says %d bytes, sha256 %s)", d.describe(path), n, sum, d.size, d.sum)
		}
		return nil
	})
}
