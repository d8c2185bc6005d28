package app_test

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"testing"
	"time"

	"github.com/matryer/is"

	"counsel/app"
	"counsel/app/apptest"
	"counsel/domain/account"
)

type backupItem struct {
	Name      string
	CreatedAt time.Time
	Size      int64
	OK        bool
	Error     string
}

// TestScheduledBackups runs the schedule with a short interval (the test
// hook; the setting's minimum is 1m): a backup at each interval, named
// after its UTC time, verified, the newest COUNSEL_BACKUP_KEEP kept, a
// failed attempt listed; GET /api/system/backups lists them newest first
// to system administrators only.
func TestScheduledBackups(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	dir := filepath.Join(t.TempDir(), "backups")
	s := apptest.New(t, func(c *app.Config) {
		c.BackupDir, c.BackupKeep, c.BackupEvery = dir, 2, 50*time.Millisecond
	})
	tok := s.Admin(t)
	_, viewer := s.User(t, account.ContractView)
	list := func() []backupItem {
		var page struct{ Items []backupItem }
		s.Do(t, "GET", "/api/system/backups", tok, nil).Expect(t, 200, "backups").JSON(t, &page)
		return page.Items
	}
	// waitNow waits for the attempt made at the clock's time.
	waitNow := func() []backupItem {
		deadline := time.Now().Add(30 * time.Second)
		for {
			items := list()
			if len(items) > 0 && !items[0].CreatedAt.Before(s.Clock.Now().Truncate(time.Millisecond)) || time.Now().After(deadline) {
				return items
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	is.Equal(len(waitNow()), 1) // the first at start
	for range 3 {               // three intervals later, three more
		s.Clock.Advance(time.Second)
		waitNow()
	}
	items := list()
	is.Equal(len(items), 2) // the newest two kept
	name := regexp.MustCompile(`^counsel-[0-9]{8}T[0-9]{6}Z\.db$`)
	for i, b := range items {
		is.True(name.MatchString(b.Name)) // counsel-YYYYMMDDTHHMMSSZ.db
		is.True(b.OK)                     // written and verified
		is.Equal(b.Error, "")
		info, err := os.Stat(filepath.Join(dir, b.Name))
		is.NoErr(err)
		is.Equal(info.Size(), b.Size)                    // the size listed
		is.Equal(info.Mode().Perm(), os.FileMode(0o600)) // owner-only
		is.Equal(b.Name, "counsel-"+b.CreatedAt.UTC().Format("20060102T150405Z")+".db")
		if i > 0 {
			is.True(b.CreatedAt.Before(items[i-1].CreatedAt)) // newest first
		}
		_, failures, err := app.VerifyBackup(context.Background(), filepath.Join(dir, b.Name), app.VerifyOptions{})
		is.NoErr(err)
		is.Equal(len(failures), 0) // a sound backup
	}
	files, err := os.ReadDir(dir)
	is.NoErr(err)
	is.Equal(len(files), 2) // older files removed

	// A failed attempt: something already has the next backup's name.
	next := "counsel-" + s.Clock.Now().Add(time.Second).UTC().Format("20060102T150405Z") + ".db"
	is.NoErr(os.Mkdir(filepath.Join(dir, next), 0o700))
	s.Clock.Advance(time.Second)
	items = waitNow()
	is.Equal(items[0].Name, next)
	is.True(!items[0].OK && items[0].Error != "") // listed first, with its error

	r := s.Do(t, "GET", "/api/system/backups", viewer, nil)
	is.Equal(r.Status, 403) // not a system administrator
	is.Equal(s.Do(t, "GET", "/api/system/backups", "", nil).Status, 401)
}
