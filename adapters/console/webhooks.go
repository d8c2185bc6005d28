package console

import (
	"fmt"
	"net/http"
	"strconv"

	"github.com/gorilla/mux"

	"counsel/domain"
	"counsel/domain/webhook"
	"counsel/ports"
)

// The Webhooks page (docs/decisions.md §17), for WebhooksManage holders:
// the subscriptions and a form to add one (its secret shown this once,
// on the answer to the form), and each subscription's deliveries with a
// Retry button and a test event. The use case decides everything.

// webhookPageSize is how many delivery rows a subscription's page shows.
const webhookPageSize = 50

type webhooksData struct {
	Items     []ports.WebhookSubscription
	Events    []string
	NewSecret string
	NewID     int64
}

type webhookData struct {
	Sub        ports.WebhookSubscription
	Rows       []ports.WebhookAttempt
	Count      int64
	From, To   int64
	Prev, Next string
}

func (c *console) webhooksAvailable(w http.ResponseWriter, r *http.Request, p *page) bool {
	if c.svc.Webhooks == nil {
		c.fail(w, r, p, domain.Errorf(domain.ENOTFOUND, "webhooks are not available"))
		return false
	}
	return true
}

// webhooksList lists the subscriptions with the form to add one.
func (c *console) webhooksList(w http.ResponseWriter, r *http.Request, p *page) {
	if !c.webhooksAvailable(w, r, p) {
		return
	}
	items, err := c.svc.Webhooks.Webhooks(r.Context())
	c.listPage(w, r, p, "webhooks", "Webhooks", webhooksData{Items: items, Events: webhook.EventTypes}, err)
}

// webhookCreate subscribes the form's URL to the events ticked.
func (c *console) webhookCreate(w http.ResponseWriter, r *http.Request, p *page) {
	if !c.webhooksAvailable(w, r, p) {
		return
	}
	url, desc := p.V("url"), p.V("description")
	events := p.Form["events"]
	if events == nil {
		events = []string{}
	}
	sub, secret, err := c.svc.Webhooks.CreateWebhook(r.Context(), ports.WebhookInput{URL: &url, Description: &desc, Events: events})
	items, lerr := c.svc.Webhooks.Webhooks(r.Context())
	if lerr != nil {
		c.fail(w, r, p, lerr)
		return
	}
	p.Title = "Webhooks"
	if err != nil {
		p.Data = webhooksData{Items: items, Events: webhook.EventTypes}
		c.formFail(w, r, p, "webhooks", err)
		return
	}
	for _, f := range []string{"url", "description", "events"} {
		p.Form.Del(f)
	}
	p.Data = webhooksData{Items: items, Events: webhook.EventTypes, NewSecret: secret, NewID: sub.ID}
	p.Flash = "Subscription added. Copy its signing secret now: it is not shown again."
	c.render(w, r, 0, "webhooks", p) // pages are no-store: the secret stays on this one
}

// webhookShow is one subscription and its deliveries, newest first.
func (c *console) webhookShow(w http.ResponseWriter, r *http.Request, p *page) {
	if !c.webhooksAvailable(w, r, p) {
		return
	}
	id := pathID(r)
	sub, err := c.svc.Webhooks.Webhook(r.Context(), id)
	if err != nil {
		c.fail(w, r, p, err)
		return
	}
	offset, err := strconv.ParseInt(r.URL.Query().Get("Offset"), 10, 64)
	if err != nil || offset < 0 {
		offset = 0
	}
	rows, count, err := c.svc.Webhooks.Deliveries(r.Context(), id, webhookPageSize, offset)
	d := webhookData{Sub: sub, Rows: rows, Count: count, From: offset + 1, To: offset + int64(len(rows))}
	if offset > 0 {
		d.Prev = fmt.Sprintf("/console/webhooks/%d?Offset=%d", id, max(0, offset-webhookPageSize))
	}
	if d.To < count {
		d.Next = fmt.Sprintf("/console/webhooks/%d?Offset=%d", id, d.To)
	}
	c.listPage(w, r, p, "webhook", "Webhook "+strconv.FormatInt(id, 10), d, err)
}

// webhookRetry attempts a delivery again.
func (c *console) webhookRetry(w http.ResponseWriter, r *http.Request, p *page) {
	if !c.webhooksAvailable(w, r, p) {
		return
	}
	id := pathID(r)
	did, _ := strconv.ParseInt(mux.Vars(r)["did"], 10, 64)
	if err := c.svc.Webhooks.RetryDelivery(r.Context(), id, did); err != nil {
		c.fail(w, r, p, err)
		return
	}
	c.redirect(w, r, fmt.Sprintf("/console/webhooks/%d", id), "Delivery queued to be attempted again.")
}

// webhookTest sends the subscription a webhook.test event.
func (c *console) webhookTest(w http.ResponseWriter, r *http.Request, p *page) {
	if !c.webhooksAvailable(w, r, p) {
		return
	}
	id := pathID(r)
	if err := c.svc.Webhooks.TestWebhook(r.Context(), id); err != nil {
		c.fail(w, r, p, err)
		return
	}
	c.redirect(w, r, fmt.Sprintf("/console/webhooks/%d", id), "Test event queued.")
}
