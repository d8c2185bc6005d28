package console_test

import (
	"fmt"
	"html"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/matryer/is"

	"counsel/domain/account"
	"counsel/ports/porttest"
)

func TestDocumentsFlow(t *testing.T) {
	is := is.New(t)
	_, b := adminBrowser(t)
	id := b.createContract("With papers", nil)
	page := b.get(fmt.Sprintf("/console/contracts/%d", id))
	is.True(strings.Contains(page.Body, `enctype="multipart/form-data"`))
	r := b.upload(id, "offer.pdf", porttest.MinimalPDF(1), false)
	is.Equal(r.Status, http.StatusSeeOther)
	is.Equal(r.Header.Get("Location"), fmt.Sprintf("/console/contracts/%d#documents", id))
	// console.js's request gets 204 and where to go.
	r = b.upload(id, "second.pdf", porttest.MinimalPDF(2), true)
	is.Equal(r.Status, http.StatusNoContent)
	is.Equal(r.Header.Get("X-Counsel-Upload"), fmt.Sprintf("/console/contracts/%d#documents", id))
	// Not a PDF or DOCX: the message next to the file input.
	r = b.upload(id, "notes.txt", []byte("plain text"), false)
	is.Equal(r.Status, http.StatusUnsupportedMediaType)
	is.True(strings.Contains(r.Body, `id="e-file"`))
	// No CSRF token: refused before the file is read.
	csrf := b.csrf
	b.csrf = "forged"
	r = b.upload(id, "x.pdf", porttest.MinimalPDF(1), false)
	is.Equal(r.Status, http.StatusForbidden)
	b.csrf = csrf
	page = b.get(fmt.Sprintf("/console/contracts/%d", id))
	is.True(strings.Contains(page.Body, "Documents (2)"))
	is.True(strings.Contains(page.Body, ">offer.pdf</a>"))
	r = b.get(fmt.Sprintf("/console/contracts/%d/documents/1", id))
	is.Equal(r.Status, 200)
	is.Equal(r.Header.Get("Content-Type"), "application/pdf")
	is.True(strings.HasPrefix(r.Body, "%PDF"))
	is.True(strings.Contains(r.Header.Get("Content-Disposition"), `attachment; filename=offer.pdf`))
	r = b.post(fmt.Sprintf("/console/contracts/%d/documents/2/delete", id), nil)
	is.Equal(r.Status, http.StatusSeeOther)
	is.True(strings.Contains(b.get(fmt.Sprintf("/console/contracts/%d", id)).Body, "Documents (1)"))

	// Out for signature: removing is refused with the reason.
	b.get(fmt.Sprintf("/console/contracts/%d/signing", id))
	r = b.post(fmt.Sprintf("/console/contracts/%d/signing", id), url.Values{"documentIds": {"1"},
		"submitters[0].name": {"Ann"}, "submitters[0].email": {"ann@client.example"}, "order": {"preserved"}})
	is.Equal(r.Status, http.StatusSeeOther)
	r = b.post(fmt.Sprintf("/console/contracts/%d/documents/1/delete", id), nil)
	is.Equal(r.Status, http.StatusConflict)
	is.True(strings.Contains(r.Body, "documents cannot be removed while the contract is out for signature"))
}

// TestSigningFlow takes a contract from Draft to Signed with two signers
// through the console and the embedded signer's pages, after a decline
// and a resubmission.
func TestSigningFlow(t *testing.T) {
	is := is.New(t)
	s, b := adminBrowser(t)
	id := b.createContract("Engagement", nil)
	signing := fmt.Sprintf("/console/contracts/%d/signing", id)
	page := b.get(signing)
	is.True(strings.Contains(page.Body, "Upload a PDF or DOCX document to the contract first."))
	b.upload(id, "engagement.pdf", porttest.MinimalPDF(1), false)
	page = b.get(signing)
	is.True(strings.Contains(page.Body, `name="submitters[1].email"`)) // two signer rows
	is.True(strings.Contains(b.get(signing+"?signers=3").Body, `name="submitters[2].email"`))
	// Errors next to the signer's field.
	r := b.post(signing, url.Values{"documentIds": {"1"}, "submitters[0].name": {"Ann"}, "submitters[0].email": {"not-an-email"},
		"submitters[1].name": {"Bob"}, "submitters[1].email": {"bob@client.example"}})
	is.Equal(r.Status, http.StatusBadRequest)
	is.True(strings.Contains(r.Body, `id="e-submitters[0].email"`))
	is.True(strings.Contains(r.Body, "email is not a valid address"))
	r = b.post(signing, url.Values{"submitters[0].email": {"ann@client.example"}})
	is.Equal(r.Status, http.StatusBadRequest)
	is.True(strings.Contains(r.Body, `id="e-documentIds"`))

	send := func() {
		t.Helper()
		r := b.post(signing, url.Values{"documentIds": {"1"}, "order": {"preserved"}, "message.subject": {"Please sign"}, "message.body": {"The engagement letter is ready."},
			"submitters[0].name": {"Ann Client"}, "submitters[0].email": {"ann@client.example"}, "submitters[0].role": {"Client"},
			"submitters[1].name": {"Bob Partner"}, "submitters[1].email": {"bob@firm.example"}, "submitters[1].phone": {"+61 400 000 000"}})
		if r.Status != http.StatusSeeOther {
			t.Fatalf("submit: %d %s", r.Status, r.Body)
		}
	}
	send()
	page = b.get(signing)
	is.True(strings.Contains(page.Body, "Waiting for client signature"))
	links := signerLinks(page.Body)
	is.Equal(len(links), 2)
	is.True(strings.Contains(page.Body, `data-copy="link-0-0" hidden>Copy link`))
	is.True(strings.Contains(page.Body, "Template"))
	is.True(strings.Contains(page.Body, "Ann Client") && strings.Contains(page.Body, "Client"))

	// Ann declines: the reason shows, and the form offers a resubmission.
	is.Equal(signerPost(t, s, links[0], "/decline", url.Values{"reason": {"Wrong fee"}}).Status, 200)
	page = b.get(signing)
	is.True(strings.Contains(page.Body, "Reason: Wrong fee"))
	is.True(strings.Contains(page.Body, "Resubmit for signature"))
	contractPage := b.get(fmt.Sprintf("/console/contracts/%d", id))
	is.Equal(offered(contractPage.Body), []string{"Draft", "ContractDesign"}) // revise, as the state machine allows

	send()
	page = b.get(signing)
	links = signerLinks(page.Body)
	is.Equal(len(links), 4) // the new submission's two, then the declined one's
	signAt(t, s, links[0], "Ann Client")
	signAt(t, s, links[1], "Bob Partner")
	page = b.get(signing)
	is.True(strings.Contains(page.Body, `<span class="status s-Signed">Signed</span>`))
	is.True(strings.Contains(page.Body, "Signed document"))
	contractPage = b.get(fmt.Sprintf("/console/contracts/%d", id))
	is.True(strings.Contains(contractPage.Body, `<span class="status s-Signed">Signed</span>`))
	is.Equal(offered(contractPage.Body), []string{"Expired"})
	is.True(strings.Contains(contractPage.Body, "Signed evidence")) // signed copies cannot be removed
}

func TestBulkStatus(t *testing.T) {
	is := is.New(t)
	s, b := adminBrowser(t)
	a := b.createContract("Plain one", nil)
	d := importAt(t, s, 4, true) // a digital Signed contract
	list := b.get("/console/contracts?Status=Draft&Status=Signed")
	is.True(strings.Contains(list.Body, `name="ids" value="`))
	r := b.post("/console/contracts/status", url.Values{"ids": {fmt.Sprint(a), fmt.Sprint(d)}, "status": {"Archived"},
		"back": {"/console/contracts?Status=Draft&Status=Signed"}})
	is.Equal(r.Status, 200)
	is.True(strings.Contains(r.Body, "Status change to Archived"))
	is.True(strings.Contains(r.Body, ">Plain one</a></td><td data-label=\"Result\">Changed to Archived"))
	is.True(strings.Contains(r.Body, "Refused: cannot change status from Signed to Archived: a digital contract can only expire after it is signed"))
	is.True(strings.Contains(r.Body, "Showing 1–1 of 1")) // the list as filtered before
	r = b.post("/console/contracts/status", url.Values{"status": {"Archived"}})
	is.Equal(r.Status, http.StatusBadRequest)
	is.True(strings.Contains(r.Body, "select at least one contract"))
}

// TestContractViewOnly: a user with ContractView alone sees no write
// control and is refused when posting anyway.
func TestContractViewOnly(t *testing.T) {
	is := is.New(t)
	s, admin := adminBrowser(t)
	id := admin.createContract("Watched", nil)
	admin.upload(id, "w.pdf", porttest.MinimalPDF(1), false)
	admin.get(fmt.Sprintf("/console/contracts/%d/signing", id))
	admin.post(fmt.Sprintf("/console/contracts/%d/signing", id), url.Values{"documentIds": {"1"},
		"submitters[0].email": {"ann@client.example"}})

	v, _, _ := signedInUser(t, s, account.ContractView)
	home := v.get("/console")
	is.True(strings.Contains(home.Body, `href="/console/contracts"`))
	is.True(strings.Contains(home.Body, "Waiting for signature</a></dt><dd>1</dd>"))
	for _, path := range []string{"/console/contracts", fmt.Sprintf("/console/contracts/%d", id), fmt.Sprintf("/console/contracts/%d/signing", id)} {
		r := v.get(path)
		is.Equal(r.Status, 200)
		for _, control := range []string{`method="post"` + " action=\"/console/contracts", "New contract", `name="ids"`, "Change status", "Delete…",
			`type="file"`, "Remove", "Send for signature", "Copy link", "/sign/"} {
			if strings.Contains(r.Body, control) {
				t.Errorf("%s shows %q to a ContractView-only user", path, control)
			}
		}
	}
	is.True(strings.Contains(v.get(fmt.Sprintf("/console/contracts/%d/signing", id)).Body, "ann@client.example")) // the signers, without links
	for _, tt := range []struct {
		path string
		form url.Values
	}{
		{"/console/contracts", url.Values{"contractName": {"x"}}},
		{fmt.Sprintf("/console/contracts/%d", id), url.Values{"contractName": {"x"}}},
		{fmt.Sprintf("/console/contracts/%d/status", id), url.Values{"status": {"Draft"}}},
		{fmt.Sprintf("/console/contracts/%d/delete", id), nil},
		{"/console/contracts/status", url.Values{"ids": {fmt.Sprint(id)}, "status": {"Draft"}}},
		{fmt.Sprintf("/console/contracts/%d/documents/1/delete", id), nil},
		{fmt.Sprintf("/console/contracts/%d/signing", id), url.Values{"documentIds": {"1"}}},
	} {
		r := v.post(tt.path, tt.form)
		is.Equal(r.Status, http.StatusForbidden)
		is.True(strings.Contains(r.Body, "Not permitted"))
	}
	is.Equal(v.upload(id, "x.pdf", porttest.MinimalPDF(1), false).Status, http.StatusForbidden)
	is.Equal(v.get("/console/contracts/new").Status, http.StatusForbidden)

	// No ContractView: no Contracts section, and the pages refuse.
	n, _, _ := signedInUser(t, s)
	is.True(!strings.Contains(n.get("/console").Body, `href="/console/contracts"`))
	is.Equal(n.get("/console/contracts").Status, http.StatusForbidden)
}

func TestHomeCounters(t *testing.T) {
	is := is.New(t)
	s, b := adminBrowser(t)
	day := func(d int) string { return s.Clock.Now().AddDate(0, 0, d).Format("2006-01-02") }
	b.createContract("Draft A", nil)
	b.createContract("Draft B", nil)
	for _, end := range []int{10, 60} {
		id := b.createContract(fmt.Sprint("Ends in ", end), url.Values{"endDate": {day(end)}})
		is.Equal(b.post(fmt.Sprintf("/console/contracts/%d/status", id), url.Values{"status": {"Signed"}}).Status, http.StatusSeeOther)
	}
	home := b.get("/console")
	is.True(strings.Contains(home.Body, "Drafts</a></dt><dd>2</dd>"))
	is.True(strings.Contains(home.Body, "Waiting for signature</a></dt><dd>0</dd>"))
	is.True(strings.Contains(home.Body, "Signed, ending within 30 days</a></dt><dd>1</dd>"))
	// Each counter links to the list it counts.
	m := regexp.MustCompile(`href="([^"]+)">Signed, ending within 30 days`).FindStringSubmatch(home.Body)
	is.True(m != nil)
	list := b.get(html.UnescapeString(m[1]))
	is.True(strings.Contains(list.Body, "Showing 1–1 of 1"))
	is.True(strings.Contains(list.Body, ">Ends in 10</a>"))

	// Notice due: the caller's own contracts, not Draft, whose notice
	// date (end date minus notice days) falls within 30 days.
	is.True(strings.Contains(home.Body, "Yours, notice due within 30 days</a></dt><dd>1</dd>")) // "Ends in 10"
	id := b.createContract("Notice in 20", url.Values{"endDate": {day(80)}, "noticeDays": {"60"}, "autoRenew": {"false", "true"}})
	is.Equal(b.post(fmt.Sprintf("/console/contracts/%d/status", id), url.Values{"status": {"ContractDesign"}}).Status, http.StatusSeeOther)
	b.createContract("Draft with notice", url.Values{"endDate": {day(5)}}) // a Draft: not counted
	_, other := s.User(t, account.ContractCreate, account.ContractView)
	r := s.Do(t, "POST", "/api/contracts", other, map[string]any{"contractName": "Someone else's", "endDate": day(5)}).Expect(t, 201, "other's")
	s.Do(t, "PUT", fmt.Sprintf("/api/contracts/%d", int64(r.Map(t)["id"].(float64))), s.Admin(t), map[string]any{"status": "Signed"}).Expect(t, 200, "sign")
	home = b.get("/console")
	is.True(strings.Contains(home.Body, "Yours, notice due within 30 days</a></dt><dd>2</dd>"))
	m = regexp.MustCompile(`href="([^"]+)">Yours, notice due within 30 days`).FindStringSubmatch(home.Body)
	is.True(m != nil)
	list = b.get(html.UnescapeString(m[1]))
	is.True(strings.Contains(list.Body, "Showing 1–2 of 2"))
	is.True(strings.Contains(list.Body, ">Notice in 20</a>"))
	is.True(strings.Contains(list.Body, day(20)+` <span class="tag">auto-renews</span>`)) // the notice date, auto-renewing
	is.True(!strings.Contains(list.Body, `<td data-label="Owner">—</td>`))                // the owner's name
	detail := b.get(fmt.Sprintf("/console/contracts/%d", id)).Body
	is.True(strings.Contains(detail, "<dt>Notice by</dt><dd>"+day(20)+" (60 days before the end)</dd>"))
	is.True(strings.Contains(detail, "<dt>Renews automatically</dt><dd>Yes</dd>"))
	is.True(regexp.MustCompile(`<dt>Owner</dt><dd><a href="/console/users/\d+">[^<]+</a></dd>`).MatchString(detail))

	// The edit form keeps the fields, and an unticked box turns auto-renew off.
	edit := url.Values{"contractName": {"Notice in 20"}, "noticeDays": {""}, "autoRenew": {"false"}, "ownerId": {""}}
	is.Equal(b.post(fmt.Sprintf("/console/contracts/%d", id), edit).Status, http.StatusSeeOther)
	detail = b.get(fmt.Sprintf("/console/contracts/%d", id)).Body
	is.True(strings.Contains(detail, "<dt>Notice by</dt><dd>"+day(80)+"</dd>")) // no notice days: the end date
	is.True(strings.Contains(detail, "<dt>Renews automatically</dt><dd>No</dd>"))
	bad := b.post(fmt.Sprintf("/console/contracts/%d", id), url.Values{"contractName": {"x"}, "noticeDays": {"4000"}, "ownerId": {"999999"}})
	is.Equal(bad.Status, http.StatusBadRequest)
	is.True(strings.Contains(bad.Body, "ownerId must be an active user"))
}

func TestDocumentTooLarge(t *testing.T) {
	is := is.New(t)
	_, b := adminBrowser(t)
	id := b.createContract("Big", nil)
	big := append(porttest.MinimalPDF(1), make([]byte, 20<<20)...)
	r := b.upload(id, "big.pdf", big, false)
	is.Equal(r.Status, http.StatusRequestEntityTooLarge)
	is.True(strings.Contains(r.Body, `id="e-file"`))
	is.True(strings.Contains(b.get(fmt.Sprintf("/console/contracts/%d", id)).Body, "Documents (0)"))
}

// TestBodiesPastTheLimit checks the console answers a body past the
// transport's limit with its own page, not the API's JSON problem: an
// upload declaring more than 21 MiB gets the contract page with the error
// at the file input, unread; a form past 1 MiB an error page.
func TestBodiesPastTheLimit(t *testing.T) {
	is := is.New(t)
	_, b := adminBrowser(t)
	id := b.createContract("Huge", nil)
	r := b.upload(id, "huge.pdf", append(porttest.MinimalPDF(1), make([]byte, 22<<20)...), false)
	is.Equal(r.Status, http.StatusRequestEntityTooLarge)
	is.True(strings.HasPrefix(r.Header.Get("Content-Type"), "text/html"))
	is.True(strings.Contains(r.Body, `id="e-file"`))
	is.True(strings.Contains(r.Body, "larger than 20 MiB"))

	r = b.post(fmt.Sprintf("/console/contracts/%d", id), url.Values{"contractName": {strings.Repeat("x", 2<<20)}})
	is.Equal(r.Status, http.StatusRequestEntityTooLarge)
	is.True(strings.HasPrefix(r.Header.Get("Content-Type"), "text/html"))
	is.True(strings.Contains(r.Body, "Form too large"))
}
