package console_test

import (
	"context"
	"fmt"
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
	benchPages(b, s, "/console/contracts", []benchPage{
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
	_, b := adminBrowser(t)
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
		checkWeight(t, b, path, page)
	}
}
