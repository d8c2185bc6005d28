package console_test

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/matryer/is"
)

// TestContractFilterSameAsAPI runs the same list queries through the JSON
// API and the console: both read them with one parser, so both answer
// the same contracts in the same order, or both refuse the query naming
// the same parameters.
func TestContractFilterSameAsAPI(t *testing.T) {
	s, b := adminBrowser(t)
	names := []string{"Alpha lease", "Beta licence", "Gamma NDA"}
	b.createContract(names[0], url.Values{"startDate": {"2025-01-10"}, "endDate": {"2026-01-10"}, "amount": {"100"}, "currency": {"aud"}, "matterId": {"7"}, "noticeDays": {"30"}})
	b.createContract(names[1], url.Values{"contractType": {"LicenseAgreement"}, "startDate": {"2024-03-01"}, "amount": {"300"}, "clientId": {"9"}})
	c := b.createContract(names[2], url.Values{"contractType": {"NonDisclosureAgreement"}, "amount": {"200"}, "projectId": {"4"}})
	if r := b.post(fmt.Sprintf("/console/contracts/%d/status", c), url.Values{"status": {"Signed"}}); r.Status != http.StatusSeeOther {
		t.Fatalf("status change: %d", r.Status)
	}
	tok := s.Admin(t)
	for _, tt := range []struct {
		query string
		bad   []string // the parameters refused, in order
	}{
		{query: ""},
		{query: "search=LICENCE"},
		{query: "Search=lease&SEARCH=nothing"},
		{query: "status=Draft&Status=Signed"},
		{query: "Status=Draft,Signed&SortBy=contractName&SortDesc=false"},
		{query: "ContractType=LicenseAgreement&contracttype=NonDisclosureAgreement"},
		{query: "ContractType=LicenseAgreement,ServiceAgreement&sortby=amount"},
		{query: "IsSigned=true"},
		{query: "issigned=0&isdigital=false"},
		{query: "MatterId=7"},
		{query: "relatedentitytype=client&RelatedEntityId=9"},
		{query: "RelatedEntityType=Project"},
		{query: "StartDateFrom=2025-01-01&StartDateTo=2025-12-31T23:59:59Z"},
		{query: "EndDateFrom=2026-01-01&enddateto=2026-02-01"},
		{query: "Limit=1&Offset=1&SortBy=createdAt"},
		{query: "OwnerId=1"},
		{query: "ownerid=2"},
		{query: "NoticeDateFrom=2025-12-11&noticedateto=2025-12-11"},
		{query: "NoticeDateTo=2026-01-09"},
		{query: "OwnerId=me", bad: []string{"OwnerId"}},
		{query: "NoticeDateFrom=2026-01-02&NoticeDateTo=2026-01-01", bad: []string{"NoticeDateTo"}},
		{query: "Limit=99999999999999999999"},
		{query: "Status=Nope", bad: []string{"Status"}},
		{query: "ContractType=Lease", bad: []string{"ContractType"}},
		{query: "IsSigned=maybe&MatterId=x", bad: []string{"IsSigned", "MatterId"}},
		{query: "StartDateFrom=yesterday", bad: []string{"StartDateFrom"}},
		{query: "StartDateFrom=2025-02-01&StartDateTo=2025-01-01", bad: []string{"StartDateTo"}},
		{query: "RelatedEntityId=3", bad: []string{"RelatedEntityId"}},
		{query: "RelatedEntityType=Office", bad: []string{"RelatedEntityType"}},
		{query: "SortBy=colour&SortDesc=sideways", bad: []string{"SortBy", "SortDesc"}},
		{query: "Limit=-1&Offset=x", bad: []string{"Limit", "Offset"}},
		{query: "Search=" + strings.Repeat("x", 201), bad: []string{"Search"}},
	} {
		t.Run(tt.query, func(t *testing.T) {
			is := is.New(t)
			api := s.Do(t, http.MethodGet, "/api/contracts?"+tt.query, tok, nil)
			page := b.get("/console/contracts?" + tt.query)
			if tt.bad != nil {
				is.Equal(api.Status, http.StatusBadRequest)  // the API refuses
				is.Equal(page.Status, http.StatusBadRequest) // so does the console
				var p struct{ Errors map[string][]string }
				api.JSON(t, &p)
				var fields []string
				for k := range p.Errors {
					fields = append(fields, k)
				}
				slices.Sort(fields)
				is.Equal(fields, tt.bad) // the API names the parameters
				for _, k := range tt.bad {
					for _, msg := range p.Errors[k] {
						is.True(strings.Contains(page.Body, htmlEscape(msg))) // the console shows the same message
					}
				}
				return
			}
			is.Equal(api.Status, http.StatusOK)
			is.Equal(page.Status, http.StatusOK)
			var list struct {
				Items []struct{ ContractName string }
				Count int64
			}
			api.JSON(t, &list)
			var fromAPI []string
			for _, it := range list.Items {
				fromAPI = append(fromAPI, it.ContractName)
			}
			var fromPage []string
			for _, n := range names {
				if strings.Contains(page.Body, ">"+n+"</a>") {
					fromPage = append(fromPage, n)
				}
			}
			slices.SortFunc(fromPage, func(x, y string) int {
				return strings.Index(page.Body, ">"+x+"</a>") - strings.Index(page.Body, ">"+y+"</a>")
			})
			is.Equal(fromPage, fromAPI) // the same contracts in the same order
		})
	}
}

// htmlEscape escapes text as html/template does in element content.
func htmlEscape(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&#34;", "'", "&#39;").Replace(s)
}
