package sqlite

import (
	"context"
	"database/sql"
	"time"

	"counsel/ports"
)

// BackupLog implements ports.BackupLog.
type BackupLog struct{ db *DB }

var _ ports.BackupLog = (*BackupLog)(nil)

// NewBackupLog returns the backup log of db.
func NewBackupLog(db *DB) *BackupLog { return &BackupLog{db: db} }

// AddBackupRun implements ports.BackupLog.
func (l *BackupLog) AddBackupRun(ctx context.Context, r ports.BackupRun) error {
	return l.db.writeTx(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT OR REPLACE INTO backup_runs (name, created_at, size, ok, error) VALUES (?, ?, ?, ?, ?)`,
			r.Name, ms(r.CreatedAt), r.Size, r.OK, r.Error)
		return err
	})
}

// BackupRuns implements ports.BackupLog.
func (l *BackupLog) BackupRuns(ctx context.Context, limit int) ([]ports.BackupRun, error) {
	rows, err := l.db.read.QueryContext(ctx, `SELECT name, created_at, size, ok, error FROM backup_runs ORDER BY created_at DESC, name DESC LIMIT ?`, limit)
	if err != nil {
		return nil, formatError(err)
	}
	defer rows.Close()
	out := []ports.BackupRun{}
	for rows.Next() {
		var r ports.BackupRun
		var at int64
		if err := rows.Scan(&r.Name, &at, &r.Size, &r.OK, &r.Error); err != nil {
			return nil, err
		}
		r.CreatedAt = time.UnixMilli(at).UTC()
		out = append(out, r)
	}
	return out, rows.Err()
}

// DeleteBackupRuns implements ports.BackupLog.
func (l *BackupLog) DeleteBackupRuns(ctx context.Context, names []string) error {
	return l.db.writeTx(ctx, func(tx *sql.Tx) error {
		for _, n := range names {
			if _, err := tx.ExecContext(ctx, `DELETE FROM backup_runs WHERE name = ?`, n); err != nil {
				return err
			}
		}
		return nil
	})
}
