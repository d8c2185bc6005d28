package console_test

import (
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/matryer/is"

	"counsel/app/apptest"
	"counsel/domain/account"
)

// TestBrowserAPIKeys: in Chromium, a user makes an API key on My account
// (name, a permission, an expiry date), sees the key once, uses it
// against the API, and revokes it with the row's button.
func TestBrowserAPIKeys(t *testing.T) {
	if apptest.Engine() == "postgres" {
		t.Skip("browser tests run on SQLite only")
	}
	is := is.New(t)
	ctx := newChrome(t)
	axe := axeScript(t)
	s := newServer(t)
	_, email := userWith(t, s, account.ContractView, account.RolesView)
	signInBrowser(t, ctx, s.URL, email, "password-123")
	expires := s.Clock.Now().AddDate(0, 6, 0).UTC().Format("2006-01-02")

	var key, flash, row string
	run(t, ctx,
		chromedp.Navigate(s.URL+"/console/account"),
		chromedp.WaitVisible(`//h2[.="API keys"]`),
		chromedp.SendKeys(`#f-keyName`, "Nightly export", chromedp.ByID),
		chromedp.Click(`#k-ContractView`, chromedp.ByID),
		chromedp.SetValue(`#f-expiresAt`, expires, chromedp.ByID),
		chromedp.Click(`//button[.="Create key"]`),
		chromedp.WaitVisible(`#new-key code.key`, chromedp.ByQuery),
		chromedp.Text(`#new-key code.key`, &key, chromedp.ByQuery),
		chromedp.Text(`.flash`, &flash, chromedp.ByQuery),
		chromedp.Text(`//tr[td[.="Nightly export"]]`, &row),
	)
	is.True(strings.HasPrefix(key, "cnsl_") && len(key) == len("cnsl_")+43)
	is.True(strings.Contains(flash, "not shown again"))
	is.True(strings.Contains(row, "ContractView") && !strings.Contains(row, "RolesView")) // only what was ticked
	is.True(strings.Contains(row, expires))
	is.True(strings.Contains(row, key[:10])) // the prefix, to recognise it
	axeCheck(t, ctx, axe, "my account with a new API key")

	s.Do(t, "GET", "/api/contracts", key, nil).Expect(t, 200, "the key works")
	s.Do(t, "GET", "/api/roles", key, nil).Expect(t, 403, "only the ticked permission")

	var html string
	run(t, ctx,
		chromedp.Navigate(s.URL+"/console/account"),
		chromedp.WaitVisible(`//h2[.="API keys"]`),
		chromedp.OuterHTML(`body`, &html, chromedp.ByQuery),
	)
	is.True(!strings.Contains(html, key)) // shown only once
	run(t, ctx,
		chromedp.Click(`//button[@aria-label="Revoke the key Nightly export"]`),
		chromedp.WaitVisible(`.flash`, chromedp.ByQuery),
		chromedp.Text(`.flash`, &flash, chromedp.ByQuery),
		chromedp.OuterHTML(`body`, &html, chromedp.ByQuery),
	)
	is.True(strings.HasPrefix(flash, "API key revoked"))
	is.True(strings.Contains(html, "You have no API keys."))
	s.Do(t, "GET", "/api/contracts", key, nil).Expect(t, 401, "revoked")
}

// TestConsoleAPIKeyForm: the form's refusals come back next to the field
// or above it, nothing is made, and a stale session is asked to confirm
// it is you first.
func TestConsoleAPIKeyForm(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	s := newServer(t)
	b, _, _ := signedInUser(t, s, account.ContractView)
	b.get("/console/account")
	r := b.post("/console/account/api-keys", url.Values{"keyName": {""}, "expiresAt": {"31/01/2027"}})
	is.Equal(r.Status, 400)
	is.True(strings.Contains(r.Body, "must be a date such as 2027-01-31"))
	r = b.post("/console/account/api-keys", url.Values{"keyName": {"k"}, "expiresAt": {s.Clock.Now().AddDate(2, 0, 0).Format("2006-01-02")}})
	is.Equal(r.Status, 400)
	is.True(strings.Contains(r.Body, "must be at most one year ahead"))
	r = b.post("/console/account/api-keys", url.Values{"keyName": {"k"}, "permissions": {"ContractView", "UsersDelete"}})
	is.Equal(r.Status, 403)
	is.True(contains(r.Body, "the key would hold permissions you do not hold: UsersDelete"))
	is.True(contains(r.Body, "You have no API keys."))
	r = b.post("/console/account/api-keys", url.Values{"keyName": {"ok"}, "permissions": {"ContractView"}})
	is.Equal(r.Status, 200)
	is.True(strings.Contains(r.Body, `id="new-key"`))
	r = b.post("/console/account/api-keys/99999/revoke", nil)
	is.Equal(r.Status, 404)
	s.Clock.Advance(account.DefaultReauthWindow + time.Minute)
	r = b.post("/console/account/api-keys", url.Values{"keyName": {"late"}})
	is.Equal(r.Status, 303)
	is.True(strings.HasPrefix(r.Header.Get("Location"), "/console/confirm?next="))
}
