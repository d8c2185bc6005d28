package postgres

import (
	"context"

	"counsel/ports"
)

// BackupLog implements ports.BackupLog.
type BackupLog struct{ db *DB }

var _ ports.BackupLog = (*BackupLog)(nil)

// NewBackupLog returns the backup log of db.
func NewBackupLog(db *DB) *BackupLog { return &BackupLog{db: db} }

// AddBackupRun implements ports.BackupLog.
func (l *BackupLog) AddBackupRun(ctx context.Context, r ports.BackupRun) error {
	// The write transaction, so the run's effects (its security event)
	// commit with it.
	return l.db.tx(ctx, func(x q) error {
		_, err := x.exec(ctx, `INSERT INTO backup_runs (name, created_at, size, ok, error) VALUES (?, ?, ?, ?, ?)
		ON CONFLICT (name) DO UPDATE SET created_at = excluded.created_at, size = excluded.size, ok = excluded.ok, error = excluded.error`,
			r.Name, r.CreatedAt, r.Size, r.OK, r.Error)
		return err
	})
}

// BackupRuns implements ports.BackupLog.
func (l *BackupLog) BackupRuns(ctx context.Context, limit int) ([]ports.BackupRun, error) {
	rows, err := l.db.read().query(ctx, `SELECT name, created_at, size, ok, error FROM backup_runs ORDER BY created_at DESC, name DESC LIMIT ?`, limit)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []ports.BackupRun{}
	for rows.Next() {
		var r ports.BackupRun
		if err := rows.Scan(&r.Name, &r.CreatedAt, &r.Size, &r.OK, &r.Error); err != nil {
			return nil, err
		}
		r.CreatedAt = r.CreatedAt.UTC()
		out = append(out, r)
	}
	return out, rows.Err()
}

// DeleteBackupRuns implements ports.BackupLog.
func (l *BackupLog) DeleteBackupRuns(ctx context.Context, names []string) error {
	if len(names) == 0 {
		return nil
	}
	_, err := l.db.read().exec(ctx, `DELETE FROM backup_runs WHERE name = ANY(?)`, names)
	return err
}
