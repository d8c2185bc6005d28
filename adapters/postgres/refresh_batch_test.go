package postgres

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/matryer/is"

	"counsel/adapters/postgres/pgtest"
	"counsel/adapters/sqlrow"
	"counsel/domain/account"
	"counsel/ports/porttest"
)

// TestRefreshAcrossInstances: two instances on one database, each
// committing its refreshes in groups or alone as conditional writes,
// present the same tokens at once.
// Every token rotates exactly once; every other refresh of it, on either
// instance, sees it used (docs/decisions.md §2 and §10).
func TestRefreshAcrossInstances(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	url := pgtest.URL(t)
	var stores []*AccountStore
	for range 2 {
		db, err := Open(ctx, url)
		if err != nil {
			t.Fatalf("open: %v", err)
		}
		db.Now = func() time.Time { return porttest.T0 }
		t.Cleanup(func() { db.Close() })
		stores = append(stores, db.Stores().Accounts)
	}
	if _, err := stores[0].Bootstrap(ctx, account.NewUser{Email: "admin@example.com"}); err != nil {
		t.Fatal(err)
	}
	const sessions, tries = 20, 6
	for i := range sessions {
		ss := account.Session{ID: fmt.Sprint("s", i), UserID: 1, Method: account.MethodIdP, CreatedAt: porttest.T0, ExpiresAt: porttest.T0.Add(time.Hour)}
		if err := stores[0].CreateSession(ctx, ss, []byte(fmt.Sprint("h", i))); err != nil {
			t.Fatal(err)
		}
	}
	is := is.New(t)
	var mu sync.Mutex
	current, used := map[string]int{}, map[string]int{}
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range sessions * tries {
		wg.Go(func() {
			<-start
			hash := fmt.Sprint("h", i%sessions)
			var rotated bool // as the last call of fn decided (a retried transaction calls it again)
			rot := account.Rotation{TokenHash: []byte(hash)}
			if i%4 >= 2 { // presented whole: may be written as one conditional statement
				rot = account.Rotation{TokenHash: []byte(hash), NewTokenHash: []byte(fmt.Sprint("n", i)),
					UserID: 1, SessionID: fmt.Sprint("s", i%sessions), Now: porttest.T0}
			}
			err := stores[i%2].Refresh(ctx, rot, func(st *account.RefreshState) error {
				rotated = !st.Used
				if rotated {
					st.NewTokenHash = []byte(fmt.Sprint("n", i))
				}
				return nil
			})
			if err != nil {
				t.Error(err)
				return
			}
			mu.Lock()
			if rotated {
				current[hash]++
			} else {
				used[hash]++
			}
			mu.Unlock()
		})
	}
	close(start)
	wg.Wait()
	for i := range sessions {
		hash := fmt.Sprint("h", i)
		is.Equal(current[hash], 1)    // exactly one rotation
		is.Equal(used[hash], tries-1) // the rest see a used token
	}
	var n int
	is.NoErr(dbOf(stores[0]).QueryRow(ctx, `SELECT count(*) FROM refresh_tokens WHERE used_at IS NULL`).Scan(&n))
	is.Equal(n, sessions) // one current token each

	// Then one token at a time, presented whole on both instances at once:
	// both write alone, so the two conditional writes race each other.
	wrote := dbOf(stores[0]).refreshes.wrote.Load() + dbOf(stores[1]).refreshes.wrote.Load()
	for i := range sessions {
		id := fmt.Sprint("s", i)
		var hash []byte
		is.NoErr(dbOf(stores[0]).pool.QueryRow(ctx, `SELECT hash FROM refresh_tokens WHERE session_id = $1 AND used_at IS NULL`, id).Scan(&hash))
		var wg sync.WaitGroup
		var rotated, revoked [2]bool // as each instance's last call of fn decided
		start := make(chan struct{})
		for k := range 2 {
			wg.Go(func() {
				<-start
				rot := account.Rotation{TokenHash: hash, NewTokenHash: fmt.Appendf(nil, "m%d-%d", i, k), UserID: 1, SessionID: id, Now: porttest.T0}
				err := stores[k].Refresh(ctx, rot, func(st *account.RefreshState) error {
					rotated[k] = account.Refresh(st, rot)
					revoked[k] = st.Revoke
					return nil
				})
				if err != nil {
					t.Error(err)
				}
			})
		}
		close(start)
		wg.Wait()
		is.True(rotated[0] != rotated[1]) // one rotated
		is.True(revoked[0] == rotated[1]) // the other was a reuse
		is.True(revoked[1] == rotated[0]) // and revoked the session
		ss, err := stores[1].Session(ctx, id)
		is.NoErr(err)
		is.True(ss.RevokedAt != nil)
	}
	// Each token's rotation was written alone at most once; the conditional
	// path carried rotations (a pair that arrives while other refreshes
	// are in flight queues for the group commit instead, which decides the
	// same way: the assertions above hold for both paths).
	alone := dbOf(stores[0]).refreshes.wrote.Load() + dbOf(stores[1]).refreshes.wrote.Load() - wrote
	is.True(alone >= 1 && alone <= int64(sessions)) // conditional writes
}

// TestRefreshWritePlanOutlivesGrowth: a connection's cached plans for a
// refresh group's read and write, made while refresh_tokens was nearly
// empty, must not scan the table once it has grown: a group finds its rows
// by key and by position whatever the statistics said when the statements
// were planned.
func TestRefreshWritePlanOutlivesGrowth(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	is := is.New(t)
	db := openDB(t)
	s := db.Stores().Accounts
	_, err := s.Bootstrap(ctx, account.NewUser{Email: "admin@example.com"})
	is.NoErr(err)
	const sessions = 16
	for i := range sessions {
		ss := account.Session{ID: fmt.Sprint("s", i), UserID: 1, Method: account.MethodIdP, CreatedAt: porttest.T0, ExpiresAt: porttest.T0.Add(time.Hour)}
		is.NoErr(s.CreateSession(ctx, ss, fmt.Appendf(nil, "s%d-0", i)))
	}
	round := 0
	refreshAll := func() { // every session at once, so that groups hold several
		t.Helper()
		var wg sync.WaitGroup
		for i := range sessions {
			wg.Go(func() {
				next := fmt.Appendf(nil, "s%d-%d", i, round+1)
				err := s.Refresh(ctx, account.Rotation{TokenHash: fmt.Appendf(nil, "s%d-%d", i, round)}, func(st *account.RefreshState) error {
					st.NewTokenHash = next
					return nil
				})
				if err != nil {
					t.Error(err)
				}
			})
		}
		wg.Wait()
		round++
	}
	for range 40 { // past the point where a prepared statement may switch to a generic plan
		refreshAll()
	}
	_, err = db.pool.Exec(ctx, `INSERT INTO refresh_tokens (hash, session_id, created_at, used_at)
		SELECT sha256(i::text::bytea), 's0', $1, $1 FROM generate_series(1, 50000) AS i`, porttest.T0)
	is.NoErr(err)
	read := func() int64 {
		t.Helper()
		for _, c := range db.pool.AcquireAllIdle(ctx) { // each backend reports its counts now, not within the second
			_, err := c.Exec(ctx, `SELECT pg_stat_force_next_flush()`)
			is.NoErr(err)
			c.Release()
		}
		var rows int64
		_, err := db.pool.Exec(ctx, `SELECT pg_stat_clear_snapshot()`)
		is.NoErr(err)
		is.NoErr(db.pool.QueryRow(ctx, `SELECT coalesce(seq_tup_read, 0) FROM pg_stat_user_tables WHERE relid = 'refresh_tokens'::regclass`).Scan(&rows))
		return rows
	}
	before := read()
	for range 20 {
		refreshAll()
	}
	scanned := read() - before
	t.Logf("rows read by sequential scans: %d", scanned)
	is.True(scanned < 50000) // the group writes did not read the table through
}

// AccountStore is the account store of a DB (DB.Stores).
type AccountStore = sqlrow.Accounts

// dbOf is the database of an account store.
func dbOf(s *AccountStore) *DB { return s.Refresher.(refresher).db }
