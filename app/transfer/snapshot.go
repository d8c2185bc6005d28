package transfer

import (
	"context"
	"database/sql"
	"fmt"
	"io"

	"github.com/jackc/pgx/v5"

	"counsel/adapters/sqlite"
	"counsel/app/stores"
)

// snapshot reads a whole Counsel database as of one moment: on PostgreSQL
// one read-only REPEATABLE READ transaction, on SQLite one read
// transaction (WAL mode gives it the database as of its first read).
// Every row copy, backup and restore read comes from it, so a write
// committed while they run is either wholly in the result or not at all.
type snapshot struct {
	engine string
	pg     pgx.Tx
	pgDB   *stores.Stores // the PostgreSQL source, for its sequences
	lite   *sql.Tx
}

// openSnapshot begins the snapshot of s.
func openSnapshot(ctx context.Context, s *stores.Stores) (*snapshot, error) {
	snap := &snapshot{engine: s.Engine, pgDB: s}
	if s.Postgres() != nil {
		tx, err := s.Postgres().Pool().BeginTx(ctx, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly})
		if err != nil {
			return nil, fmt.Errorf("begin the snapshot: %w", err)
		}
		snap.pg = tx
		// The snapshot is taken at the first statement: take it now.
		var one int
		if err := tx.QueryRow(ctx, `SELECT 1`).Scan(&one); err != nil {
			tx.Rollback(context.Background())
			return nil, fmt.Errorf("begin the snapshot: %w", err)
		}
		return snap, nil
	}
	return snap, snap.beginSQLite(ctx, s.SQLite().Read())
}

// fileSnapshot is the snapshot of a database file opened read-only (a
// backup being restored).
func fileSnapshot(ctx context.Context, f *sqlite.File) (*snapshot, error) {
	snap := &snapshot{engine: "sqlite"}
	return snap, snap.beginSQLite(ctx, f.DB())
}

// beginSQLite begins the read transaction and makes its first read,
// which fixes the snapshot.
func (snap *snapshot) beginSQLite(ctx context.Context, db *sql.DB) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("begin the snapshot: %w", err)
	}
	snap.lite = tx
	var n int64
	if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM settings`).Scan(&n); err != nil {
		tx.Rollback()
		return fmt.Errorf("begin the snapshot: %w", err)
	}
	return nil
}

func (s *snapshot) close() {
	if s.pg != nil {
		s.pg.Rollback(context.Background())
	}
	if s.lite != nil {
		s.lite.Rollback()
	}
}

// count returns the number of rows of table.
func (s *snapshot) count(ctx context.Context, table string) (n int64, err error) {
	q := `SELECT count(*) FROM ` + table
	if s.pg != nil {
		err = s.pg.QueryRow(ctx, q).Scan(&n)
	} else {
		err = s.lite.QueryRowContext(ctx, q).Scan(&n)
	}
	return n, err
}

// rows streams the rows of query, n columns each, as canonical values.
func (s *snapshot) rows(ctx context.Context, query string, n int, each func([]any) error) error {
	if s.pg != nil {
		rows, err := s.pg.Query(ctx, query)
		if err != nil {
			return err
		}
		return eachPG(rows, each)
	}
	rows, err := s.lite.QueryContext(ctx, query)
	if err != nil {
		return err
	}
	return eachSQL(rows, n, each)
}

// eachPG hands each of PostgreSQL's rows to each, and closes them.
func eachPG(rows pgx.Rows, each func([]any) error) error {
	defer rows.Close()
	for rows.Next() {
		vals, err := rows.Values()
		if err != nil {
			return err
		}
		if err := each(vals); err != nil {
			return err
		}
	}
	return rows.Err()
}

// eachSQL hands each of SQLite's rows, n columns, to each, and closes
// them.
func eachSQL(rows *sql.Rows, n int, each func([]any) error) error {
	defer rows.Close()
	for rows.Next() {
		vals := make([]any, n)
		ptrs := make([]any, n)
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			return err
		}
		if err := each(vals); err != nil {
			return err
		}
	}
	return rows.Err()
}

// open reads the bytes stored under key inside the snapshot, one chunk
// at a time (document_chunks, alike on both engines).
func (s *snapshot) open(ctx context.Context, key string) (io.ReadCloser, error) {
	if s.pg != nil {
		rows, err := s.pg.Query(ctx, `SELECT data FROM document_chunks WHERE storage_key = $1 ORDER BY seq`, key)
		if err != nil {
			return nil, err
		}
		return &chunkReader{next: func() ([]byte, bool, error) {
			if !rows.Next() {
				rows.Close()
				return nil, false, rows.Err()
			}
			var b []byte
			return b, true, rows.Scan(&b)
		}, close: rows.Close}, nil
	}
	rows, err := s.lite.QueryContext(ctx, `SELECT data FROM document_chunks WHERE storage_key = ? ORDER BY seq`, key)
	if err != nil {
		return nil, err
	}
	return &chunkReader{next: func() ([]byte, bool, error) {
		if !rows.Next() {
			return nil, false, rows.Err()
		}
		var b []byte
		return b, true, rows.Scan(&b)
	}, close: func() { rows.Close() }}, nil
}

// chunkReader reads a document's chunks in order, holding one at a time.
type chunkReader struct {
	next  func() ([]byte, bool, error)
	close func()
	buf   []byte
	done  bool
}

func (c *chunkReader) Read(p []byte) (int, error) {
	for len(c.buf) == 0 {
		if c.done {
			return 0, io.EOF
		}
		b, ok, err := c.next()
		if err != nil {
			return 0, err
		}
		if !ok {
			c.done = true
			return 0, io.EOF
		}
		c.buf = b
	}
	n := copy(p, c.buf)
	c.buf = c.buf[n:]
	return n, nil
}

func (c *chunkReader) Close() error { c.close(); return nil }

// allTables are copyTables and contract_documents.
func allTables() []copyTable {
	return append(append([]copyTable{}, copyTables...), copyTable{"contract_documents", documentCols})
}

// copyInto copies everything snap sees into the empty database to
// (each document with its bytes) and sets its id sequences past the
// source's.
// It returns the row count per table and the documents' bytes.
func copyInto(ctx context.Context, snap *snapshot, to *stores.Stores, progress io.Writer) (map[string]int64, int64, error) {
	counts := map[string]int64{}
	for _, t := range copyTables {
		n, err := copyTableRows(ctx, snap, to, t, progress)
		if err != nil {
			return nil, 0, fmt.Errorf("copy %s: %w", t.name, err)
		}
		counts[t.name] = n
	}
	n, size, err := copyDocuments(ctx, snap, to, progress)
	if err != nil {
		return nil, 0, fmt.Errorf("copy documents: %w", err)
	}
	counts["contract_documents"] = n
	marks, err := snap.sequences(ctx)
	if err != nil {
		return nil, 0, err
	}
	// A deleted contract's id lives on in the audit trail: never give it
	// again, whatever the source's own mark.
	var audited int64
	if err := snap.rows(ctx, `SELECT coalesce(max(contract_id), 0) FROM contract_audit`, 1, func(v []any) error {
		audited = asInt(v[0])
		return nil
	}); err != nil {
		return nil, 0, err
	}
	marks["contracts"] = max(marks["contracts"], audited)
	if err := setSequences(ctx, to, marks); err != nil {
		return nil, 0, fmt.Errorf("id sequences: %w", err)
	}
	return counts, size, nil
}

// sequences returns the source's id high-water marks by table. On
// PostgreSQL they are read outside the snapshot: sequences are not
// transactional, and a mark past the snapshot's rows only skips ids.
func (s *snapshot) sequences(ctx context.Context) (map[string]int64, error) {
	if s.pg != nil {
		return s.pgDB.Postgres().Sequences(ctx)
	}
	out := map[string]int64{}
	err := s.rows(ctx, `SELECT name, seq FROM sqlite_sequence`, 2, func(v []any) error {
		out[asString(v[0])] = asInt(v[1])
		return nil
	})
	return out, err
}
