package app

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	httpadapter "counsel/adapters/http"
	"counsel/adapters/metrics"
	"counsel/adapters/totp"
	"counsel/adapters/webhookhttp"
	"counsel/app/outbox"
	"counsel/app/webhooks"
	"counsel/domain"
	"counsel/domain/webhook"
	"counsel/ports"
)

// webhookPoll is how often the webhook worker looks for retries due (and
// anything a lost notification missed); a commit that queued deliveries
// wakes it at once.
const webhookPoll = mailPoll

// jobWebhooks names the webhook worker in counsel_job_last_success.
const jobWebhooks = "webhooks"

// wireWebhooks builds the webhook use case and starts the delivery
// worker (docs/decisions.md §17). Subscriptions' secrets are sealed
// under a key derived, for this purpose alone, from the authenticator
// vault's.
func (a *App) wireWebhooks(ctx context.Context) (*webhooks.Service, error) {
	cfg := a.cfg
	key, err := a.db.TOTP.TOTPKey(ctx, func() ([]byte, error) { return randomBytes(cfg.Rand, totp.KeySize) })
	if err != nil {
		return nil, fmt.Errorf("webhook secrets key: %w", err)
	}
	sealer, err := totp.NewSealer(key, "webhook signing secrets", cfg.Rand)
	if err != nil {
		return nil, err
	}
	agent := "" // the sender's own
	if cfg.Version != "" {
		agent = "Counsel-Webhooks/" + cfg.Version
	}
	sender := webhookhttp.New(webhookhttp.Options{AllowPrivate: cfg.WebhookAllowPrivate, UserAgent: agent})
	svc := webhooks.New(webhooks.Deps{Store: a.db.Webhooks, Sender: sender, Secrets: sealer, Label: outbox.SecretLabel,
		Clock: cfg.Clock, Rand: cfg.Rand})
	w := a.Webhooks
	w.Sender, w.Secrets, w.Render = sender, sealer, a.renderWebhookData
	w.Disabled = func(ctx context.Context, s ports.WebhookSubscription) (ports.Mail, bool) {
		u, err := a.db.Users.User(ctx, s.CreatedBy)
		if err != nil || u.Email == "" {
			return ports.Mail{}, false
		}
		after := time.Duration(float64(webhook.DisableAfter) * w.Scale)
		return webhooks.MailDisabled(u.Email, a.issuer()+"/console", s, after), true
	}
	if a.metrics != nil {
		a.metrics.Job(jobWebhooks)
		a.metrics.Outbox(metrics.OutboxWebhook, a.db.Webhooks.PendingDeliveries)
		w.Succeeded = func() { a.jobSucceeded(jobWebhooks) }
	}
	a.goBackground(func(ctx context.Context) { w.Run(ctx, webhookPoll) })
	return svc, nil
}

// renderWebhookData renders an event's resource as the API returns it
// (the http adapter's DTOs), read as it is now.
func (a *App) renderWebhookData(ctx context.Context, e ports.StoredWebhookEvent) (json.RawMessage, error) {
	switch e.Resource {
	case ports.WebhookContract:
		c, err := a.contractStore.Contract(ctx, e.ResourceID)
		if err != nil {
			return nil, err
		}
		return httpadapter.WebhookData(ctx, c)
	case ports.WebhookUser:
		p, err := a.db.Users.Profile(ctx, e.ResourceID, true)
		if err != nil {
			return nil, err
		}
		p.ComputePQY(a.cfg.Clock.Now())
		return httpadapter.WebhookData(ctx, p)
	}
	return nil, domain.Errorf(domain.ENOTFOUND, "no resource %q", e.Resource)
}
