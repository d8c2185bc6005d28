package http

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"time"

	"counsel/domain"
	"counsel/domain/contract"
	"counsel/domain/user"
	"counsel/ports"
)

// Outbound webhooks (docs/decisions.md §17): subscriptions, their
// deliveries and retries, for WebhooksManage holders. These are the API
// reference entries of their routes (routes.go).
var (
	opCreateWebhook = op{summary: "Subscribe a URL to events (Standard Webhooks); the signing secret is in this answer only (400 naming the field for an unknown event type, a URL that is not http or https, or an address in a loopback, private, link-local or unique-local range)",
		tag: "webhooks", body: ref("WebhookInput"), ok: 201, resp: ref("WebhookCreatedDto"), headers: []string{"Cache-Control"}, errs: []int{400}}
	opWebhooks      = op{summary: "Every webhook subscription, oldest first, without secrets", tag: "webhooks", resp: ref("WebhookListDto")}
	opWebhook       = op{summary: "A webhook subscription", tag: "webhooks", resp: ref("WebhookDto"), errs: []int{404}}
	opUpdateWebhook = op{summary: "Change a subscription: the fields given replace the stored ones; active true turns a disabled subscription on again",
		tag: "webhooks", body: ref("WebhookInput"), resp: ref("WebhookDto"), errs: []int{400, 404}}
	opDeleteWebhook       = op{summary: "Remove a subscription with its deliveries", tag: "webhooks", ok: 204, errs: []int{404}}
	opRotateWebhookSecret = op{summary: "Give a subscription a new signing secret, in this answer only; the old one keeps signing beside it (webhook-signature carries both) for 24 hours",
		tag: "webhooks", resp: ref("WebhookCreatedDto"), headers: []string{"Cache-Control"}, errs: []int{404}}
	opTestWebhook       = op{summary: "Send a webhook.test event to the subscription (delivered like any event; see its deliveries)", tag: "webhooks", ok: 202, errs: []int{404}}
	opWebhookDeliveries = op{summary: "A subscription's deliveries, one row per attempt (and one for a delivery's next attempt not yet made), newest first",
		tag: "webhooks", params: pagingParams, resp: ref("WebhookDeliveryPageDto"), errs: []int{400, 404}}
	opRetryWebhookDelivery = op{summary: "Attempt a succeeded or failed delivery again, at once (409 while it is pending)", tag: "webhooks", ok: 202, errs: []int{404, 409}}
)

type webhookIn struct {
	URL         *string  `json:"url" doc:"http or https; required on creation"`
	Events      []string `json:"events" doc:"the event types to receive (at least one): contract.created, contract.updated, contract.status_changed, contract.deleted, contract.document_added, contract.document_removed, signing.submitted, signing.completed, signing.declined, signing.expired, user.created, user.updated, user.deactivated, user.deleted"`
	Description *string  `json:"description" doc:"at most 500 characters"`
	Active      *bool    `json:"active" doc:"false stops deliveries; true turns a disabled subscription on (default true)"`
}

type webhookDTO struct {
	ID                  int64    `json:"id"`
	URL                 string   `json:"url"`
	Events              []string `json:"events"`
	Description         string   `json:"description"`
	Active              bool     `json:"active" doc:"false when turned off, or disabled after five days of failed deliveries"`
	CreatedAt           Time     `json:"createdAt"`
	UpdatedAt           Time     `json:"updatedAt"`
	CreatedBy           int64    `json:"createdBy" doc:"the user who subscribed (emailed when the subscription is disabled)"`
	DisabledAt          *Time    `json:"disabledAt" doc:"when failures disabled it; null otherwise"`
	FailingSince        *Time    `json:"failingSince" doc:"the first failed attempt since the last success; null while deliveries succeed"`
	PreviousSecretUntil *Time    `json:"previousSecretUntil" doc:"until when the secret a rotation replaced still signs; null when none does"`
}

type webhookCreatedDTO struct {
	webhookDTO
	Secret string `json:"secret" doc:"whsec_ and the base64 of 32 random bytes: verify webhook-signature with it (Standard Webhooks). Shown only now"`
}

type webhookListDTO struct {
	Items []webhookDTO `json:"items" doc:"oldest first (not paged)"`
}

type webhookDeliveryDTO struct {
	ID             int64  `json:"id" doc:"the delivery (an event to this subscription), as the retry route names it"`
	EventID        string `json:"eventId" doc:"the webhook-id header, the same on every attempt"`
	EventType      string `json:"eventType"`
	Attempt        int    `json:"attempt" doc:"1 for the first attempt"`
	Status         string `json:"status" enum:"pending,succeeded,failed" doc:"pending: not yet made, or failed and retried at nextAttemptAt; failed: the last attempt of the schedule failed"`
	ResponseStatus *int   `json:"responseStatus" doc:"the receiver's HTTP status; null when no answer came or the attempt is not yet made"`
	DurationMS     int64  `json:"durationMs"`
	Error          string `json:"error" doc:"why the attempt failed; empty when it succeeded"`
	At             Time   `json:"at" doc:"when the attempt was made (or is due)"`
	NextAttemptAt  *Time  `json:"nextAttemptAt" doc:"when the delivery is attempted again; null when it is not"`
}

func toWebhook(w ports.WebhookSubscription, now func() time.Time) webhookDTO {
	d := webhookDTO{ID: w.ID, URL: w.URL, Events: w.Events, Description: w.Description, Active: w.Active,
		CreatedAt: Time(w.CreatedAt), UpdatedAt: Time(w.UpdatedAt), CreatedBy: w.CreatedBy,
		DisabledAt: timePtr(w.DisabledAt), FailingSince: timePtr(w.FailingSince)}
	if w.PreviousUntil != nil && w.PreviousUntil.After(now()) {
		d.PreviousSecretUntil = timePtr(w.PreviousUntil)
	}
	if d.Events == nil {
		d.Events = []string{}
	}
	return d
}

func toWebhookDelivery(a ports.WebhookAttempt) webhookDeliveryDTO {
	d := webhookDeliveryDTO{ID: a.DeliveryID, EventID: fmt.Sprintf("evt_%d", a.EventID), EventType: a.EventType, Attempt: a.Attempt,
		Status: a.Status, DurationMS: a.DurationMS, Error: a.Error, At: Time(a.At), NextAttemptAt: timePtr(a.NextAttemptAt)}
	if a.ResponseStatus != 0 {
		rs := a.ResponseStatus
		d.ResponseStatus = &rs
	}
	return d
}

func (in webhookIn) input() ports.WebhookInput {
	return ports.WebhookInput{URL: in.URL, Events: in.Events, Description: in.Description, Active: in.Active}
}

func (s *server) webhookNow() time.Time { return s.opts.Now() }

func (s *server) handleCreateWebhook() http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		var in webhookIn
		if err := decode(r, &in); err != nil {
			s.fail(w, r, err)
			return
		}
		if in.URL == nil {
			s.fail(w, r, domain.Invalid(map[string][]string{"url": {"url is required"}}))
			return
		}
		sub, secret, err := s.svc.Webhooks.CreateWebhook(r.Context(), in.input())
		if err != nil {
			s.fail(w, r, err)
			return
		}
		w.Header().Set("Cache-Control", "no-store")
		w.Header().Set("Location", "/api/webhooks/"+itoa(sub.ID))
		encode(w, http.StatusCreated, webhookCreatedDTO{webhookDTO: toWebhook(sub, s.webhookNow), Secret: secret})
	}
}

func (s *server) handleWebhooks() http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		subs, err := s.svc.Webhooks.Webhooks(r.Context())
		items := make([]webhookDTO, len(subs))
		for i, sub := range subs {
			items[i] = toWebhook(sub, s.webhookNow)
		}
		s.reply(w, r, http.StatusOK, webhookListDTO{Items: items}, err)
	}
}

func (s *server) handleWebhook() http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		id, err := pathID(r, "id")
		var sub ports.WebhookSubscription
		if err == nil {
			sub, err = s.svc.Webhooks.Webhook(r.Context(), id)
		}
		s.reply(w, r, http.StatusOK, toWebhook(sub, s.webhookNow), err)
	}
}

func (s *server) handleUpdateWebhook() http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		id, err := pathID(r, "id")
		if err != nil {
			s.fail(w, r, err)
			return
		}
		var in webhookIn
		if err := decode(r, &in); err != nil {
			s.fail(w, r, err)
			return
		}
		sub, err := s.svc.Webhooks.UpdateWebhook(r.Context(), id, in.input())
		s.reply(w, r, http.StatusOK, toWebhook(sub, s.webhookNow), err)
	}
}

func (s *server) handleDeleteWebhook() http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		id, err := pathID(r, "id")
		if err == nil {
			err = s.svc.Webhooks.DeleteWebhook(r.Context(), id)
		}
		s.reply(w, r, http.StatusNoContent, nil, err)
	}
}

func (s *server) handleRotateWebhookSecret() http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		id, err := pathID(r, "id")
		if err != nil {
			s.fail(w, r, err)
			return
		}
		sub, secret, err := s.svc.Webhooks.RotateSecret(r.Context(), id)
		if err != nil {
			s.fail(w, r, err)
			return
		}
		w.Header().Set("Cache-Control", "no-store")
		encode(w, http.StatusOK, webhookCreatedDTO{webhookDTO: toWebhook(sub, s.webhookNow), Secret: secret})
	}
}

func (s *server) handleTestWebhook() http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		id, err := pathID(r, "id")
		if err == nil {
			err = s.svc.Webhooks.TestWebhook(r.Context(), id)
		}
		s.reply(w, r, http.StatusAccepted, nil, err)
	}
}

func (s *server) handleWebhookDeliveries() http.HandlerFunc {
	return pagedOf(s, func(ctx context.Context, id, limit, offset int64) ([]ports.WebhookAttempt, int64, error) {
		return s.svc.Webhooks.Deliveries(ctx, id, limit, offset)
	}, toWebhookDelivery)
}

func (s *server) handleRetryWebhookDelivery() http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		id, deliveryID, err := pathIDs(r, "id", "deliveryId")
		if err == nil {
			err = s.svc.Webhooks.RetryDelivery(r.Context(), id, deliveryID)
		}
		s.reply(w, r, http.StatusAccepted, nil, err)
	}
}

// WebhookData renders the data of a webhook event about v as the API
// returns the resource: a contract.Contract as ContractDto, a
// user.Profile as UserDto (docs/decisions.md §17). The delivery worker
// calls it through the composition root, so the DTOs stay here.
func WebhookData(_ context.Context, v any) (json.RawMessage, error) {
	switch v := v.(type) {
	case contract.Contract:
		return json.Marshal(toContract(v))
	case user.Profile:
		return json.Marshal(toUser(v))
	}
	return nil, fmt.Errorf("webhook data: no rendering of %T", v)
}
