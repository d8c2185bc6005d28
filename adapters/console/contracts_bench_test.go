package console_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"testing"
	"time"

	"counsel/app/apptest"
	"counsel/ports/porttest"
	"counsel/tools/bench/contractgen"
)

// BenchmarkContractsPage renders the contracts page (20 of 100,000) in
// the server handler, without the network, and reports the median and
// 99th percentile.
//
//	go test ./adapters/console -run '^$' -bench ContractsPage -benchtime 200x
func BenchmarkContractsPage(b *testing.B) {
	s := apptest.New(b)
	t0 := time.Now()
	if err := s.App.Stores().Contracts.ImportContracts(context.Background(), contractgen.Legal.Make(100_000, 1, time.Now().UTC()), 1); err != nil {
		b.Fatal(err)
	}
	b.Logf("seeded 100,000 contracts in %s", time.Since(t0).Round(time.Millisecond))
	br := newBrowser(b, s)
	br.signIn(apptest.AdminEmail, apptest.AdminPassword)
	cookie := &http.Cookie{Name: "counsel_session", Value: br.cookie("counsel_session")}
	h := s.App.Handler()
	benchPages(b, h, cookie, "/console/contracts", []benchPage{
		{"first-page", ""},
		{"sort-name", "?SortBy=contractName&SortDesc=false"},
		{"status+sort", "?Status=Draft&Status=Signed&SortBy=endDate"},
		{"search", "?Search=" + contractgen.Legal.Rare},
		{"filters", "?ContractType=ServiceAgreement&IsSigned=true&StartDateFrom=2022-01-01&SortBy=startDate"},
		{"deep-page", "?Status=Draft&SortBy=contractName&Offset=10000"},
		{"detail", "/1"},
	})
}

// TestContractPageWeight checks the contract pages, full, with their
// assets under 150 KB.
func TestContractPageWeight(t *testing.T) {
	s := newServer(t)
	b := newBrowser(t, s)
	b.signIn(apptest.AdminEmail, apptest.AdminPassword)
	var id int64
	for i := range 25 {
		id = b.createContract(fmt.Sprintf("Contract %02d with a fairly long name for weight", i), url.Values{"amount": {"1000"}, "currency": {"AUD"},
			"startDate": {"2025-01-01"}, "endDate": {"2027-01-01"}})
	}
	for i := range 12 {
		b.post(fmt.Sprintf("/console/contracts/%d", id), url.Values{"comments": {fmt.Sprint("note ", i)}})
	}
	b.upload(id, "a.pdf", porttest.MinimalPDF(1), false)
	b.get(fmt.Sprintf("/console/contracts/%d/signing", id))
	b.post(fmt.Sprintf("/console/contracts/%d/signing", id), url.Values{"documentIds": {"1"},
		"submitters[0].email": {"a@client.example"}, "submitters[1].email": {"b@client.example"}})
	for _, path := range []string{"/console/contracts", "/console/contracts/new", fmt.Sprintf("/console/contracts/%d", id),
		fmt.Sprintf("/console/contracts/%d/signing", id), fmt.Sprintf("/console/contracts/%d/delete", id), "/console"} {
		page := b.get(path)
		if page.Status != 200 {
			t.Fatalf("%s: %d", path, page.Status)
		}
		total := len(page.Body)
		for _, m := range assetRe.FindAllStringSubmatch(page.Body, -1) {
			total += len(b.get(m[1]).Body)
		}
		t.Logf("%s: %.1f KB with assets (page %.1f KB)", path, float64(total)/1024, float64(len(page.Body))/1024)
		if total > 150*1024 {
			t.Errorf("%s weighs %d bytes with its assets", path, total)
		}
	}
}
