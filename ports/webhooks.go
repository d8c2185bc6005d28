package ports

import (
	"context"
	"encoding/json"
	"log/slog"
	"time"

	"counsel/domain/contract"
	"counsel/domain/webhook"
)

// WebhookEvent is an event for the webhook subscribers of its type
// (docs/decisions.md §17), written in the transaction of the change; the
// engine writes one delivery for each active subscription of the type
// (one only, Subscription, for a test event). Resource and ResourceID
// name what the body's data renders (a contract or a user); Data, when
// set, is that rendering already (a deleted resource, rendered before it
// went); FromStatus and ToStatus are a status change's.
type WebhookEvent struct {
	Type       string
	Resource   string // WebhookContract or WebhookUser; "" for a test event
	ResourceID int64
	FromStatus string
	ToStatus   string
	Data       json.RawMessage
	// Subscription is the one subscription a test event goes to.
	Subscription int64
}

func (WebhookEvent) effect() {}

// Resources of webhook events.
const (
	WebhookContract = "contract"
	WebhookUser     = "user"
)

// Delivery statuses, also those of an attempt (pending: it failed and is
// retried at NextAttemptAt).
const (
	DeliveryPending   = "pending"
	DeliverySucceeded = "succeeded"
	DeliveryFailed    = "failed"
)

// WebhookSubscription is a subscription as stored; Secret and
// PreviousSecret are sealed.
type WebhookSubscription struct {
	ID             int64
	URL            string
	Description    string
	Events         []string
	Secret         []byte
	PreviousSecret []byte
	PreviousUntil  *time.Time
	Active         bool
	CreatedBy      int64
	CreatedAt      time.Time
	UpdatedAt      time.Time
	FailingSince   *time.Time
	DisabledAt     *time.Time
}

// WebhookAttempt is one row of a subscription's deliveries list: an
// attempt, or a delivery not yet attempted (Attempt 0).
type WebhookAttempt struct {
	DeliveryID     int64
	EventID        int64
	EventType      string
	Attempt        int
	Status         string
	ResponseStatus int
	DurationMS     int64
	Error          string
	At             time.Time
	NextAttemptAt  *time.Time
}

// ClaimedDelivery is a delivery a worker holds (ClaimDeliveries): its
// event and subscription, and the token its outcome is recorded with.
type ClaimedDelivery struct {
	ID           int64
	Token        string
	Attempts     int // made before this one
	ClaimedUntil time.Time
	CreatedAt    time.Time
	Event        StoredWebhookEvent
	Subscription WebhookSubscription
}

// StoredWebhookEvent is an event as stored; Data is nil until rendered.
type StoredWebhookEvent struct {
	ID         int64
	Type       string
	Resource   string
	ResourceID int64
	FromStatus string
	ToStatus   string
	Data       json.RawMessage
	CreatedAt  time.Time
}

// DeliveryOutcome is what an attempt met, to record.
type DeliveryOutcome struct {
	Status         string // DeliverySucceeded, DeliveryPending (retry at Next) or DeliveryFailed
	ResponseStatus int
	Duration       time.Duration
	Error          string
	At             time.Time
	Next           time.Time
	// DisableAfter: a failed attempt disables the subscription when its
	// deliveries have all failed since at least this long (and Disabled
	// is then called, in the transaction, for its effects).
	DisableAfter time.Duration
	Disabled     func(ctx context.Context, s WebhookSubscription)
}

// WebhookStore keeps subscriptions, events, deliveries and attempts.
type WebhookStore interface {
	// CreateWebhook stores s (ID, times ignored) and returns it.
	CreateWebhook(ctx context.Context, s WebhookSubscription) (WebhookSubscription, error)
	// Webhooks lists every subscription, oldest first.
	Webhooks(ctx context.Context) ([]WebhookSubscription, error)
	// Webhook returns one. ENOTFOUND.
	Webhook(ctx context.Context, id int64) (WebhookSubscription, error)
	// UpdateWebhook changes subscription id with fn in a write
	// transaction. ENOTFOUND.
	UpdateWebhook(ctx context.Context, id int64, fn func(s *WebhookSubscription) error) (WebhookSubscription, error)
	// DeleteWebhook removes it with its deliveries. ENOTFOUND.
	DeleteWebhook(ctx context.Context, id int64) error
	// Deliveries pages the attempts of subscription id, newest first,
	// with the deliveries not yet attempted, and counts them.
	Deliveries(ctx context.Context, id int64, limit, offset int64) ([]WebhookAttempt, int64, error)
	// RetryDelivery makes delivery deliveryID of subscription id pending
	// and due at now (a new attempt, counted after the last). ENOTFOUND;
	// ECONFLICT while it is pending.
	RetryDelivery(ctx context.Context, id, deliveryID int64, now time.Time) error
	// ClaimDeliveries holds up to limit due pending deliveries of active
	// subscriptions until now+lease under a fresh token each, skipping
	// those another claim holds, due first.
	ClaimDeliveries(ctx context.Context, now time.Time, lease time.Duration, limit int) ([]ClaimedDelivery, error)
	// SetEventData records the rendered data of event id unless it has
	// some, and returns the data the event keeps.
	SetEventData(ctx context.Context, id int64, data json.RawMessage) (json.RawMessage, error)
	// FinishDelivery records attempt Attempts+1 of claimed delivery d and
	// releases it, only while the claim d.Token is still held (the
	// claim's lease not taken over by another worker): it reports false,
	// recording nothing, otherwise.
	FinishDelivery(ctx context.Context, d ClaimedDelivery, o DeliveryOutcome) (bool, error)
	// ReleaseDelivery gives up a claim without an attempt (the worker
	// stops or its lease is too short to make one).
	ReleaseDelivery(ctx context.Context, d ClaimedDelivery) error
	// PendingDeliveries counts the deliveries still to make.
	PendingDeliveries(ctx context.Context) (int, error)
	// PruneWebhookEvents removes the events made before before with
	// their deliveries and attempts, unless a delivery is still pending,
	// and returns how many events went.
	PruneWebhookEvents(ctx context.Context, before time.Time) (int64, error)
}

// WebhookInput is a subscription as a client sends it.
type WebhookInput struct {
	URL         *string
	Events      []string
	Description *string
	Active      *bool
}

// WebhookService manages subscriptions (WebhooksManage).
type WebhookService interface {
	// CreateWebhook validates and stores a subscription; it returns it
	// with its secret, shown this once. EINVALID naming the field.
	CreateWebhook(ctx context.Context, in WebhookInput) (WebhookSubscription, string, error)
	Webhooks(ctx context.Context) ([]WebhookSubscription, error)
	Webhook(ctx context.Context, id int64) (WebhookSubscription, error)
	UpdateWebhook(ctx context.Context, id int64, in WebhookInput) (WebhookSubscription, error)
	DeleteWebhook(ctx context.Context, id int64) error
	// RotateSecret gives the subscription a new secret, returned this
	// once; the old one signs beside it for a day.
	RotateSecret(ctx context.Context, id int64) (WebhookSubscription, string, error)
	// TestWebhook sends a webhook.test event to the subscription.
	TestWebhook(ctx context.Context, id int64) error
	Deliveries(ctx context.Context, id int64, limit, offset int64) ([]WebhookAttempt, int64, error)
	RetryDelivery(ctx context.Context, id, deliveryID int64) error
}

// WebhookRequest is one attempt to deliver: the POST's URL, headers
// (webhook-id, webhook-timestamp, webhook-signature) and body.
type WebhookRequest struct {
	URL       string
	ID        string
	Timestamp int64
	Signature string
	Body      []byte
}

// WebhookResult is what an attempt met: the answer's status (0 when none
// came), how long it took, and an error unless it was a 2xx in time.
type WebhookResult struct {
	Status   int
	Duration time.Duration
	Err      error
}

// WebhookSender makes attempts (adapters/webhookhttp).
type WebhookSender interface {
	SendWebhook(ctx context.Context, r WebhookRequest) WebhookResult
	// CheckURL refuses a subscription's URL (EINVALID on url).
	CheckURL(ctx context.Context, raw string) error
}

// ContractEvents are the webhook events of a change of contract id that
// writes entries (webhook.ContractChanges), to add to its Effects.
func ContractEvents(id int64, entries []contract.AuditEntry) []Effect {
	var out []Effect
	for _, c := range webhook.ContractChanges(entries) {
		out = append(out, WebhookEvent{Type: c.Type, Resource: WebhookContract, ResourceID: id, FromStatus: c.From, ToStatus: c.To})
	}
	return out
}

// UserEvent is webhook event typ about user id.
func UserEvent(typ string, id int64) Effect {
	return WebhookEvent{Type: typ, Resource: WebhookUser, ResourceID: id}
}

// RenderedContractEvents are ContractEvents(c.ID, entries), each carrying
// c as render returns it, rendered in the change's transaction so that a
// later change or deletion does not alter it. With render nil, or when it
// fails (logged), the delivery worker renders them instead.
func RenderedContractEvents(ctx context.Context, render func(context.Context, any) (json.RawMessage, error), log *slog.Logger,
	c contract.Contract, entries []contract.AuditEntry) []Effect {
	fx := ContractEvents(c.ID, entries)
	if len(fx) == 0 || render == nil {
		return fx
	}
	data, err := render(ctx, c)
	if err != nil {
		log.ErrorContext(ctx, "render a contract for its webhook events", "contract", c.ID, "err", err)
		return fx
	}
	return WithEventData(fx, data)
}

// WithEventData gives the webhook events among fx data, the resource as
// the API returns it at the change, with fromStatus and toStatus added
// for a status change; other effects are returned as they are.
func WithEventData(fx []Effect, data json.RawMessage) []Effect {
	out := make([]Effect, len(fx))
	for i, e := range fx {
		ev, ok := e.(WebhookEvent)
		if !ok {
			out[i] = e
			continue
		}
		ev.Data = data
		if ev.FromStatus != "" || ev.ToStatus != "" {
			var fields map[string]any
			if err := json.Unmarshal(data, &fields); err == nil && fields != nil {
				fields["fromStatus"], fields["toStatus"] = ev.FromStatus, ev.ToStatus
				if b, err := json.Marshal(fields); err == nil {
					ev.Data = b
				}
			}
		}
		out[i] = ev
	}
	return out
}
