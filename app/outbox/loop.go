package outbox

import (
	"context"
	"log/slog"
	"time"
)

// loop is the schedule both outboxes' workers share: a round at once,
// then one on every wake (a commit queued work, here or, on PostgreSQL,
// on another instance) and every poll (retries come due, a notification
// was missed); rounds follow each other at once while they fill a batch.
type loop struct {
	name  string
	batch int
	wake  chan struct{}
}

func newLoop(name string, batch int) loop {
	return loop{name: name, batch: batch, wake: make(chan struct{}, 1)}
}

// Wake makes Run start a round at once. It never blocks; wakes that come
// while one is pending make one round.
func (l loop) Wake() {
	select {
	case l.wake <- struct{}{}:
	default:
	}
}

// Run runs round until ctx ends. succeeded, if set, hears of every round
// that ended without an error.
func (l loop) Run(ctx context.Context, poll time.Duration, log *slog.Logger, round func(context.Context) (int, error), succeeded func()) {
	t := time.NewTicker(poll)
	defer t.Stop()
	for {
		for {
			n, err := round(ctx)
			if err != nil && ctx.Err() == nil {
				log.ErrorContext(ctx, l.name, "err", err)
			} else if err == nil && succeeded != nil {
				succeeded()
			}
			if err != nil || n < l.batch || ctx.Err() != nil {
				break // a full batch: there may be more at once
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-l.wake:
		case <-t.C:
		}
	}
}
