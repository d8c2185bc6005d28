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
	"counsel/app/transfer"
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
		_, failures, err := transfer.VerifyBackup(context.Background(), filepath.Join(dir, b.Name), transfer.VerifyOptions{})
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

// TestScheduledBackupsOnSeveralInstances runs three instances on one
// database (one SQLite file, or one PostgreSQL database) with one backup
// folder, one clock and a short interval: each interval's backup is
// written once, by one of them, and every instance lists it once.
func TestScheduledBackupsOnSeveralInstances(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	dir := filepath.Join(t.TempDir(), "backups")
	clock := apptest.NewClock(apptest.Start)
	var s []*apptest.Server
	for i := range 3 {
		s = append(s, apptest.New(t, func(c *app.Config) {
			c.BackupDir, c.BackupKeep, c.BackupEvery = dir, 100, 20*time.Millisecond
			c.Clock = clock
			if i > 0 { // the first's database, behind one public address
				c.DB, c.PublicURL = s[0].Config.DB, s[0].Config.PublicURL
			}
		}))
	}
	tok := s[0].Admin(t)
	list := func(srv *apptest.Server) []backupItem {
		var page struct{ Items []backupItem }
		srv.Do(t, "GET", "/api/system/backups", tok, nil).Expect(t, 200, "backups").JSON(t, &page)
		return page.Items
	}
	// waitNow waits for an attempt made at the clock's time.
	waitNow := func() {
		t.Helper()
		deadline := time.Now().Add(2 * time.Minute) // a backup of PostgreSQL under -race and load takes seconds
		for {
			items := list(s[0])
			if len(items) > 0 && !items[0].CreatedAt.Before(clock.Now().Truncate(time.Millisecond)) {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("no backup at %s within 2 minutes", clock.Now())
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	const intervals = 6
	want := []string{}
	for i := range intervals {
		if i > 0 {
			clock.Advance(time.Second) // the next interval, for every instance at once
		}
		waitNow()
		want = append([]string{"counsel-" + clock.Now().UTC().Format("20060102T150405Z") + ".db"}, want...)
		// Every instance looks many times meanwhile (20 ms apart), and
		// finds the backup of this interval written.
		time.Sleep(200 * time.Millisecond)
	}
	var files []string
	entries, err := os.ReadDir(dir)
	is.NoErr(err)
	for _, e := range entries {
		files = append([]string{e.Name()}, files...) // newest first, as listed
	}
	is.Equal(files, want) // one file an interval, nothing half-written beside them
	for _, srv := range s {
		var names []string
		for _, b := range list(srv) {
			is.True(b.OK) // no attempt collided with another's
			names = append(names, b.Name)
		}
		is.Equal(names, want) // each listed once, on every instance
	}
}
