// Package outbox sends the mail the engines' write transactions queued
// (docs/decisions.md §16), and shows the outbox to system administrators.
//
// The worker claims due messages (ports.OutboxStore.ClaimMail: one
// sender per message across instances, for a lease longer than a send
// can take), sends each, and records the outcome: sent; kept when no SMTP
// relay is configured; or, on failure, retried after an exponentially
// growing pause (RetryBase, doubled per attempt, at most RetryMax) until
// ports.MailRetryFor after the message was queued, then failed. A commit
// that queued mail wakes the worker of its own instance at once (Wake)
// and, on PostgreSQL, the others through NOTIFY; a poll catches retries
// and anything missed.
package outbox

import (
	"context"
	"log/slog"
	"time"

	"counsel/domain"
	"counsel/domain/account"
	"counsel/ports"
)

// Defaults of the worker.
const (
	// Lease is how long a claim holds a message: far beyond the SMTP
	// client's 15-second deadline, so a message is never sent twice
	// unless its sender died mid-send.
	Lease = 2 * time.Minute
	// RetryBase is the pause after the first failed attempt.
	RetryBase = 30 * time.Second
	// RetryMax bounds the pause between attempts.
	RetryMax = 2 * time.Hour
	// Batch is how many messages one claim takes.
	Batch = 20
)

// Worker sends the outbox.
type Worker struct {
	Store ports.OutboxStore
	// Sender delivers messages; nil (no SMTP configured) keeps them.
	Sender ports.MailSender
	Clock  ports.Clock
	Log    *slog.Logger
	// Succeeded, if set, is told of every round that claimed and recorded
	// without an error (the job's last success in the metrics).
	Succeeded func()

	loop loop
}

// NewWorker returns a worker; w.Log may be nil.
func NewWorker(w Worker) *Worker {
	if w.Log == nil {
		w.Log = slog.New(slog.DiscardHandler)
	}
	w.loop = newLoop("mail outbox", Batch)
	return &w
}

// Wake makes Run claim at once (a commit queued mail). It never blocks.
func (w *Worker) Wake() { w.loop.Wake() }

// Run sends until ctx ends: at once, on every Wake, and every poll.
func (w *Worker) Run(ctx context.Context, poll time.Duration) {
	w.loop.Run(ctx, poll, w.Log, w.RunOnce, w.Succeeded)
}

// RunOnce claims one batch of due messages and sends them; it returns how
// many it handled.
func (w *Worker) RunOnce(ctx context.Context) (int, error) {
	now := w.Clock.Now()
	ms, err := w.Store.ClaimMail(ctx, now, Lease, Batch)
	if err != nil {
		return 0, err
	}
	for _, m := range ms {
		if err := w.deliver(ctx, m); err != nil {
			return 0, err
		}
	}
	return len(ms), nil
}

// deliver sends one claimed message and records the outcome.
func (w *Worker) deliver(ctx context.Context, m ports.OutboxMail) error {
	if w.Sender == nil {
		return w.Store.FinishMail(ctx, m.ID, ports.MailKept, m.Attempts, m.NextAttemptAt, nil, "")
	}
	err := w.Sender.SendMail(ctx, m.Mail())
	now := w.Clock.Now()
	attempts := m.Attempts + 1
	if err == nil {
		return w.Store.FinishMail(ctx, m.ID, ports.MailSent, attempts, m.NextAttemptAt, &now, "")
	}
	if ctx.Err() != nil {
		return ctx.Err() // stopping: the claim lapses and another round sends it
	}
	next := now.Add(Backoff(attempts))
	status := ports.MailPending
	if !next.Before(m.CreatedAt.Add(ports.MailRetryFor)) {
		status = ports.MailFailed
	}
	w.Log.WarnContext(ctx, "mail not sent", "id", m.ID, "kind", m.Kind, "attempt", attempts, "status", status, "err", err)
	return w.Store.FinishMail(ctx, m.ID, status, attempts, next, nil, err.Error())
}

// Backoff is the pause after attempt n (1, 2, ...) failed: RetryBase
// doubled n-1 times, at most RetryMax.
func Backoff(n int) time.Duration {
	d := RetryBase
	for i := 1; i < n && d < RetryMax; i++ {
		d *= 2
	}
	return min(d, RetryMax)
}

// Service implements ports.MailService.
type Service struct{ Store ports.OutboxStore }

var _ ports.MailService = Service{}

func requireSystemAdmin(ctx context.Context) error {
	p, err := account.Require(ctx)
	if err != nil {
		return err
	}
	if !p.SystemAdmin {
		return domain.Errorf(domain.EFORBIDDEN, "only system administrators see the mail outbox")
	}
	return nil
}

// Mails implements ports.MailService.
func (s Service) Mails(ctx context.Context, limit, offset int64) ([]ports.OutboxMail, int64, error) {
	if err := requireSystemAdmin(ctx); err != nil {
		return nil, 0, err
	}
	return s.Store.Mails(ctx, limit, offset)
}

// OutboxMail implements ports.MailService.
func (s Service) OutboxMail(ctx context.Context, id int64) (ports.OutboxMail, error) {
	if err := requireSystemAdmin(ctx); err != nil {
		return ports.OutboxMail{}, err
	}
	return s.Store.OutboxMail(ctx, id)
}
