package sqlrow

import (
	"sync"
	"sync/atomic"
	"time"

	"counsel/domain/user"
)

// ProfileCache keeps the profile rows behind GET /api/me, which every
// page of a front end loads. An entry is good while no user, office,
// remuneration or PQE adjustment has been written since it was read (a
// generation counter the engine bumps with Stale after each such commit)
// and for at most TTL, which bounds staleness from writes the engine does
// not hear of (another process on the SQLite file, a lost notification
// from another PostgreSQL instance). A zero TTL caches nothing.
type ProfileCache struct {
	TTL     time.Duration
	gen     atomic.Uint64
	mu      sync.RWMutex
	entries map[int64]profileEntry
}

type profileEntry struct {
	p    user.Profile
	gen  uint64
	read time.Time
}

const maxProfiles = 10_000

// Get returns the cached profile of id or loads it. The generation is
// read before loading, so a write racing the load leaves an entry that the
// next call reloads.
func (c *ProfileCache) Get(id int64, now time.Time, load func() (user.Profile, error)) (user.Profile, error) {
	gen := c.gen.Load()
	c.mu.RLock()
	e, ok := c.entries[id]
	c.mu.RUnlock()
	if ok && e.gen == gen && now.Sub(e.read) < c.TTL && !now.Before(e.read) {
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

// Stale makes every cached profile stale.
func (c *ProfileCache) Stale() { c.gen.Add(1) }
