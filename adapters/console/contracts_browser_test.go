package console_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
	"github.com/matryer/is"

	"counsel/app/apptest"
	"counsel/ports/porttest"
)

// TestBrowserContracts takes a contract from Draft to Signed in Chromium
// as a newcomer would: create it, upload a PDF (with console.js's
// progress upload), send it to two signers, sign on the embedded signer's
// pages through the copied links, and see Signed in the console. Then a
// bulk status change, and every contract page at 375 px with axe-core.
func TestBrowserContracts(t *testing.T) {
	ctx := newChrome(t)
	axe := axeScript(t)
	s := newServer(t)
	base := s.URL
	pdf := filepath.Join(t.TempDir(), "engagement.pdf")
	if err := os.WriteFile(pdf, porttest.MinimalPDF(1), 0o600); err != nil {
		t.Fatal(err)
	}
	signInBrowser(t, ctx, base, apptest.AdminEmail, apptest.AdminPassword)

	t.Run("draft to signed", func(t *testing.T) {
		is := is.New(t)
		flash := submitForm(t, ctx, base+"/console/contracts/new", "Create contract",
			`#f-contractName`, "Engagement letter", `#f-amount`, "2500", `#f-currency`, "aud")
		is.Equal(flash, "Created Engagement letter as a Draft.")
		run(t, ctx,
			chromedp.SetUploadFiles(`#f-file`, []string{pdf}, chromedp.ByID),
			chromedp.Click(`//button[.="Upload"]`),
			chromedp.WaitVisible(`//p[@class="flash" and .="Uploaded engagement.pdf."]`),
			chromedp.WaitVisible(`//a[.="engagement.pdf"]`),
		)
		var loc string
		run(t, ctx, chromedp.Location(&loc))
		is.True(strings.HasSuffix(loc, "#documents")) // console.js went on to the page the server named
		run(t, ctx,
			chromedp.Click(`//a[.="Signing"]`),
			chromedp.WaitVisible(`#f-submitters\[0\]\.name`, chromedp.ByQuery),
			chromedp.SendKeys(`#f-submitters\[0\]\.name`, "Ann Client", chromedp.ByQuery),
			chromedp.SendKeys(`#f-submitters\[0\]\.email`, "ann@client.example", chromedp.ByQuery),
			chromedp.SendKeys(`#f-submitters\[1\]\.name`, "Bob Partner", chromedp.ByQuery),
			chromedp.SendKeys(`#f-submitters\[1\]\.email`, "bob@firm.example", chromedp.ByQuery),
			chromedp.Click(`//button[.="Send for signature"]`),
			chromedp.WaitVisible(`//p[@class="flash" and .="Sent for signature."]`),
		)
		var links []string
		var copyVisible bool
		run(t, ctx,
			chromedp.Evaluate(`Array.from(document.querySelectorAll("input.link")).map(i => i.value)`, &links),
			chromedp.Evaluate(`!document.querySelector("button.copy").hidden`, &copyVisible),
		)
		is.Equal(len(links), 2)
		is.True(copyVisible) // console.js shows the copy buttons where the clipboard exists
		axeCheck(t, ctx, axe, "signing (waiting)")
		for i, name := range []string{"Ann Client", "Bob Partner"} {
			run(t, ctx,
				chromedp.Navigate(links[i]),
				chromedp.WaitVisible(`#name`, chromedp.ByID),
				chromedp.SendKeys(`#name`, name, chromedp.ByID),
				chromedp.Click(`input[name=consent]`, chromedp.ByQuery),
				chromedp.Click(`button.sign`, chromedp.ByQuery),
				chromedp.WaitVisible(`//p[starts-with(., "You signed")]`),
			)
		}
		var status string
		run(t, ctx,
			chromedp.Navigate(base+"/console/contracts"),
			chromedp.WaitVisible(`//a[.="Engagement letter"]`),
			chromedp.Click(`//a[.="Engagement letter"]`),
			chromedp.WaitVisible(`.facts .status`, chromedp.ByQuery),
			chromedp.Text(`.facts .status`, &status, chromedp.ByQuery),
		)
		is.Equal(status, "Signed")
	})

	t.Run("bulk status change", func(t *testing.T) {
		is := is.New(t)
		for _, n := range []string{"Bulk one", "Bulk two"} {
			run(t, ctx,
				chromedp.Navigate(base+"/console/contracts/new"),
				chromedp.WaitVisible(`#f-contractName`, chromedp.ByID),
				chromedp.SendKeys(`#f-contractName`, n, chromedp.ByID),
				chromedp.Click(`//button[.="Create contract"]`),
				chromedp.WaitVisible(`.flash`, chromedp.ByQuery),
			)
		}
		var result string
		run(t, ctx,
			chromedp.Navigate(base+"/console/contracts?Search=bulk"),
			chromedp.WaitVisible(`//p[@role="status" and .="Showing 1–2 of 2"]`),
			chromedp.Click(`//input[@name="ids" and following-sibling::label[.="Select Bulk one"]]`),
			chromedp.Click(`//input[@name="ids" and following-sibling::label[.="Select Bulk two"]]`),
			chromedp.SetValue(`#f-bulk-status`, "Archived", chromedp.ByID),
			chromedp.Click(`//button[.="Change status"]`),
			chromedp.WaitVisible(`#bulk-h`, chromedp.ByID),
			chromedp.Text(`#bulk-h + table tbody`, &result, chromedp.ByQuery),
		)
		is.Equal(strings.Count(result, "Changed to Archived"), 2)
		axeCheck(t, ctx, axe, "contracts (bulk result)")
	})

	t.Run("bulk selection by keyboard", func(t *testing.T) {
		is := is.New(t)
		var focused string
		var checked bool
		run(t, ctx,
			chromedp.Navigate(base+"/console/contracts?Search=bulk"),
			chromedp.WaitVisible(`input[name=ids]`, chromedp.ByQuery),
			chromedp.Focus(`#f-Search`, chromedp.ByID),
		)
		// Tab from the search box reaches a row's checkbox; Space ticks it.
		for range 40 {
			run(t, ctx, chromedp.KeyEvent(kb.Tab), chromedp.Evaluate(`document.activeElement.name || ""`, &focused))
			if focused == "ids" {
				break
			}
		}
		is.Equal(focused, "ids")
		run(t, ctx, chromedp.KeyEvent(" "), chromedp.Evaluate(`document.activeElement.checked`, &checked))
		is.True(checked)
	})

	t.Run("filter without reload", func(t *testing.T) {
		is := is.New(t)
		var loc string
		run(t, ctx,
			chromedp.Navigate(base+"/console/contracts"),
			chromedp.WaitVisible(`#f-Search`, chromedp.ByID),
			chromedp.SendKeys(`#f-Search`, "bulk", chromedp.ByID),
			chromedp.WaitVisible(`//p[@role="status" and .="Showing 1–2 of 2"]`),
			chromedp.Location(&loc),
		)
		is.True(strings.Contains(loc, "Search=bulk")) // in the address, so it can be bookmarked
	})

	t.Run("375 px and axe", func(t *testing.T) {
		run(t, ctx, chromedp.EmulateViewport(375, 800, chromedp.EmulateMobile))
		defer run(t, ctx, chromedp.EmulateViewport(1280, 900))
		for _, path := range []string{"/console", "/console/contracts", "/console/contracts?Status=Draft&SortBy=amount", "/console/contracts/new",
			"/console/contracts/1", "/console/contracts/1/signing", "/console/contracts/2", "/console/contracts/2/signing",
			"/console/contracts/2/delete", "/console/contracts/1/delete"} {
			var width int
			run(t, ctx, chromedp.Navigate(base+path), chromedp.WaitReady(`body`, chromedp.ByQuery),
				chromedp.Evaluate(`document.documentElement.scrollWidth`, &width))
			if width > 375 {
				t.Errorf("%s is %d px wide at 375 px", path, width)
			}
			shot(t, ctx, "375"+strings.NewReplacer("/", "_", "?", "_", "&", "_", "=", "-").Replace(path))
			axeCheck(t, ctx, axe, path)
		}
	})
}
