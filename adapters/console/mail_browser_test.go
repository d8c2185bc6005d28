package console_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/matryer/is"

	"counsel/app/apptest"
	"counsel/domain/account"
	"counsel/domain/contract"
	"counsel/ports"
)

// TestBrowserMail: without SMTP, a system administrator reads in the
// console what would have gone out: the outbox list and each message's
// text and HTML source, at 375 px, with axe-core. Others have no menu
// entry, and the page refuses them.
func TestBrowserMail(t *testing.T) {
	is := is.New(t)
	ctx := newChrome(t)
	axe := axeScript(t)
	s := newServer(t)
	base := s.URL
	admin := s.Admin(t)
	r := s.Do(t, "POST", "/api/contracts", admin, map[string]any{"contractName": "Lease"}).Expect(t, 201, "contract")
	id := int64(r.Map(t)["id"].(float64))
	mctx, fx := ports.WithEffects(context.Background())
	fx.Add(ports.Mail{To: "owner@example.com", Subject: "Declined: Lease", Kind: "ownerNotice",
		Text: "Ann Client declined to sign Lease.\nReason: <wrong dates>\n\nhttps://counsel.example/console/contracts/1\n",
		HTML: "<p>Ann Client declined.</p>", Attachments: []ports.Attachment{{Name: "x.pdf", Data: []byte("1234")}}})
	if _, err := s.App.Stores().Contracts.UpdateContract(mctx, id, func(*contract.Contract) ([]contract.AuditEntry, error) { return nil, nil }); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(2 * time.Second)
	for {
		var p struct{ Items []struct{ Status string } }
		s.Do(t, "GET", "/api/system/mail", admin, nil).Expect(t, 200, "mail").JSON(t, &p)
		if len(p.Items) == 1 && p.Items[0].Status == "kept" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the message was not kept")
		}
		time.Sleep(10 * time.Millisecond)
	}

	signInBrowser(t, ctx, base, apptest.AdminEmail, apptest.AdminPassword)
	run(t, ctx, chromedp.EmulateViewport(375, 800, chromedp.EmulateMobile))
	var status, text, html, attachments string
	var width int
	run(t, ctx,
		chromedp.Navigate(base+"/console"),
		chromedp.Click(`//nav//a[.="Mail"]`),
		chromedp.WaitVisible(`//h1[.="Mail"]`),
		chromedp.Text(`td[data-label="Status"]`, &status, chromedp.ByQuery),
		chromedp.Evaluate(`document.documentElement.scrollWidth`, &width),
	)
	is.Equal(status, "kept")
	is.True(width <= 375)
	axeCheck(t, ctx, axe, "/console/mail")
	run(t, ctx,
		chromedp.Click(`//a[.="Declined: Lease"]`),
		chromedp.WaitVisible(`//h1[.="Declined: Lease"]`),
		chromedp.Text(`#text-h + pre`, &text, chromedp.ByQuery),
		chromedp.Text(`#html-h + pre`, &html, chromedp.ByQuery),
		chromedp.Text(`//dt[.="Attachments"]/following-sibling::dd[1]`, &attachments),
		chromedp.Evaluate(`document.documentElement.scrollWidth`, &width),
	)
	is.True(strings.Contains(text, "Reason: <wrong dates>")) // the text as written, escaped, not markup
	is.True(strings.Contains(text, "https://counsel.example/console/contracts/1"))
	is.Equal(html, "<p>Ann Client declined.</p>") // the HTML part as source
	is.Equal(attachments, "x.pdf (4 bytes)")
	is.True(width <= 375)
	axeCheck(t, ctx, axe, "/console/mail/{id}")
	shot(t, ctx, "375_mail_message")

	// Not a system administrator: no menu entry, and the pages refuse.
	b, _, _ := signedInUser(t, s, account.UsersView, account.ContractView)
	is.True(!strings.Contains(b.get("/console").Body, `href="/console/mail"`))
	is.Equal(b.get("/console/mail").Status, http.StatusForbidden)
	is.Equal(b.get(fmt.Sprintf("/console/mail/%d", 1)).Status, http.StatusForbidden)
}
