package outbox

import (
	"context"
	"encoding/json"
	"log/slog"
	"strconv"
	"sync"
	"time"

	"counsel/domain"
	"counsel/domain/webhook"
	"counsel/ports"
)

// Defaults of the webhook worker.
const (
	// WebhookLease is how long a claim holds a delivery. An attempt
	// starts only while at least webhook.Timeout and LeaseMargin of it
	// remain, and a batch's attempts run side by side, so an attempt
	// always ends (the sender's deadline is webhook.Timeout) before its
	// claim can lapse and another instance take the delivery: one attempt
	// at a time per delivery. A worker that dies mid-attempt leaves the
	// delivery to be claimed again after the lease.
	WebhookLease = time.Minute
	// LeaseMargin is what an attempt leaves of its lease beyond the
	// sender's deadline (recording the outcome, a paused process).
	LeaseMargin = 20 * time.Second
	// WebhookBatch is how many attempts a worker makes at once (and the
	// most one claim takes).
	WebhookBatch = 16
)

// WebhookWorker delivers the webhook outbox (docs/decisions.md §17).
//
// Each round claims due deliveries under a token each
// (ports.WebhookStore.ClaimDeliveries), up to the attempts it may still
// start, attempts them side by side, and records each outcome only while
// that claim is still held
// (FinishDelivery), so a delivery is attempted by one worker at a time
// across instances and no attempt is recorded twice. A failed attempt is
// retried on webhook.NextAttempt's schedule times Scale; the last one
// fails the delivery; a subscription whose deliveries have all failed for
// webhook.DisableAfter times Scale is disabled and Disabled's mail
// queued in the same transaction.
type WebhookWorker struct {
	Store  ports.WebhookStore
	Sender ports.WebhookSender
	// Secrets opens the subscriptions' sealed secrets (label: SecretLabel).
	Secrets ports.Sealer
	// Render renders the data of an event's resource as the API returns
	// it; ENOTFOUND when the resource is gone (the data is then its id).
	Render func(ctx context.Context, e ports.StoredWebhookEvent) (json.RawMessage, error)
	// Disabled returns the mail telling a subscription's creator it was
	// disabled (false: none to send).
	Disabled func(ctx context.Context, s ports.WebhookSubscription) (ports.Mail, bool)
	Clock    ports.Clock
	// Scale multiplies the retry schedule and the time to disabling
	// (COUNSEL_WEBHOOK_RETRY_SCALE; 1 in production).
	Scale float64
	Log   *slog.Logger
	// Succeeded, if set, hears of every round that ended without error.
	Succeeded func()

	loop     loop
	slots    chan struct{} // one per attempt under way
	inflight *sync.WaitGroup
}

// SecretLabel is what a subscription's secret is sealed for.
func SecretLabel(id int64) string { return "webhook " + strconv.FormatInt(id, 10) }

// NewWebhookWorker returns a worker; w.Log may be nil, w.Scale 0 is 1.
func NewWebhookWorker(w WebhookWorker) *WebhookWorker {
	if w.Log == nil {
		w.Log = slog.New(slog.DiscardHandler)
	}
	if w.Scale <= 0 {
		w.Scale = 1
	}
	w.loop = newLoop("webhook outbox", WebhookBatch)
	w.slots, w.inflight = make(chan struct{}, WebhookBatch), &sync.WaitGroup{}
	return &w
}

// Wake makes Run claim at once. It never blocks.
func (w *WebhookWorker) Wake() { w.loop.Wake() }

// Run delivers until ctx ends: at once, on every Wake, and every poll;
// then it waits for the attempts under way.
func (w *WebhookWorker) Run(ctx context.Context, poll time.Duration) {
	w.loop.Run(ctx, poll, w.Log, w.RunOnce, w.Succeeded)
	w.inflight.Wait()
}

// RunOnce claims as many due deliveries as it has free slots (at most
// WebhookBatch attempts run at a time) and starts an attempt at each; it
// returns how many it claimed. An attempt that ends frees its slot and
// wakes the loop, so a slow receiver holds up only its own slot. A claim
// is made whole or not at all, and what it took is attempted even if
// ctx ends meanwhile: a claim cut short by a stop would otherwise hold
// its deliveries, unattempted, until its lease lapsed. Attempts under way
// when ctx ends are finished and recorded (each is bounded by the
// sender's deadline; Run waits for them), so a stopping instance does not
// leave a delivered event to be sent again.
func (w *WebhookWorker) RunOnce(ctx context.Context) (int, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	free := cap(w.slots) - len(w.slots)
	if free == 0 {
		return 0, nil // every slot busy: an attempt that ends wakes the loop
	}
	ds, err := w.Store.ClaimDeliveries(context.WithoutCancel(ctx), w.Clock.Now(), WebhookLease, free)
	if err != nil {
		return 0, err
	}
	for _, d := range ds {
		w.slots <- struct{}{}
		w.inflight.Add(1)
		go func() {
			defer func() {
				<-w.slots
				w.inflight.Done()
				w.Wake()
			}()
			if err := w.attempt(context.WithoutCancel(ctx), d); err != nil {
				w.Log.ErrorContext(ctx, "webhook outbox", "delivery", d.ID, "err", err)
			}
		}()
	}
	return len(ds), nil
}

// attempt makes and records one attempt at claimed delivery d.
func (w *WebhookWorker) attempt(ctx context.Context, d ports.ClaimedDelivery) error {
	if w.Clock.Now().Add(webhook.Timeout + LeaseMargin).After(d.ClaimedUntil) {
		return w.Store.ReleaseDelivery(ctx, d) // too little of the lease left for an attempt
	}
	body, err := w.body(ctx, d.Event)
	if err != nil {
		_ = w.Store.ReleaseDelivery(ctx, d)
		return err
	}
	now := w.Clock.Now()
	keys, err := w.keys(d.Subscription, now)
	if err != nil {
		_ = w.Store.ReleaseDelivery(ctx, d)
		return err
	}
	id := EventID(d.Event.ID)
	ts := now.Unix()
	res := w.Sender.SendWebhook(ctx, ports.WebhookRequest{URL: d.Subscription.URL, ID: id, Timestamp: ts,
		Signature: webhook.Sign(keys, id, ts, body), Body: body})
	at := w.Clock.Now()
	o := ports.DeliveryOutcome{Status: ports.DeliverySucceeded, ResponseStatus: res.Status, Duration: res.Duration, At: at, Next: at}
	if res.Err != nil {
		o.Error = res.Err.Error()
		if wait, ok := webhook.NextAttempt(d.Attempts+1, w.Scale); ok {
			o.Status, o.Next = ports.DeliveryPending, at.Add(wait)
		} else {
			o.Status = ports.DeliveryFailed
		}
		o.DisableAfter = time.Duration(float64(webhook.DisableAfter) * w.Scale)
		if w.Disabled != nil {
			o.Disabled = func(ctx context.Context, s ports.WebhookSubscription) {
				if m, ok := w.Disabled(ctx, s); ok {
					ports.EffectsOf(ctx).Add(m)
				}
				w.Log.WarnContext(ctx, "webhook subscription disabled after its deliveries failed", "subscription", s.ID)
			}
		}
		w.Log.InfoContext(ctx, "webhook attempt failed", "delivery", d.ID, "attempt", d.Attempts+1, "status", o.Status, "err", res.Err)
	}
	ctx, _ = ports.WithEffects(ctx)
	held, err := w.Store.FinishDelivery(ctx, d, o)
	if err != nil {
		return err
	}
	if !held {
		w.Log.WarnContext(ctx, "webhook attempt made after its claim lapsed: not recorded", "delivery", d.ID)
		return nil
	}
	return nil
}

// EventID is the webhook-id of event id, the same on every attempt and
// to every subscription.
func EventID(id int64) string { return "evt_" + strconv.FormatInt(id, 10) }

// body is the JSON an event's deliveries carry: its type, the time of
// the change, and the data, rendered the first time a delivery needs it
// and kept (every attempt and every subscription gets the same bytes).
func (w *WebhookWorker) body(ctx context.Context, e ports.StoredWebhookEvent) ([]byte, error) {
	if e.Data == nil {
		data, err := w.data(ctx, e)
		if err != nil {
			return nil, err
		}
		if e.Data, err = w.Store.SetEventData(ctx, e.ID, data); err != nil {
			return nil, err
		}
	}
	return json.Marshal(struct {
		Type      string          `json:"type"`
		Timestamp string          `json:"timestamp"`
		Data      json.RawMessage `json:"data"`
	}{e.Type, e.CreatedAt.UTC().Format(time.RFC3339Nano), e.Data})
}

// data renders an event's data: the resource, with fromStatus and
// toStatus for a status change; its id alone when it is gone.
func (w *WebhookWorker) data(ctx context.Context, e ports.StoredWebhookEvent) (json.RawMessage, error) {
	fields := map[string]any{}
	switch {
	case e.Type == webhook.Test:
		fields["subscriptionId"] = e.ResourceID
	default:
		raw, err := w.Render(ctx, e)
		if domain.ErrorCode(err) == domain.ENOTFOUND {
			fields["id"] = e.ResourceID
		} else if err != nil {
			return nil, err
		} else if e.FromStatus == "" && e.ToStatus == "" {
			return raw, nil
		} else if err := json.Unmarshal(raw, &fields); err != nil {
			return nil, err
		}
	}
	if e.FromStatus != "" || e.ToStatus != "" {
		fields["fromStatus"], fields["toStatus"] = e.FromStatus, e.ToStatus
	}
	return json.Marshal(fields)
}

// keys are the secrets that sign a subscription's attempt at now: its
// secret, and the one a rotation replaced while it still signs.
func (w *WebhookWorker) keys(s ports.WebhookSubscription, now time.Time) ([][]byte, error) {
	var keys [][]byte
	add := func(sealed []byte) error {
		plain, err := w.Secrets.Open(SecretLabel(s.ID), sealed)
		if err != nil {
			return err
		}
		k, err := webhook.SecretKey(string(plain))
		keys = append(keys, k)
		return err
	}
	if err := add(s.Secret); err != nil {
		return nil, err
	}
	if s.PreviousSecret != nil && s.PreviousUntil != nil && now.Before(*s.PreviousUntil) {
		if err := add(s.PreviousSecret); err != nil {
			return nil, err
		}
	}
	return keys, nil
}
