package console_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
	"github.com/matryer/is"

	"counsel/app/apptest"
)

// Browser tests drive Debian's Chromium through chromedp. They run
// whenever Chromium is installed (COUNSEL_CHROMIUM names another binary)
// and skip otherwise. axe-core checks every page when its axe.min.js is
// found (COUNSEL_AXE, or npm's layout under /tmp/axe).

func chromium(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("COUNSEL_CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	const need = "browser tests need Chromium: install the Debian package chromium (apt-get install chromium)"
	if os.Getenv("CI") == "true" { // .ci/run installs it: missing there is a failure, not a skip
		t.Fatal(need)
	}
	t.Skip(need)
	return ""
}

func axeScript(t *testing.T) string {
	for _, p := range []string{os.Getenv("COUNSEL_AXE"), "/tmp/axe/node_modules/axe-core/axe.min.js"} {
		if p == "" {
			continue
		}
		if b, err := os.ReadFile(p); err == nil {
			return string(b)
		}
	}
	t.Log("axe-core not found (set COUNSEL_AXE to axe.min.js); accessibility checks skipped")
	return ""
}

// newChrome starts a headless Chromium with a throwaway profile.
func newChrome(t *testing.T) context.Context { return newChromeFor(t, 5*time.Minute) }

// newChromeFor is newChrome whose actions must end within d.
func newChromeFor(t *testing.T, d time.Duration) context.Context {
	bin := chromium(t)
	// Chromium may still write to its profile as it exits, which
	// t.TempDir's strict cleanup reports; this removal runs last.
	profile, err := os.MkdirTemp("", "counsel-chromium-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(profile) })
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(bin), chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU, chromedp.NoFirstRun,
		chromedp.Flag("disable-background-networking", true), chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true), chromedp.UserDataDir(profile), chromedp.WindowSize(1280, 900),
	}
	actx, cancel := chromedp.NewExecAllocator(context.Background(), opts...)
	t.Cleanup(cancel)
	ctx, cancel2 := chromedp.NewContext(actx)
	t.Cleanup(cancel2)
	// Generous: under -race on a loaded machine axe alone takes seconds a page.
	ctx, cancel3 := context.WithTimeout(ctx, d)
	t.Cleanup(cancel3)
	if err := chromedp.Run(ctx); err != nil {
		t.Fatalf("start chromium: %v", err)
	}
	return ctx
}

func run(t *testing.T, ctx context.Context, actions ...chromedp.Action) {
	t.Helper()
	if err := chromedp.Run(ctx, actions...); err != nil {
		t.Fatalf("browser: %v", err)
	}
}

// submitForm opens the form at url, types each field's text (pairs of
// selector and text, the first waited for), presses the button and
// returns the flash message of the page it leads to.
func submitForm(t *testing.T, ctx context.Context, url, button string, fields ...string) string {
	t.Helper()
	var flash string
	actions := []chromedp.Action{chromedp.Navigate(url), chromedp.WaitVisible(fields[0], chromedp.ByID)}
	for i := 0; i+1 < len(fields); i += 2 {
		actions = append(actions, chromedp.SendKeys(fields[i], fields[i+1], chromedp.ByID))
	}
	actions = append(actions, chromedp.Click(`//button[.="`+button+`"]`),
		chromedp.WaitVisible(`.flash`, chromedp.ByQuery),
		chromedp.Text(`.flash`, &flash, chromedp.ByQuery))
	run(t, ctx, actions...)
	return flash
}

// shot saves a screenshot when COUNSEL_SCREENSHOTS names a folder (for
// looking at the pages; never committed).
func shot(t *testing.T, ctx context.Context, name string) {
	dir := os.Getenv("COUNSEL_SCREENSHOTS")
	if dir == "" {
		return
	}
	var buf []byte
	run(t, ctx, chromedp.FullScreenshot(&buf, 100))
	_ = os.MkdirAll(dir, 0o755)
	if err := os.WriteFile(filepath.Join(dir, name+".png"), buf, 0o644); err != nil {
		t.Fatal(err)
	}
}

// axeCheck runs axe-core on the current page and fails on any serious or
// critical finding.
func axeCheck(t *testing.T, ctx context.Context, axe, page string) {
	if axe == "" {
		return
	}
	var loaded bool
	run(t, ctx, chromedp.Evaluate(axe+";true", &loaded))
	var res string
	run(t, ctx, chromedp.Evaluate(`axe.run(document, {resultTypes: ["violations"]}).then(r => JSON.stringify(r.violations.map(v => ({id: v.id, impact: v.impact, nodes: v.nodes.map(n => n.target.join(" "))}))))`,
		&res, func(p *runtime.EvaluateParams) *runtime.EvaluateParams { return p.WithAwaitPromise(true) }))
	var vs []struct {
		ID, Impact string
		Nodes      []string
	}
	if err := json.Unmarshal([]byte(res), &vs); err != nil {
		t.Fatalf("axe result: %v", err)
	}
	for _, v := range vs {
		if v.Impact == "serious" || v.Impact == "critical" {
			t.Errorf("axe on %s: %s (%s) at %v", page, v.ID, v.Impact, v.Nodes)
		}
	}
}

// signInBrowser goes through both sign-in steps with the mouse-free
// defaults of chromedp (focus and type).
func signInBrowser(t *testing.T, ctx context.Context, base, email, password string) {
	var code string
	run(t, ctx,
		chromedp.Navigate(base+"/console"),
		chromedp.WaitVisible(`#f-email`, chromedp.ByID),
		chromedp.SendKeys(`#f-email`, email, chromedp.ByID),
		chromedp.Submit(`#f-email`, chromedp.ByID),
		chromedp.WaitVisible(`#f-password`, chromedp.ByID),
		chromedp.Text(`.dev .code`, &code, chromedp.ByQuery),
		chromedp.SendKeys(`#f-password`, password, chromedp.ByID),
	)
	run(t, ctx, // code is read above, so typed in a second run
		chromedp.SendKeys(`#f-otp`, code, chromedp.ByID),
		chromedp.Submit(`#f-otp`, chromedp.ByID),
		chromedp.WaitVisible(`//h1[starts-with(., "Welcome")]`),
	)
}

func TestBrowser(t *testing.T) {
	if apptest.Engine() == "postgres" { // the pages are the same on both engines; keep make test short
		t.Skip("browser tests run on SQLite only")
	}
	ctx := newChrome(t)
	axe := axeScript(t)
	s := newServer(t)
	base := s.URL

	t.Run("sign in and create a user", func(t *testing.T) {
		is := is.New(t)
		signInBrowser(t, ctx, base, apptest.AdminEmail, apptest.AdminPassword)
		flash := submitForm(t, ctx, base+"/console/users/new", "Create user",
			`#f-firstName`, "Jane", `#f-lastName`, "Doe", `#f-email`, "jane@example.com", `#f-password`, "jane-password-1")
		is.Equal(flash, "Created Jane Doe.")
		// The list filters as one types (htmx), keeping the filter in the URL.
		var status, loc string
		run(t, ctx,
			chromedp.Navigate(base+"/console/users"),
			chromedp.WaitVisible(`#f-Search`, chromedp.ByID),
			chromedp.SendKeys(`#f-Search`, "jane", chromedp.ByID),
			chromedp.WaitVisible(`//p[@role="status" and .="Showing 1–1 of 1"]`),
			chromedp.Text(`#results [role=status]`, &status, chromedp.ByQuery),
			chromedp.Location(&loc),
		)
		is.True(strings.Contains(loc, "Search=jane")) // the filter is in the address, so it can be bookmarked
	})

	t.Run("keyboard only", func(t *testing.T) {
		is := is.New(t)
		k := ctx
		run(t, k, network.ClearBrowserCookies()) // signed out; this test signs the administrator in again
		tabTo := func(id string) chromedp.Action {
			return chromedp.ActionFunc(func(ctx context.Context) error {
				for i := 0; i < 30; i++ {
					var active string
					if err := chromedp.Evaluate(`document.activeElement && document.activeElement.id`, &active).Do(ctx); err != nil {
						return err
					}
					if active == id {
						return nil
					}
					if err := chromedp.KeyEvent(kb.Tab).Do(ctx); err != nil {
						return err
					}
				}
				return fmt.Errorf("tab never reached #%s", id)
			})
		}
		var code, h1 string
		run(t, k,
			chromedp.Navigate(base+"/console/login"),
			chromedp.WaitVisible(`#f-email`, chromedp.ByID),
			tabTo("f-email"), chromedp.KeyEvent(apptest.AdminEmail), chromedp.KeyEvent(kb.Enter),
			chromedp.WaitVisible(`#f-password`, chromedp.ByID),
			chromedp.Text(`.dev .code`, &code, chromedp.ByQuery),
			tabTo("f-password"), chromedp.KeyEvent(apptest.AdminPassword),
			tabTo("f-otp"),
		)
		run(t, k, chromedp.KeyEvent(code), chromedp.KeyEvent(kb.Enter),
			chromedp.WaitVisible(`//h1[starts-with(., "Welcome")]`), chromedp.Text(`h1`, &h1, chromedp.ByQuery))
		is.Equal(h1, "Welcome, Admin")
		// The focus is visible: the first Tab lands on the skip link, drawn
		// with an outline.
		var outline, tag string
		run(t, k, chromedp.Evaluate(`document.activeElement.blur();true`, nil), chromedp.KeyEvent(kb.Tab),
			chromedp.Evaluate(`document.activeElement.textContent`, &tag),
			chromedp.Evaluate(`getComputedStyle(document.activeElement).outlineStyle`, &outline))
		is.Equal(tag, "Skip to content")
		is.True(outline != "none")
	})

	t.Run("every page at 375 px and axe", func(t *testing.T) {
		pages := []string{"/console", "/console/users", "/console/users/new", "/console/users/1", "/console/users/1/pay",
			"/console/users/1/delete", "/console/roles", "/console/roles/1", "/console/roles/new", "/console/offices",
			"/console/offices/new", "/console/account", "/console/backups"}
		run(t, ctx, chromedp.EmulateViewport(375, 800, chromedp.EmulateMobile))
		check := func(t *testing.T, path, name string) {
			var width int
			run(t, ctx, chromedp.Navigate(base+path), chromedp.WaitReady(`body`, chromedp.ByQuery),
				chromedp.Evaluate(`document.documentElement.scrollWidth`, &width))
			if width > 375 {
				t.Errorf("%s is %d px wide at 375 px", path, width)
			}
			shot(t, ctx, name)
			axeCheck(t, ctx, axe, path)
		}
		for _, p := range pages {
			check(t, p, "375"+strings.ReplaceAll(p, "/", "_"))
		}
		if os.Getenv("COUNSEL_SCREENSHOTS") != "" {
			run(t, ctx, chromedp.EmulateViewport(1280, 900))
			for _, p := range []string{"/console", "/console/users", "/console/users/2", "/console/users/1/pay", "/console/roles/2"} {
				run(t, ctx, chromedp.Navigate(base+p), chromedp.WaitReady(`body`, chromedp.ByQuery))
				shot(t, ctx, "desk"+strings.ReplaceAll(p, "/", "_"))
			}
			run(t, ctx, chromedp.EmulateViewport(375, 800, chromedp.EmulateMobile))
		}
		// Signed out: the sign-in page too.
		run(t, ctx, chromedp.Evaluate(`document.querySelector("form.signout").submit();true`, nil), chromedp.WaitVisible(`#f-email`, chromedp.ByID))
		check(t, "/console/login", "375_login")
		run(t, ctx, chromedp.EmulateViewport(1280, 900))
	})

	t.Run("enrol an authenticator app and sign in with it", func(t *testing.T) {
		is := is.New(t)
		run(t, ctx, network.ClearBrowserCookies())
		signInBrowser(t, ctx, base, "jane@example.com", "jane-password-1")
		var key string
		run(t, ctx,
			chromedp.Navigate(base+"/console/account"),
			chromedp.Click(`//button[.="Set up an authenticator app"]`),
			chromedp.WaitVisible(`img.qr`, chromedp.ByQuery),
			chromedp.Text(`code.key`, &key, chromedp.ByQuery),
		)
		axeCheck(t, ctx, axe, "/console/account (enrolling)")
		var n int
		run(t, ctx,
			chromedp.SendKeys(`#f-otp`, appCode(t, s, key), chromedp.ByID),
			chromedp.Click(`//button[.="Turn on"]`),
			chromedp.WaitVisible(`ul.codes`, chromedp.ByQuery),
			chromedp.Evaluate(`document.querySelectorAll("ul.codes li").length`, &n),
		)
		is.Equal(n, 10) // the recovery codes
		shot(t, ctx, "desk_totp_recovery")
		s.Clock.Advance(30 * time.Second)
		run(t, ctx, network.ClearBrowserCookies(),
			chromedp.Navigate(base+"/console/login"),
			chromedp.WaitVisible(`#f-email`, chromedp.ByID),
			chromedp.SendKeys(`#f-email`, "jane@example.com", chromedp.ByID),
			chromedp.Submit(`#f-email`, chromedp.ByID),
			chromedp.WaitVisible(`#f-password`, chromedp.ByID),
			chromedp.SendKeys(`#f-password`, "jane-password-1", chromedp.ByID),
			chromedp.SendKeys(`#f-otp`, appCode(t, s, key), chromedp.ByID),
			chromedp.Submit(`#f-otp`, chromedp.ByID),
			chromedp.WaitVisible(`//h1[starts-with(., "Welcome")]`),
		)
	})
}
