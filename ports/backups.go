package ports

import (
	"context"
	"time"
)

// BackupRun is one scheduled backup attempt: the file it wrote (or meant
// to write) in COUNSEL_BACKUP_DIR, when, its size, and whether it was
// written and verified, with the error when not.
type BackupRun struct {
	Name      string
	CreatedAt time.Time
	Size      int64
	OK        bool
	Error     string
}

// BackupLog records scheduled backup attempts in the database, so every
// instance lists the same and the schedule knows when the last one ran.
type BackupLog interface {
	// AddBackupRun records an attempt.
	AddBackupRun(ctx context.Context, r BackupRun) error
	// BackupRuns returns up to limit attempts, newest first.
	BackupRuns(ctx context.Context, limit int) ([]BackupRun, error)
	// DeleteBackupRuns forgets the attempts named.
	DeleteBackupRuns(ctx context.Context, names []string) error
}

// BackupService lists the scheduled backups to system administrators.
type BackupService interface {
	Backups(ctx context.Context) ([]BackupRun, error)
}
