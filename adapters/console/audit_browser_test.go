package console_test

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/matryer/is"

	"counsel/app/apptest"
	"counsel/domain/account"
)

// TestBrowserAudit: in Chromium, an AuditView holder opens Audit from the
// menu, sees the events newest first, filters them by action and date,
// and gets a field error for a bad date; a user without AuditView has no
// menu entry and gets the 403 page.
func TestBrowserAudit(t *testing.T) {
	if apptest.Engine() == "postgres" {
		t.Skip("browser tests run on SQLite only")
	}
	is := is.New(t)
	ctx := newChrome(t)
	s := newServer(t)
	_, auditor := userWith(t, s, account.AuditView)
	s.Do(t, "POST", "/api/roles", s.Admin(t), map[string]any{"name": "Partners"}).Expect(t, 201, "role")
	signInBrowser(t, ctx, s.URL, auditor, "password-123")

	var status, table string
	var rows int
	run(t, ctx,
		chromedp.Click(`//nav//a[.="Audit"]`),
		chromedp.WaitVisible(`//h1[.="Audit"]`),
		chromedp.Text(`[role=status]`, &status, chromedp.ByQuery),
		chromedp.Text(`table.list`, &table, chromedp.ByQuery),
	)
	is.True(strings.HasPrefix(status, "Showing 1–"))
	is.True(strings.Contains(table, "signin.succeeded"))
	is.True(strings.Contains(table, "role.created"))
	is.True(strings.Contains(table, "method: password"))
	axeCheck(t, ctx, axeScript(t), "/console/audit")

	run(t, ctx,
		chromedp.SetValue(`#f-Action`, "role.created", chromedp.ByID),
		chromedp.Click(`//button[.="Show"]`),
		chromedp.WaitReady(`//select[@id="f-Action"]/option[@value="role.created" and @selected]`), // the filtered page
		chromedp.WaitVisible(`//h1[.="Audit"]`),
		chromedp.Evaluate(`document.querySelectorAll('table.list tbody tr').length`, &rows),
		chromedp.Text(`table.list`, &table, chromedp.ByQuery),
	)
	is.True(rows >= 2) // Partners, and the roles userWith made
	is.True(!strings.Contains(table, "signin.succeeded"))
	is.True(strings.Contains(table, "Partners") || strings.Contains(table, "role"))

	var msg string
	run(t, ctx,
		chromedp.Navigate(s.URL+"/console/audit?From=2026-13-45"),
		chromedp.WaitVisible(`#e-From`, chromedp.ByID),
		chromedp.Text(`#e-From`, &msg, chromedp.ByID),
	)
	is.Equal(msg, "a date, yyyy-mm-dd")

	// Without AuditView.
	_, plain := userWith(t, s, account.ContractView)
	ctx2 := newChrome(t)
	signInBrowser(t, ctx2, s.URL, plain, "password-123")
	var nav, h1 string
	run(t, ctx2,
		chromedp.Text(`nav`, &nav, chromedp.ByQuery),
		chromedp.Navigate(s.URL+"/console/audit"),
		chromedp.Text(`h1`, &h1, chromedp.ByQuery),
	)
	is.True(!strings.Contains(nav, "Audit"))
	is.True(h1 != "Audit")
}
