package porttest

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/matryer/is"

	"counsel/domain"
	"counsel/domain/account"
)

// RefreshBatchSuite holds Refresh to the rules of docs/decisions.md §2 under
// many refreshes at once, which an engine may commit together: each
// behaves as if it ran alone, in some order. Every session's token
// rotates exactly once; an unknown token and a decision that fails fail
// alone, the latter's writes undone; an old token presented alongside
// the current one of its session revokes that session, and the current
// one rotates at most once, before the revocation or not at all.
func RefreshBatchSuite(t *testing.T, s Stores) {
	ctx := context.Background()
	is := is.New(t)
	adminID := bootstrap(t, s)
	newSession := func(id string, hash string) {
		t.Helper()
		ss := account.Session{ID: id, UserID: adminID, Method: "password", CreatedAt: T0, ExpiresAt: T0.Add(time.Hour)}
		is.NoErr(s.Accounts.CreateSession(ctx, ss, []byte(hash)))
	}
	const sessions = 30
	for i := range sessions {
		newSession(fmt.Sprint("s", i), fmt.Sprint("h", i))
	}
	// Session r has rotated once: r0 is used, r1 current.
	newSession("r", "r0")
	is.NoErr(s.Accounts.Refresh(ctx, account.Rotation{TokenHash: []byte("r0")}, func(st *account.RefreshState) error {
		st.NewTokenHash = []byte("r1")
		return nil
	}))

	// An engine may call fn again when it retries a transaction: what
	// counts is the last call's decision.
	var mu sync.Mutex
	rotated := map[string][]byte{} // session: its new token
	rotations := map[string]int{}
	rRotations := 0
	var rRevoked atomic.Bool // a revocation of r has committed
	failing := errors.New("decision failed")
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range 3 * sessions {
		hash := fmt.Sprint("h", i%sessions)
		wg.Go(func() {
			<-start
			var session string
			var next []byte
			err := s.Accounts.Refresh(ctx, account.Rotation{TokenHash: []byte(hash)}, func(st *account.RefreshState) error {
				session, next = st.Session.ID, nil
				if i >= 2*sessions { // a third of the calls decide, then fail
					st.NewTokenHash, st.Revoke = []byte(fmt.Sprint("bad-", i)), true
					return failing
				}
				if !st.Used {
					next = []byte(fmt.Sprint("n", i))
					st.NewTokenHash = next
				}
				return nil
			})
			if i >= 2*sessions && !errors.Is(err, failing) {
				t.Errorf("refresh %d: %v, want the decision's error", i, err)
			} else if i < 2*sessions && err != nil {
				t.Errorf("refresh %d: %v", i, err)
			} else if err == nil && next != nil {
				mu.Lock()
				rotated[session] = next
				rotations[session]++
				mu.Unlock()
			}
		})
		wg.Go(func() {
			<-start
			err := s.Accounts.Refresh(ctx, account.Rotation{TokenHash: []byte(fmt.Sprint("unknown-", i))}, func(*account.RefreshState) error {
				t.Error("fn called for an unknown token")
				return nil
			})
			if code(err) != domain.ENOTFOUND {
				t.Errorf("unknown token: %v", err)
			}
		})
		if i%10 == 0 { // the reused and the current token of session r
			wg.Go(func() {
				<-start
				err := s.Accounts.Refresh(ctx, account.Rotation{TokenHash: []byte("r0")}, func(st *account.RefreshState) error {
					if !st.Used {
						t.Error("r0 reads as current")
					}
					st.Revoke = st.Session.RevokedAt == nil
					return nil
				})
				if err != nil {
					t.Errorf("reused token: %v", err)
				}
				rRevoked.Store(true)
			})
			wg.Go(func() {
				<-start
				rotate := false
				err := s.Accounts.Refresh(ctx, account.Rotation{TokenHash: []byte("r1")}, func(st *account.RefreshState) error {
					revoked := rRevoked.Load() // before the read of a later transaction
					rotate = !st.Used && st.Session.RevokedAt == nil
					if rotate {
						if revoked {
							t.Error("r1 rotates after the revocation committed")
						}
						st.NewTokenHash = []byte(fmt.Sprint("r-next-", i))
					}
					return nil
				})
				if err != nil {
					t.Errorf("current token: %v", err)
				} else if rotate {
					mu.Lock()
					rRotations++
					mu.Unlock()
				}
			})
		}
	}
	close(start)
	wg.Wait()

	is.Equal(len(rotated), sessions) // every session rotated
	for _, n := range rotations {
		is.Equal(n, 1) // once
	}
	for i := range sessions {
		id := fmt.Sprint("s", i)
		got, err := s.Accounts.SessionByRefreshHash(ctx, rotated[id])
		is.NoErr(err)                 // the new token is stored
		is.Equal(got.ID, id)          // for its session
		is.True(got.RevokedAt == nil) // failed decisions revoked nothing
		is.NoErr(s.Accounts.Refresh(ctx, account.Rotation{TokenHash: rotated[id]}, func(st *account.RefreshState) error {
			is.True(!st.Used) // and current
			return nil
		}))
		is.NoErr(s.Accounts.Refresh(ctx, account.Rotation{TokenHash: []byte(fmt.Sprint("h", i))}, func(st *account.RefreshState) error {
			is.True(st.Used) // the old one used
			return nil
		}))
	}
	for i := 2 * sessions; i < 3*sessions; i++ {
		_, err := s.Accounts.SessionByRefreshHash(ctx, []byte(fmt.Sprint("bad-", i)))
		is.Equal(code(err), domain.ENOTFOUND) // failed decisions undone
	}
	got, err := s.Accounts.Session(ctx, "r")
	is.NoErr(err)
	is.True(got.RevokedAt != nil) // the reuse revoked session r
	is.True(rRotations <= 1)      // its current token rotated once at most
}
