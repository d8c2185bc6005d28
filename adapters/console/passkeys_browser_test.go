package console_test

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	cdpwebauthn "github.com/chromedp/cdproto/webauthn"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
	"github.com/matryer/is"

	"counsel/app"
	"counsel/app/apptest"
	"counsel/domain/account"
)

// virtualAuthenticator gives the tab a platform authenticator that holds
// discoverable credentials and verifies its user (DevTools' WebAuthn
// domain), as a laptop with a fingerprint reader would.
func virtualAuthenticator(t *testing.T, ctx context.Context) cdpwebauthn.AuthenticatorID {
	t.Helper()
	var id cdpwebauthn.AuthenticatorID
	run(t, ctx, cdpwebauthn.Enable(), chromedp.ActionFunc(func(ctx context.Context) error {
		var err error
		id, err = cdpwebauthn.AddVirtualAuthenticator(&cdpwebauthn.VirtualAuthenticatorOptions{
			Protocol: cdpwebauthn.AuthenticatorProtocolCtap2, Ctap2version: cdpwebauthn.Ctap2versionCtap21,
			Transport: cdpwebauthn.AuthenticatorTransportInternal, HasResidentKey: true, HasUserVerification: true,
			IsUserVerified: true, AutomaticPresenceSimulation: true,
		}).Do(ctx)
		return err
	}))
	return id
}

func credentials(t *testing.T, ctx context.Context, id cdpwebauthn.AuthenticatorID) []*cdpwebauthn.Credential {
	t.Helper()
	var cs []*cdpwebauthn.Credential
	run(t, ctx, chromedp.ActionFunc(func(ctx context.Context) error {
		var err error
		cs, err = cdpwebauthn.GetCredentials(id).Do(ctx)
		return err
	}))
	return cs
}

// waitFlash waits for a flash message starting with prefix (the page
// before may show another one, and the page may be navigating) and reads
// it.
func waitFlash(prefix string, flash *string) chromedp.Action {
	return chromedp.ActionFunc(func(ctx context.Context) error {
		js := `(function(){var f=document.querySelector(".flash");return f && f.textContent.indexOf(` + strconv.Quote(prefix) + `)===0 ? f.textContent : ""})()`
		deadline := time.Now().Add(30 * time.Second)
		for {
			var got string
			if err := chromedp.Evaluate(js, &got).Do(ctx); err == nil && got != "" {
				*flash = got
				return nil
			}
			if time.Now().After(deadline) {
				return fmt.Errorf("no flash starting %q", prefix)
			}
			time.Sleep(100 * time.Millisecond)
		}
	})
}

// pressEnter focuses sel and presses Enter, as a keyboard user would.
func pressEnter(sel string) chromedp.Action {
	return chromedp.Tasks{chromedp.Focus(sel, chromedp.ByQuery), chromedp.KeyEvent(kb.Enter)}
}

// TestBrowserPasskeys: in Chromium with a virtual authenticator, a user
// adds a passkey from My account, renames it, signs out and signs in with
// it alone, confirms it's them with it when the sign-in is old, and
// removes it; every page passes axe-core, and the ceremonies are started
// from the keyboard. The server's public URL is on localhost: browsers
// refuse an IP address as the relying party id.
func TestBrowserPasskeys(t *testing.T) {
	if apptest.Engine() == "postgres" {
		t.Skip("browser tests run on SQLite only")
	}
	is := is.New(t)
	ctx := newChrome(t)
	axe := axeScript(t)
	s := newServer(t, func(c *app.Config) { c.PublicURL = strings.Replace(c.PublicURL, "127.0.0.1", "localhost", 1) })
	base := s.Config.PublicURL
	_, email := userWith(t, s, account.ContractView)
	auth := virtualAuthenticator(t, ctx)

	signInBrowser(t, ctx, base, email, "password-123")
	var flash, h1 string
	run(t, ctx,
		chromedp.Navigate(base+"/console/account"),
		chromedp.WaitVisible(`form[data-passkey="create"]`, chromedp.ByQuery), // shown: the script runs and WebAuthn is there
	)
	axeCheck(t, ctx, axe, "my account, no passkey")
	shot(t, ctx, "passkeys-1-account-empty")
	run(t, ctx,
		chromedp.SendKeys(`#f-name`, "Work laptop", chromedp.ByID),
		pressEnter(`#f-name`),
		waitFlash("Passkey added", &flash),
	)
	is.True(strings.HasPrefix(flash, "Passkey added")) // registered
	cs := credentials(t, ctx, auth)
	is.Equal(len(cs), 1)                // the authenticator holds it
	is.True(cs[0].IsResidentCredential) // discoverable
	is.Equal(cs[0].RpID, "localhost")   // for this relying party
	var rows int
	run(t, ctx, chromedp.Evaluate(`document.querySelectorAll("section[aria-labelledby=pk-h] tbody tr").length`, &rows))
	is.Equal(rows, 1) // listed
	axeCheck(t, ctx, axe, "my account, one passkey")
	shot(t, ctx, "passkeys-2-account-added")
	// The list fits a 375 px phone.
	var width int
	run(t, ctx, chromedp.EmulateViewport(375, 800, chromedp.EmulateMobile), chromedp.Navigate(base+"/console/account"),
		chromedp.WaitVisible(`form[data-passkey="create"]`, chromedp.ByQuery), chromedp.Evaluate(`document.documentElement.scrollWidth`, &width))
	if width > 375 {
		t.Errorf("My account with a passkey is %d px wide at 375 px", width)
	}
	shot(t, ctx, "passkeys-2b-account-375")
	run(t, ctx, chromedp.EmulateViewport(1280, 900))

	// Rename it.
	run(t, ctx,
		chromedp.Evaluate(`document.querySelector('input[id^="pk-name-"]').value = ""`, nil),
		chromedp.SendKeys(`input[name=name][id^="pk-name-"]`, "Old laptop", chromedp.ByQuery),
		chromedp.Click(`//button[.="Rename"]`),
		waitFlash("Passkey renamed", &flash),
	)
	is.Equal(flash, "Passkey renamed to Old laptop.")

	// Sign out, then in with the passkey alone.
	run(t, ctx,
		chromedp.Click(`//button[starts-with(., "Sign out")]`),
		chromedp.WaitVisible(`#f-email`, chromedp.ByID),
		chromedp.WaitVisible(`form[data-passkey="get"]`, chromedp.ByQuery),
	)
	before := credentials(t, ctx, auth)[0].SignCount
	axeCheck(t, ctx, axe, "sign-in with the passkey button")
	shot(t, ctx, "passkeys-3-sign-in")
	run(t, ctx,
		pressEnter(`form[data-passkey="get"] button`),
		chromedp.WaitVisible(`//h1[starts-with(., "Welcome")]`),
		chromedp.Text(`h1`, &h1, chromedp.ByQuery),
	)
	is.True(strings.HasPrefix(h1, "Welcome")) // signed in
	shot(t, ctx, "passkeys-4-signed-in")
	is.Equal(credentials(t, ctx, auth)[0].SignCount, before+1) // one assertion made

	// An old sign-in: adding another passkey asks "Confirm it's you",
	// which the passkey answers.
	s.Clock.Advance(account.DefaultReauthWindow + time.Minute)
	run(t, ctx,
		chromedp.Navigate(base+"/console/account"),
		chromedp.WaitVisible(`form[data-passkey="create"]`, chromedp.ByQuery),
		chromedp.SendKeys(`#f-name`, "Second", chromedp.ByID),
		pressEnter(`#f-name`),
		chromedp.WaitVisible(`//h1[.="Confirm it's you"]`),
		chromedp.WaitVisible(`form[data-passkey="get"]`, chromedp.ByQuery),
	)
	axeCheck(t, ctx, axe, "confirm it's you with a passkey")
	shot(t, ctx, "passkeys-5-confirm")
	run(t, ctx,
		pressEnter(`form[data-passkey="get"] button`),
		waitFlash("Thank you", &flash),
	)
	is.True(strings.HasPrefix(flash, "Thank you")) // re-authenticated by passkey

	// The same device cannot hold a second passkey of this account: the
	// options exclude it and the page says so.
	var status string
	run(t, ctx,
		chromedp.SendKeys(`#f-name`, "Second", chromedp.ByID),
		pressEnter(`#f-name`),
		chromedp.Poll(`document.querySelector("form[data-passkey=create] .passkey-status").textContent.indexOf("already") >= 0`, nil, chromedp.WithPollingTimeout(20*time.Second)),
		chromedp.Text(`form[data-passkey="create"] .passkey-status`, &status, chromedp.ByQuery),
	)
	is.True(strings.Contains(status, "already holds")) // excluded
	shot(t, ctx, "passkeys-6-excluded")

	// Remove it; the passkey no longer signs in.
	run(t, ctx,
		chromedp.Click(`//button[.="Remove"]`),
		waitFlash("Passkey removed", &flash),
	)
	is.Equal(flash, "Passkey removed.")
	run(t, ctx,
		chromedp.Click(`//button[starts-with(., "Sign out")]`),
		chromedp.WaitVisible(`form[data-passkey="get"]`, chromedp.ByQuery),
		pressEnter(`form[data-passkey="get"] button`),
		chromedp.WaitVisible(`.banner`, chromedp.ByQuery),
		chromedp.Text(`.banner`, &status, chromedp.ByQuery),
	)
	is.True(strings.HasPrefix(status, "The passkey did not sign you in")) // refused
	axeCheck(t, ctx, axe, "sign-in refused")
	shot(t, ctx, "passkeys-7-removed-refused")
}
