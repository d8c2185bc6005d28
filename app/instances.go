package app

import (
	"context"

	"counsel/adapters/postgres"
	"counsel/ports"
)

// followChanges makes this instance act on what other instances commit
// (PostgreSQL only): every notification makes cached principals be
// checked again; the profile cache is invalidated by the store itself.
// The listener stops at Close.
func (a *App) followChanges() {
	if a.db.Listen == nil {
		return
	}
	a.goBackground(func(ctx context.Context) {
		a.db.Listen(ctx, a.log, func(payload string) {
			switch payload {
			case postgres.ChangedMail: // another instance queued mail
				a.Outbox.Wake()
				return
			case postgres.ChangedWebhooks: // or webhook deliveries
				a.Webhooks.Wake()
				return
			}
			a.Accounts.Invalidate()
		})
	})
}

// exclusive wraps a background job so that, of several instances on one
// database, one runs it at a time (Stores.TryLock, named after the job);
// the others skip that round.
func (a *App) exclusive(name string, fn func(context.Context) (int, error)) func(context.Context) (int, error) {
	return func(ctx context.Context) (int, error) {
		ok, unlock, err := a.db.TryLock(ctx, name)
		if err != nil || !ok {
			return 0, err
		}
		defer unlock()
		return fn(ctx)
	}
}

// rateLimiter is the shared sign-in limit on PostgreSQL, nil (in-process)
// on SQLite.
func (a *App) rateLimiter() ports.RateLimiter {
	if a.db.RateLimiter == nil {
		return nil
	}
	return a.db.RateLimiter
}
