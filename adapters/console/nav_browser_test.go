package console_test

import (
	"context"
	"fmt"
	"html"
	"io"
	"net"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
	"github.com/matryer/is"

	"counsel/app/apptest"
	"counsel/domain/account"
)

// Browser tests that move as a person does: by clicking. A page reached
// by a click must be the page its address shows (the same heading and
// title as opening the address), which the tests that navigate by
// address cannot see: an htmx-boosted link that swaps only a part of the
// page changes the address and leaves the old page.

// landed is what a page shows: its address, title and first heading.
type landed struct{ URL, Title, H1 string }

func (l landed) String() string { return fmt.Sprintf("%s (title %q, h1 %q)", l.URL, l.Title, l.H1) }

// settle waits until the browser shows want (an absolute URL without its
// fragment), the document is loaded and htmx has no request in flight,
// and returns what the page shows. A navigation under way makes
// evaluations fail for a moment; they are retried.
func settle(ctx context.Context, want string) (landed, error) {
	deadline := time.Now().Add(20 * time.Second)
	var l landed
	var last error
	for time.Now().Before(deadline) {
		var st struct {
			URL, Title, H1 string
			Ready, Busy    bool
		}
		err := chromedp.Run(ctx, chromedp.Evaluate(`({URL: location.href.split("#")[0], Title: document.title,
			H1: (document.querySelector("h1") || {textContent: ""}).textContent.trim(),
			Ready: document.readyState === "complete" && (window.__clicked === undefined || window.__settled === true),
			Busy: !!document.querySelector(".htmx-request, .htmx-settling, .htmx-swapping")})`, &st))
		if err == nil && st.URL == want && st.Ready && !st.Busy {
			// One more look after htmx's settle delay: a swap may still land.
			time.Sleep(150 * time.Millisecond)
			if err := chromedp.Run(ctx, chromedp.Evaluate(`({URL: location.href.split("#")[0], Title: document.title,
				H1: (document.querySelector("h1") || {textContent: ""}).textContent.trim()})`, &l)); err == nil && l.URL == want {
				return l, nil
			}
		}
		last = err
		time.Sleep(50 * time.Millisecond)
	}
	return l, fmt.Errorf("the browser never settled on %s (last: %+v, %v)", want, l, last)
}

// landOn waits until a click has taken the browser to a URL whose path
// matches pattern (the click only starts the navigation, and the page it
// left may share a prefix with the one it goes to), then settles there.
func landOn(ctx context.Context, pattern string) (landed, error) {
	re := regexp.MustCompile(pattern)
	deadline := time.Now().Add(20 * time.Second)
	var loc string
	for time.Now().Before(deadline) {
		if err := chromedp.Run(ctx, chromedp.Location(&loc)); err == nil && matchesPath(re, loc) {
			return settle(ctx, strings.Split(loc, "#")[0])
		}
		time.Sleep(50 * time.Millisecond)
	}
	return landed{URL: loc}, fmt.Errorf("the browser never went to a URL matching %s (last: %s)", pattern, loc)
}

// matchesPath reports whether the path of u matches re in full.
func matchesPath(re *regexp.Regexp, u string) bool {
	p, err := url.Parse(u)
	if err != nil {
		return false
	}
	m := re.FindString(p.Path)
	return m != "" && m == p.Path
}

// open navigates to u and returns what it shows.
func open(t *testing.T, ctx context.Context, u string) landed {
	t.Helper()
	run(t, ctx, chromedp.Navigate(u))
	l, err := settle(ctx, strings.Split(u, "#")[0])
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// link is an anchor of a page.
type link struct {
	I          int
	Href, Text string
}

// pageLinks lists the console links of the page shown: same origin, under
// /console, not an asset, a download or a fragment of this page.
func pageLinks(t *testing.T, ctx context.Context, base string) []link {
	t.Helper()
	var all []link
	run(t, ctx, chromedp.Evaluate(`Array.from(document.querySelectorAll("a[href]")).map((a, i) => ({I: i, Href: a.href.split("#")[0], Text: a.textContent.trim()}))`, &all))
	var here string
	run(t, ctx, chromedp.Evaluate(`location.href.split("#")[0]`, &here))
	var out []link
	for _, l := range all {
		u, err := url.Parse(l.Href)
		if err != nil || !strings.HasPrefix(l.Href, base+"/console") || strings.HasPrefix(u.Path, "/console/static/") ||
			strings.Contains(u.Path, "/documents/") || (l.Href == here && strings.Contains(l.Text, "Skip")) {
			continue
		}
		out = append(out, l)
	}
	return out
}

// clickThrough clicks the i-th anchor of the page at from and checks that
// the page it lands on is the link's page: the address is the link's and
// the heading and title are those the server sends for that address
// (fetched with the browser's cookies, as opening it would show).
func clickThrough(t *testing.T, ctx context.Context, from string, l link) {
	t.Helper()
	open(t, ctx, from)
	// The old page is marked: a full load drops the mark, an htmx swap
	// sets __settled; either way the page that settle reads is the new one.
	run(t, ctx, chromedp.Evaluate(fmt.Sprintf(`window.__clicked = true; window.__settled = false;
		document.body.addEventListener("htmx:afterSettle", () => { window.__settled = true; });
		document.querySelectorAll("a[href]")[%d].click(); true`, l.I), nil))
	got, err := settle(ctx, l.Href)
	if err != nil {
		t.Errorf("clicking %q on %s: %v", l.Text, from, err)
		return
	}
	want := served(t, ctx, l.Href)
	if got.H1 != want.H1 || got.Title != want.Title {
		t.Errorf("clicking %q on %s landed on %s, but the address shows %s", l.Text, from, got, want)
	}
}

var (
	titleRe = regexp.MustCompile(`(?s)<title>(.*?)</title>`)
	h1Re    = regexp.MustCompile(`(?s)<h1[^>]*>(.*?)</h1>`)
	tagRe   = regexp.MustCompile(`<[^>]*>`)
)

// text is an HTML fragment's text, as textContent.trim() reads it.
func text(fragment string) string {
	return strings.TrimSpace(html.UnescapeString(tagRe.ReplaceAllString(fragment, "")))
}

// served is the title and first heading of the page the server sends for
// u to this browser (its cookies).
func served(t *testing.T, ctx context.Context, u string) landed {
	t.Helper()
	var cookies []*network.Cookie
	run(t, ctx, chromedp.ActionFunc(func(ctx context.Context) (err error) {
		cookies, err = network.GetCookies().WithURLs([]string{u}).Do(ctx)
		return err
	}))
	req, _ := http.NewRequest("GET", u, nil)
	for _, c := range cookies {
		req.AddCookie(&http.Cookie{Name: c.Name, Value: c.Value})
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("GET %s: %v", u, err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	l := landed{URL: res.Request.URL.String()}
	if m := titleRe.FindSubmatch(b); m != nil {
		l.Title = text(string(m[1]))
	}
	if m := h1Re.FindSubmatch(b); m != nil {
		l.H1 = text(string(m[1]))
	}
	return l
}

// shape is a link's kind: its path with ids as N and its query's names,
// so that one link of each kind is clicked (one user of a list, one sort
// order, one page of a pager) and the crawl stays short.
func shape(href string) string {
	u, err := url.Parse(href)
	if err != nil {
		return href
	}
	parts := strings.Split(u.Path, "/")
	for i, p := range parts {
		if p != "" && strings.Trim(p, "0123456789") == "" {
			parts[i] = "N"
		}
	}
	var keys []string
	for k := range u.Query() {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return strings.Join(parts, "/") + "?" + strings.Join(keys, "&")
}

// crawl starts at start and clicks every distinct console link of every
// page it reaches (at most maxPages pages), as a person would.
func crawl(t *testing.T, ctx context.Context, base, start string, maxPages int) (pages, clicks int) {
	t.Helper()
	queue := []string{base + start}
	seen := map[string]bool{shape(base + start): true}
	clicked := map[string]bool{}
	for len(queue) > 0 {
		from := queue[0]
		queue = queue[1:]
		pages++
		open(t, ctx, from)
		for _, l := range pageLinks(t, ctx, base) {
			if clicked[shape(l.Href)] {
				continue
			}
			clicked[shape(l.Href)] = true
			clicks++
			clickThrough(t, ctx, from, l)
			if !seen[shape(l.Href)] && len(seen) < maxPages {
				seen[shape(l.Href)] = true
				queue = append(queue, l.Href)
			}
		}
	}
	return pages, clicks
}

func TestBrowserClickThrough(t *testing.T) {
	if apptest.Engine() == "postgres" { // the pages are the same on both engines
		t.Skip("browser tests run on SQLite only")
	}
	ctx := newChrome(t)
	s := newServer(t)
	base := s.URL
	admin := s.Admin(t)
	// Enough users and contracts for a second page of each list.
	for i := range 21 {
		s.Do(t, "POST", "/api/users", admin, map[string]any{"email": fmt.Sprintf("person%02d@example.com", i),
			"firstName": "Person", "lastName": fmt.Sprintf("Number %02d", i), "password": "person-password-1"}).Expect(t, 201, "create user")
		s.Do(t, "POST", "/api/contracts", admin, map[string]any{"contractName": fmt.Sprintf("Matter %02d", i),
			"contractType": "ServiceAgreement"}).Expect(t, 201, "create contract")
	}
	s.Do(t, "POST", "/api/offices", admin, map[string]any{"name": "Sydney"}).Expect(t, 201, "create office")
	_, viewerEmail := userWith(t, s, account.ContractView)

	t.Run("lists open their items", func(t *testing.T) {
		is := is.New(t)
		signInBrowser(t, ctx, base, apptest.AdminEmail, apptest.AdminPassword)
		// Users: filter as one types (htmx), then click a name.
		open(t, ctx, base+"/console/users")
		run(t, ctx, chromedp.SendKeys(`#f-Search`, "Number 07", chromedp.ByID),
			chromedp.WaitVisible(`//p[@role="status" and .="Showing 1–1 of 1"]`),
			chromedp.Click(`//a[.="Person Number 07"]`))
		got, err := landOn(ctx, `/console/users/\d+`)
		is.NoErr(err)
		is.True(strings.Contains(got.URL, "/console/users/")) // the user's page
		is.Equal(got.H1, "Person Number 07")                  // showing the user, not an emptied list
		// The next page of the list (boosted), then a contract on it.
		open(t, ctx, base+"/console/contracts")
		run(t, ctx, chromedp.Click(`//nav[@class="pager"]/a[.="Next page"]`))
		run(t, ctx, chromedp.WaitVisible(`//p[@role="status" and starts-with(., "Showing 21–")]`))
		run(t, ctx, chromedp.Click(`//table[contains(@class,"contracts")]/tbody//a`))
		got, err = landOn(ctx, `/console/contracts/\d+`)
		is.NoErr(err)
		is.True(strings.Contains(got.URL, "/console/contracts/")) // a contract's page
		is.True(strings.HasPrefix(got.H1, "Matter "))             // showing the contract
		// The bulk status change's results link to each contract.
		open(t, ctx, base+"/console/contracts?Search=Matter+03")
		run(t, ctx, chromedp.Click(`input[name=ids]`, chromedp.ByQuery),
			chromedp.SetValue(`#f-bulk-status`, "ContractDesign", chromedp.ByID),
			chromedp.Click(`//button[.="Change status"]`),
			chromedp.WaitVisible(`#bulk-h`, chromedp.ByID),
			chromedp.Click(`//section[@aria-labelledby="bulk-h"]//a[.="Matter 03"]`))
		got, err = landOn(ctx, `/console/contracts/\d+`)
		is.NoErr(err)
		is.Equal(got.H1, "Matter 03") // the contract of the results table
	})

	t.Run("every link of every page, as an administrator", func(t *testing.T) {
		ctx := newChromeFor(t, 10*time.Minute) // a browser of its own: the crawl is long
		signInBrowser(t, ctx, base, apptest.AdminEmail, apptest.AdminPassword)
		pages, clicks := crawl(t, ctx, base, "/console", 60)
		t.Logf("administrator: %d pages, %d links clicked", pages, clicks)
		if clicks < 20 {
			t.Errorf("only %d links clicked: the crawl did not get far", clicks)
		}
	})

	t.Run("every link of every page, with ContractView only", func(t *testing.T) {
		is := is.New(t)
		ctx := newChromeFor(t, 10*time.Minute)
		signInBrowser(t, ctx, base, viewerEmail, "password-123")
		pages, clicks := crawl(t, ctx, base, "/console", 40)
		t.Logf("ContractView only: %d pages, %d links clicked", pages, clicks)
		is.True(clicks >= 10) // the contracts, their pages and the account
		// Clicking a contract opens it.
		open(t, ctx, base+"/console/contracts?Search=Matter+00")
		run(t, ctx, chromedp.Click(`//a[.="Matter 00"]`))
		got, err := landOn(ctx, `/console/contracts/\d+`)
		is.NoErr(err)
		is.Equal(got.H1, "Matter 00") // the contract, for a reader too
	})
}

// TestBrowserCrossSitePost submits, from a page of another site, a form
// posting to the console, as a malicious page would: the post carries no
// session cookie (SameSite=Lax), is refused, and must leave the user
// signed in.
func TestBrowserCrossSitePost(t *testing.T) {
	if apptest.Engine() == "postgres" {
		t.Skip("browser tests run on SQLite only")
	}
	is := is.New(t)
	ctx := newChrome(t)
	s := newServer(t)
	base := s.URL
	// Another site: another loopback address (another port alone would be
	// the same site).
	ln, err := net.Listen("tcp", "127.0.0.2:0")
	if err != nil {
		t.Skipf("no second loopback address: %v", err)
	}
	evil := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, `<!doctype html><title>Win a prize</title><h1>Win a prize</h1>
<form method="post" action="%s/console/users/1/active"><input type="hidden" name="active" value="false"><button id="go" type="submit">Claim</button></form>
<form method="post" action="%s/console/logout"><button id="out" type="submit">Claim again</button></form>`, base, base)
	})}
	go func() { _ = evil.Serve(ln) }()
	t.Cleanup(func() { _ = evil.Close() })
	evilURL := "http://" + ln.Addr().String() + "/"

	signInBrowser(t, ctx, base, apptest.AdminEmail, apptest.AdminPassword)
	for _, button := range []string{"#go", "#out"} {
		run(t, ctx, chromedp.Navigate(evilURL), chromedp.WaitVisible(button, chromedp.ByQuery), chromedp.Click(button, chromedp.ByQuery))
		// The console answers the cookie-less post with a redirect to its
		// sign-in page (which sends a signed-in visitor home).
		deadline := time.Now().Add(20 * time.Second)
		for loc := ""; !strings.HasPrefix(loc, base+"/console"); {
			if time.Now().After(deadline) {
				t.Fatalf("the post never reached the console: %s", loc)
			}
			time.Sleep(50 * time.Millisecond)
			_ = chromedp.Run(ctx, chromedp.Evaluate(`location.href`, &loc))
		}
		got := open(t, ctx, base+"/console")
		is.True(strings.HasPrefix(got.H1, "Welcome")) // still signed in
	}
	r := s.Do(t, "GET", "/api/users/1", s.Admin(t), nil).Map(t)
	is.Equal(r["active"], true) // and nothing changed
}
