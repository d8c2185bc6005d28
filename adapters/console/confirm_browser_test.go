package console_test

import (
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/matryer/is"

	"counsel/app/apptest"
	"counsel/domain/account"
)

// TestBrowserConfirmItsYou: in Chromium, a user whose sign-in is older
// than the window sets up an authenticator app: the console asks "Confirm
// it's you", emails a code, takes the password and the code, and returns
// to My account, where the set-up then goes through.
func TestBrowserConfirmItsYou(t *testing.T) {
	if apptest.Engine() == "postgres" {
		t.Skip("browser tests run on SQLite only")
	}
	is := is.New(t)
	ctx := newChrome(t)
	s := newServer(t)
	_, email := userWith(t, s, account.ContractView)
	signInBrowser(t, ctx, s.URL, email, "password-123")
	s.Clock.Advance(account.DefaultReauthWindow + time.Minute)

	var h1, loc, code, flash string
	run(t, ctx,
		chromedp.Navigate(s.URL+"/console/account"),
		chromedp.Click(`//button[.="Set up an authenticator app"]`),
		chromedp.WaitVisible(`//h1[.="Confirm it's you"]`),
		chromedp.Location(&loc),
	)
	is.True(strings.Contains(loc, "/console/confirm?next=%2Fconsole%2Faccount")) // asked, with the way back
	run(t, ctx,
		chromedp.Click(`//button[.="Email me a code"]`),
		chromedp.WaitVisible(`.dev .code`, chromedp.ByQuery),
		chromedp.Text(`.dev .code`, &code, chromedp.ByQuery),
	)
	run(t, ctx,
		chromedp.SendKeys(`#f-password`, "password-123", chromedp.ByID),
		chromedp.SendKeys(`#f-otp`, code, chromedp.ByID),
		chromedp.Click(`//button[.="Confirm"]`),
		chromedp.WaitVisible(`//h1[.="My account"]`),
		chromedp.Text(`.flash`, &flash, chromedp.ByQuery),
		chromedp.Location(&loc),
	)
	is.True(strings.HasSuffix(loc, "/console/account")) // back where the user was
	is.True(strings.HasPrefix(flash, "Thank you"))
	run(t, ctx,
		chromedp.Click(`//button[.="Set up an authenticator app"]`),
		chromedp.WaitVisible(`img.qr`, chromedp.ByQuery),
		chromedp.Text(`h1`, &h1, chromedp.ByQuery),
	)
	is.Equal(h1, "My account") // the set-up goes on
}
