package accounts

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"counsel/domain"
	"counsel/domain/account"
	"counsel/domain/audit"
	"counsel/ports"
)

// seenEvery bounds how often a session's last-seen time is written
// (docs/decisions.md §18: at most once a minute).
const seenEvery = time.Minute

// seenFlushDelay gathers the uses of many sessions into one write.
const seenFlushDelay = time.Second

// seenTracker records when sessions were used, off the request path: a
// request that finds its session written within seenEvery (one atomic
// load, on the session's clock shared by its cached tokens) does nothing;
// otherwise the use is queued and a timer writes the queue in one
// transaction (AccountStore.SeeSessions) a second later.
type seenTracker struct {
	mu      sync.Mutex
	clocks  map[string]*atomic.Int64 // session id → Unix ns of the last use queued
	queue   map[string]time.Time
	timer   bool
	writing sync.WaitGroup
}

// clock returns the shared clock of session id, set to since when new.
func (t *seenTracker) clock(id string, since time.Time) *atomic.Int64 {
	t.mu.Lock()
	defer t.mu.Unlock()
	if c := t.clocks[id]; c != nil {
		return c
	}
	if t.clocks == nil || len(t.clocks) >= maxCached {
		t.clocks = map[string]*atomic.Int64{}
	}
	c := new(atomic.Int64)
	c.Store(since.UnixNano())
	t.clocks[id] = c
	return c
}

// seen notes a use of session id at now through its clock c.
func (s *Service) seen(id string, c *atomic.Int64, now time.Time) {
	last := c.Load()
	if now.UnixNano()-last < int64(seenEvery) || !c.CompareAndSwap(last, now.UnixNano()) {
		return
	}
	t := &s.seenUses
	t.mu.Lock()
	if t.queue == nil {
		t.queue = map[string]time.Time{}
	}
	t.queue[id] = now
	start := !t.timer
	t.timer = true
	if start {
		t.writing.Add(1)
	}
	t.mu.Unlock()
	if start {
		time.AfterFunc(seenFlushDelay, func() {
			defer t.writing.Done()
			s.writeSeen()
		})
	}
}

// seenSession notes a use of session id at now (a refresh).
func (s *Service) seenSession(id string, now time.Time) {
	s.seen(id, s.seenUses.clock(id, time.Time{}), now)
}

// writeSeen writes the queued uses.
func (s *Service) writeSeen() {
	t := &s.seenUses
	t.mu.Lock()
	q := t.queue
	t.queue, t.timer = nil, false
	t.mu.Unlock()
	if len(q) == 0 {
		return
	}
	seen := make([]account.SessionSeen, 0, len(q))
	for id, at := range q {
		seen = append(seen, account.SessionSeen{ID: id, At: at})
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := s.d.Store.SeeSessions(ctx, seen, seenEvery); err != nil {
		s.d.Logger.Warn("last-seen times of sessions not written", "sessions", len(seen), "err", err)
	}
}

// FlushSeen writes the queued uses of sessions now (tests, and Wait).
func (s *Service) FlushSeen() {
	s.seenUses.writing.Wait()
	s.writeSeen()
}

var _ ports.SessionService = (*Service)(nil)
var _ ports.SessionAdmin = (*Service)(nil)

// MySessions implements ports.SessionService.
func (s *Service) MySessions(ctx context.Context) ([]account.Session, error) {
	p, err := account.Require(ctx)
	if err != nil {
		return nil, err
	}
	return s.SessionsOf(ctx, p.UserID)
}

// RevokeMySession implements ports.SessionService.
func (s *Service) RevokeMySession(ctx context.Context, id string) error {
	p, err := account.Require(ctx)
	if err != nil {
		return err
	}
	if err := account.CheckNotAPIKey(p); err != nil {
		return err
	}
	ctx, fx := ports.WithEffects(ctx)
	fx.Add(ports.Audit(ctx, audit.SessionRevoked, audit.TargetUser, userTarget(p.UserID), map[string]any{"sessionId": id, "current": id == p.SessionID}))
	if err := s.d.Store.RevokeUserSession(ctx, p.UserID, id, s.d.Clock.Now()); err != nil {
		if domain.ErrorCode(err) == domain.ENOTFOUND {
			return domain.Errorf(domain.ENOTFOUND, "no session %q of yours is live", id)
		}
		return err
	}
	return nil
}

// RevokeMyOtherSessions implements ports.SessionService.
func (s *Service) RevokeMyOtherSessions(ctx context.Context) error {
	p, err := account.Require(ctx)
	if err != nil {
		return err
	}
	if err := account.CheckNotAPIKey(p); err != nil {
		return err
	}
	ctx, fx := ports.WithEffects(ctx)
	fx.Add(ports.Audit(ctx, audit.SessionRevoked, audit.TargetUser, userTarget(p.UserID), map[string]any{"sessions": "others"}))
	if _, err := s.d.Store.RevokeOtherSessions(ctx, p.UserID, p.SessionID, s.d.Clock.Now()); err != nil {
		return err
	}
	return nil
}

// SessionsOf implements ports.SessionAdmin.
func (s *Service) SessionsOf(ctx context.Context, userID int64) ([]account.Session, error) {
	return s.d.Store.UserSessions(ctx, userID, s.d.Clock.Now())
}

// EndSessionsOf implements ports.SessionAdmin.
func (s *Service) EndSessionsOf(ctx context.Context, userID int64) error {
	ctx, fx := ports.WithEffects(ctx)
	fx.Add(ports.Audit(ctx, audit.SessionRevoked, audit.TargetUser, userTarget(userID), map[string]any{"sessions": "all"}))
	if err := s.d.Store.RevokeUserSessions(ctx, userID, s.d.Clock.Now()); err != nil {
		return err
	}
	return nil
}
