package sqlite

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"os"
)

// File is a Counsel database file opened read-only, as counsel backup
// --verify and restore look at a backup: nothing is migrated, checkpointed
// or otherwise written to it.
type File struct {
	path string
	db   *sql.DB
}

// OpenFile opens the database file at path read-only. A missing file is
// an error (SQLite would otherwise create it).
func OpenFile(path string) (*File, error) {
	if _, err := os.Stat(path); err != nil {
		return nil, err
	}
	db, err := sql.Open("sqlite", "file:"+uriPath.Replace(path)+"?mode=ro&_pragma=busy_timeout(10000)")
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(2)
	return &File{path: path, db: db}, nil
}

// DB returns the file's read-only pool.
func (f *File) DB() *sql.DB { return f.db }

// Close closes the file.
func (f *File) Close() error { return f.db.Close() }

// IntegrityCheck runs PRAGMA integrity_check and returns its findings;
// none when the file is sound.
func (f *File) IntegrityCheck(ctx context.Context) ([]string, error) {
	rows, err := f.db.QueryContext(ctx, `PRAGMA integrity_check`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			return nil, err
		}
		if s != "ok" {
			out = append(out, s)
		}
	}
	return out, rows.Err()
}

// Tables returns the names of the file's tables.
func (f *File) Tables(ctx context.Context) (map[string]bool, error) {
	rows, err := f.db.QueryContext(ctx, `SELECT name FROM sqlite_schema WHERE type = 'table'`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]bool{}
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			return nil, err
		}
		out[s] = true
	}
	return out, rows.Err()
}

// Count returns the number of rows of table (a name from the code, never
// from input).
func (f *File) Count(ctx context.Context, table string) (n int64, err error) {
	err = f.db.QueryRowContext(ctx, `SELECT count(*) FROM "`+table+`"`).Scan(&n)
	return n, err
}

// Setting returns a row of settings, nil when there is none.
func (f *File) Setting(ctx context.Context, name string) ([]byte, error) {
	var v []byte
	err := f.db.QueryRowContext(ctx, `SELECT value FROM settings WHERE name = ?`, name).Scan(&v)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	return v, err
}

// FileDocument is a contract document's row.
type FileDocument struct {
	ID         int64
	ContractID int64
	FileName   string
	Size       int64
	SHA256     string
	StorageKey string
	Kind       string
}

// Documents calls each for every contract document's row, in id order.
func (f *File) Documents(ctx context.Context, each func(FileDocument) error) error {
	rows, err := f.db.QueryContext(ctx, `SELECT id, contract_id, file_name, size, sha256, storage_key, kind FROM contract_documents ORDER BY id`)
	if err != nil {
		return err
	}
	defer rows.Close()
	var docs []FileDocument
	for rows.Next() {
		var d FileDocument
		if err := rows.Scan(&d.ID, &d.ContractID, &d.FileName, &d.Size, &d.SHA256, &d.StorageKey, &d.Kind); err != nil {
			return err
		}
		docs = append(docs, d)
	}
	if err := rows.Err(); err != nil {
		return err
	}
	for _, d := range docs {
		if err := each(d); err != nil {
			return err
		}
	}
	return nil
}

// OpenDocument reads the bytes stored in the file under key, a chunk at
// a time.
func (f *File) OpenDocument(ctx context.Context, key string) (io.ReadCloser, error) {
	rows, err := f.db.QueryContext(ctx, `SELECT data FROM document_chunks WHERE storage_key = ? ORDER BY seq`, key)
	if err != nil {
		return nil, fmt.Errorf("the file holds no document bytes: %w", err)
	}
	return &rowChunks{rows: rows}, nil
}

type rowChunks struct {
	rows *sql.Rows
	buf  []byte
	done bool
}

func (c *rowChunks) Read(p []byte) (int, error) {
	for len(c.buf) == 0 {
		if c.done {
			return 0, io.EOF
		}
		if !c.rows.Next() {
			c.done = true
			if err := c.rows.Err(); err != nil {
				return 0, err
			}
			return 0, io.EOF
		}
		c.buf = c.buf[:0]
		var b []byte
		if err := c.rows.Scan(&b); err != nil {
			return 0, err
		}
		c.buf = bytes.Clone(b)
	}
	n := copy(p, c.buf)
	c.buf = c.buf[n:]
	return n, nil
}

func (c *rowChunks) Close() error { return c.rows.Close() }

// SingleFile makes the database at path one self-contained file in
// rollback-journal mode: no WAL beside it, so a copy of the file alone is
// the whole database and read-only tools open it as is.
func SingleFile(ctx context.Context, path string) error {
	db, err := sql.Open("sqlite", "file:"+uriPath.Replace(path)+"?_pragma=busy_timeout(10000)")
	if err != nil {
		return err
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	var mode string
	if err := db.QueryRowContext(ctx, `PRAGMA journal_mode = DELETE`).Scan(&mode); err != nil {
		return fmt.Errorf("%s: journal mode: %w", path, err)
	}
	if mode != "delete" {
		return fmt.Errorf("%s: journal mode stays %s", path, mode)
	}
	return nil
}
