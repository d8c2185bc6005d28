package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"time"

	"counsel/adapters/sqlrow"
)

// The small helpers every store shares, in one place.

// queryer is what *sql.DB, *sql.Tx and reader offer for reads.
type queryer interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// placeholders returns n comma-separated question marks.
func placeholders(n int) string {
	return strings.TrimSuffix(strings.Repeat("?,", n), ",")
}

// intArgs turns ids or enumerated values into query arguments (int64).
func intArgs[T ~int | ~int64](vs []T) []any {
	out := make([]any, len(vs))
	for i, v := range vs {
		out[i] = int64(v)
	}
	return out
}

// readTx runs fn in a transaction on the read pool, so that a count and
// its page see the same snapshot.
func (db *DB) readTx(ctx context.Context, fn func(*sql.Tx) error) error {
	tx, err := db.read.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if err := fn(tx); err != nil {
		return err
	}
	return tx.Commit()
}

// scanIDs reads the one integer column of rows and closes them.
func scanIDs(rows *sql.Rows) ([]int64, error) {
	defer rows.Close()
	var ids []int64
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		ids = append(ids, id)
	}
	return ids, rows.Err()
}

// dialect is SQLite's side of the rows shared with PostgreSQL (package
// sqlrow): times as UTC Unix milliseconds, GLOB for substrings, IN lists.
type dialect struct{}

var _ sqlrow.Dialect = dialect{}

func (dialect) Arg(t time.Time) any { return ms(t) }

// OneOf is an IN list of the codes.
func (dialect) OneOf(col string, codes []int) (string, []any) {
	return col + ` IN (` + placeholders(len(codes)) + `)`, intArgs(codes)
}

func (dialect) Decode(src any) (time.Time, error) {
	v, ok := src.(int64)
	if !ok {
		return time.Time{}, fmt.Errorf("a timestamp stored as %T", src)
	}
	return fromMs(v), nil
}

// Contains uses GLOB, case-sensitive on keys and terms that are both
// folded already: a fifth of instr's cost per row in a full scan.
func (dialect) Contains(col, term string) (string, any) {
	return col + " GLOB ?", "*" + globEscape(term) + "*"
}

func (dialect) In(col string, ids []int64) (string, []any) {
	return col + " IN (" + placeholders(len(ids)) + ")", intArgs(ids)
}

// sq is a sqlrow.Querier over a transaction, a pool or reader.
type sq struct{ q queryer }

var _ sqlrow.Querier = sq{}

type execer interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
}

func (x sq) Row(ctx context.Context, query string, args ...any) sqlrow.Scanner {
	return x.q.QueryRowContext(ctx, query, args...)
}

func (x sq) Query(ctx context.Context, query string, args ...any) (sqlrow.ClosingRows, error) {
	rows, err := x.q.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	return sqlRows{rows}, nil
}

func (x sq) exec(ctx context.Context, query string, args ...any) (sql.Result, error) {
	e, ok := x.q.(execer)
	if !ok {
		return nil, fmt.Errorf("a write on the read pool: %.40s", query)
	}
	return e.ExecContext(ctx, query, args...)
}

func (x sq) Exec(ctx context.Context, query string, args ...any) (int64, error) {
	res, err := x.exec(ctx, query, args...)
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}

func (x sq) Insert(ctx context.Context, query string, args ...any) (int64, error) {
	res, err := x.exec(ctx, query, args...)
	if err != nil {
		return 0, err
	}
	return res.LastInsertId()
}

// sqlRows gives *sql.Rows the Close of sqlrow.ClosingRows.
type sqlRows struct{ *sql.Rows }

func (r sqlRows) Close() { r.Rows.Close() }

func (dialect) FormatError(err error) error { return formatError(err) }

func (dialect) LockedUntil(t time.Time) any {
	if t.IsZero() {
		return int64(0)
	}
	return ms(t)
}

func (dialect) Fold(col string) string { return col + " COLLATE NOCASE" }

func (dialect) IsTrue(col string) string { return col + " = 1" }

func (dialect) IndexedBy(index string) string { return " INDEXED BY " + index }

// LockRow is empty: a write transaction is the file's only writer.
func (dialect) LockRow() string { return "" }
