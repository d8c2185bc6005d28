// Package sqlrow holds what Counsel's two SQL engines (adapters/sqlite and
// adapters/postgres) share about their rows: the column lists, the mapping
// of a row to domain values and of domain values to statement arguments,
// and the statement text both engines accept (written with ? placeholders,
// which the PostgreSQL adapter numbers). Transactions, locking and the SQL
// that differs stay in each engine's package.
//
// What the engines store differently comes in through small interfaces:
// Times (SQLite keeps Unix milliseconds, PostgreSQL timestamptz) and
// Dialect (substring search and id lists). Scanning needs only the
// standard library's Scan(dest ...any) error, which *sql.Row, *sql.Rows,
// pgx.Row and pgx.Rows all offer; nullable columns are read into the
// database/sql Null types, which pgx fills through their Scan methods.
//
// Only adapters/sqlite and adapters/postgres import this package, and it
// imports only domain, ports and the standard library (app/arch_test.go).
package sqlrow

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"counsel/domain"
	"counsel/domain/account"
	"counsel/domain/decimal"
	"counsel/domain/remuneration"
)

// Scanner reads one row: *sql.Row, *sql.Rows, pgx.Row or pgx.Rows.
type Scanner interface{ Scan(dest ...any) error }

// Rows is a result set being read: *sql.Rows or pgx.Rows. The caller
// closes it (their Close methods differ).
type Rows interface {
	Scanner
	Next() bool
	Err() error
}

// Collect reads every row of rows with scan. The list is empty, not nil,
// when there is none (the API answers [] rather than null).
func Collect[T any](rows Rows, scan func(Scanner) (T, error)) ([]T, error) {
	out := []T{}
	for rows.Next() {
		v, err := scan(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, rows.Err()
}

// ID scans a row's one integer column.
func ID(row Scanner) (int64, error) {
	var id int64
	err := row.Scan(&id)
	return id, err
}

// NoRows reports whether err says a one-row query found nothing (pgx's
// ErrNoRows matches sql.ErrNoRows too).
func NoRows(err error) bool { return errors.Is(err, sql.ErrNoRows) }

// NotFound is the ENOTFOUND error for a missing record.
func NotFound(what string) error {
	return &domain.Error{Code: domain.ENOTFOUND, Message: what + " not found"}
}

// NotFoundID is NotFound naming the record's id ("role 3 not found").
func NotFoundID(what string, id int64) error {
	return &domain.Error{Code: domain.ENOTFOUND, Message: fmt.Sprintf("%s %d not found", what, id)}
}

// IfNoRows turns "no rows" into NotFound(what) and leaves other errors.
func IfNoRows(err error, what string) error {
	if NoRows(err) {
		return NotFound(what)
	}
	return err
}

// Times is an engine's storage of timestamps: SQLite keeps UTC Unix
// milliseconds in INTEGER columns, PostgreSQL timestamptz.
type Times interface {
	// Arg encodes t as a statement argument.
	Arg(t time.Time) any
	// Decode reads what the driver scanned from a timestamp column
	// (never nil); the result is in UTC.
	Decode(src any) (time.Time, error)
}

// NullArg encodes an optional time: NULL for nil or the zero time.
func NullArg(tc Times, t *time.Time) any {
	if t == nil || t.IsZero() {
		return nil
	}
	return tc.Arg(*t)
}

// Time is a scan destination that decodes a NOT NULL timestamp into *t.
func Time(tc Times, t *time.Time) any { return timeDest{tc, t} }

// NullTime is a scan destination that decodes an optional timestamp into
// *t (nil for NULL).
func NullTime(tc Times, t **time.Time) any { return nullTimeDest{tc, t} }

type timeDest struct {
	tc Times
	t  *time.Time
}

func (d timeDest) Scan(src any) error {
	if src == nil {
		return errors.New("NULL in a timestamp column that is never NULL")
	}
	v, err := d.tc.Decode(src)
	*d.t = v
	return err
}

type nullTimeDest struct {
	tc Times
	t  **time.Time
}

func (d nullTimeDest) Scan(src any) error {
	if src == nil {
		*d.t = nil
		return nil
	}
	v, err := d.tc.Decode(src)
	if err != nil {
		return err
	}
	*d.t = &v
	return nil
}

// Dialect is what differs between the engines in the statements the
// shared builders write, and how they store times.
type Dialect interface {
	Times
	// Contains returns a condition that col, an ASCII-folded search key,
	// holds term (folded alike) as a substring, and its argument.
	Contains(col, term string) (cond string, arg any)
	// In returns a condition that col is one of ids (at least one), and
	// its arguments.
	In(col string, ids []int64) (cond string, args []any)
	// FormatError turns the engine's constraint violations into domain
	// errors (ECONFLICT for a unique value, ENOTFOUND for a missing
	// reference) and leaves other errors alone.
	FormatError(err error) error
	// Fold returns col as the engine sorts text ASCII case folded (the
	// expression its indexes are built on).
	Fold(col string) string
	// IsTrue returns the condition that the boolean col holds, written as
	// the engine's partial indexes on it are (col = 1 on SQLite).
	IsTrue(col string) string
	// IndexedBy returns the clause, after a table's name, that makes the
	// engine read index (SQLite's INDEXED BY), or "" where the planner
	// finds it by the query's conditions alone.
	IndexedBy(index string) string
	// LockedUntil encodes the end of a sign-in lock, the zero time as the
	// schema stores "not locked" (0 on SQLite, NULL on PostgreSQL).
	LockedUntil(t time.Time) any
}

// SaveCounters writes a user's sign-in failure count and lock.
func SaveCounters(ctx context.Context, x Querier, d Dialect, userID int64, c account.Credentials) error {
	_, err := x.Exec(ctx, `UPDATE users SET failed_logins = ?, locked_until = ? WHERE id = ?`,
		c.FailedLogins, d.LockedUntil(c.LockedUntil), userID)
	return err
}

// Storage scales of the fixed-point INTEGER (bigint) columns.
const (
	CentPlaces    = remuneration.MoneyPlaces   // money: cents
	FTEPlaces     = remuneration.FTEPlaces     // fte_load: ten-thousandths
	PercentPlaces = remuneration.PercentPlaces // billable_percentage: hundredths
	PQYPlaces     = remuneration.PQYPlaces     // pqy: hundredths
)

// Scaled encodes d as an integer with places fraction digits. Inputs are
// validated and rounded before they get here, so a value that does not
// fit is a bug, reported rather than silently truncated.
func Scaled(field string, d decimal.Decimal, places int32) (int64, error) {
	v, ok := d.Round(places).Scaled(places)
	if !ok {
		return 0, fmt.Errorf("%s %s does not fit the column", field, d)
	}
	return v, nil
}

// Money decodes a stored amount of cents.
func Money(v int64) decimal.Decimal { return decimal.FromScaled(v, CentPlaces) }

// Violation is the kind of constraint an engine's error reports broken.
type Violation int

// The violations FormatError turns into domain errors.
const (
	NoViolation      Violation = iota
	UniqueViolation            // ECONFLICT
	MissingReference           // ENOTFOUND: a foreign key refers to no row
	NULInText                  // EINVALID: text that cannot hold NUL
)

// FormatError turns the broken constraint violation finds in err into a
// domain error, and leaves *domain.Error values and other errors alone.
func FormatError(err error, violation func(error) Violation) error {
	if err == nil {
		return nil
	}
	var de *domain.Error
	if errors.As(err, &de) {
		return err
	}
	switch violation(err) {
	case UniqueViolation:
		return &domain.Error{Code: domain.ECONFLICT, Message: "a record with the same unique value already exists", Err: err}
	case MissingReference:
		return &domain.Error{Code: domain.ENOTFOUND, Message: "a referenced record does not exist", Err: err}
	case NULInText:
		return &domain.Error{Code: domain.EINVALID, Message: "text must not contain NUL characters", Err: err}
	}
	return err
}
