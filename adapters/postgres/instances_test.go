package postgres

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"log/slog"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/matryer/is"

	"counsel/adapters/postgres/pgtest"
	"counsel/domain/account"
	"counsel/domain/user"
	"counsel/ports/porttest"
)

// TestListenReconnects kills the change listener's backend with
// pg_terminate_backend and holds it down: notifications sent meanwhile are
// lost, and the profile cache's re-check (profileTTL) still bounds how
// stale it gets. Let go, the listener reconnects, catches up (one
// "profiles" change, for what it missed), and a NOTIFY invalidates again.
func TestListenReconnects(t *testing.T) {
	is := is.New(t)
	ctx := context.Background()
	url := pgtest.URL(t)
	var b [6]byte
	rand.Read(b[:])
	name := "counsel-listen-" + hex.EncodeToString(b[:])
	open := func(url string) *DB {
		db, err := Open(ctx, url)
		is.NoErr(err)
		t.Cleanup(func() { db.Close() })
		return db
	}
	a, other := open(url+"&application_name="+name), open(url) // two instances; a's listener is killed
	var now atomic.Int64
	now.Store(porttest.T0.UnixNano())
	a.Now = func() time.Time { return time.Unix(0, now.Load()).UTC() }
	var down atomic.Bool
	a.connectListener = func(ctx context.Context, c *pgx.ConnConfig) (*pgx.Conn, error) {
		if down.Load() {
			return nil, errors.New("held down by the test")
		}
		return pgx.ConnectConfig(ctx, c)
	}
	_, err := other.Stores().Accounts.Bootstrap(ctx, account.NewUser{Email: "admin@example.com", PasswordHash: "h", FirstName: "First"})
	is.NoErr(err)

	heard := make(chan string, 64)
	lctx, stop := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		a.Listen(lctx, slog.New(slog.DiscardHandler), func(p string) { heard <- p })
	}()
	t.Cleanup(func() { stop(); <-done })

	listener := func() int32 { // a's listening backend, 0 if none
		var pid int32
		err := other.pool.QueryRow(ctx, `SELECT coalesce(max(pid), 0) FROM pg_stat_activity
			WHERE application_name = $1 AND query = 'LISTEN `+channel+`'`, name).Scan(&pid)
		is.NoErr(err)
		return pid
	}
	waitFor := func(what string, d time.Duration, cond func() bool) {
		t.Helper()
		for deadline := time.Now().Add(d); !cond(); time.Sleep(10 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("%s: not within %s", what, d)
			}
		}
	}
	hears := func(payload string, d time.Duration) bool { // whether a hears payload within d
		for timeout := time.After(d); ; {
			select {
			case p := <-heard:
				if p == payload {
					return true
				}
			case <-timeout:
				return false
			}
		}
	}
	send := func(payload string) { is.NoErr(other.tx(ctx, func(x q) error { return notify(ctx, x, payload) })) }
	firstName := func() string {
		p, err := a.Stores().Users.Profile(ctx, 1, false)
		is.NoErr(err)
		return p.FirstName
	}
	rename := func(to string) {
		_, err := other.Stores().Users.UpdateUser(ctx, 1, func(a *user.Aggregate) error { a.User.FirstName = to; return a.KeepAnAdmin(account.LastAdminChange) })
		is.NoErr(err)
	}

	waitFor("the listener listening", 5*time.Second, func() bool { return listener() != 0 })
	send(name + " 1")
	is.True(hears(name+" 1", 2*time.Second)) // NOTIFY reaches the listener

	is.Equal(firstName(), "First") // cached on a
	down.Store(true)
	pid := listener()
	var killed bool
	is.NoErr(other.pool.QueryRow(ctx, `SELECT pg_terminate_backend($1)`, pid).Scan(&killed))
	is.True(killed)
	waitFor("the listener gone", 5*time.Second, func() bool { return listener() == 0 })

	rename("Second")
	send(name + " 2")
	is.True(!hears(name+" 2", 300*time.Millisecond)) // lost while down
	is.Equal(firstName(), "First")                   // so a's cached profile is stale…
	now.Add(int64(profileTTL))
	is.Equal(firstName(), "Second") // …for at most profileTTL

	down.Store(false)
	waitFor("the listener back", 15*time.Second, func() bool { p := listener(); return p != 0 && p != pid })
	is.True(hears(changedProfiles, 2*time.Second)) // the catch-up for what was missed
	send(name + " 3")
	is.True(hears(name+" 3", 2*time.Second)) // NOTIFY reaches it again

	is.Equal(firstName(), "Second") // cached again; the clock no longer moves
	rename("Third")
	waitFor("a's profile fresh by notification", time.Second, func() bool { return firstName() == "Third" })
}

// TestTryLock: a job's lock is held by one instance of a database at a
// time, and is its schema's alone: another Counsel database in the same
// PostgreSQL database takes its own (porttest.TryLockSuite).
func TestTryLock(t *testing.T) {
	pgtest.Skip(t)
	url := pgtest.URL(t)
	a, b, other := openURL(t, url), openURL(t, url), openDB(t)
	porttest.TryLockSuite(t, a.TryLock, b.TryLock, other.TryLock)
}

// openURL opens the database at url and closes it when the test ends.
func openURL(t *testing.T, url string) *DB {
	t.Helper()
	db, err := Open(context.Background(), url)
	if err != nil {
		t.Fatalf("open: %v", err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}
