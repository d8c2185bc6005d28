package postgres

import (
	"context"

	"github.com/jackc/pgx/v5"
)

// QueryRow runs a one-row read written with ? placeholders: tests look at
// rows no port shows.
func (db *DB) QueryRow(ctx context.Context, query string, args ...any) pgx.Row {
	return db.read().row(ctx, query, args...)
}
