package postgres

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"counsel/domain/user"
)

// profileCache keeps the profile rows behind GET /api/me. An entry is good
// while no user, office, remuneration or PQE adjustment has been written
// since it was read (a generation counter bumped after each such commit
// here, and on a notification from another instance; see notify.go) and
// for at most profileTTL, which bounds staleness when notifications are
// lost.
type profileCache struct {
	gen     atomic.Uint64
	mu      sync.RWMutex
	entries map[int64]profileEntry
}

type profileEntry struct {
	p    user.Profile
	gen  uint64
	read time.Time
}

const (
	profileTTL  = 2 * time.Second
	maxProfiles = 10_000
)

// get returns the cached profile of id or loads it. The generation is
// read before loading, so a write racing the load leaves an entry that the
// next call reloads.
func (c *profileCache) get(id int64, now time.Time, load func() (user.Profile, error)) (user.Profile, error) {
	gen := c.gen.Load()
	c.mu.RLock()
	e, ok := c.entries[id]
	c.mu.RUnlock()
	if ok && e.gen == gen && now.Sub(e.read) < profileTTL && !now.Before(e.read) {
		return e.p, nil
	}
	p, err := load()
	if err != nil {
		return p, err
	}
	c.mu.Lock()
	if c.entries == nil || len(c.entries) >= maxProfiles {
		c.entries = map[int64]profileEntry{}
	}
	c.entries[id] = profileEntry{p: p, gen: gen, read: now}
	c.mu.Unlock()
	return p, nil
}

// profileTx is tx for writes that may change a profile: the commit
// tells every instance (a notification sent with it) and, after it, this
// instance's cache.
func (db *DB) profileTx(ctx context.Context, fn func(q) error) error {
	err := db.tx(ctx, func(x q) error {
		if err := fn(x); err != nil {
			return err
		}
		return notify(ctx, x, changedProfiles)
	})
	db.profiles.gen.Add(1)
	return err
}
