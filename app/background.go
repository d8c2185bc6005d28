package app

import (
	"context"
	"time"
)

// Background work (the expiry sweeps, signed evidence, housekeeping, the
// change listener) runs under one context, a.bg, which Close cancels
// (a.stop) before it waits for every loop (a.loops) and only then closes
// the database the loops use.

// goBackground runs fn in its own goroutine with the background context
// until Close.
func (a *App) goBackground(fn func(ctx context.Context)) {
	a.loops.Add(1)
	go func() {
		defer a.loops.Done()
		fn(a.bg)
	}()
}

// every runs job now and then every interval in the background until
// Close. It is the one ticker loop of the service.
func (a *App) every(interval time.Duration, job func(ctx context.Context)) {
	a.goBackground(func(ctx context.Context) {
		t := time.NewTicker(interval)
		defer t.Stop()
		for {
			job(ctx)
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
		}
	})
}

// counted makes a job of fn, which returns how many things it did: a
// failure is logged as an error (and retried at the next tick), a
// non-zero count as information; nothing is logged once Close began.
func (a *App) counted(what string, fn func(context.Context) (int, error)) func(context.Context) {
	return func(ctx context.Context) {
		if n, err := fn(ctx); err != nil {
			if ctx.Err() == nil {
				a.log.ErrorContext(ctx, what, "err", err)
			}
		} else if n > 0 {
			a.log.InfoContext(ctx, what, "count", n)
		}
	}
}
