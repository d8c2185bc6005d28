package console_test

import (
	"bytes"
	"html"
	"mime/multipart"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"counsel/app/apptest"
)

// Helpers of the contract page tests. They go through HTTP only (the
// console and the embedded signer's pages), so they run on either engine.

// upload posts a file to a contract's upload form as a browser does: the
// CSRF token first, then the file.
func (b *browser) upload(contractID int64, name string, content []byte, xhr bool) resp {
	b.t.Helper()
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	_ = mw.WriteField("csrf", b.csrf)
	fw, _ := mw.CreateFormFile("file", name)
	_, _ = fw.Write(content)
	_ = mw.Close()
	req, _ := http.NewRequest("POST", b.s.URL+"/console/contracts/"+strconv.FormatInt(contractID, 10)+"/documents", &body)
	req.Header.Set("Content-Type", mw.FormDataContentType())
	req.Header.Set("Origin", b.origin)
	if xhr {
		req.Header.Set("X-Counsel-Upload", "1")
	}
	return b.do(req)
}

var locationID = regexp.MustCompile(`^/console/contracts/([0-9]+)`)

// createContract creates a contract through the form and returns its id.
func (b *browser) createContract(name string, extra url.Values) int64 {
	b.t.Helper()
	b.get("/console/contracts/new")
	form := url.Values{"contractName": {name}, "contractType": {"ServiceAgreement"}}
	for k, v := range extra {
		form[k] = v
	}
	r := b.post("/console/contracts", form)
	m := locationID.FindStringSubmatch(r.Header.Get("Location"))
	if r.Status != http.StatusSeeOther || m == nil {
		b.t.Fatalf("create contract: %d %s", r.Status, r.Body)
	}
	n, _ := strconv.ParseInt(m[1], 10, 64)
	return n
}

var (
	signLinkRe = regexp.MustCompile(`value="(http[^"]*/sign/[^"]+)"`)
	signTokRe  = regexp.MustCompile(`name="token" value="([^"]+)"`)
	statusOpts = regexp.MustCompile(`<select id="f-status" name="status">(.*?)</select>`)
	optionRe   = regexp.MustCompile(`<option value="([A-Za-z]+)">`)
)

// signerLinks are the signing links a signing page shows, in order.
func signerLinks(page string) []string {
	var out []string
	for _, m := range signLinkRe.FindAllStringSubmatch(page, -1) {
		out = append(out, html.UnescapeString(m[1]))
	}
	return out
}

// signAt signs on the embedded signer's page behind link.
func signAt(t *testing.T, s *apptest.Server, link, name string) {
	t.Helper()
	if r := signerPost(t, s, link, "/sign", url.Values{"name": {name}, "consent": {"yes"}}); r.Status != 200 {
		t.Fatalf("sign %s: %d %s", link, r.Status, r.Body)
	}
}

// signerPost posts form, with the page's token, to the action (/sign or
// /decline) of the embedded signer's page behind link.
func signerPost(t *testing.T, s *apptest.Server, link, action string, form url.Values) *apptest.Response {
	t.Helper()
	req, _ := http.NewRequest("GET", link, nil)
	r := s.Send(t, req)
	m := signTokRe.FindStringSubmatch(string(r.Body))
	if r.Status != 200 || m == nil {
		t.Fatalf("signing page %s: %d", link, r.Status)
	}
	form.Set("token", html.UnescapeString(m[1]))
	req, _ = http.NewRequest("POST", link+action, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	return s.Send(t, req)
}

// offered is the statuses the contract page's status control offers.
func offered(page string) []string {
	m := statusOpts.FindStringSubmatch(page)
	if m == nil {
		return nil
	}
	var out []string
	for _, o := range optionRe.FindAllStringSubmatch(m[1], -1) {
		out = append(out, o[1])
	}
	return out
}
