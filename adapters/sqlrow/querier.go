package sqlrow

import (
	"context"
	"strings"
)

// Querier runs statements written with ? placeholders on one engine's
// pool or transaction: the shared store functions below take one, and
// the engine chooses the transaction, its isolation and its locks.
type Querier interface {
	Row(ctx context.Context, query string, args ...any) Scanner
	Query(ctx context.Context, query string, args ...any) (ClosingRows, error)
	// Exec runs a statement and returns the number of rows it changed.
	Exec(ctx context.Context, query string, args ...any) (int64, error)
	// Insert runs an INSERT into a table with an integer id and returns
	// the new row's id.
	Insert(ctx context.Context, query string, args ...any) (int64, error)
}

// ClosingRows is a result set its reader closes.
type ClosingRows interface {
	Rows
	Close()
}

// QueryAll runs query and reads every row with scan.
func QueryAll[T any](ctx context.Context, x Querier, scan func(Scanner) (T, error), query string, args ...any) ([]T, error) {
	rows, err := x.Query(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	return Collect(rows, scan)
}

// Exists returns ENOTFOUND (what) unless query finds a row.
func Exists(ctx context.Context, x Querier, what, query string, args ...any) error {
	var one int
	return IfNoRows(x.Row(ctx, query, args...).Scan(&one), what)
}

// UserExists returns ENOTFOUND unless the user is there and not deleted.
func UserExists(ctx context.Context, x Querier, userID int64) error {
	return Exists(ctx, x, "user", `SELECT 1 FROM users WHERE id = ? AND deleted_at IS NULL`, userID)
}

// OfficeExists returns ENOTFOUND, naming the id, unless the office is
// there.
func OfficeExists(ctx context.Context, x Querier, id int64) error {
	var one int
	err := x.Row(ctx, `SELECT 1 FROM offices WHERE id = ?`, id).Scan(&one)
	if NoRows(err) {
		return NotFoundID("office", id)
	}
	return err
}

// Placeholders returns n comma-separated question marks.
func Placeholders(n int) string {
	return strings.TrimSuffix(strings.Repeat("?,", n), ",")
}
