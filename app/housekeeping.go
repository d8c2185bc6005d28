package app

import (
	"context"
	"time"

	"counsel/adapters/metrics"
	"counsel/domain/webhook"
)

// pruneInterval is how often ended sessions and stale one-time-password
// rows are deleted.
const pruneInterval = time.Hour

// startHousekeeping prunes what sign-in no longer needs, at start and then
// every hour, until Close.
func (a *App) startHousekeeping(store AccountStore) {
	a.metrics.Job(metrics.JobHousekeeping)
	a.every(pruneInterval, func(ctx context.Context) {
		pruned := true
		ok, unlock, err := a.db.TryLock(ctx, "housekeeping") // one instance at a time
		if err != nil && ctx.Err() == nil {
			a.log.Warn("housekeeping lock", "err", err)
		}
		if err != nil || !ok {
			return
		}
		defer unlock()
		if a.db.RateLimiter != nil {
			if err := a.db.RateLimiter.PruneRates(ctx, a.cfg.Clock.Now()); err != nil {
				pruned = false
				if ctx.Err() == nil {
					a.log.Warn("pruning rate limits failed", "err", err)
				}
			}
		}
		n, err := store.Prune(ctx, a.cfg.Clock.Now())
		if err != nil && ctx.Err() == nil {
			a.log.Warn("pruning sessions failed", "err", err)
		} else if n > 0 {
			a.log.Info("pruned ended sessions", "sessions", n)
		}
		if a.AuditLog != nil {
			if n, err := a.AuditLog.Prune(ctx, a.cfg.AuditRetention); err != nil {
				pruned = false
				if ctx.Err() == nil {
					a.log.Warn("removing old security events failed", "err", err)
				}
			} else if n > 0 {
				a.log.Info("removed security events past COUNSEL_AUDIT_RETENTION", "events", n)
			}
		}
		if n, err := a.db.Webhooks.PruneWebhookEvents(ctx, a.cfg.Clock.Now().Add(-webhook.Retention)); err != nil {
			pruned = false
			if ctx.Err() == nil {
				a.log.Warn("removing old webhook events failed", "err", err)
			}
		} else if n > 0 {
			a.log.Info("removed webhook events older than 30 days", "events", n)
		}
		if pruned && err == nil {
			a.jobSucceeded(metrics.JobHousekeeping)
		}
	})
}
