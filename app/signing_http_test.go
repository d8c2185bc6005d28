package app_test

import (
	"context"
	"flag"
	"fmt"
	"html"
	"net/http"
	"net/url"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/lestrrat-go/jwx/v2/jwa"
	"github.com/lestrrat-go/jwx/v2/jwt"
	"github.com/matryer/is"

	"counsel/adapters/docuseal"
	"counsel/adapters/docuseal/docusealtest"
	"counsel/app"
	"counsel/app/apptest"
	"counsel/domain/account"
	"counsel/domain/signing"
	"counsel/ports/porttest"
)

// The exact field sets of SigningSubmission, its submitters and
// SigningTemplate (docs/decisions.md §6).
var (
	signingSubmissionFields = []string{"id", "status", "createdAt", "completedAt", "auditLogUrl", "combinedDocumentUrl", "submitters"}
	signingSubmitterFields  = []string{"id", "name", "email", "phone", "role", "status", "sentAt", "openedAt", "completedAt", "declinedAt", "declineReason", "embedSrc"}
	signingTemplateFields   = []string{"id", "name", "slug", "roles", "documents", "createdAt", "updatedAt"}
)

// signingSubmission is a SigningSubmission as clients read it.
type signingSubmission struct {
	ID          string
	Status      string
	CompletedAt *string
	AuditLogURL *string
	// CombinedDocumentURL is the signed evidence's link (embedded signer).
	CombinedDocumentURL *string
	Submitters          []struct {
		ID, Name, Email, Phone, Role, Status string
		DeclineReason                        *string
		EmbedSrc                             string
	}
}

// signingHistoryEntry is a line of a contract's history.
type signingHistoryEntry struct {
	Action     string
	FromStatus *string
	ToStatus   *string
	ActorName  string
	Details    string
}

// signingContract creates a contract with a PDF of pages pages and returns
// the contract's and the document's ids.
func signingContract(t testing.TB, s *apptest.Server, tok, name string, pages int) (id, docID int64) {
	t.Helper()
	c := contractCreate(t, s, tok, map[string]any{"contractName": name})
	id = contractID(c)
	r := contractUpload(t, s, tok, id, "agreement.pdf", porttest.MinimalPDF(pages)).Expect(t, 201, "upload")
	return id, int64(r.Map(t)["id"].(float64))
}

// signingSubmit submits contract id for signing by emails in order.
func signingSubmit(t testing.TB, s *apptest.Server, tok string, id int64, docs []int64, order string, emails ...string) *apptest.Response {
	t.Helper()
	var subs []map[string]any
	for i, e := range emails {
		subs = append(subs, map[string]any{"name": fmt.Sprintf("Signer %c", 'A'+i), "email": e})
	}
	return s.Do(t, "POST", fmt.Sprintf("/api/contracts/signing/%d/submitForSigning", id), tok, map[string]any{
		"documentIds": docs, "submitters": subs, "order": order, "sendEmail": false,
		"message": map[string]any{"subject": "Please sign", "body": "The agreement is ready."},
	})
}

func signingSubmissionOf(t testing.TB, r *apptest.Response) signingSubmission {
	t.Helper()
	if r.Status != 200 {
		t.Fatalf("submission: %d %s", r.Status, r.Body)
	}
	var sub signingSubmission
	r.JSON(t, &sub)
	return sub
}

func signingHistory(t testing.TB, s *apptest.Server, tok string, id int64) []signingHistoryEntry {
	t.Helper()
	return listItems[signingHistoryEntry](t, s, tok, fmt.Sprintf("/api/contracts/%d/history?limit=100", id), "history")
}

// listItems GETs a list as the bearer of tok and returns its items,
// failing the test unless it answers 200; what names the list.
func listItems[T any](t testing.TB, s *apptest.Server, tok, path, what string) []T {
	t.Helper()
	var page struct{ Items []T }
	s.Do(t, "GET", path, tok, nil).Expect(t, 200, what).JSON(t, &page)
	return page.Items
}

// signingActions lists the history's actions, oldest first.
func signingActions(h []signingHistoryEntry) []string {
	out := make([]string, len(h))
	for i, e := range h {
		out[len(h)-1-i] = e.Action
	}
	return out
}

func signingContractGet(t testing.TB, s *apptest.Server, tok string, id int64) map[string]any {
	t.Helper()
	r := s.Do(t, "GET", fmt.Sprintf("/api/contracts/%d", id), tok, nil).Expect(t, 200, "contract")
	return r.Map(t)
}

func signingKeys(m map[string]any) []string {
	ks := contractKeys(m)
	sort.Strings(ks)
	return ks
}

var signingFormToken = regexp.MustCompile(`name="token" value="([^"]+)"`)

// signingPage opens a signing link (GET embedSrc) and returns the page and
// its form token ("" on a page without forms).
func signingPage(t testing.TB, s *apptest.Server, link string) (status int, page, token string) {
	t.Helper()
	req, err := http.NewRequest("GET", link, nil)
	if err != nil {
		t.Fatal(err)
	}
	r := s.Send(t, req)
	if m := signingFormToken.FindStringSubmatch(string(r.Body)); m != nil {
		token = html.UnescapeString(m[1])
	}
	return r.Status, string(r.Body), token
}

// signingForm posts a signing page's form (action "sign" or "decline").
func signingForm(t testing.TB, s *apptest.Server, link, action string, form url.Values) *apptest.Response {
	t.Helper()
	req, err := http.NewRequest("POST", link+"/"+action, strings.NewReader(form.Encode()))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	return s.Send(t, req)
}

// signingSign opens link and signs as name through the HTML form.
func signingSign(t testing.TB, s *apptest.Server, link, name string) {
	t.Helper()
	status, page, token := signingPage(t, s, link)
	if status != 200 || token == "" {
		t.Fatalf("signing page %s: %d %s", link, status, page)
	}
	r := signingForm(t, s, link, "sign", url.Values{"token": {token}, "name": {name}, "consent": {"yes"}})
	if r.Status != 200 || !strings.Contains(string(r.Body), "You signed") {
		t.Fatalf("sign %s: %d %s", link, r.Status, r.Body)
	}
}

func TestSigningEmbeddedLifecycle(t *testing.T) {
	t.Parallel()
	s := apptest.New(t)
	admin := s.Admin(t)

	t.Run("two signers sign through the pages: Signed with isSigned and the whole history", func(t *testing.T) {
		is := is.New(t)
		id, doc := signingContract(t, s, admin, "Master services agreement", 1)
		r := signingSubmit(t, s, admin, id, []int64{doc}, "preserved", "alice@client.example", "bob@client.example")
		is.Equal(r.Status, 200) // submitted
		m := r.Map(t)
		is.Equal(signingKeys(m), contractSorted(signingSubmissionFields))                                          // exactly the SigningSubmission fields
		is.Equal(signingKeys(m["submitters"].([]any)[0].(map[string]any)), contractSorted(signingSubmitterFields)) // exactly the submitter fields
		sub := signingSubmissionOf(t, r)
		is.Equal(sub.Status, "pending")                                        // pending
		is.Equal(len(sub.Submitters), 2)                                       // both signers
		is.Equal(sub.Submitters[0].Email, "alice@client.example")              // in order
		is.Equal(sub.Submitters[0].Role, "Signer 1")                           // default roles
		is.Equal(sub.Submitters[1].Role, "Signer 2")                           // by position
		is.True(strings.HasPrefix(sub.Submitters[0].EmbedSrc, s.URL+"/sign/")) // the link is under the public URL
		is.True(sub.Submitters[0].EmbedSrc != sub.Submitters[1].EmbedSrc)      // a link each

		c := signingContractGet(t, s, admin, id)
		is.Equal(c["status"], "WaitingForClientSignature") // waiting
		is.Equal(c["digitalContractSubmissionId"], sub.ID) // the submission is kept
		is.True(c["digitalContractId"] != nil)             // digital now
		is.Equal(c["isSigned"], false)                     // not yet

		// Bob's page waits for Alice (order preserved).
		status, page, token := signingPage(t, s, sub.Submitters[1].EmbedSrc)
		is.Equal(status, 200)                             // the waiting page
		is.True(strings.Contains(page, "earlier signer")) // says why
		is.Equal(token, "")                               // no form yet
		signingSign(t, s, sub.Submitters[0].EmbedSrc, "Alice Example")
		is.Equal(signingContractGet(t, s, admin, id)["status"], "WaitingForClientSignature") // one of two
		signingSign(t, s, sub.Submitters[1].EmbedSrc, "Bob Example")

		c = signingContractGet(t, s, admin, id)
		is.Equal(c["status"], "Signed") // every party signed
		is.Equal(c["isSigned"], true)   // isSigned

		h := signingHistory(t, s, admin, id)
		is.Equal(signingActions(h), []string{"created", "documentAdded", "submittedForSigning", "signingEvent", "signingEvent", "signingCompleted"}) // the whole story
		h = h[1:]                                                                                                                                    // past the evidence entry (newest)
		is.Equal(*h[2].FromStatus, "Draft")                                                                                                          // submitted from Draft
		is.Equal(*h[2].ToStatus, "WaitingForClientSignature")                                                                                        // to waiting
		is.True(strings.Contains(h[2].Details, "alice@client.example"))                                                                              // names the signers
		is.Equal(h[1].ActorName, "signing provider")                                                                                                 // the provider acted
		is.True(strings.Contains(h[1].Details, "alice@client.example signed"))                                                                       // Alice's signature
		is.Equal(h[1].ToStatus, nil)                                                                                                                 // no status change yet
		is.Equal(h[0].ActorName, "signing provider")                                                                                                 // the provider acted
		is.Equal(*h[0].FromStatus, "WaitingForClientSignature")                                                                                      // from waiting
		is.Equal(*h[0].ToStatus, "Signed")                                                                                                           // to Signed
		is.True(strings.Contains(h[0].Details, "bob@client.example signed"))                                                                         // Bob's signature

		r = s.Do(t, "GET", fmt.Sprintf("/api/contracts/%d/submissions", id), admin, nil)
		is.Equal(r.Status, 200) // submissions
		var list struct{ Items []signingSubmission }
		r.JSON(t, &list)
		is.Equal(len(list.Items), 1)                             // one submission
		is.Equal(list.Items[0].Status, "completed")              // completed
		is.Equal(len(signingHistory(t, s, admin, id)), len(h)+1) // reading changed nothing (h lacks the evidence entry)

		r = s.Do(t, "GET", fmt.Sprintf("/api/contracts/%d/template", id), admin, nil)
		is.Equal(r.Status, 200) // template
		tm := r.Map(t)
		is.Equal(signingKeys(tm), contractSorted(signingTemplateFields)) // exactly the SigningTemplate fields
		is.Equal(tm["id"], c["digitalContractId"])                       // the contract's template
		is.Equal(tm["roles"], []any{"Signer 1", "Signer 2"})             // a role per signer
		docs := tm["documents"].([]any)
		is.Equal(len(docs), 1)                                          // the document
		is.Equal(docs[0].(map[string]any)["id"], fmt.Sprint(doc))       // by its id
		is.Equal(docs[0].(map[string]any)["fileName"], "agreement.pdf") // and name
		dl, err := http.Get(docs[0].(map[string]any)["url"].(string))
		is.NoErr(err) // download link
		dl.Body.Close()
		is.Equal(dl.StatusCode, 200) // works

		// Signed links are used up.
		status, _, _ = signingPage(t, s, sub.Submitters[0].EmbedSrc)
		is.Equal(status, 404) // no longer active
	})

	t.Run("a decline, then Draft and a resubmission", func(t *testing.T) {
		is := is.New(t)
		id, doc := signingContract(t, s, admin, "Consulting agreement", 1)
		first := signingSubmissionOf(t, signingSubmit(t, s, admin, id, []int64{doc}, "random", "carol@client.example", "dave@client.example"))
		template := signingContractGet(t, s, admin, id)["digitalContractId"]

		_, _, token := signingPage(t, s, first.Submitters[1].EmbedSrc)
		is.True(token != "") // random order: Dave may act at once
		r := signingForm(t, s, first.Submitters[1].EmbedSrc, "decline", url.Values{"token": {token}, "reason": {"Clause 4 caps the liability too low"}})
		is.Equal(r.Status, 200) // declined
		c := signingContractGet(t, s, admin, id)
		is.Equal(c["status"], "Declined") // the contract is Declined
		is.Equal(c["isSigned"], false)    // unsigned
		h := signingHistory(t, s, admin, id)
		is.Equal(h[0].Action, "signingEvent")                                          // the provider's event
		is.Equal(*h[0].ToStatus, "Declined")                                           // to Declined
		is.True(strings.Contains(h[0].Details, "dave@client.example declined"))        // who
		is.True(strings.Contains(h[0].Details, "Clause 4 caps the liability too low")) // the reason

		r = s.Do(t, "PUT", fmt.Sprintf("/api/contracts/%d", id), admin, map[string]any{"status": "Draft"})
		is.Equal(r.Status, 200) // back to Draft to revise
		second := signingSubmissionOf(t, signingSubmit(t, s, admin, id, []int64{doc}, "preserved", "carol@client.example", "dave@client.example"))
		is.True(second.ID != first.ID) // a new submission
		c = signingContractGet(t, s, admin, id)
		is.Equal(c["status"], "WaitingForClientSignature")    // waiting again
		is.Equal(c["digitalContractSubmissionId"], second.ID) // the new submission
		is.Equal(c["digitalContractId"], template)            // on the same template
		status, _, _ := signingPage(t, s, first.Submitters[0].EmbedSrc)
		is.Equal(status, 404) // the declined round's links are dead

		r = s.Do(t, "GET", fmt.Sprintf("/api/contracts/%d/submissions", id), admin, nil)
		var list struct{ Items []signingSubmission }
		r.JSON(t, &list)
		is.Equal(len(list.Items), 2)          // both rounds
		is.Equal(list.Items[0].ID, second.ID) // newest first

		signingSign(t, s, second.Submitters[0].EmbedSrc, "Carol Example")
		signingSign(t, s, second.Submitters[1].EmbedSrc, "Dave Example")
		c = signingContractGet(t, s, admin, id)
		is.Equal(c["status"], "Signed") // signed on resubmission
		is.Equal(c["isSigned"], true)   // isSigned
		is.Equal(signingActions(signingHistory(t, s, admin, id)), []string{"created", "documentAdded", "submittedForSigning", "signingEvent",
			"statusChanged", "submittedForSigning", "signingEvent", "signingEvent", "signingCompleted"}) // the whole story
	})

	t.Run("an expired submission expires the contract when read", func(t *testing.T) {
		is := is.New(t)
		id, doc := signingContract(t, s, admin, "Short offer", 1)
		r := s.Do(t, "POST", fmt.Sprintf("/api/contracts/signing/%d/submitForSigning", id), admin, map[string]any{
			"documentIds": []int64{doc}, "submitters": []map[string]any{{"email": "erin@client.example"}},
			"expireAt": s.Clock.Now().Add(time.Hour).Format(time.RFC3339),
		})
		signingSubmissionOf(t, r)
		s.Clock.Advance(2 * time.Hour)
		admin = s.Admin(t) // the old access token has expired meanwhile
		r = s.Do(t, "GET", fmt.Sprintf("/api/contracts/%d/submissions", id), admin, nil)
		is.Equal(r.Status, 200) // read
		var list struct{ Items []signingSubmission }
		r.JSON(t, &list)
		is.Equal(list.Items[0].Status, "expired")                          // the provider expired it
		is.Equal(signingContractGet(t, s, admin, id)["status"], "Expired") // and the contract followed
		h := signingHistory(t, s, admin, id)
		is.Equal(h[0].Action, "signingEvent") // by a signing event
		is.Equal(*h[0].ToStatus, "Expired")   // to Expired
		r = s.Do(t, "GET", fmt.Sprintf("/api/contracts/%d/submissions", id), admin, nil)
		is.Equal(r.Status, 200)                                // read again
		is.Equal(len(signingHistory(t, s, admin, id)), len(h)) // nothing twice
	})

	t.Run("concurrent submissions: one wins, the others are 409", func(t *testing.T) {
		is := is.New(t)
		id, doc := signingContract(t, s, admin, "Race", 1)
		const n = 6
		statuses := make([]int, n)
		var wg sync.WaitGroup
		for i := range n {
			wg.Go(func() { statuses[i] = signingSubmit(t, s, admin, id, []int64{doc}, "", "race@client.example").Status })
		}
		wg.Wait()
		sort.Ints(statuses)
		is.Equal(statuses[0], 200)   // one succeeded
		is.Equal(statuses[1], 409)   // the others found it waiting
		is.Equal(statuses[n-1], 409) // all of them
		submitted := 0
		for _, a := range signingActions(signingHistory(t, s, admin, id)) {
			if a == "submittedForSigning" {
				submitted++
			}
		}
		is.Equal(submitted, 1) // one entry
	})

	t.Run("no form builder and no webhooks", func(t *testing.T) {
		is := is.New(t)
		id, _ := signingContract(t, s, admin, "Builder", 1)
		r := s.Do(t, "GET", fmt.Sprintf("/api/contracts/%d/signing/builder-token", id), admin, nil)
		is.Equal(r.Status, 501) // the embedded signer has no form builder
		r = s.Do(t, "POST", "/api/signing/webhook", "", `{"event_type":"form.completed","data":{}}`)
		is.Equal(r.Status, 401) // the embedded signer sends no webhooks
	})
}

func TestSigningErrors(t *testing.T) {
	t.Parallel()
	s := apptest.New(t)
	admin := s.Admin(t)
	id, doc := signingContract(t, s, admin, "Errors", 1)
	other, otherDoc := signingContract(t, s, admin, "Other", 1)
	submit := fmt.Sprintf("/api/contracts/signing/%d/submitForSigning", id)
	alice := []map[string]any{{"name": "Alice", "email": "alice@client.example"}}

	for _, tc := range []struct {
		name   string
		path   string
		body   any
		status int
		field  string
	}{
		{"no documents", submit, map[string]any{"documentIds": []int64{}, "submitters": alice}, 400, "documentIds"},
		{"documents absent", submit, map[string]any{"submitters": alice}, 400, "documentIds"},
		{"another contract's document", submit, map[string]any{"documentIds": []int64{otherDoc}, "submitters": alice}, 400, "documentIds"},
		{"no such document", submit, map[string]any{"documentIds": []int64{999999}, "submitters": alice}, 400, "documentIds"},
		{"no submitters", submit, map[string]any{"documentIds": []int64{doc}, "submitters": []any{}}, 400, "submitters"},
		{"no submitter with an email", submit, map[string]any{"documentIds": []int64{doc}, "submitters": []map[string]any{{"name": "Alice", "phone": "+61 400 000 000"}}}, 400, "submitters"},
		{"a submitter without email or phone", submit, map[string]any{"documentIds": []int64{doc}, "submitters": []map[string]any{{"name": "Nobody"}}}, 400, "submitters[0].email"},
		{"a malformed email", submit, map[string]any{"documentIds": []int64{doc}, "submitters": []map[string]any{{"email": "not an email"}}}, 400, "submitters[0].email"},
		{"one email twice", submit, map[string]any{"documentIds": []int64{doc}, "submitters": []map[string]any{{"email": "a@x.example"}, {"email": "A@x.example"}}}, 400, "submitters[1].email"},
		{"one role twice", submit, map[string]any{"documentIds": []int64{doc}, "submitters": []map[string]any{{"email": "a@x.example", "role": "Client"}, {"email": "b@x.example", "role": "client"}}}, 400, "submitters[1].role"},
		{"an unknown order", submit, map[string]any{"documentIds": []int64{doc}, "submitters": alice, "order": "alphabetical"}, 400, "order"},
		{"an expiry in the past", submit, map[string]any{"documentIds": []int64{doc}, "submitters": alice, "expireAt": "2020-01-01"}, 400, "expireAt"},
		{"an unreadable expiry", submit, map[string]any{"documentIds": []int64{doc}, "submitters": alice, "expireAt": "soon"}, 400, "expireAt"},
		{"document ids of the wrong type", submit, map[string]any{"documentIds": "1", "submitters": alice}, 400, "documentIds"},
		{"malformed JSON", submit, `{"documentIds": [`, 400, ""},
		{"an unknown contract", "/api/contracts/signing/999999/submitForSigning", map[string]any{"documentIds": []int64{doc}, "submitters": alice}, 404, ""},
		{"create without templateId", fmt.Sprintf("/api/contracts/%d/submission/create", id), map[string]any{"submission": []any{map[string]any{"submitters": alice}}}, 400, "templateId"},
		{"create without submissions", fmt.Sprintf("/api/contracts/%d/submission/create", id), map[string]any{"templateId": 1}, 400, "submission"},
		{"create on an unknown template", fmt.Sprintf("/api/contracts/%d/submission/create", id), map[string]any{"templateId": 999999, "submission": []any{map[string]any{"submitters": alice}}}, 404, ""},
		{"a subject without a body", submit, map[string]any{"documentIds": []int64{doc}, "submitters": alice, "message": map[string]any{"subject": "Please sign"}}, 400, "message.body"},
		{"a phone that is not E.164", submit, map[string]any{"documentIds": []int64{doc}, "submitters": []map[string]any{{"email": "a@x.example", "phone": "0400 000 000"}}}, 400, "submitters[0].phone"},
		{"an email without a top-level domain", submit, map[string]any{"documentIds": []int64{doc}, "submitters": []map[string]any{{"email": "a@localhost"}}}, 400, "submitters[0].email"},
		{"create with a templateId of the wrong type", fmt.Sprintf("/api/contracts/%d/submission/create", id), map[string]any{"templateId": true, "submission": []any{map[string]any{"submitters": alice}}}, 400, "templateId"},
		{"create with a bad submitter", fmt.Sprintf("/api/contracts/%d/submission/create", id), map[string]any{"templateId": 1, "submission": []any{map[string]any{"submitters": []map[string]any{{"email": "nope"}}}}}, 400, "submission[0].submitters[0].email"},
		{"a non-digital contract's template", fmt.Sprintf("/api/contracts/%d/template", id), nil, 404, ""},
		{"a non-digital contract's submissions", fmt.Sprintf("/api/contracts/%d/submissions", id), nil, 404, ""},
		{"an unknown contract's template", "/api/contracts/999999/template", nil, 404, ""},
		{"an unknown contract's builder token", "/api/contracts/999999/signing/builder-token", nil, 404, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			is := is.New(t)
			method := "POST"
			if tc.body == nil {
				method = "GET"
			}
			r := s.Do(t, method, tc.path, admin, tc.body)
			is.Equal(r.Status, tc.status) // status
			_, errs := contractProblem(t, r)
			if tc.field != "" {
				is.True(len(errs[tc.field]) > 0) // names the field
			}
		})
	}

	t.Run("nothing changed", func(t *testing.T) {
		is := is.New(t)
		c := signingContractGet(t, s, admin, id)
		is.Equal(c["status"], "Draft")                                                                  // still Draft
		is.Equal(c["digitalContractId"], nil)                                                           // not digital
		is.Equal(signingActions(signingHistory(t, s, admin, id)), []string{"created", "documentAdded"}) // no signing
		is.Equal(signingContractGet(t, s, admin, other)["status"], "Draft")                             // nor the other contract
	})

	t.Run("only Draft, ContractDesign and Declined contracts are submitted", func(t *testing.T) {
		for _, st := range []string{"WaitingForClientSignature", "Signed", "Expired", "Terminated", "Archived"} {
			t.Run(st, func(t *testing.T) {
				is := is.New(t)
				cid, cdoc := signingContract(t, s, admin, "State "+st, 1)
				r := s.Do(t, "PUT", fmt.Sprintf("/api/contracts/%d", cid), admin, map[string]any{"status": st})
				is.Equal(r.Status, 200) // a non-digital contract takes any status
				r = signingSubmit(t, s, admin, cid, []int64{cdoc}, "", "alice@client.example")
				is.Equal(r.Status, 409) // refused
				detail, _ := contractProblem(t, r)
				is.True(strings.Contains(detail, st)) // names the status
			})
		}
		t.Run("ContractDesign", func(t *testing.T) {
			is := is.New(t)
			cid, cdoc := signingContract(t, s, admin, "Design", 1)
			is.Equal(s.Do(t, "PUT", fmt.Sprintf("/api/contracts/%d", cid), admin, map[string]any{"status": "ContractDesign"}).Status, 200) // design
			r := signingSubmit(t, s, admin, cid, []int64{cdoc}, "", "alice@client.example")
			is.Equal(r.Status, 200) // submitted from ContractDesign
			r = signingSubmit(t, s, admin, cid, []int64{cdoc}, "", "alice@client.example")
			is.Equal(r.Status, 409) // not twice
		})
	})

	t.Run("submission/create needs a linkable contract", func(t *testing.T) {
		is := is.New(t)
		cid, _ := signingContract(t, s, admin, "Archived", 1)
		is.Equal(s.Do(t, "PUT", fmt.Sprintf("/api/contracts/%d", cid), admin, map[string]any{"status": "Archived"}).Status, 200) // archived by hand
		r := s.Do(t, "POST", fmt.Sprintf("/api/contracts/%d/submission/create", cid), admin, map[string]any{
			"templateId": 1, "submission": []any{map[string]any{"submitters": alice}}})
		is.Equal(r.Status, 409) // an archived contract cannot become digital
	})

	t.Run("ContractView may read but not submit", func(t *testing.T) {
		is := is.New(t)
		_, viewer := s.User(t, account.ContractView)
		is.Equal(s.Do(t, "GET", fmt.Sprintf("/api/contracts/%d/submissions", id), viewer, nil).Status, 404)           // reads (a non-digital contract)
		is.Equal(signingSubmit(t, s, viewer, id, []int64{doc}, "", "alice@client.example").Status, 403)               // cannot submit
		is.Equal(s.Do(t, "GET", fmt.Sprintf("/api/contracts/%d/signing/builder-token", id), viewer, nil).Status, 403) // nor get a builder token
	})
}

// docusealFixture starts a fake DocuSeal and a service using it; both run
// on the service's fake clock.
func docusealFixture(t *testing.T) (*apptest.Server, *docusealtest.Server) {
	t.Helper()
	var clock atomic.Pointer[apptest.Clock]
	ds := docusealtest.NewServer(t, docusealtest.WithClock(func() time.Time { return clock.Load().Now() }))
	s := apptest.New(t, func(c *app.Config) {
		c.SigningProvider = "docuseal"
		c.DocuSealURL = ds.URL
		c.DocuSealAPIKey = ds.APIKey
		c.DocuSealWebhookSecret = ds.WebhookSecret
		c.DocuSealUserEmail = "owner@firm.example"
	})
	clock.Store(s.Clock)
	return s, ds
}

// docusealWebhook posts a webhook with its signature header.
func docusealWebhook(t testing.TB, s *apptest.Server, header string, body []byte) *apptest.Response {
	t.Helper()
	req, err := http.NewRequest("POST", s.URL+"/api/signing/webhook", strings.NewReader(string(body)))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	if header != "" {
		req.Header.Set("X-Docuseal-Signature", header)
	}
	return s.Send(t, req)
}

func TestSigningDocuSealLifecycle(t *testing.T) {
	t.Parallel()
	s, ds := docusealFixture(t)
	admin := s.Admin(t)
	id, doc := signingContract(t, s, admin, "DocuSeal agreement", 2)
	var sub signingSubmission

	deliver := func(t *testing.T, event, email string) *apptest.Response {
		t.Helper()
		header, body, err := ds.Webhook(event, sub.ID, email)
		if err != nil {
			t.Fatal(err)
		}
		return docusealWebhook(t, s, header, body)
	}

	t.Run("submit builds a template with a role per signer and a submission", func(t *testing.T) {
		is := is.New(t)
		sub = signingSubmissionOf(t, signingSubmit(t, s, admin, id, []int64{doc}, "preserved", "alice@client.example", "bob@client.example"))
		is.Equal(sub.Status, "pending")                                // pending
		is.Equal(len(sub.Submitters), 2)                               // both signers
		is.True(strings.HasPrefix(sub.Submitters[0].EmbedSrc, "http")) // DocuSeal's signing links
		c := signingContractGet(t, s, admin, id)
		is.Equal(c["status"], "WaitingForClientSignature") // waiting
		is.Equal(c["digitalContractSubmissionId"], sub.ID) // the DocuSeal submission
		tpl, ok := ds.Template(c["digitalContractId"].(string))
		is.True(ok)                                           // the template exists at DocuSeal
		is.Equal(tpl.ExternalID, c["contractUUId"])           // external_id is the contractUUId
		is.Equal(tpl.Roles, []string{"Signer 1", "Signer 2"}) // a role per signer
		is.Equal(len(tpl.Fields), 4)                          // a signature and a date field each
		is.Equal(tpl.Fields[0].Areas[0].Page, 2)              // on the last page
		is.Equal(ds.Hits("POST", "/api/submissions"), 1)      // one submission
	})

	t.Run("signed webhooks drive it to Signed; replays change nothing", func(t *testing.T) {
		is := is.New(t)
		is.NoErr(ds.Complete(sub.ID, "alice@client.example")) // Alice signs at DocuSeal
		r := deliver(t, "form.completed", "alice@client.example")
		is.Equal(r.Status, 200)                                                              // accepted
		is.Equal(signingContractGet(t, s, admin, id)["status"], "WaitingForClientSignature") // Bob has not signed
		before := len(signingHistory(t, s, admin, id))
		r = deliver(t, "form.completed", "alice@client.example")
		is.Equal(r.Status, 200)                                // a replay is accepted
		is.Equal(len(signingHistory(t, s, admin, id)), before) // and changes nothing

		is.NoErr(ds.Complete(sub.ID, "bob@client.example"))
		is.Equal(deliver(t, "form.completed", "bob@client.example").Status, 200) // Bob's signature
		c := signingContractGet(t, s, admin, id)
		is.Equal(c["status"], "Signed") // every party signed
		is.Equal(c["isSigned"], true)   // isSigned
		after := len(signingHistory(t, s, admin, id))
		is.Equal(deliver(t, "submission.completed", "").Status, 200) // the submission's own event
		is.Equal(deliver(t, "form.completed", "bob@client.example").Status, 200)
		is.Equal(len(signingHistory(t, s, admin, id)), after) // nothing twice
		h := signingHistory(t, s, admin, id)
		is.Equal(signingActions(h), []string{"created", "documentAdded", "submittedForSigning", "signingEvent", "signingEvent"}) // the story
		is.Equal(*h[0].ToStatus, "Signed")                                                                                       // Signed by the provider
		is.Equal(h[0].ActorName, "signing provider")                                                                             // actor
	})

	t.Run("concurrent deliveries of one webhook apply once", func(t *testing.T) {
		is := is.New(t)
		cid, cdoc := signingContract(t, s, admin, "Concurrent webhooks", 1)
		got := signingSubmissionOf(t, signingSubmit(t, s, admin, cid, []int64{cdoc}, "", "gina@client.example"))
		is.NoErr(ds.Complete(got.ID, "gina@client.example")) // signed at DocuSeal
		header, body, err := ds.Webhook("form.completed", got.ID, "gina@client.example")
		is.NoErr(err) // the webhook
		before := len(signingHistory(t, s, admin, cid))
		const n = 6
		statuses := make([]int, n)
		var wg sync.WaitGroup
		for i := range n {
			wg.Go(func() { statuses[i] = docusealWebhook(t, s, header, body).Status })
		}
		wg.Wait()
		for _, st := range statuses {
			is.Equal(st, 200) // every delivery accepted
		}
		is.Equal(signingContractGet(t, s, admin, cid)["status"], "Signed") // signed
		is.Equal(len(signingHistory(t, s, admin, cid)), before+1)          // one entry
	})

	t.Run("webhook authentication", func(t *testing.T) {
		header, body, err := ds.Webhook("form.completed", sub.ID, "alice@client.example")
		if err != nil {
			t.Fatal(err)
		}
		big := []byte(`{"event_type":"form.viewed","data":{},"pad":"` + strings.Repeat("x", 1<<20) + `"}`)
		unknown := []byte(`{"event_type":"form.completed","timestamp":"2026-11-21T09:30:00Z","data":{"id":77,"submission_id":987654,"email":"x@client.example","status":"completed"}}`)
		for _, tc := range []struct {
			name   string
			header string
			body   []byte
			status int
		}{
			{"no signature", "", body, 401},
			{"a wrong signature", header[:len(header)-4] + "0000", body, 401},
			{"another body", header, append([]byte(" "), body...), 401},
			{"another secret", docusealtest.Sign("whsec_other", s.Clock.Now(), body), body, 401},
			{"a stale timestamp", ds.SignWebhook(s.Clock.Now().Add(-10*time.Minute), body), body, 401},
			{"a timestamp from the future", ds.SignWebhook(s.Clock.Now().Add(10*time.Minute), body), body, 401},
			{"not JSON", ds.SignWebhook(s.Clock.Now(), []byte("nope")), []byte("nope"), 400},
			{"an unknown submission", ds.SignWebhook(s.Clock.Now(), unknown), unknown, 200},
			{"a body over 1 MiB", ds.SignWebhook(s.Clock.Now(), big), big, 413},
			{"an event type that changes nothing", ds.SignWebhook(s.Clock.Now(), []byte(`{"event_type":"form.viewed","data":{}}`)), []byte(`{"event_type":"form.viewed","data":{}}`), 200},
		} {
			t.Run(tc.name, func(t *testing.T) {
				is := is.New(t)
				r := docusealWebhook(t, s, tc.header, tc.body)
				is.Equal(r.Status, tc.status) // status
				if tc.status != 200 {
					contractProblem(t, r)
				}
			})
		}
	})

	t.Run("declined and expired webhooks", func(t *testing.T) {
		for _, tc := range []struct {
			name    string
			act     func(sub string) error
			event   string
			email   string
			status  string
			details string
		}{
			{"form.declined", func(sub string) error { return ds.Decline(sub, "erin@client.example", "The fee schedule is missing") },
				"form.declined", "erin@client.example", "Declined", "erin@client.example declined (submission %s): The fee schedule is missing"},
			{"submission.expired", func(sub string) error { return ds.Expire(sub) },
				"submission.expired", "", "Expired", "the submission expired (submission %s)"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				is := is.New(t)
				cid, cdoc := signingContract(t, s, admin, "Outcome "+tc.name, 1)
				got := signingSubmissionOf(t, signingSubmit(t, s, admin, cid, []int64{cdoc}, "random", "erin@client.example", "frank@client.example"))
				is.NoErr(tc.act(got.ID)) // at DocuSeal
				header, body, err := ds.Webhook(tc.event, got.ID, tc.email)
				is.NoErr(err)                                             // the webhook
				is.Equal(docusealWebhook(t, s, header, body).Status, 200) // accepted
				c := signingContractGet(t, s, admin, cid)
				is.Equal(c["status"], tc.status) // moved by the provider
				is.Equal(c["isSigned"], false)   // unsigned
				h := signingHistory(t, s, admin, cid)
				is.Equal(h[0].Action, "signingEvent")                     // a signing event
				is.Equal(*h[0].FromStatus, "WaitingForClientSignature")   // from waiting
				is.Equal(*h[0].ToStatus, tc.status)                       // to the outcome
				is.Equal(h[0].Details, fmt.Sprintf(tc.details, got.ID))   // with the reason
				is.Equal(docusealWebhook(t, s, header, body).Status, 200) // a replay
				is.Equal(len(signingHistory(t, s, admin, cid)), len(h))   // changes nothing
			})
		}
	})

	t.Run("a provider outage is a 502 and changes nothing", func(t *testing.T) {
		is := is.New(t)
		cid, cdoc := signingContract(t, s, admin, "Outage", 1)
		ds.SetOutage(docusealtest.OutageError)
		r := signingSubmit(t, s, admin, cid, []int64{cdoc}, "", "alice@client.example")
		ds.SetOutage(docusealtest.OutageNone)
		is.Equal(r.Status, 502) // upstream failure
		detail, _ := contractProblem(t, r)
		is.True(strings.Contains(detail, "DocuSeal")) // says who failed
		c := signingContractGet(t, s, admin, cid)
		is.Equal(c["status"], "Draft")                                                                   // unchanged
		is.Equal(c["digitalContractId"], nil)                                                            // no template
		is.Equal(c["digitalContractSubmissionId"], nil)                                                  // no submission
		is.Equal(signingActions(signingHistory(t, s, admin, cid)), []string{"created", "documentAdded"}) // no entry
	})

	t.Run("Community Edition: 502 pointing at submission/create, which then works", func(t *testing.T) {
		is := is.New(t)
		cid, cdoc := signingContract(t, s, admin, "Community", 1)
		// A template made in DocuSeal itself (its form builder).
		client, err := docuseal.New(docuseal.Config{BaseURL: ds.URL, APIKey: ds.APIKey, WebhookSecret: ds.WebhookSecret})
		is.NoErr(err) // client
		made, err := client.CreateTemplate(context.Background(), signing.NewTemplate{Name: "Made in DocuSeal", Roles: []string{"Client"},
			Documents: []signing.Document{porttest.PDFDocument("nda.pdf", 1)}})
		is.NoErr(err) // template made in DocuSeal

		ds.SetCommunityEdition(true)
		defer ds.SetCommunityEdition(false)
		r := signingSubmit(t, s, admin, cid, []int64{cdoc}, "", "carol@client.example")
		is.Equal(r.Status, 502) // template creation needs Pro
		detail, _ := contractProblem(t, r)
		is.True(strings.Contains(detail, "/submission/create")) // tells the way out
		c := signingContractGet(t, s, admin, cid)
		is.Equal(c["status"], "Draft")        // unchanged
		is.Equal(c["digitalContractId"], nil) // not digital

		tid, _ := strconv.ParseInt(made.ID, 10, 64)
		r = s.Do(t, "POST", fmt.Sprintf("/api/contracts/%d/submission/create", cid), admin, map[string]any{
			"templateId": tid, "sendEmail": false, "order": "preserved",
			"submission": []any{map[string]any{"submitters": []map[string]any{{"name": "Carol", "email": "carol@client.example", "sendEmail": false}}}},
		})
		is.Equal(r.Status, 200) // created on the template
		var created []signingSubmission
		r.JSON(t, &created)
		is.Equal(len(created), 1)                                        // one submission
		is.Equal(created[0].Submitters[0].Email, "carol@client.example") // Carol
		is.Equal(created[0].Submitters[0].Role, "Client")                // in the template's role
		c = signingContractGet(t, s, admin, cid)
		is.Equal(c["status"], "WaitingForClientSignature")        // waiting
		is.Equal(c["digitalContractId"], made.ID)                 // linked to the template
		is.Equal(c["digitalContractSubmissionId"], created[0].ID) // and the submission
		h := signingHistory(t, s, admin, cid)
		is.Equal(h[0].Action, "submittedForSigning") // audited
		is.Equal(*h[0].ToStatus, "WaitingForClientSignature")

		// Carol signs; the webhook never arrives. Reading the submissions
		// finds the completion and applies it.
		is.NoErr(ds.Complete(created[0].ID, "carol@client.example"))
		is.Equal(signingContractGet(t, s, admin, cid)["status"], "WaitingForClientSignature") // not seen yet
		r = s.Do(t, "GET", fmt.Sprintf("/api/contracts/%d/submissions", cid), admin, nil)
		is.Equal(r.Status, 200) // read
		var list struct{ Items []signingSubmission }
		r.JSON(t, &list)
		is.Equal(len(list.Items), 1)                // the template's submission
		is.Equal(list.Items[0].Status, "completed") // completed at DocuSeal
		c = signingContractGet(t, s, admin, cid)
		is.Equal(c["status"], "Signed") // reconciled
		is.Equal(c["isSigned"], true)   // isSigned
		h = signingHistory(t, s, admin, cid)
		is.Equal(*h[0].ToStatus, "Signed")                                     // by a signing event
		is.True(strings.Contains(h[1].Details, "carol@client.example signed")) // with Carol's signature
		n := len(h)
		s.Do(t, "GET", fmt.Sprintf("/api/contracts/%d/submissions", cid), admin, nil)
		header, body, err := ds.Webhook("form.completed", created[0].ID, "carol@client.example")
		is.NoErr(err)                                             // the late webhook
		is.Equal(docusealWebhook(t, s, header, body).Status, 200) // accepted
		is.Equal(len(signingHistory(t, s, admin, cid)), n)        // nothing twice

		r = s.Do(t, "GET", fmt.Sprintf("/api/contracts/%d/template", cid), admin, nil)
		is.Equal(r.Status, 200) // DocuSeal's template
		var tpl struct {
			ID        string
			Name      string
			Roles     []string
			Documents []struct{ ID, FileName, URL string }
		}
		r.JSON(t, &tpl)
		is.Equal(tpl.ID, made.ID)                      // the template
		is.Equal(tpl.Roles, []string{"Client"})        // its role
		is.Equal(tpl.Documents[0].FileName, "nda.pdf") // its document
	})

	t.Run("builder token", func(t *testing.T) {
		c := signingContractGet(t, s, admin, id)
		plain, _ := signingContract(t, s, admin, "Plain", 1)
		pc := signingContractGet(t, s, admin, plain)
		for _, tc := range []struct {
			name     string
			contract map[string]any
			template any
		}{
			{"digital", c, mustInt(t, c["digitalContractId"].(string))},
			{"not digital", pc, nil},
		} {
			t.Run(tc.name, func(t *testing.T) {
				is := is.New(t)
				r := s.Do(t, "GET", fmt.Sprintf("/api/contracts/%d/signing/builder-token", contractID(tc.contract)), admin, nil)
				is.Equal(r.Status, 200) // a token
				var out struct{ Token string }
				r.JSON(t, &out)
				tok, err := jwt.Parse([]byte(out.Token), jwt.WithKey(jwa.HS256, []byte(ds.APIKey)), jwt.WithValidate(false))
				is.NoErr(err) // signed with the API key
				claims, err := tok.AsMap(context.Background())
				is.NoErr(err)
				is.Equal(claims["user_email"], "owner@firm.example")         // the configured DocuSeal user
				is.Equal(claims["integration_email"], apptest.AdminEmail)    // the caller
				is.Equal(claims["name"], tc.contract["contractName"])        // the contract's name
				is.Equal(claims["external_id"], tc.contract["contractUUId"]) // the contract's UUID
				is.Equal(tok.Expiration(), s.Clock.Now().Add(time.Hour))     // an hour
				if tc.template == nil {
					_, has := claims["template_id"]
					is.True(!has) // no template yet
				} else {
					is.Equal(claims["template_id"], tc.template) // the template, as a number
				}
			})
		}
	})
}

func mustInt(t testing.TB, s string) float64 {
	t.Helper()
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	return float64(n)
}

func TestSigningConfig(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		env  map[string]string
		want string
	}{
		{"docuseal without webhook secret", map[string]string{"COUNSEL_SIGNING_PROVIDER": "docuseal", "COUNSEL_DOCUSEAL_URL": "https://api.docuseal.com", "COUNSEL_DOCUSEAL_API_KEY": "k"}, "COUNSEL_DOCUSEAL_WEBHOOK_SECRET"},
		{"docuseal complete", map[string]string{"COUNSEL_SIGNING_PROVIDER": "docuseal", "COUNSEL_DOCUSEAL_URL": "https://api.docuseal.com", "COUNSEL_DOCUSEAL_API_KEY": "k", "COUNSEL_DOCUSEAL_WEBHOOK_SECRET": "whsec_x"}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			is := is.New(t)
			_, err := app.LoadConfig(flag.NewFlagSet("test", flag.ContinueOnError), nil, func(k string) string { return tc.env[k] })
			if tc.want == "" {
				is.NoErr(err) // valid
				return
			}
			is.True(err != nil)                             // refused
			is.True(strings.Contains(err.Error(), tc.want)) // names the setting
		})
	}
}
