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

// TestBrowserSessions: in Chromium, My account lists where the user is
// signed in (this browser marked) with a Sign out button each; signing
// the API session out ends its tokens at once, and signing this browser
// out lands on the sign-in page.
func TestBrowserSessions(t *testing.T) {
	if apptest.Engine() == "postgres" {
		t.Skip("browser tests run on SQLite only")
	}
	is := is.New(t)
	ctx := newChrome(t)
	s := newServer(t)
	_, email := userWith(t, s, account.ContractView)
	s.Clock.Advance(time.Second)             // userWith signed in once through the API already
	api := s.Login(t, email, "password-123") // another device, through the API
	s.Clock.Advance(time.Second)
	signInBrowser(t, ctx, s.URL, email, "password-123")

	var rows []string
	var table string
	var before int
	run(t, ctx,
		chromedp.Navigate(s.URL+"/console/account"),
		chromedp.WaitVisible(`//h2[.="Where you are signed in"]`),
		chromedp.Text(`//section[@aria-labelledby="sessions-h"]//table`, &table),
		chromedp.Evaluate(`document.querySelectorAll('section[aria-labelledby="sessions-h"] tbody tr').length`, &before),
	)
	is.Equal(before, 3)
	is.True(strings.Contains(table, "(this browser)"))
	is.True(strings.Contains(table, "Go-http-client")) // the API session's client
	is.True(strings.Contains(table, "Password and emailed code"))
	is.True(strings.Contains(table, "127.0.0.1"))
	axeCheck(t, ctx, axeScript(t), "/console/account (sessions)")

	// Sign the API session out: its access token is refused at once.
	var flash string
	run(t, ctx,
		chromedp.Click(`(//tr[contains(., "Go-http-client")])[1]//button[.="Sign out"]`), // the newest: api's
		chromedp.WaitVisible(`.flash`, chromedp.ByQuery),
		chromedp.Text(`.flash`, &flash, chromedp.ByQuery),
		chromedp.Evaluate(`Array.from(document.querySelectorAll('section[aria-labelledby="sessions-h"] tbody tr')).map(r => r.innerText)`, &rows),
	)
	is.Equal(flash, "That session is signed out.")
	is.Equal(len(rows), 2)
	is.Equal(s.Do(t, "GET", "/api/me", api.AccessToken, nil).Status, 401)

	// Sign this browser out.
	var h1 string
	run(t, ctx,
		chromedp.Click(`//tr[contains(., "(this browser)")]//button[.="Sign out"]`),
		chromedp.WaitVisible(`#f-email`, chromedp.ByID),
		chromedp.Text(`.flash`, &flash, chromedp.ByQuery),
		chromedp.Navigate(s.URL+"/console/account"),
		chromedp.WaitVisible(`#f-email`, chromedp.ByID),
		chromedp.Text(`h1`, &h1, chromedp.ByQuery),
	)
	is.Equal(flash, "You are signed out.")
	is.True(h1 != "My account") // the cookie no longer signs in
}
