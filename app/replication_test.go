package app_test

import (
	"context"
	"fmt"
	"net/http"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/matryer/is"

	"counsel/app"
	"counsel/app/apptest"
	"counsel/app/transfer"
)

// TestReplicationUnderWrites serves a SQLite database replicated by the
// embedded Litestream to a file:// replica while clients create
// contracts, restores the replica at a cut without stopping the writes,
// and finds in the restored file every contract acknowledged more than a
// second before the cut; the file passes the backup verification and
// serves. It logs the replication lag it saw: the longest time between
// a 201 and the replica holding that contract.
func TestReplicationUnderWrites(t *testing.T) {
	if apptest.Engine() == "postgres" {
		t.Skip("Litestream replicates SQLite; PostgreSQL has its own replication")
	}
	t.Parallel()
	is := is.New(t)
	ctx := context.Background()
	replica := filepath.Join(t.TempDir(), "replica")
	s := apptest.New(t, func(c *app.Config) { c.ReplicaURL = "file://" + replica })
	tok := s.Admin(t)

	type ack struct {
		id int64
		at time.Time
	}
	var mu sync.Mutex
	var acks []ack
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for w := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				r := s.Do(t, "POST", "/api/contracts", tok, map[string]any{"contractName": fmt.Sprintf("w%d-%d", w, i)})
				if r.Status != http.StatusCreated {
					t.Errorf("create: %d %s", r.Status, r.Body)
					return
				}
				id := contractID(r.Map(t))
				mu.Lock()
				acks = append(acks, ack{id, time.Now()})
				mu.Unlock()
				time.Sleep(5 * time.Millisecond)
			}
		}()
	}
	// Restore a few times while writing; each time, every write
	// acknowledged a second or more before the cut is there.
	var worst time.Duration
	for round := range 3 {
		time.Sleep(1500 * time.Millisecond)
		cut := time.Now()
		restored := filepath.Join(t.TempDir(), fmt.Sprintf("restored-%d.db", round))
		_, err := transfer.RestoreReplica(ctx, "file://"+replica, restored, transfer.VerifyOptions{})
		is.NoErr(err) // restored and verified
		f, err := transfer.OpenBackupFile(restored)
		is.NoErr(err)
		have, err := f.ContractIDs(ctx)
		f.Close()
		is.NoErr(err)
		mu.Lock()
		missing := 0
		var newestMissing time.Duration
		for _, a := range acks {
			if a.at.After(cut) {
				continue
			}
			if !have[a.id] {
				if age := cut.Sub(a.at); age > newestMissing {
					newestMissing = age
				}
				if cut.Sub(a.at) > time.Second {
					missing++
				}
			}
		}
		n := len(acks)
		mu.Unlock()
		worst = max(worst, newestMissing)
		t.Logf("cut %d: %d writes acknowledged, the oldest one missing from the replica was acknowledged %s before the cut", round, n, newestMissing.Round(time.Millisecond))
		is.Equal(missing, 0) // every write a second old is in the replica
	}
	close(stop)
	wg.Wait()
	t.Logf("replication lag: at most %s", worst.Round(time.Millisecond))

	// The restored database serves.
	final := filepath.Join(t.TempDir(), "final.db")
	_, err := transfer.RestoreReplica(ctx, "file://"+replica, final, transfer.VerifyOptions{})
	is.NoErr(err)
	r := apptest.New(t, func(c *app.Config) { c.DB, c.PublicURL = final, s.Config.PublicURL })
	is.Equal(r.Do(t, "GET", "/api/me", tok, nil).Status, 200)
}
