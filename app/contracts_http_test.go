package app_test

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/matryer/is"

	"counsel/app/apptest"
	"counsel/domain/account"
	"counsel/domain/contract"
)

// contractDTOFields and contractListFields are the exact field sets of
// ContractDto and ContractListDto (docs/decisions.md §5).
var (
	contractDTOFields = []string{"id", "contractUUId", "contractName", "contractDescription", "contractType", "status", "startDate", "endDate",
		"amount", "currency", "isSigned", "comments", "matterId", "clientId", "projectId", "digitalContractId", "digitalContractSubmissionId",
		"createdAt", "updatedAt", "ownerId", "noticeDays", "autoRenew", "noticeDate"}
	contractListFields = []string{"id", "contractUUId", "contractName", "contractType", "status", "startDate", "endDate", "amount",
		"currency", "isSigned", "isDigital", "matterId", "clientId", "projectId", "updatedAt", "ownerId", "autoRenew", "noticeDate"}
	contractHistoryFields = []string{"id", "action", "fromStatus", "toStatus", "actorUserId", "actorName", "at", "details"}
)

func contractKeys(m map[string]any) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

func contractSorted(s []string) []string {
	c := append([]string{}, s...)
	sort.Strings(c)
	return c
}

// contractCreate creates a contract through the API and returns its body.
func contractCreate(t testing.TB, s *apptest.Server, tok string, body map[string]any) map[string]any {
	t.Helper()
	r := s.Do(t, "POST", "/api/contracts", tok, body).Expect(t, 201, "create contract")
	return r.Map(t)
}

func contractID(m map[string]any) int64 { return int64(m["id"].(float64)) }

// contractForce puts a contract in a status (and makes it digital)
// directly through the store, for states the API reaches only through
// signing.
func contractForce(t testing.TB, s *apptest.Server, id int64, st contract.Status, digital bool) {
	t.Helper()
	_, err := s.App.Stores().Contracts.UpdateContract(context.Background(), id, func(c *contract.Contract) ([]contract.AuditEntry, error) {
		c.Status = st
		if digital {
			c.DigitalContractID, c.DigitalContractSubmissionID = fmt.Sprintf("tpl-%d", id), fmt.Sprintf("sub-%d", id)
		}
		return nil, nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func contractProblem(t testing.TB, r *apptest.Response) (detail string, errs map[string][]string) {
	t.Helper()
	var p struct {
		Type   string
		Detail string
		Errors map[string][]string
	}
	r.JSON(t, &p)
	if r.Header.Get("Content-Type") != "application/problem+json" || p.Type == "" {
		t.Fatalf("not a problem document: %s", r.Body)
	}
	return p.Detail, p.Errors
}

func TestContractCreateReadUpdateDelete(t *testing.T) {
	t.Parallel()
	s := apptest.New(t)
	admin := s.Admin(t)

	t.Run("create answers 201, Location and every field", func(t *testing.T) {
		is := is.New(t)
		r := s.Do(t, "POST", "/api/contracts", admin, map[string]any{
			"contractName": "  Master services  ", "contractDescription": "IT support", "contractType": "Service Agreement",
			"status": "Signed", "isSigned": true, "digitalContractId": "forged", "contractUUId": "forged",
			"startDate": "2026-01-01T10:00:00+10:00", "endDate": "2026-12-31", "amount": 150000, "currency": "aud",
			"comments": "renewal due", "matterId": 11, "clientId": 12, "projectId": 13,
		})
		is.Equal(r.Status, 201)
		m := r.Map(t)
		is.Equal(contractKeys(m), contractSorted(contractDTOFields))                                                                                 // exactly the ContractDto fields
		is.Equal(r.Header.Get("Location"), fmt.Sprintf("/api/contracts/%d", contractID(m)))                                                          // Location
		is.Equal(m["status"], "Draft")                                                                                                               // always Draft
		is.Equal(m["isSigned"], false)                                                                                                               // not signed
		is.Equal(m["digitalContractId"], nil)                                                                                                        // not digital
		is.Equal(m["digitalContractSubmissionId"], nil)                                                                                              // no submission
		is.True(regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`).MatchString(m["contractUUId"].(string))) // a new v4 UUID
		is.Equal(m["contractName"], "Master services")                                                                                               // trimmed
		is.Equal(m["contractType"], "ServiceAgreement")                                                                                              // written as the name
		is.Equal(m["startDate"], "2026-01-01T00:00:00Z")                                                                                             // UTC with Z
		is.Equal(m["endDate"], "2026-12-31T00:00:00Z")                                                                                               // plain date is midnight UTC
		is.Equal(m["currency"], "AUD")                                                                                                               // upper-cased
		is.Equal(m["matterId"], float64(11))                                                                                                         // related ids
		is.Equal(m["createdAt"], "2026-11-21T09:30:00Z")                                                                                             // the clock's time
		is.True(strings.Contains(string(r.Body), `"amount":150000.00`))                                                                              // two decimals, a JSON number

		got := s.Do(t, "GET", fmt.Sprintf("/api/contracts/%d", contractID(m)), admin, nil)
		is.Equal(got.Status, 200)
		is.Equal(got.Map(t), m) // reads back the same
	})

	t.Run("amounts are exact", func(t *testing.T) {
		tests := []struct {
			in   any
			want string
		}{
			{json.Number("0.30"), `"amount":0.30`},
			{json.Number("0.1"), `"amount":0.10`},
			{json.Number("12.345"), `"amount":12.35`},
			{json.Number("999999999999999.99"), `"amount":999999999999999.99`},
			{"19.99", `"amount":19.99`},
			{0, `"amount":0.00`},
			{nil, `"amount":null`},
		}
		for _, tt := range tests {
			t.Run(fmt.Sprint(tt.in), func(t *testing.T) {
				is := is.New(t)
				r := s.Do(t, "POST", "/api/contracts", admin, map[string]any{"contractName": "amount", "amount": tt.in})
				is.Equal(r.Status, 201)
				is.True(strings.Contains(string(r.Body), tt.want)) // written with exactly two decimals
			})
		}
	})

	t.Run("enumerations by name, spelling or code", func(t *testing.T) {
		for in, want := range map[any]string{"Non-Disclosure Agreement": "NonDisclosureAgreement", "employment_contract": "EmploymentContract",
			"LICENSEAGREEMENT": "LicenseAgreement", 4: "PartnershipAgreement", "6": "Other"} {
			t.Run(fmt.Sprint(in), func(t *testing.T) {
				is := is.New(t)
				m := contractCreate(t, s, admin, map[string]any{"contractName": "x", "contractType": in})
				is.Equal(m["contractType"], want) // read by name or code, written as the name
			})
		}
	})

	t.Run("update: absent fields kept, null clears", func(t *testing.T) {
		is := is.New(t)
		c := contractCreate(t, s, admin, map[string]any{"contractName": "Lease", "contractDescription": "d", "amount": 10, "currency": "NZD",
			"startDate": "2026-01-01", "matterId": 5, "comments": "c"})
		id := contractID(c)
		s.Clock.Advance(time.Minute)
		r := s.Do(t, "PUT", fmt.Sprintf("/api/contracts/%d", id), admin, map[string]any{"CONTRACTNAME": "Lease 2", "amount": nil, "matterId": nil,
			"currency": nil, "comments": nil, "clientId": 8})
		is.Equal(r.Status, 200)
		m := r.Map(t)
		is.Equal(contractKeys(m), contractSorted(contractDTOFields)) // ContractDto
		is.Equal(m["contractName"], "Lease 2")                       // field names match case-insensitively
		is.Equal(m["contractDescription"], "d")                      // absent: kept
		is.Equal(m["startDate"], "2026-01-01T00:00:00Z")             // absent: kept
		is.Equal(m["amount"], nil)                                   // null: cleared
		is.Equal(m["matterId"], nil)                                 // null: cleared
		is.Equal(m["currency"], "")                                  // null text: emptied
		is.Equal(m["comments"], "")                                  // null text: emptied
		is.Equal(m["clientId"], float64(8))                          // set
		is.Equal(m["status"], "Draft")                               // unchanged
		is.Equal(m["updatedAt"], "2026-11-21T09:31:00Z")             // moved
		is.Equal(m["createdAt"], c["createdAt"])                     // kept

		s.Clock.Advance(time.Minute)
		r = s.Do(t, "PUT", fmt.Sprintf("/api/contracts/%d", id), admin, map[string]any{})
		is.Equal(r.Status, 200)
		is.Equal(r.Map(t)["updatedAt"], "2026-11-21T09:31:00Z") // an empty edit changes nothing

		for i := 0; i < 5; i++ {
			r = s.Do(t, "PUT", fmt.Sprintf("/api/contracts/%d", id), admin, `{"contractName": "first", "CONTRACTNAME": "last", "unknown": [1, {"x": null}]}`)
			is.Equal(r.Status, 200)
			is.Equal(r.Map(t)["contractName"], "last") // of names differing in case the last wins; unknown fields are ignored
		}
	})

	t.Run("delete a Draft; history stays", func(t *testing.T) {
		is := is.New(t)
		id := contractID(contractCreate(t, s, admin, map[string]any{"contractName": "to delete"}))
		r := s.Do(t, "DELETE", fmt.Sprintf("/api/contracts/%d", id), admin, nil)
		is.Equal(r.Status, 204)
		is.Equal(len(r.Body), 0)                                                                  // no body
		is.Equal(s.Do(t, "GET", fmt.Sprintf("/api/contracts/%d", id), admin, nil).Status, 404)    // gone
		is.Equal(s.Do(t, "DELETE", fmt.Sprintf("/api/contracts/%d", id), admin, nil).Status, 404) // twice: gone
		h := s.Do(t, "GET", fmt.Sprintf("/api/contracts/%d/history", id), admin, nil)
		is.Equal(h.Status, 200) // the trail of a deleted contract stays readable
		var page struct {
			Items []map[string]any
			Count int
		}
		h.JSON(t, &page)
		is.Equal(page.Count, 2)                                                   // created, deleted
		is.Equal(page.Items[0]["action"], "deleted")                              // newest first
		is.Equal(page.Items[0]["fromStatus"], "Draft")                            // from Draft
		is.Equal(page.Items[0]["toStatus"], nil)                                  // to nothing
		is.Equal(page.Items[1]["action"], "created")                              // oldest last
		is.Equal(page.Items[1]["toStatus"], "Draft")                              // created as Draft
		is.True(strings.Contains(page.Items[0]["details"].(string), "to delete")) // names what was deleted
	})

	t.Run("only Draft contracts can be deleted", func(t *testing.T) {
		for _, st := range contract.AllStatuses()[1:] {
			t.Run(st.String(), func(t *testing.T) {
				is := is.New(t)
				id := contractID(contractCreate(t, s, admin, map[string]any{"contractName": "kept"}))
				contractForce(t, s, id, st, false)
				r := s.Do(t, "DELETE", fmt.Sprintf("/api/contracts/%d", id), admin, nil)
				is.Equal(r.Status, 409)
				detail, _ := contractProblem(t, r)
				is.Equal(detail, "only Draft contracts can be deleted")                                // exact detail
				is.Equal(s.Do(t, "GET", fmt.Sprintf("/api/contracts/%d", id), admin, nil).Status, 200) // still there
			})
		}
	})

	t.Run("unknown ids are 404", func(t *testing.T) {
		for _, rq := range []struct{ method, path string }{
			{"GET", "/api/contracts/999999"}, {"PUT", "/api/contracts/999999"}, {"DELETE", "/api/contracts/999999"},
			{"GET", "/api/contracts/999999/history"}, {"GET", "/api/contracts/999999/documents"},
			{"GET", "/api/contracts/999999/documents/1/content"}, {"DELETE", "/api/contracts/999999/documents/1"},
			{"GET", "/api/contracts/0"}, {"GET", "/api/contracts/99999999999999999999"}, {"GET", "/api/contracts/abc"},
		} {
			t.Run(rq.method+" "+rq.path, func(t *testing.T) {
				is := is.New(t)
				var body any
				if rq.method == "PUT" {
					body = map[string]any{"contractName": "x"}
				}
				r := s.Do(t, rq.method, rq.path, admin, body)
				is.Equal(r.Status, 404)
				contractProblem(t, r)
			})
		}
	})
}

func TestContractValidation(t *testing.T) {
	t.Parallel()
	s := apptest.New(t)
	admin := s.Admin(t)
	types := "contractType must be one of ServiceAgreement (1), EmploymentContract (2), NonDisclosureAgreement (3), PartnershipAgreement (4), LicenseAgreement (5), Other (6)"
	statuses := "status must be one of Draft (1), ContractDesign (2), WaitingForClientSignature (3), Signed (4), Declined (5), Expired (6), Terminated (7), Archived (8)"
	id := contractID(contractCreate(t, s, admin, map[string]any{"contractName": "target", "startDate": "2026-06-01"}))
	tests := []struct {
		name   string
		method string // POST or PUT
		body   any
		field  string // "" for a body error without field errors
		msg    string
	}{
		{"missing name", "POST", map[string]any{"amount": 1}, "contractName", "contractName is required"},
		{"blank name", "POST", map[string]any{"contractName": " \t "}, "contractName", "contractName is required"},
		{"null name", "POST", map[string]any{"contractName": nil}, "contractName", "contractName is required"},
		{"blank name on update", "PUT", map[string]any{"contractName": ""}, "contractName", "contractName is required"},
		{"long name", "POST", map[string]any{"contractName": strings.Repeat("n", 201)}, "contractName", "contractName must be at most 200 characters"},
		{"name not a string", "POST", map[string]any{"contractName": 5}, "contractName", "contractName must be a string"},
		{"unknown type", "POST", map[string]any{"contractName": "x", "contractType": "Lease"}, "contractType", types},
		{"type code out of range", "POST", map[string]any{"contractName": "x", "contractType": 9}, "contractType", types},
		{"type not a string", "POST", map[string]any{"contractName": "x", "contractType": true}, "contractType", types},
		{"null type on update", "PUT", map[string]any{"contractType": nil}, "contractType", "contractType cannot be null"},
		{"unknown status", "PUT", map[string]any{"status": "Done"}, "status", statuses},
		{"status code out of range", "PUT", map[string]any{"status": 0}, "status", statuses},
		{"null status", "PUT", map[string]any{"status": nil}, "status", "status cannot be null"},
		{"negative amount", "POST", map[string]any{"contractName": "x", "amount": -0.01}, "amount", "amount must not be negative"},
		{"huge amount", "POST", map[string]any{"contractName": "x", "amount": json.Number("1e15")}, "amount", "amount must be less than 1000000000000000"},
		{"amount not a number", "POST", map[string]any{"contractName": "x", "amount": "ten"}, "amount", "amount must be a decimal number"},
		{"amount beyond parsing", "POST", map[string]any{"contractName": "x", "amount": json.Number("1e999999999")}, "amount", "amount must be a decimal number"},
		{"amount an object", "PUT", map[string]any{"amount": map[string]any{}}, "amount", "amount must be a decimal number"},
		{"bad currency", "POST", map[string]any{"contractName": "x", "currency": "dollars"}, "currency", "currency must be a 3-letter ISO 4217 code"},
		{"end before start", "POST", map[string]any{"contractName": "x", "startDate": "2026-02-01", "endDate": "2026-01-31"}, "endDate", "endDate must not be before startDate"},
		{"end before kept start", "PUT", map[string]any{"endDate": "2026-05-31"}, "endDate", "endDate must not be before startDate"},
		{"bad date", "POST", map[string]any{"contractName": "x", "startDate": "next week"}, "startDate", "startDate must be an RFC 3339 date-time or a yyyy-mm-dd date"},
		{"date not a string", "PUT", map[string]any{"endDate": 20260101}, "endDate", "endDate must be an RFC 3339 date-time or a yyyy-mm-dd date"},
		{"id not an integer", "POST", map[string]any{"contractName": "x", "matterId": 1.5}, "matterId", "matterId must be an integer"},
		{"id a string", "PUT", map[string]any{"clientId": "7"}, "clientId", "clientId must be an integer"},
		{"id not positive", "POST", map[string]any{"contractName": "x", "projectId": 0}, "projectId", "projectId must be a positive integer"},
		{"long description", "POST", map[string]any{"contractName": "x", "contractDescription": strings.Repeat("d", 20001)}, "contractDescription", "contractDescription must be at most 20000 characters"},
		{"malformed JSON", "POST", `{"contractName": "x"`, "", ""},
		{"not an object", "POST", `["contractName"]`, "", ""},
		{"empty body", "PUT", "", "", ""},
		{"trailing data", "POST", `{"contractName": "x"} {}`, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			path := "/api/contracts"
			if tt.method == "PUT" {
				path = fmt.Sprintf("/api/contracts/%d", id)
			}
			r := s.Do(t, tt.method, path, admin, tt.body)
			is.Equal(r.Status, 400)
			detail, errs := contractProblem(t, r)
			is.True(detail != "") // says what is wrong
			if tt.field != "" {
				is.Equal(errs[tt.field], []string{tt.msg}) // keyed by the JSON field name
			}
		})
	}
	is := is.New(t)
	var list struct{ Count int }
	s.Do(t, "GET", "/api/contracts?Limit=1", admin, nil).JSON(t, &list)
	is.Equal(list.Count, 1) // nothing invalid was created
	got := s.Do(t, "GET", fmt.Sprintf("/api/contracts/%d", id), admin, nil).Map(t)
	is.Equal(got["contractName"], "target") // nothing invalid was saved
	is.Equal(got["endDate"], nil)
}

// userEdges is the state machine for a user, written out again from
// docs/decisions.md §5: a non-digital contract may go anywhere; a digital one
// only along these edges (and to its own status).
var userEdges = map[[2]contract.Status]bool{
	{contract.Draft, contract.ContractDesign}:    true,
	{contract.ContractDesign, contract.Draft}:    true,
	{contract.Declined, contract.Draft}:          true,
	{contract.Declined, contract.ContractDesign}: true,
	{contract.Signed, contract.Expired}:          true,
}

func userMayChange(from, to contract.Status, digital bool) bool {
	return from == to || !digital || userEdges[[2]contract.Status{from, to}]
}

func TestContractTransitionsThroughPUT(t *testing.T) {
	t.Parallel()
	s := apptest.New(t)
	admin := s.Admin(t)
	store := s.App.Stores().Contracts
	for _, digital := range []bool{false, true} {
		for _, from := range contract.AllStatuses() {
			for _, to := range contract.AllStatuses() {
				t.Run(fmt.Sprintf("digital=%t/%s/%s", digital, from, to), func(t *testing.T) {
					is := is.New(t)
					id := contractID(contractCreate(t, s, admin, map[string]any{"contractName": "t"}))
					contractForce(t, s, id, from, digital)
					r := s.Do(t, "PUT", fmt.Sprintf("/api/contracts/%d", id), admin, map[string]any{"status": int(to)})
					_, n, err := store.History(context.Background(), id, 1, 0)
					is.NoErr(err)
					if !userMayChange(from, to, digital) {
						is.Equal(r.Status, 409)
						detail, _ := contractProblem(t, r)
						is.True(strings.HasPrefix(detail, fmt.Sprintf("cannot change status from %s to %s: ", from, to)))          // names from and to
						is.Equal(s.Do(t, "GET", fmt.Sprintf("/api/contracts/%d", id), admin, nil).Map(t)["status"], from.String()) // unchanged
						is.Equal(n, int64(1))                                                                                      // no audit entry
						return
					}
					is.Equal(r.Status, 200)
					m := r.Map(t)
					is.Equal(m["status"], to.String()) // moved
					if to == contract.Signed && from != to {
						is.Equal(m["isSigned"], true) // reaching Signed marks it signed
					}
					want := int64(1)
					if from != to {
						want = 2 // created + statusChanged
					}
					is.Equal(n, want) // audited once per real change
				})
			}
		}
	}
}

func TestContractTransitionsThroughChangeStatus(t *testing.T) {
	t.Parallel()
	s := apptest.New(t)
	admin := s.Admin(t)
	for _, digital := range []bool{false, true} {
		for _, to := range contract.AllStatuses() {
			t.Run(fmt.Sprintf("digital=%t/to %s", digital, to), func(t *testing.T) {
				is := is.New(t)
				// One contract in each status, all moved in one request.
				var ids []int64
				for _, from := range contract.AllStatuses() {
					id := contractID(contractCreate(t, s, admin, map[string]any{"contractName": "bulk"}))
					contractForce(t, s, id, from, digital)
					ids = append(ids, id)
				}
				r := s.Do(t, "POST", "/api/contracts/changeStatus", admin, map[string]any{"ids": ids, "status": to.String()})
				is.Equal(r.Status, 200)
				var res struct {
					Results []struct {
						ID     int64
						OK     bool
						Status *string
						Error  *string
					}
				}
				r.JSON(t, &res)
				is.Equal(len(res.Results), len(ids)) // one result per id
				for i, from := range contract.AllStatuses() {
					got := res.Results[i]
					is.Equal(got.ID, ids[i]) // in request order
					if userMayChange(from, to, digital) {
						is.True(got.OK)                    // changed
						is.Equal(*got.Status, to.String()) // new status
						is.Equal(got.Error, (*string)(nil))
						continue
					}
					is.True(!got.OK)                                                                                      // refused
					is.Equal(*got.Status, from.String())                                                                  // status unchanged
					is.True(strings.HasPrefix(*got.Error, fmt.Sprintf("cannot change status from %s to %s: ", from, to))) // names from and to
				}
			})
		}
	}
}

func TestContractChangeStatus(t *testing.T) {
	t.Parallel()
	s := apptest.New(t)
	admin := s.Admin(t)
	a := contractID(contractCreate(t, s, admin, map[string]any{"contractName": "a"}))
	b := contractID(contractCreate(t, s, admin, map[string]any{"contractName": "b"}))
	contractForce(t, s, b, contract.Signed, true)

	t.Run("each id on its own", func(t *testing.T) {
		is := is.New(t)
		r := s.Do(t, "POST", "/api/contracts/changeStatus", admin, map[string]any{"ids": []int64{a, 424242, b, a}, "status": "contract design"})
		is.Equal(r.Status, 200)
		var res struct{ Results []map[string]any }
		r.JSON(t, &res)
		is.Equal(contractKeys(res.Results[0]), []string{"error", "id", "ok", "status"}) // result fields
		is.Equal(res.Results[0]["ok"], true)                                            // a moved
		is.Equal(res.Results[0]["status"], "ContractDesign")
		is.Equal(res.Results[1]["ok"], false)                                                                        // unknown id
		is.Equal(res.Results[1]["status"], nil)                                                                      // has no status
		is.Equal(res.Results[1]["error"], "contract not found")                                                      // says so
		is.Equal(res.Results[2]["ok"], false)                                                                        // b refused (digital Signed)
		is.Equal(res.Results[3]["ok"], true)                                                                         // a again: already there, fine
		is.Equal(s.Do(t, "GET", fmt.Sprintf("/api/contracts/%d", a), admin, nil).Map(t)["status"], "ContractDesign") // the refusal did not undo a
	})

	many := make([]int64, contract.MaxBulkIDs+1)
	for i := range many {
		many[i] = int64(i + 1)
	}
	tests := []struct {
		name  string
		body  any
		field string
	}{
		{"too many ids", map[string]any{"ids": many, "status": "Draft"}, "ids"},
		{"no ids", map[string]any{"ids": []int64{}, "status": "Draft"}, "ids"},
		{"ids missing", map[string]any{"status": "Draft"}, "ids"},
		{"ids not integers", map[string]any{"ids": []string{"a"}, "status": "Draft"}, "ids"},
		{"negative id", map[string]any{"ids": []int64{-1}, "status": "Draft"}, "ids"},
		{"status missing", map[string]any{"ids": []int64{a}}, "status"},
		{"status unknown", map[string]any{"ids": []int64{a}, "status": "Done"}, "status"},
		{"status null", map[string]any{"ids": []int64{a}, "status": nil}, "status"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			r := s.Do(t, "POST", "/api/contracts/changeStatus", admin, tt.body)
			is.Equal(r.Status, 400)
			_, errs := contractProblem(t, r)
			is.True(len(errs[tt.field]) > 0) // names the field
		})
	}
	is := is.New(t)
	r := s.Do(t, "POST", "/api/contracts/changeStatus", admin, map[string]any{"ids": many[:contract.MaxBulkIDs], "status": "Draft"})
	is.Equal(r.Status, 200) // 1000 ids are allowed
}

func TestContractHistory(t *testing.T) {
	t.Parallel()
	s := apptest.New(t)
	admin := s.Admin(t)
	editorID, editor := s.User(t, account.ContractEdit, account.ContractView)
	id := contractID(contractCreate(t, s, admin, map[string]any{"contractName": "History"}))
	s.Clock.Advance(time.Minute)
	is.New(t).Equal(s.Do(t, "PUT", fmt.Sprintf("/api/contracts/%d", id), editor, map[string]any{"contractName": "History 2", "amount": 5, "status": "Signed"}).Status, 200)
	s.Clock.Advance(time.Minute)
	is.New(t).Equal(s.Do(t, "POST", "/api/contracts/changeStatus", admin, map[string]any{"ids": []int64{id}, "status": "Archived"}).Status, 200)

	t.Run("newest first with actors", func(t *testing.T) {
		is := is.New(t)
		r := s.Do(t, "GET", fmt.Sprintf("/api/contracts/%d/history", id), editor, nil)
		is.Equal(r.Status, 200)
		var page struct {
			Items   []map[string]any
			Count   int
			HasNext bool
		}
		r.JSON(t, &page)
		is.Equal(page.Count, 4) // created, updated, statusChanged, statusChanged
		is.Equal(page.HasNext, false)
		for _, e := range page.Items {
			is.Equal(contractKeys(e), contractSorted(contractHistoryFields)) // entry fields
		}
		is.Equal(page.Items[0]["action"], "statusChanged")
		is.Equal(page.Items[0]["fromStatus"], "Signed")
		is.Equal(page.Items[0]["toStatus"], "Archived")
		is.Equal(page.Items[0]["actorName"], "Admin") // the administrator's name
		is.Equal(page.Items[0]["at"], "2026-11-21T09:32:00Z")
		is.Equal(page.Items[1]["action"], "statusChanged")
		is.Equal(page.Items[1]["actorUserId"], float64(editorID)) // the editor
		is.True(strings.HasPrefix(page.Items[1]["actorName"].(string), "Test User"))
		is.Equal(page.Items[2]["action"], "updated")
		is.Equal(page.Items[2]["details"], "changed contractName, amount") // which fields
		is.Equal(page.Items[2]["fromStatus"], nil)
		is.Equal(page.Items[3]["action"], "created")
	})

	t.Run("paged", func(t *testing.T) {
		is := is.New(t)
		var page struct {
			Items   []map[string]any
			Count   int
			HasNext bool
		}
		s.Do(t, "GET", fmt.Sprintf("/api/contracts/%d/history?limit=2&offset=1", id), admin, nil).JSON(t, &page)
		is.Equal(len(page.Items), 2)
		is.Equal(page.Count, 4)
		is.True(page.HasNext)                         // 1 + 2 < 4
		is.Equal(page.Items[0]["toStatus"], "Signed") // second newest
		is.Equal(s.Do(t, "GET", fmt.Sprintf("/api/contracts/%d/history?Limit=-1", id), admin, nil).Status, 400)
		is.Equal(s.Do(t, "GET", fmt.Sprintf("/api/contracts/%d/history?Offset=x", id), admin, nil).Status, 400)
	})
}

func TestContractList(t *testing.T) {
	t.Parallel()
	s := apptest.New(t)
	admin := s.Admin(t)
	mk := func(body map[string]any) int64 {
		s.Clock.Advance(time.Second) // distinct updatedAt
		return contractID(contractCreate(t, s, admin, body))
	}
	lease := mk(map[string]any{"contractName": "Office Lease", "contractType": "Other", "amount": 300, "startDate": "2026-01-01", "endDate": "2026-12-31", "matterId": 1, "currency": "AUD"})
	nda := mk(map[string]any{"contractName": "Supplier NDA", "contractType": "NonDisclosureAgreement", "amount": 0.5, "startDate": "2026-03-01", "endDate": "2027-02-28", "clientId": 2})
	is.New(t).Equal(s.Do(t, "PUT", fmt.Sprintf("/api/contracts/%d", nda), admin, map[string]any{"status": "Signed"}).Status, 200) // isSigned is set by reaching Signed
	emp := mk(map[string]any{"contractName": "Employment: J. Smith", "contractDescription": "includes a LEASE car", "contractType": 2, "startDate": "2026-02-01", "projectId": 3})
	svc := mk(map[string]any{"contractName": "IT services", "comments": "50% discount_applied", "contractType": 1, "amount": 1000, "matterId": 1, "clientId": 3})
	plain := mk(map[string]any{"contractName": "zz"})
	contractForce(t, s, emp, contract.WaitingForClientSignature, true)
	contractForce(t, s, svc, contract.Archived, false)

	list := func(t *testing.T, q string) ([]int64, map[string]any) {
		t.Helper()
		r := s.Do(t, "GET", "/api/contracts?"+q, admin, nil)
		if r.Status != 200 {
			t.Fatalf("list %s: %d %s", q, r.Status, r.Body)
		}
		var page struct {
			Items []map[string]any
		}
		r.JSON(t, &page)
		var ids []int64
		for _, it := range page.Items {
			ids = append(ids, contractID(it))
		}
		return ids, r.Map(t)
	}

	t.Run("envelope and item fields", func(t *testing.T) {
		is := is.New(t)
		ids, m := list(t, "")
		is.Equal(ids, []int64{plain, svc, emp, nda, lease}) // default: updatedAt descending
		is.Equal(m["count"], float64(5))
		is.Equal(m["hasNext"], false)
		for _, it := range m["items"].([]any) {
			is.Equal(contractKeys(it.(map[string]any)), contractSorted(contractListFields)) // exactly the ContractListDto fields
		}
		item := m["items"].([]any)[2].(map[string]any)
		is.Equal(item["isDigital"], true) // emp was made digital
		is.Equal(item["status"], "WaitingForClientSignature")
	})

	filters := []struct {
		q    string
		want []int64
	}{
		{"Search=lease", []int64{emp, lease}},                 // name or description, any case
		{"search=LEASE", []int64{emp, lease}},                 // parameter names too
		{"Search=discount_app", []int64{svc}},                 // comments
		{"Search=50%25", []int64{svc}},                        // a literal %
		{"Search=zz", []int64{plain}},                         // short terms too
		{"Search=j.", []int64{emp}},                           // short with punctuation
		{"Search=%22", nil},                                   // a quote
		{"Search=nothing+like+it", nil},                       // no match
		{"Search=+", []int64{plain, svc, emp, nda, lease}},    // blank: no filter
		{"Status=Signed", []int64{nda}},                       // by name
		{"Status=signed&Status=archived", []int64{svc, nda}},  // repeated
		{"Status=Draft,Archived", []int64{plain, svc, lease}}, // comma-separated
		{"Status=3", []int64{emp}},                            // by code
		{"Status=waiting+for+client+signature", []int64{emp}}, // by spelled name
		{"ContractType=NonDisclosureAgreement", []int64{nda}}, // type
		{"ContractType=1&ContractType=2", []int64{svc, emp}},  // types
		{"IsSigned=true", []int64{nda}},                       // signed
		{"IsSigned=false", []int64{plain, svc, emp, lease}},   // unsigned
		{"IsDigital=true", []int64{emp}},                      // digital
		{"IsDigital=false", []int64{plain, svc, nda, lease}},  // paper
		{"MatterId=1", []int64{svc, lease}},                   // matter
		{"ClientId=2", []int64{nda}},                          // client
		{"ProjectId=3", []int64{emp}},                         // project
		{"RelatedEntityType=Matter&RelatedEntityId=1", []int64{svc, lease}},
		{"RelatedEntityType=client&RelatedEntityId=3", []int64{svc}},
		{"RelatedEntityType=Project&RelatedEntityId=3", []int64{emp}},
		{"RelatedEntityType=Client", []int64{svc, nda}},           // linked to any client
		{"StartDateFrom=2026-02-01", []int64{emp, nda}},           // inclusive
		{"StartDateTo=2026-02-01T00:00:00Z", []int64{emp, lease}}, // inclusive
		{"StartDateFrom=2026-01-15&StartDateTo=2026-02-15", []int64{emp}},
		{"EndDateFrom=2027-01-01", []int64{nda}},
		{"EndDateTo=2026-12-31", []int64{lease}},
		{"EndDateFrom=2026-06-01T00:00:00%2B10:00&EndDateTo=2027-06-01", []int64{nda, lease}}, // offsets allowed
		{"Search=lease&Status=Draft&SortBy=contractName&SortDesc=false", []int64{lease}},
		{"SortBy=contractName&SortDesc=false", []int64{emp, svc, lease, nda, plain}},
		{"SortBy=contract_name", []int64{plain, nda, lease, svc, emp}},
		{"SortBy=amount&SortDesc=false", []int64{emp, plain, nda, lease, svc}}, // no amount first, then ids
		{"SortBy=amount", []int64{svc, lease, nda, plain, emp}},
		{"SortBy=startDate&SortDesc=false", []int64{svc, plain, lease, emp, nda}},
		{"SortBy=endDate", []int64{nda, lease, plain, svc, emp}}, // no end date last, ids descending too
		{"SortBy=createdAt&SortDesc=false", []int64{lease, nda, emp, svc, plain}},
		{"SortBy=updatedAt&SortDesc=0", []int64{lease, nda, emp, svc, plain}},
		{"Limit=2", []int64{plain, svc}},
		{"Limit=2&Offset=4", []int64{lease}},
		{"Limit=0", nil},
		{"Limit=1000", []int64{plain, svc, emp, nda, lease}}, // clamped, not refused
		{"Offset=99", nil},
	}
	for _, tt := range filters {
		t.Run(tt.q, func(t *testing.T) {
			is := is.New(t)
			ids, _ := list(t, tt.q)
			is.Equal(ids, tt.want) // matches, in order
		})
	}

	t.Run("count and hasNext", func(t *testing.T) {
		is := is.New(t)
		_, m := list(t, "Limit=2&Offset=2")
		is.Equal(m["count"], float64(5)) // all matches
		is.Equal(m["hasNext"], true)     // 2 + 2 < 5
		_, m = list(t, "Limit=2&Offset=3")
		is.Equal(m["hasNext"], false) // 3 + 2 = 5
		_, m = list(t, "Status=Draft&Limit=1")
		is.Equal(m["count"], float64(2)) // filtered count
	})

	bad := []struct{ q, param, msg string }{
		{"Status=Done", "Status", "Status must be one of Draft (1), ContractDesign (2), WaitingForClientSignature (3), Signed (4), Declined (5), Expired (6), Terminated (7), Archived (8)"},
		{"Status=Draft&Status=9", "Status", ""},
		{"ContractType=Lease", "ContractType", "ContractType must be one of ServiceAgreement (1), EmploymentContract (2), NonDisclosureAgreement (3), PartnershipAgreement (4), LicenseAgreement (5), Other (6)"},
		{"SortBy=status", "SortBy", "SortBy must be one of contractName, startDate, endDate, amount, createdAt, updatedAt"},
		{"SortDesc=maybe", "SortDesc", "SortDesc must be true or false"},
		{"IsSigned=yes", "IsSigned", "IsSigned must be true or false"},
		{"IsDigital=2", "IsDigital", "IsDigital must be true or false"},
		{"MatterId=x", "MatterId", "MatterId must be an integer"},
		{"ClientId=1.5", "ClientId", "ClientId must be an integer"},
		{"ProjectId=", "", ""},
		{"RelatedEntityType=Office", "RelatedEntityType", "RelatedEntityType must be one of Matter (1), Client (2), Project (3)"},
		{"RelatedEntityId=3", "RelatedEntityId", "RelatedEntityId needs RelatedEntityType (Matter, Client or Project)"},
		{"StartDateFrom=yesterday", "StartDateFrom", "StartDateFrom must be an RFC 3339 date-time or a yyyy-mm-dd date"},
		{"EndDateTo=2026-13-01", "EndDateTo", "EndDateTo must be an RFC 3339 date-time or a yyyy-mm-dd date"},
		{"StartDateFrom=2026-03-01&StartDateTo=2026-02-01", "StartDateTo", "StartDateTo must not be before StartDateFrom"},
		{"Search=" + strings.Repeat("x", 201), "Search", "Search must be at most 200 characters"},
		{"Limit=-1", "Limit", "Limit must be a non-negative integer"},
		{"Offset=1.5", "Offset", "Offset must be a non-negative integer"},
	}
	for _, tt := range bad {
		t.Run("400 "+tt.q, func(t *testing.T) {
			is := is.New(t)
			r := s.Do(t, "GET", "/api/contracts?"+tt.q, admin, nil)
			if tt.param == "" {
				is.Equal(r.Status, 200) // an empty value does not filter
				return
			}
			is.Equal(r.Status, 400)
			detail, errs := contractProblem(t, r)
			is.True(len(errs[tt.param]) == 1) // names the parameter
			if tt.msg != "" {
				is.Equal(errs[tt.param][0], tt.msg)       // and the accepted values
				is.True(strings.Contains(detail, tt.msg)) // in the detail too
			}
		})
	}
}

func TestContractPermissions(t *testing.T) {
	t.Parallel()
	s := apptest.New(t)
	admin := s.Admin(t)
	id := contractID(contractCreate(t, s, admin, map[string]any{"contractName": "perm"}))
	users := map[account.Permission]string{}
	for _, p := range []account.Permission{account.ContractView, account.ContractCreate, account.ContractEdit, account.ContractDelete} {
		_, users[p] = s.User(t, p)
	}
	_, none := s.User(t)
	routes := []struct {
		method, path string
		need         account.Permission
		body         any
	}{
		{"GET", "/api/contracts", account.ContractView, nil},
		{"GET", fmt.Sprintf("/api/contracts/%d", id), account.ContractView, nil},
		{"GET", fmt.Sprintf("/api/contracts/%d/history", id), account.ContractView, nil},
		{"GET", fmt.Sprintf("/api/contracts/%d/documents", id), account.ContractView, nil},
		{"GET", fmt.Sprintf("/api/contracts/%d/documents/1/content", id), account.ContractView, nil},
		{"POST", "/api/contracts", account.ContractCreate, map[string]any{"contractName": "new"}},
		{"PUT", fmt.Sprintf("/api/contracts/%d", id), account.ContractEdit, map[string]any{"comments": "x"}},
		{"POST", "/api/contracts/changeStatus", account.ContractEdit, map[string]any{"ids": []int64{id}, "status": "Draft"}},
		{"POST", fmt.Sprintf("/api/contracts/%d/documents", id), account.ContractEdit, "not multipart"},
		{"DELETE", fmt.Sprintf("/api/contracts/%d/documents/1", id), account.ContractEdit, nil},
		{"DELETE", "/api/contracts/999999", account.ContractDelete, nil},
	}
	for _, rt := range routes {
		t.Run(rt.method+" "+rt.path, func(t *testing.T) {
			is := is.New(t)
			r := s.Do(t, rt.method, rt.path, "", rt.body)
			is.Equal(r.Status, 401)                                          // no token
			is.Equal(r.Header.Get("WWW-Authenticate"), "Bearer")             // challenge
			is.Equal(s.Do(t, rt.method, rt.path, none, rt.body).Status, 403) // no permission
			for p, tok := range users {
				got := s.Do(t, rt.method, rt.path, tok, rt.body).Status
				if p == rt.need {
					is.True(got != 401 && got != 403) // the named permission is enough
				} else {
					is.Equal(got, 403) // the other contract permissions are not
				}
			}
		})
	}
}

func TestContractExpirySweep(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	ctx := context.Background()
	s := apptest.New(t)
	admin := s.Admin(t)
	mk := func(name, end string, st contract.Status, digital bool) int64 {
		body := map[string]any{"contractName": name}
		if end != "" {
			body["endDate"] = end
		}
		id := contractID(contractCreate(t, s, admin, body))
		contractForce(t, s, id, st, digital)
		return id
	}
	// The fake clock starts at 2026-11-21T09:30:00Z.
	paper := mk("paper", "2026-11-22", contract.Signed, false)
	digital := mk("digital", "2026-11-22T12:00:00Z", contract.Signed, true)
	later := mk("later", "2026-12-31", contract.Signed, false)
	open := mk("open-ended", "", contract.Signed, false)
	draft := mk("draft", "2026-11-22", contract.Draft, false)
	status := func(id int64) string {
		r := s.Do(t, "GET", fmt.Sprintf("/api/contracts/%d", id), admin, nil)
		if r.Status != 200 {
			t.Fatalf("get %d: %d %s", id, r.Status, r.Body)
		}
		return r.Map(t)["status"].(string)
	}

	n, err := s.App.Contracts.ExpireDue(ctx)
	is.NoErr(err)
	is.Equal(n, 0) // nothing has ended yet

	s.Clock.Advance(48 * time.Hour)
	admin = s.Admin(t) // the old access token has expired
	n, err = s.App.Contracts.ExpireDue(ctx)
	is.NoErr(err)
	is.Equal(n, 2)                       // the two Signed contracts that ended
	is.Equal(status(paper), "Expired")   // a paper contract
	is.Equal(status(digital), "Expired") // and a digital one
	is.Equal(status(later), "Signed")    // not yet ended
	is.Equal(status(open), "Signed")     // no end date: never by itself
	is.Equal(status(draft), "Draft")     // only Signed contracts expire

	var page struct{ Items []map[string]any }
	s.Do(t, "GET", fmt.Sprintf("/api/contracts/%d/history", digital), admin, nil).JSON(t, &page)
	e := page.Items[0]
	is.Equal(e["action"], "statusChanged")    // audited
	is.Equal(e["fromStatus"], "Signed")       // from Signed
	is.Equal(e["toStatus"], "Expired")        // to Expired
	is.Equal(e["actorName"], "system")        // by the system
	is.Equal(e["actorUserId"], nil)           // no user
	is.Equal(e["at"], "2026-11-23T09:30:00Z") // at the clock's time
	got := s.Do(t, "GET", fmt.Sprintf("/api/contracts/%d", paper), admin, nil).Map(t)
	is.Equal(got["updatedAt"], "2026-11-23T09:30:00Z") // updated
	is.Equal(got["isSigned"], false)                   // forced to Signed in the store, never marked signed: unchanged

	n, err = s.App.Contracts.ExpireDue(ctx)
	is.NoErr(err)
	is.Equal(n, 0) // a second sweep changes nothing

	for i := 0; i < 230; i++ {
		mk(fmt.Sprintf("bulk %d", i), "2026-11-24", contract.Signed, i%2 == 0)
	}
	s.Clock.Advance(48 * time.Hour)
	admin = s.Admin(t)
	n, err = s.App.Contracts.ExpireDue(ctx)
	is.NoErr(err)
	is.Equal(n, 230) // more than one batch: all of them ("later" has not ended yet)
	var list struct{ Count int }
	s.Do(t, "GET", "/api/contracts?Status=Signed&Limit=1", admin, nil).JSON(t, &list)
	is.Equal(list.Count, 2) // later and open-ended
}

func TestContractOpenAPI(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	s := apptest.New(t)
	var doc struct {
		Paths map[string]map[string]struct {
			Summary     string
			Permission  string `json:"x-permission"`
			RequestBody *struct {
				Content map[string]json.RawMessage
			} `json:"requestBody"`
			Responses map[string]json.RawMessage
		}
		Components struct{ Schemas map[string]json.RawMessage }
	}
	s.Do(t, "GET", "/openapi.json", "", nil).JSON(t, &doc)
	want := map[string][]string{
		"/api/contracts":                                {"get", "post"},
		"/api/contracts/changeStatus":                   {"post"},
		"/api/contracts/{id}":                           {"get", "put", "delete"},
		"/api/contracts/{id}/history":                   {"get"},
		"/api/contracts/{id}/documents":                 {"get", "post"},
		"/api/contracts/{id}/documents/{docId}/content": {"get"},
		"/api/contracts/{id}/documents/{docId}":         {"delete"},
	}
	for path, methods := range want {
		for _, m := range methods {
			op, ok := doc.Paths[path][m]
			is.True(ok)                                           // documented
			is.True(op.Summary != "")                             // with a summary
			is.True(strings.HasPrefix(op.Permission, "Contract")) // and its permission
			is.True(op.Responses["401"] != nil && op.Responses["403"] != nil)
		}
	}
	upload := doc.Paths["/api/contracts/{id}/documents"]["post"]
	is.True(upload.RequestBody.Content["multipart/form-data"] != nil) // multipart upload documented
	is.True(upload.Responses["413"] != nil && upload.Responses["415"] != nil)
	is.True(doc.Paths["/api/contracts/{id}"]["put"].Responses["409"] != nil) // illegal status change
	for _, name := range []string{"ContractDto", "ContractListDto", "CreateContractInput", "UpdateContractInput", "ContractStatusChangeInput", "ContractStatusResultsDto",
		"ContractHistoryEntryDto", "ContractDocumentDto", "ContractDocumentListDto", "ContractListPageDto", "ContractHistoryEntryPageDto"} {
		is.True(doc.Components.Schemas[name] != nil) // schema present
	}
	var contractSchema struct{ Required []string }
	is.NoErr(json.Unmarshal(doc.Components.Schemas["ContractDto"], &contractSchema))
	is.Equal(contractSorted(contractSchema.Required), contractSorted(contractDTOFields)) // every ContractDto field
}
