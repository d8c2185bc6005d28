package app

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"time"

	"counsel/adapters/metrics"
	"counsel/app/transfer"
	"counsel/domain/audit"
	"counsel/ports"
)

// Scheduled backups (COUNSEL_BACKUP_DIR): every COUNSEL_BACKUP_INTERVAL
// one instance writes counsel-YYYYMMDDTHHMMSSZ.db (UTC) there with
// Backup's snapshot, verifies it as `counsel backup --verify` does,
// records the attempt in backup_runs (listed by GET /api/system/backups)
// and keeps the newest COUNSEL_BACKUP_KEEP files. A file that fails
// verification is removed and its attempt recorded as failed.
//
// The schedule is kept in the database: each instance looks every
// minute (or every interval, when shorter) whether the newest attempt is
// an interval old, and the one holding the advisory lock writes the next.
// A restart therefore neither skips a backup nor makes an extra one.

// backupName is the name of a scheduled backup file.
var backupName = regexp.MustCompile(`^counsel-[0-9]{8}T[0-9]{6}Z\.db$`)

// backupInterval is the schedule's interval: the test hook's when set.
func (a *App) backupInterval() time.Duration {
	if a.cfg.BackupEvery > 0 {
		return a.cfg.BackupEvery
	}
	return a.cfg.BackupInterval
}

// scheduleBackups starts the schedule when COUNSEL_BACKUP_DIR is set.
func (a *App) scheduleBackups() error {
	if a.cfg.BackupDir == "" {
		return nil
	}
	if err := os.MkdirAll(a.cfg.BackupDir, 0o700); err != nil {
		return fmt.Errorf("COUNSEL_BACKUP_DIR: %w", err)
	}
	if err := os.Chmod(a.cfg.BackupDir, 0o700); err != nil {
		return fmt.Errorf("COUNSEL_BACKUP_DIR: %w", err)
	}
	look := min(a.backupInterval(), time.Minute)
	a.every(look, a.counted("scheduled backup", a.exclusive("scheduled-backup", a.tracked(metrics.JobBackup, a.backupIfDue))))
	return nil
}

// backupIfDue writes a backup when the newest attempt is an interval old
// (or there is none), and returns 1 when it wrote one.
func (a *App) backupIfDue(ctx context.Context) (int, error) {
	now := a.cfg.Clock.Now().UTC()
	runs, err := a.db.BackupLog.BackupRuns(ctx, 1)
	if err != nil {
		return 0, err
	}
	// A little slack: a tick that comes a moment early is not skipped.
	if len(runs) > 0 && now.Sub(runs[0].CreatedAt) < a.backupInterval()-a.backupInterval()/20 {
		return 0, nil
	}
	run := a.scheduledBackup(ctx, now)
	var pruneErr error
	if run.OK { // before the new attempt is listed, so a list never shows more than kept
		pruneErr = a.pruneBackups(ctx)
	}
	if run.OK {
		var fx *ports.Effects
		ctx, fx = ports.WithEffects(ctx)
		fx.Add(ports.Audit(ctx, audit.BackupWritten, audit.TargetDatabase, "", map[string]any{"name": run.Name, "size": run.Size}))
	}
	if err := a.db.BackupLog.AddBackupRun(ctx, run); err != nil {
		return 0, errors.Join(err, pruneErr)
	}
	if !run.OK {
		return 0, fmt.Errorf("%s: %s", run.Name, run.Error)
	}
	a.metrics.BackupSucceeded(run.CreatedAt)
	return 1, pruneErr
}

// scheduledBackup writes and verifies one backup named after now.
func (a *App) scheduledBackup(ctx context.Context, now time.Time) ports.BackupRun {
	run := ports.BackupRun{Name: "counsel-" + now.Format("20060102T150405Z") + ".db", CreatedAt: now}
	path := filepath.Join(a.cfg.BackupDir, run.Name)
	if _, err := transfer.BackupStores(ctx, a.db, path, transfer.BackupOptions{}); err != nil {
		run.Error = err.Error()
		return run
	}
	_, failures, err := transfer.VerifyBackup(ctx, path, transfer.VerifyOptions{PDFCert: a.cfg.PDFCert, PDFKey: a.cfg.PDFKey})
	if err == nil && len(failures) > 0 {
		err = errors.New("verification failed: " + strings.Join(failures, "; "))
	}
	if err != nil {
		os.Remove(path)
		run.Error = err.Error()
		return run
	}
	if info, err := os.Stat(path); err == nil {
		run.Size = info.Size()
	}
	run.OK = true
	return run
}

// pruneBackups keeps the newest COUNSEL_BACKUP_KEEP backup files of the
// folder (by name, which sorts by time) and as many failed attempts in
// the log, and forgets the rest.
func (a *App) pruneBackups(ctx context.Context) error {
	entries, err := os.ReadDir(a.cfg.BackupDir)
	if err != nil {
		return err
	}
	var files []string
	for _, e := range entries {
		if e.Type().IsRegular() && backupName.MatchString(e.Name()) {
			files = append(files, e.Name())
		}
	}
	sort.Sort(sort.Reverse(sort.StringSlice(files)))
	var gone []string
	for _, f := range files[min(len(files), a.cfg.BackupKeep):] {
		if err := os.Remove(filepath.Join(a.cfg.BackupDir, f)); err != nil {
			return err
		}
		gone = append(gone, f)
	}
	runs, err := a.db.BackupLog.BackupRuns(ctx, 10000)
	if err != nil {
		return err
	}
	kept := map[string]bool{}
	for _, f := range files[:min(len(files), a.cfg.BackupKeep)] {
		kept[f] = true
	}
	failed := 0
	for _, r := range runs {
		switch {
		case r.OK && !kept[r.Name]:
			gone = append(gone, r.Name)
		case !r.OK:
			if failed++; failed > a.cfg.BackupKeep {
				gone = append(gone, r.Name)
			}
		}
	}
	return a.db.BackupLog.DeleteBackupRuns(ctx, gone)
}
