package console_test

import (
	"fmt"
	"html"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/matryer/is"

	"counsel/adapters/docuseal/docusealtest"
	"counsel/app"
	"counsel/app/apptest"
	"counsel/domain/account"
	"counsel/ports/porttest"
)

// docusealLinkRe finds DocuSeal's signing links (/s/{slug}) on a page.
var docusealLinkRe = regexp.MustCompile(`value="(http[^"]*/s/[^"]+)"`)

// TestDocuSealSignerLinksAfterwards: DocuSeal returns the signers' links
// only when the submission is made; the signing page shows them on every
// later visit, to ContractEdit holders only.
func TestDocuSealSignerLinksAfterwards(t *testing.T) {
	is := is.New(t)
	var clock atomic.Pointer[apptest.Clock]
	ds := docusealtest.NewServer(t, docusealtest.WithClock(func() time.Time { return clock.Load().Now() }))
	s, b := adminBrowser(t, func(c *app.Config) {
		c.SigningProvider, c.DocuSealURL, c.DocuSealAPIKey = "docuseal", ds.URL, ds.APIKey
		c.DocuSealWebhookSecret, c.DocuSealUserEmail = ds.WebhookSecret, "owner@firm.example"
	})
	clock.Store(s.Clock)
	id := b.createContract("DocuSeal links", nil)
	b.upload(id, "engagement.pdf", porttest.MinimalPDF(1), false)
	signing := fmt.Sprintf("/console/contracts/%d/signing", id)
	b.get(signing)
	r := b.post(signing, url.Values{"documentIds": {"1"}, "order": {"random"},
		"submitters[0].name": {"Ann"}, "submitters[0].email": {"ann@client.example"},
		"submitters[1].name": {"Bob"}, "submitters[1].email": {"bob@client.example"}})
	is.Equal(r.Status, http.StatusSeeOther) // submitted

	links := func(body string) []string {
		var out []string
		for _, m := range docusealLinkRe.FindAllStringSubmatch(body, -1) {
			out = append(out, html.UnescapeString(m[1]))
		}
		return out
	}
	page := b.get(signing).Body
	got := links(page)
	is.Equal(len(got), 2) // both signers' links, read after the submission
	for _, l := range got {
		is.True(strings.HasPrefix(l, strings.TrimSuffix(ds.URL, "/api")+"/s/")) // DocuSeal's
	}
	is.True(strings.Contains(b.get(signing).Body, got[0])) // every visit

	viewer, _, _ := signedInUser(t, s, account.ContractView)
	page = viewer.get(signing).Body
	is.Equal(len(links(page)), 0)                         // not for ContractView
	is.True(strings.Contains(page, "ann@client.example")) // who still shows
}
