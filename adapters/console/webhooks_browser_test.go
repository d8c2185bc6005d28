package console_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/matryer/is"

	"counsel/app"
	"counsel/domain/account"
)

// TestBrowserWebhooks: a WebhooksManage holder adds a subscription on
// the Webhooks page (its secret shown once), sees a change's delivery
// and retries it, at 375 px, with axe-core. Others have no menu entry,
// and the pages refuse them.
func TestBrowserWebhooks(t *testing.T) {
	is := is.New(t)
	ctx := newChrome(t)
	axe := axeScript(t)
	var hits atomic.Int64
	rcv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.WriteHeader(204)
	}))
	defer rcv.Close()
	s := newServer(t, func(c *app.Config) { c.WebhookAllowPrivate, c.Clock = true, nil })
	base := s.URL
	admin := s.Admin(t)
	_, email := userWith(t, s, account.WebhooksManage)

	signInBrowser(t, ctx, base, email, "password-123")
	run(t, ctx, chromedp.EmulateViewport(375, 800, chromedp.EmulateMobile))
	var secret, errText string
	var width int
	run(t, ctx,
		chromedp.Navigate(base+"/console"),
		chromedp.Click(`//nav//a[.="Webhooks"]`),
		chromedp.WaitVisible(`//h1[.="Webhooks"]`),
	)
	axeCheck(t, ctx, axe, "/console/webhooks")
	run(t, ctx, // no event ticked: the form says so
		chromedp.SendKeys(`#f-url`, rcv.URL+"/hook"),
		chromedp.Click(`//button[.="Add subscription"]`),
		chromedp.WaitVisible(`#e-events`),
		chromedp.Text(`#e-events`, &errText, chromedp.ByQuery),
	)
	is.True(strings.Contains(errText, "at least one event type"))
	axeCheck(t, ctx, axe, "/console/webhooks (invalid)")
	run(t, ctx,
		chromedp.Click(`//input[@value="contract.created"]`),
		chromedp.Click(`//button[.="Add subscription"]`),
		chromedp.WaitVisible(`#new-secret`),
		chromedp.Text(`#new-secret code`, &secret, chromedp.ByQuery),
		chromedp.Evaluate(`document.documentElement.scrollWidth`, &width),
	)
	is.True(strings.HasPrefix(secret, "whsec_"))
	is.True(width <= 375)
	axeCheck(t, ctx, axe, "/console/webhooks (secret)")
	shot(t, ctx, "375_webhooks")

	s.Do(t, "POST", "/api/contracts", admin, map[string]any{"contractName": "Hooked"}).Expect(t, 201, "contract")
	deadline := time.Now().Add(10 * time.Second)
	for hits.Load() < 1 {
		if time.Now().After(deadline) {
			t.Fatal("no delivery")
		}
		time.Sleep(10 * time.Millisecond)
	}
	var status string
	run(t, ctx,
		chromedp.Click(`//a[contains(., "/hook")]`),
		chromedp.WaitVisible(`//h2[.="Deliveries"]`),
		chromedp.Text(`td[data-label="Status"]`, &status, chromedp.ByQuery),
		chromedp.Evaluate(`document.documentElement.scrollWidth`, &width),
	)
	is.Equal(status, "succeeded")
	is.True(width <= 375)
	axeCheck(t, ctx, axe, "/console/webhooks/{id}")
	run(t, ctx,
		chromedp.Click(`//button[.="Retry"]`),
		waitFlash("Delivery queued", &status),
	)
	deadline = time.Now().Add(10 * time.Second)
	for hits.Load() < 2 {
		if time.Now().After(deadline) {
			t.Fatal("the retry was not delivered")
		}
		time.Sleep(10 * time.Millisecond)
	}

	b, _, _ := signedInUser(t, s, account.ContractView)
	is.True(!strings.Contains(b.get("/console").Body, `href="/console/webhooks"`))
	is.Equal(b.get("/console/webhooks").Status, http.StatusForbidden)
	is.Equal(b.get("/console/webhooks/1").Status, http.StatusForbidden)
}
