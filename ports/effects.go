package ports

import (
	"context"
	"sync"
	"time"

	"counsel/domain/contract"
)

// Effect is something a change causes beyond its own rows (a message to
// send, an event for webhook subscribers, a security event), written in
// the same transaction as the change so that it exists exactly when the
// change does. The set is closed: each engine's effect writer
// (adapters/sqlrow.WriteEffects) knows every kind.
type Effect interface{ effect() }

// Deferred is an effect that needs the id of the row its transaction
// creates (a new contract's or user's): the store names that id with
// Created, and the engine resolves the Deferred with it (0 when the
// transaction created none) just before writing it.
type Deferred func(created int64) (Effect, error)

func (Deferred) effect() {}

// Effects gathers the effects of one change. A use case takes it from
// WithEffects and adds effects before, or inside the callbacks of, the
// store call that writes the change. Invariant kept by every engine's
// write transaction: it writes all pending effects before it commits and
// forgets them only once it has committed; a transaction that fails, or
// is retried, drops the effects its own callbacks added and keeps those
// added before it began. A write outside such a transaction carries no
// effects, so a store method that writes a change uses its engine's
// write transaction.
type Effects struct {
	mu      sync.Mutex
	pending []Effect
	created int64
}

type effectsKey struct{}

// WithEffects returns a context carrying an Effects, and that Effects:
// the one ctx already carries, or a new, empty one.
func WithEffects(ctx context.Context) (context.Context, *Effects) {
	if fx := EffectsOf(ctx); fx != nil {
		return ctx, fx
	}
	fx := &Effects{}
	return context.WithValue(ctx, effectsKey{}, fx), fx
}

// EffectsOf returns the Effects ctx carries, or nil. Every method of
// Effects accepts a nil receiver (no effects).
func EffectsOf(ctx context.Context) *Effects {
	fx, _ := ctx.Value(effectsKey{}).(*Effects)
	return fx
}

// Add queues effects for the next write transaction to commit.
func (fx *Effects) Add(e ...Effect) {
	fx.mu.Lock()
	fx.pending = append(fx.pending, e...)
	fx.mu.Unlock()
}

// Created names the row the current transaction created, for the
// Deferred effects it writes. Stores call it after inserting the row;
// with no Effects in ctx it does nothing.
func Created(ctx context.Context, id int64) {
	if fx := EffectsOf(ctx); fx != nil {
		fx.mu.Lock()
		fx.created = id
		fx.mu.Unlock()
	}
}

// Mark is where a write transaction began, for Rollback.
type Mark struct{ n int }

// Begin marks the start of a write transaction.
func (fx *Effects) Begin() Mark {
	if fx == nil {
		return Mark{}
	}
	fx.mu.Lock()
	defer fx.mu.Unlock()
	fx.created = 0
	return Mark{n: len(fx.pending)}
}

// Rollback drops the effects added since m, after the transaction that
// began at m failed or before it is retried.
func (fx *Effects) Rollback(m Mark) {
	if fx == nil {
		return
	}
	fx.mu.Lock()
	defer fx.mu.Unlock()
	if m.n < len(fx.pending) {
		clear(fx.pending[m.n:])
		fx.pending = fx.pending[:m.n]
	}
	fx.created = 0
}

// Pending returns the effects a transaction is about to commit, Deferred
// ones resolved; nil for a nil Effects. The engine writes them, commits,
// and then calls Committed(len of what Pending returned).
func (fx *Effects) Pending() ([]Effect, error) {
	if fx == nil {
		return nil, nil
	}
	fx.mu.Lock()
	defer fx.mu.Unlock()
	out := make([]Effect, 0, len(fx.pending))
	for _, e := range fx.pending {
		if d, ok := e.(Deferred); ok {
			r, err := d(fx.created)
			if err != nil {
				return nil, err
			}
			e = r
		}
		if e != nil {
			out = append(out, e)
		}
	}
	return out, nil
}

// Committed forgets every pending effect once the transaction that wrote
// them has committed. The engine then hands what Pending returned to its
// effects listener, so a worker in this process starts on it at once.
func (fx *Effects) Committed() {
	if fx == nil {
		return
	}
	fx.mu.Lock()
	fx.pending = nil
	fx.created = 0
	fx.mu.Unlock()
}

// Mail is an email to send, queued in the outbox of the change that
// causes it (docs/decisions.md §16); a background worker sends it. Kind
// names the template or reason ("signingReminder", "ownerNotice", ...)
// for the outbox's listing.
type Mail struct {
	To          string
	Subject     string
	Kind        string
	Text        string
	HTML        string // optional
	Attachments []Attachment
	// NotBefore delays the first attempt (zero: at once).
	NotBefore time.Time
}

// Attachment is a file attached to a Mail.
type Attachment struct {
	Name        string
	ContentType string
	Data        []byte
}

func (Mail) effect() {}

// SigningHistory is a line of the history of the contract whose
// digitalContractSubmissionId is SubmissionID, written with the signing
// provider's change that causes it (a reminder: signingReminderSent).
// No contract with that submission: nothing is written.
type SigningHistory struct {
	SubmissionID string
	Entry        contract.AuditEntry
}

func (SigningHistory) effect() {}
