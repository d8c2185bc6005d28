// Package webhooks is the use case of outbound webhook subscriptions
// (docs/decisions.md §17), for WebhooksManage holders: subscriptions with
// a secret shown once and sealed at rest, its rotation (the old secret
// signs beside the new one for webhook.RotationOverlap), test events,
// the deliveries list and manual retries. The delivery worker is
// app/outbox's WebhookWorker.
package webhooks

import (
	"context"
	"errors"
	"io"
	"strconv"
	"strings"
	"time"

	"counsel/domain"
	"counsel/domain/account"
	"counsel/domain/audit"
	"counsel/domain/webhook"
	"counsel/ports"
)

// Deps are what the service uses.
type Deps struct {
	Store  ports.WebhookStore
	Sender ports.WebhookSender
	// Secrets seals the signing secrets (label: Label).
	Secrets ports.Sealer
	Label   func(id int64) string
	Clock   ports.Clock
	Rand    io.Reader
}

// Service implements ports.WebhookService.
type Service struct{ d Deps }

var _ ports.WebhookService = (*Service)(nil)

// New returns the service.
func New(d Deps) *Service { return &Service{d: d} }

// MaxDescription bounds a subscription's description.
const MaxDescription = 500

// check validates a subscription's fields, the URL through the sender
// (which resolves its host).
func (s *Service) check(ctx context.Context, w ports.WebhookSubscription) error {
	f := domain.FieldErrors{}
	if err := s.d.Sender.CheckURL(ctx, w.URL); err != nil {
		var de *domain.Error
		if !errors.As(err, &de) || de.Code != domain.EINVALID {
			return err
		}
		for k, v := range de.Fields {
			f[k] = append(f[k], v...)
		}
	}
	if len(w.Events) == 0 {
		f.Add("events", "name at least one event type")
	}
	seen := map[string]bool{}
	for _, e := range w.Events {
		if !webhook.KnownEvent(e) {
			f.Add("events", "unknown event type "+strconv.Quote(e)+"; known: "+strings.Join(webhook.EventTypes, ", "))
		}
		if seen[e] {
			f.Add("events", "event type "+strconv.Quote(e)+" is named twice")
		}
		seen[e] = true
	}
	if len(w.Description) > MaxDescription {
		f.Add("description", "must be at most 500 characters")
	}
	return f.Err()
}

func (s *Service) newSecret(id int64) (string, []byte, error) {
	secret, err := webhook.NewSecret(s.d.Rand)
	if err != nil {
		return "", nil, err
	}
	sealed, err := s.d.Secrets.Seal(s.d.Label(id), []byte(secret))
	return secret, sealed, err
}

// CreateWebhook implements ports.WebhookService. The secret is sealed
// for the new row's id.
func (s *Service) CreateWebhook(ctx context.Context, in ports.WebhookInput) (ports.WebhookSubscription, string, error) {
	p, err := account.Require(ctx, account.WebhooksManage)
	if err != nil {
		return ports.WebhookSubscription{}, "", err
	}
	w := ports.WebhookSubscription{Active: true, CreatedBy: p.UserID, Events: in.Events}
	if in.URL != nil {
		w.URL = strings.TrimSpace(*in.URL)
	}
	if in.Description != nil {
		w.Description = strings.TrimSpace(*in.Description)
	}
	if in.Active != nil {
		w.Active = *in.Active
	}
	if err := s.check(ctx, w); err != nil {
		return ports.WebhookSubscription{}, "", err
	}
	// The row is written inactive, without a secret; once its id is
	// known the secret is sealed for it and the row turned on.
	active := w.Active
	w.Secret, w.Active = []byte{}, false
	ctx, fx := ports.WithEffects(ctx)
	fx.Add(ports.Deferred(func(id int64) (ports.Effect, error) {
		return ports.Audit(ctx, audit.WebhookCreated, audit.TargetWebhook, strconv.FormatInt(id, 10), nil), nil
	}))
	created, err := s.d.Store.CreateWebhook(ctx, w)
	if err != nil {
		return ports.WebhookSubscription{}, "", err
	}
	secret, sealed, err := s.newSecret(created.ID)
	if err != nil {
		return ports.WebhookSubscription{}, "", err
	}
	created, err = s.d.Store.UpdateWebhook(context.WithoutCancel(ctx), created.ID, func(w *ports.WebhookSubscription) error {
		w.Secret, w.Active = sealed, active
		return nil
	})
	return created, secret, err
}

// Webhooks implements ports.WebhookService.
func (s *Service) Webhooks(ctx context.Context) ([]ports.WebhookSubscription, error) {
	if _, err := account.Require(ctx, account.WebhooksManage); err != nil {
		return nil, err
	}
	return s.d.Store.Webhooks(ctx)
}

// Webhook implements ports.WebhookService.
func (s *Service) Webhook(ctx context.Context, id int64) (ports.WebhookSubscription, error) {
	if _, err := account.Require(ctx, account.WebhooksManage); err != nil {
		return ports.WebhookSubscription{}, err
	}
	return s.d.Store.Webhook(ctx, id)
}

// UpdateWebhook implements ports.WebhookService: the fields given
// replace the stored ones; active true turns a disabled subscription on.
func (s *Service) UpdateWebhook(ctx context.Context, id int64, in ports.WebhookInput) (ports.WebhookSubscription, error) {
	if _, err := account.Require(ctx, account.WebhooksManage); err != nil {
		return ports.WebhookSubscription{}, err
	}
	old, err := s.d.Store.Webhook(ctx, id)
	if err != nil {
		return ports.WebhookSubscription{}, err
	}
	next := old
	if in.URL != nil {
		next.URL = strings.TrimSpace(*in.URL)
	}
	if in.Events != nil {
		next.Events = in.Events
	}
	if in.Description != nil {
		next.Description = strings.TrimSpace(*in.Description)
	}
	if in.Active != nil {
		next.Active = *in.Active
	}
	if err := s.check(ctx, next); err != nil {
		return ports.WebhookSubscription{}, err
	}
	var fields []string
	if next.URL != old.URL {
		fields = append(fields, "url")
	}
	if strings.Join(next.Events, ",") != strings.Join(old.Events, ",") {
		fields = append(fields, "events")
	}
	if next.Description != old.Description {
		fields = append(fields, "description")
	}
	if next.Active != old.Active {
		fields = append(fields, "active")
	}
	ctx, fx := ports.WithEffects(ctx)
	if len(fields) > 0 {
		fx.Add(ports.Audit(ctx, audit.WebhookUpdated, audit.TargetWebhook, strconv.FormatInt(id, 10), map[string]any{"fields": fields}))
	}
	return s.d.Store.UpdateWebhook(ctx, id, func(w *ports.WebhookSubscription) error {
		w.URL, w.Events, w.Description = next.URL, next.Events, next.Description
		if next.Active && !w.Active {
			w.FailingSince = nil
		}
		w.Active = next.Active
		return nil
	})
}

// DeleteWebhook implements ports.WebhookService.
func (s *Service) DeleteWebhook(ctx context.Context, id int64) error {
	if _, err := account.Require(ctx, account.WebhooksManage); err != nil {
		return err
	}
	ctx, fx := ports.WithEffects(ctx)
	fx.Add(ports.Audit(ctx, audit.WebhookDeleted, audit.TargetWebhook, strconv.FormatInt(id, 10), nil))
	return s.d.Store.DeleteWebhook(ctx, id)
}

// RotateSecret implements ports.WebhookService.
func (s *Service) RotateSecret(ctx context.Context, id int64) (ports.WebhookSubscription, string, error) {
	if _, err := account.Require(ctx, account.WebhooksManage); err != nil {
		return ports.WebhookSubscription{}, "", err
	}
	secret, sealed, err := s.newSecret(id)
	if err != nil {
		return ports.WebhookSubscription{}, "", err
	}
	ctx, fx := ports.WithEffects(ctx)
	fx.Add(ports.Audit(ctx, audit.WebhookSecretRotated, audit.TargetWebhook, strconv.FormatInt(id, 10), nil))
	until := s.d.Clock.Now().Add(webhook.RotationOverlap)
	w, err := s.d.Store.UpdateWebhook(ctx, id, func(w *ports.WebhookSubscription) error {
		w.PreviousSecret, w.PreviousUntil, w.Secret = w.Secret, &until, sealed
		return nil
	})
	return w, secret, err
}

// TestWebhook implements ports.WebhookService: a webhook.test event for
// this subscription alone, written in a transaction of its own.
func (s *Service) TestWebhook(ctx context.Context, id int64) error {
	if _, err := account.Require(ctx, account.WebhooksManage); err != nil {
		return err
	}
	ctx, fx := ports.WithEffects(ctx)
	fx.Add(ports.WebhookEvent{Type: webhook.Test, ResourceID: id, Subscription: id})
	// An update that changes nothing but the time carries the event.
	_, err := s.d.Store.UpdateWebhook(ctx, id, func(*ports.WebhookSubscription) error { return nil })
	return err
}

// Deliveries implements ports.WebhookService.
func (s *Service) Deliveries(ctx context.Context, id int64, limit, offset int64) ([]ports.WebhookAttempt, int64, error) {
	if _, err := account.Require(ctx, account.WebhooksManage); err != nil {
		return nil, 0, err
	}
	return s.d.Store.Deliveries(ctx, id, limit, offset)
}

// RetryDelivery implements ports.WebhookService.
func (s *Service) RetryDelivery(ctx context.Context, id, deliveryID int64) error {
	if _, err := account.Require(ctx, account.WebhooksManage); err != nil {
		return err
	}
	return s.d.Store.RetryDelivery(ctx, id, deliveryID, s.d.Clock.Now())
}

// MailDisabled is the email to a subscription's creator when its
// failures disabled it.
func MailDisabled(to, consoleURL string, w ports.WebhookSubscription, after time.Duration) ports.Mail {
	text := "The webhook subscription " + strconv.FormatInt(w.ID, 10) + " to " + w.URL + " has been disabled: its deliveries have all failed for " +
		after.Round(time.Hour).String() + ".\n\nFix the receiver, then turn the subscription on again in the console's Webhooks page (" +
		consoleURL + "/webhooks) or with PUT /api/webhooks/" + strconv.FormatInt(w.ID, 10) + " {\"active\": true}.\n"
	return ports.Mail{To: to, Subject: "A Counsel webhook subscription was disabled", Kind: "webhookDisabled", Text: text}
}
