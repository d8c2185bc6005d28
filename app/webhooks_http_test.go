package app_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/matryer/is"
	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"

	"counsel/adapters/docuseal/docusealtest"
	"counsel/adapters/postgres/pgtest"
	"counsel/app"
	"counsel/app/apptest"
	"counsel/domain/account"
	"counsel/domain/webhook"
	"counsel/ports/porttest"
)

// hookReceiver is a webhook receiver: it records every request and
// answers failFirst(id) 500s to an event's first attempts, then 204.
type hookReceiver struct {
	srv       *httptest.Server
	mu        sync.Mutex
	all       []hookRequest
	tries     map[string]int
	failFirst func(id string) int
}

type hookRequest struct {
	ID, Type string
	at       time.Time
	Header   http.Header
	Body     []byte
	Accepted bool
	Event    struct {
		Type      string
		Timestamp string
		Data      map[string]any
	}
}

func newHookReceiver(t *testing.T, failFirst func(id string) int) *hookReceiver {
	rc := &hookReceiver{tries: map[string]int{}, failFirst: failFirst}
	rc.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		req := hookRequest{ID: r.Header.Get("webhook-id"), at: time.Now(), Header: r.Header.Clone(), Body: body}
		_ = json.Unmarshal(body, &req.Event)
		req.Type = req.Event.Type
		rc.mu.Lock()
		rc.tries[req.ID]++
		req.Accepted = rc.failFirst == nil || rc.tries[req.ID] > rc.failFirst(req.ID)
		rc.all = append(rc.all, req)
		rc.mu.Unlock()
		if !req.Accepted {
			w.WriteHeader(500)
			return
		}
		w.WriteHeader(204)
	}))
	t.Cleanup(rc.srv.Close)
	return rc
}

// accepted returns the requests answered 2xx, in order.
func (rc *hookReceiver) accepted() []hookRequest {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	var out []hookRequest
	for _, r := range rc.all {
		if r.Accepted {
			out = append(out, r)
		}
	}
	return out
}

// waitFor waits up to 20 s until the receiver accepted n requests, and
// returns those it accepted.
func (rc *hookReceiver) waitFor(t *testing.T, n int, what string) []hookRequest {
	t.Helper()
	return rc.waitForWithin(t, n, what, 20*time.Second)
}

// waitForWithin is waitFor with its own patience.
func (rc *hookReceiver) waitForWithin(t *testing.T, n int, what string, d time.Duration) []hookRequest {
	t.Helper()
	var got []hookRequest
	deadline := time.Now().Add(d)
	for {
		got = rc.accepted()
		if len(got) >= n {
			break
		}
		if time.Now().After(deadline) {
			for _, r := range got {
				t.Logf("received %s %s", r.ID, r.Type)
			}
			t.Fatalf("%s: %d of %d events within %s", what, len(got), n, d)
		}
		time.Sleep(5 * time.Millisecond)
	}
	return got
}

// webhookServer is a service whose webhooks may reach this machine,
// with a real clock and the retry schedule shrunk a thousand times
// (first retry after 5 ms, the second after 300 ms).
func webhookServer(t *testing.T, change ...func(*app.Config)) *apptest.Server {
	return apptest.New(t, append([]func(*app.Config){func(c *app.Config) {
		c.WebhookAllowPrivate, c.WebhookRetryScale, c.Clock = true, 0.001, nil
	}}, change...)...)
}

type webhookCreated struct {
	ID     int64
	URL    string
	Events []string
	Active bool
	Secret string
}

func subscribe(t *testing.T, s *apptest.Server, tok, url string, events ...string) webhookCreated {
	t.Helper()
	if len(events) == 0 {
		events = webhook.EventTypes
	}
	var w webhookCreated
	s.Do(t, "POST", "/api/webhooks", tok, map[string]any{"url": url, "events": events, "description": "test"}).Expect(t, 201, "subscribe").JSON(t, &w)
	return w
}

// verify checks a request's signature with the reference implementation
// of Standard Webhooks.
func verify(t *testing.T, r hookRequest, secret string) error {
	t.Helper()
	wh, err := standardwebhooks.NewWebhook(secret)
	if err != nil {
		t.Fatal(err)
	}
	return wh.Verify(r.Body, r.Header)
}

// TestWebhookSubscriptions: the routes of section 17 for subscriptions,
// their validation and permission.
func TestWebhookSubscriptions(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	s := apptest.New(t) // private addresses refused, as in production
	admin := s.Admin(t)
	_, viewer := s.User(t, account.ContractView)
	_, manager := s.User(t, account.WebhooksManage)

	is.Equal(s.Do(t, "GET", "/api/webhooks", viewer, nil).Status, 403)
	body := map[string]any{"url": "https://hooks.example.com/counsel", "events": []string{"contract.created"}}
	is.Equal(s.Do(t, "POST", "/api/webhooks", viewer, body).Status, 403)

	for _, tt := range []struct {
		name  string
		body  map[string]any
		field string
	}{
		{"unknown event", map[string]any{"url": "https://hooks.example.com/x", "events": []string{"contract.eaten"}}, "events"},
		{"no event", map[string]any{"url": "https://hooks.example.com/x", "events": []string{}}, "events"},
		{"not http", map[string]any{"url": "ftp://hooks.example.com/x", "events": []string{"user.created"}}, "url"},
		{"no url", map[string]any{"events": []string{"user.created"}}, "url"},
		{"loopback", map[string]any{"url": "http://127.0.0.1:8080/x", "events": []string{"user.created"}}, "url"},
		{"private", map[string]any{"url": "http://10.1.2.3/x", "events": []string{"user.created"}}, "url"},
		{"link-local", map[string]any{"url": "http://169.254.169.254/latest", "events": []string{"user.created"}}, "url"},
		{"unique-local", map[string]any{"url": "http://[fd00::1]/x", "events": []string{"user.created"}}, "url"},
		{"a name of a loopback address", map[string]any{"url": "http://localhost:8080/x", "events": []string{"user.created"}}, "url"},
		{"credentials", map[string]any{"url": "https://u:p@hooks.example.com/x", "events": []string{"user.created"}}, "url"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			r := s.Do(t, "POST", "/api/webhooks", manager, tt.body)
			is.Equal(r.Status, 400)
			is.True(strings.Contains(string(r.Body), `"`+tt.field+`"`)) // names the field
		})
	}

	// A literal public address needs no resolution.
	var w webhookCreated
	r := s.Do(t, "POST", "/api/webhooks", manager, map[string]any{"url": "https://93.184.215.14/hook", "events": []string{"contract.created", "user.deleted"}, "description": "ERP"})
	r.Expect(t, 201, "subscribe").JSON(t, &w)
	is.True(strings.HasPrefix(w.Secret, "whsec_"))
	is.Equal(r.Header.Get("Cache-Control"), "no-store")
	is.True(w.Active)

	var list struct{ Items []map[string]any }
	s.Do(t, "GET", "/api/webhooks", admin, nil).Expect(t, 200, "list").JSON(t, &list)
	is.Equal(len(list.Items), 1)
	_, has := list.Items[0]["secret"]
	is.True(!has) // never shown again
	is.Equal(list.Items[0]["description"], "ERP")

	var got map[string]any
	s.Do(t, "PUT", fmt.Sprintf("/api/webhooks/%d", w.ID), manager, map[string]any{"events": []string{"user.created"}, "active": false}).Expect(t, 200, "update").JSON(t, &got)
	is.Equal(got["events"], []any{"user.created"})
	is.Equal(got["active"], false)
	is.Equal(got["url"], "https://93.184.215.14/hook") // kept
	is.Equal(s.Do(t, "PUT", fmt.Sprintf("/api/webhooks/%d", w.ID), manager, map[string]any{"events": []string{"nope"}}).Status, 400)

	var rotated webhookCreated
	s.Do(t, "POST", fmt.Sprintf("/api/webhooks/%d/rotate-secret", w.ID), manager, nil).Expect(t, 200, "rotate").JSON(t, &rotated)
	is.True(strings.HasPrefix(rotated.Secret, "whsec_") && rotated.Secret != w.Secret)

	var events struct {
		Items []struct{ Action, TargetID string }
	}
	s.Do(t, "GET", "/api/audit/events?Action=webhook.created,webhook.updated,webhook.secret_rotated,webhook.deleted", admin, nil).Expect(t, 200, "audit").JSON(t, &events)
	is.Equal(len(events.Items), 3)

	is.Equal(s.Do(t, "DELETE", fmt.Sprintf("/api/webhooks/%d", w.ID), manager, nil).Status, 204)
	is.Equal(s.Do(t, "GET", fmt.Sprintf("/api/webhooks/%d", w.ID), manager, nil).Status, 404)
	is.Equal(s.Do(t, "DELETE", fmt.Sprintf("/api/webhooks/%d", w.ID), manager, nil).Status, 404)

	var perms []string
	s.Do(t, "GET", "/api/permissions", admin, nil).Expect(t, 200, "permissions").JSON(t, &perms)
	is.True(strings.Contains(strings.Join(perms, ","), "WebhooksManage"))
}

// TestWebhookEvents: every change of contracts and users reaches a
// subscriber once, signed so that the reference implementation verifies
// it, with the resource as the API returns it.
func TestWebhookEvents(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	s := webhookServer(t)
	admin := s.Admin(t)
	rc := newHookReceiver(t, nil)
	all := subscribe(t, s, admin, rc.srv.URL+"/all?token=x")
	other := newHookReceiver(t, nil)
	subscribe(t, s, admin, other.srv.URL, webhook.UserCreated)

	id := contractID(contractCreate(t, s, admin, map[string]any{"contractName": "Hooked"}))
	s.Do(t, "PUT", fmt.Sprintf("/api/contracts/%d", id), admin, map[string]any{"contractDescription": "changed"}).Expect(t, 200, "update")
	s.Do(t, "PUT", fmt.Sprintf("/api/contracts/%d", id), admin, map[string]any{"status": "ContractDesign"}).Expect(t, 200, "design")
	s.Do(t, "PUT", fmt.Sprintf("/api/contracts/%d", id), admin, map[string]any{"status": "Draft"}).Expect(t, 200, "reopen")
	doc := contractID(contractUpload(t, s, admin, id, "a.pdf", porttest.MinimalPDF(1)).Expect(t, 201, "upload").Map(t))
	s.Do(t, "DELETE", fmt.Sprintf("/api/contracts/%d/documents/%d", id, doc), admin, nil).Expect(t, 204, "remove document")
	s.Do(t, "DELETE", fmt.Sprintf("/api/contracts/%d", id), admin, nil).Expect(t, 204, "delete")
	uid, _ := s.User(t, account.ContractView)
	s.Do(t, "PUT", fmt.Sprintf("/api/users/%d", uid), admin, map[string]any{"firstName": "Hooked"}).Expect(t, 200, "rename")
	s.Do(t, "PUT", fmt.Sprintf("/api/users/%d", uid), admin, map[string]any{"active": false}).Expect(t, 200, "deactivate")
	s.Do(t, "DELETE", fmt.Sprintf("/api/users/%d", uid), admin, nil).Expect(t, 204, "delete user")

	want := []string{"contract.created", "contract.updated", "contract.status_changed", "contract.status_changed",
		"contract.document_added", "contract.document_removed", "contract.deleted",
		"user.created", "user.updated", "user.updated", "user.deactivated", "user.deleted"}
	got := rc.waitFor(t, len(want), "every event")
	time.Sleep(200 * time.Millisecond) // room for a duplicate
	got = rc.accepted()
	types := map[string]int{}
	ids := map[string]bool{}
	for _, r := range got {
		types[r.Type]++
		is.True(!ids[r.ID]) // each event once
		ids[r.ID] = true
		is.NoErr(verify(t, r, all.Secret)) // the reference implementation verifies it
		is.True(r.Event.Timestamp != "")
	}
	wantTypes := map[string]int{}
	for _, w := range want {
		wantTypes[w]++
	}
	is.Equal(types, wantTypes)
	for _, r := range got {
		switch r.Type {
		case "contract.created":
			is.Equal(r.Event.Data["contractName"], "Hooked") // ContractDto
			is.Equal(r.Event.Data["status"], "Draft")
		case "contract.deleted":
			is.Equal(r.Event.Data["contractName"], "Hooked") // as it was
		case "contract.status_changed":
			is.True(r.Event.Data["fromStatus"] != nil && r.Event.Data["toStatus"] != nil)
			is.Equal(r.Event.Data["id"], float64(id))
		case "user.created", "user.deleted":
			is.Equal(r.Event.Data["id"], float64(uid))
			is.True(r.Event.Data["email"] != nil) // UserDto
		}
	}
	is.Equal(len(other.waitFor(t, 1, "the other subscriber")), 1)
	time.Sleep(100 * time.Millisecond)
	is.Equal(len(other.accepted()), 1) // only its type
	is.Equal(other.accepted()[0].Type, "user.created")
}

// TestWebhookRetries: a 500 is retried on the (shrunk) schedule with the
// same webhook-id; every attempt is listed; a delivery can be retried by
// hand; a rotation signs with both secrets; the test event arrives.
func TestWebhookRetries(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	s := webhookServer(t)
	admin := s.Admin(t)
	rc := newHookReceiver(t, func(string) int { return 2 })
	w := subscribe(t, s, admin, rc.srv.URL, webhook.ContractCreated)

	contractCreate(t, s, admin, map[string]any{"contractName": "Retried"})
	got := rc.waitFor(t, 1, "the third attempt")
	is.Equal(len(rc.all), 3)
	is.Equal(rc.all[0].ID, rc.all[2].ID) // the same webhook-id on every attempt
	is.NoErr(verify(t, got[0], w.Secret))

	type delivery struct {
		ID             int64
		EventID        string
		EventType      string
		Attempt        int
		Status         string
		ResponseStatus *int
		Error          string
		NextAttemptAt  *string
	}
	var page struct {
		Items []delivery
		Count int
	}
	eventually(t, 5*time.Second, "three attempts listed", func() bool {
		s.Do(t, "GET", fmt.Sprintf("/api/webhooks/%d/deliveries", w.ID), admin, nil).Expect(t, 200, "deliveries").JSON(t, &page)
		return page.Count == 3
	})
	is.Equal(page.Items[0].Attempt, 3) // newest first
	is.Equal(page.Items[0].Status, "succeeded")
	is.Equal(*page.Items[0].ResponseStatus, 204)
	is.Equal(page.Items[2].Attempt, 1)
	is.Equal(page.Items[2].Status, "pending") // failed, retried
	is.Equal(*page.Items[2].ResponseStatus, 500)
	is.True(page.Items[2].NextAttemptAt != nil)
	is.True(strings.Contains(page.Items[2].Error, "500"))
	is.Equal(page.Items[0].EventID, got[0].ID)
	is.Equal(page.Items[0].EventType, "contract.created")

	is.Equal(s.Do(t, "POST", fmt.Sprintf("/api/webhooks/%d/deliveries/%d/retry", w.ID, page.Items[0].ID), admin, nil).Status, 202)
	is.Equal(len(rc.waitFor(t, 2, "the manual retry")), 2)
	is.Equal(rc.accepted()[1].ID, got[0].ID)
	is.Equal(s.Do(t, "POST", fmt.Sprintf("/api/webhooks/%d/deliveries/%d/retry", w.ID, 999999), admin, nil).Status, 404)

	var rotated webhookCreated
	s.Do(t, "POST", fmt.Sprintf("/api/webhooks/%d/rotate-secret", w.ID), admin, nil).Expect(t, 200, "rotate").JSON(t, &rotated)
	is.Equal(s.Do(t, "POST", fmt.Sprintf("/api/webhooks/%d/test", w.ID), admin, nil).Status, 202)
	test := rc.waitFor(t, 3, "the test event")[2]
	is.Equal(test.Type, "webhook.test")
	is.Equal(len(strings.Split(test.Header.Get("webhook-signature"), " ")), 2) // both secrets sign
	is.NoErr(verify(t, test, rotated.Secret))
	is.NoErr(verify(t, test, w.Secret))
}

// TestWebhookDisabled: a subscription whose deliveries have all failed
// for five days (shrunk) is disabled and its creator emailed; turning it
// on again delivers what waited.
func TestWebhookDisabled(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	// Scaled by 0.001, five days are 7.2 minutes: the failures' start is
	// moved back in the database instead of waited for.
	s := webhookServer(t)
	admin := s.Admin(t)
	rc := newHookReceiver(t, func(string) int { return 1 << 30 })
	w := subscribe(t, s, admin, rc.srv.URL, webhook.ContractCreated)
	contractCreate(t, s, admin, map[string]any{"contractName": "Failing"})
	eventually(t, 10*time.Second, "two failed attempts", func() bool { rc.mu.Lock(); defer rc.mu.Unlock(); return len(rc.all) >= 2 })
	// Five days (times the scale: 7.2 minutes) of failures, as if.
	s.Exec(t, fmt.Sprintf(`UPDATE webhook_subscriptions SET failing_since = %s WHERE id = %d`, pastTime(s, 10*time.Minute), w.ID))
	eventually(t, 20*time.Second, "disabled", func() bool {
		var got map[string]any
		s.Do(t, "GET", fmt.Sprintf("/api/webhooks/%d", w.ID), admin, nil).Expect(t, 200, "get").JSON(t, &got)
		return got["active"] == false && got["disabledAt"] != nil
	})
	var mails mailPage
	s.Do(t, "GET", "/api/system/mail?Limit=100", admin, nil).Expect(t, 200, "outbox").JSON(t, &mails)
	found := false
	for _, m := range mails.Items {
		found = found || m["kind"] == "webhookDisabled"
	}
	is.True(found) // the creator is emailed
}

// pastTime is the SQL of a time d before now on the test's engine.
func pastTime(s *apptest.Server, d time.Duration) string {
	at := time.Now().Add(-d)
	if apptest.Engine() == "postgres" {
		return "'" + at.UTC().Format(time.RFC3339Nano) + "'"
	}
	return fmt.Sprint(at.UnixMilli())
}

// TestWebhookInstances: three instances on one PostgreSQL database
// deliver 100 changes to each of two subscriptions exactly once each (no
// webhook-id accepted twice, none missing), while one receiver answers
// 500 to the first attempts of every third event and one instance is
// stopped half-way. Waits are generous: the test asserts outcomes, not
// timings (it logs the latency from change to receipt).
func TestWebhookInstances(t *testing.T) {
	pgtest.Skip(t)
	is := is.New(t)
	s := instances(t, 3, func(c *app.Config) { c.WebhookAllowPrivate, c.WebhookRetryScale, c.Clock = true, 0.001, nil })
	a, b, c := s[0], s[1], s[2]
	admin := a.Admin(t)
	const n = 100

	var mu sync.Mutex
	changed := map[string]time.Time{} // contract name -> when its change was asked for
	latency := []time.Duration{}
	plain := newHookReceiver(t, nil)
	flaky := newHookReceiver(t, func(id string) int {
		var k int
		fmt.Sscanf(id, "evt_%d", &k)
		if k%3 == 0 {
			return 2
		}
		return 0
	})
	subPlain := subscribe(t, a, admin, plain.srv.URL, webhook.ContractCreated)
	subscribe(t, b, admin, flaky.srv.URL, webhook.ContractCreated)

	create := func(srv *apptest.Server, i int) {
		name := fmt.Sprintf("multi-%03d", i)
		mu.Lock()
		changed[name] = time.Now()
		mu.Unlock()
		r := srv.Do(t, "POST", "/api/contracts", admin, map[string]any{"contractName": name})
		if r.Status != 201 {
			t.Errorf("create %s: %d %s", name, r.Status, r.Body)
		}
	}
	run := func(from, to int, servers ...*apptest.Server) {
		var wg sync.WaitGroup
		for w := 0; w < 4; w++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := from + w; i < to; i += 4 {
					create(servers[i%len(servers)], i)
				}
			}()
		}
		wg.Wait()
	}
	run(0, n/2, a, b, c)
	is.NoErr(c.App.Close()) // one instance stops half-way, its attempts under way finished and recorded
	c.Server.Close()
	run(n/2, n, a, b)

	for _, rc := range []*hookReceiver{plain, flaky} {
		// Beyond a lease (1 minute): a claim an instance could not see
		// through is attempted again when it lapses.
		rc.waitForWithin(t, n, "every change delivered", 3*time.Minute)
	}
	time.Sleep(3 * time.Second) // room for a duplicate or a stray retry
	for name, rc := range map[string]*hookReceiver{"plain": plain, "flaky": flaky} {
		seen := map[string]int{}
		for _, r := range rc.accepted() {
			seen[r.ID]++
			if name == "plain" {
				mu.Lock()
				if at, ok := changed[fmt.Sprint(r.Event.Data["contractName"])]; ok {
					latency = append(latency, r.at.Sub(at))
				}
				mu.Unlock()
			}
		}
		for id, k := range seen {
			if k != 1 {
				t.Errorf("%s: %s accepted %d times", name, id, k)
			}
		}
		is.Equal(len(seen), n) // none missing
	}
	var pending, succeeded int
	row := a.QueryRow(context.Background(), `SELECT count(*) FILTER (WHERE status = 'pending'), count(*) FILTER (WHERE status = 'succeeded') FROM webhook_deliveries`)
	is.NoErr(row.Scan(&pending, &succeeded))
	is.Equal(pending, 0)
	is.Equal(succeeded, 2*n) // one delivery per change and subscription
	var deliveries struct{ Count int }
	a.Do(t, "GET", fmt.Sprintf("/api/webhooks/%d/deliveries?Limit=1", subPlain.ID), admin, nil).Expect(t, 200, "deliveries").JSON(t, &deliveries)
	is.Equal(deliveries.Count, n) // one attempt each
	sort.Slice(latency, func(i, j int) bool { return latency[i] < latency[j] })
	if len(latency) > 0 {
		t.Logf("change to receipt over %d deliveries (3 then 2 instances, 4 concurrent clients): p50 %s, p99 %s",
			len(latency), latency[len(latency)/2], latency[len(latency)*99/100])
	}
}

// signingTypes are the signing event types.
var signingTypes = []string{webhook.SigningSubmitted, webhook.SigningCompleted, webhook.SigningDeclined, webhook.SigningExpired}

// eventNumber is the sequence number of a webhook-id (evt_N).
func eventNumber(id string) int {
	var n int
	fmt.Sscanf(id, "evt_%d", &n)
	return n
}

// typesOf lists the types of requests, in order.
func typesOf(rs []hookRequest) []string {
	out := make([]string, len(rs))
	for i, r := range rs {
		out[i] = r.Type
	}
	return out
}

// TestWebhookSigningEventsEmbedded: the embedded signer's submission,
// decline and completion reach a subscriber as signing events.
func TestWebhookSigningEventsEmbedded(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	s := webhookServer(t)
	admin := s.Admin(t)
	rc := newHookReceiver(t, nil)
	w := subscribe(t, s, admin, rc.srv.URL, signingTypes...)

	id, doc := signingContract(t, s, admin, "Signed by hook", 1)
	sub := signingSubmissionOf(t, signingSubmit(t, s, admin, id, []int64{doc}, "random", "carol@client.example"))
	rc.waitFor(t, 1, "submitted")
	_, _, token := signingPage(t, s, sub.Submitters[0].EmbedSrc)
	is.Equal(signingForm(t, s, sub.Submitters[0].EmbedSrc, "decline", url.Values{"token": {token}, "reason": {"no"}}).Status, 200)
	rc.waitFor(t, 2, "declined")
	s.Do(t, "PUT", fmt.Sprintf("/api/contracts/%d", id), admin, map[string]any{"status": "Draft"}).Expect(t, 200, "revise")
	sub = signingSubmissionOf(t, signingSubmit(t, s, admin, id, []int64{doc}, "random", "carol@client.example"))
	rc.waitFor(t, 3, "submitted again")
	signingSign(t, s, sub.Submitters[0].EmbedSrc, "Carol Example")
	got := rc.waitFor(t, 4, "completed")
	is.Equal(typesOf(got), []string{"signing.submitted", "signing.declined", "signing.submitted", "signing.completed"})
	for _, r := range got {
		is.NoErr(verify(t, r, w.Secret))
		is.Equal(r.Event.Data["id"], float64(id)) // the contract
	}
	is.Equal(got[3].Event.Data["status"], "Signed")
}

// TestWebhookSigningEventsDocuSeal: with DocuSeal, signing events reach a
// subscriber whether DocuSeal's webhook tells of them or reading the
// submission finds them (reconciliation).
func TestWebhookSigningEventsDocuSeal(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	s, ds, _ := docusealServer(t, nil, func(c *app.Config, _ *docusealtest.Server) { c.WebhookAllowPrivate = true })
	admin := s.Admin(t)
	rc := newHookReceiver(t, nil)
	w := subscribe(t, s, admin, rc.srv.URL, signingTypes...)

	id, doc := signingContract(t, s, admin, "Declined by webhook", 1)
	sub := signingSubmissionOf(t, signingSubmit(t, s, admin, id, []int64{doc}, "", "erin@client.example"))
	is.NoErr(ds.Decline(sub.ID, "erin@client.example", "no"))
	header, body, err := ds.Webhook("form.declined", sub.ID, "erin@client.example")
	is.NoErr(err)
	is.Equal(docusealWebhook(t, s, header, body).Status, 200)
	is.Equal(docusealWebhook(t, s, header, body).Status, 200) // delivered twice: one event
	rc.waitFor(t, 2, "submitted, declined")

	id2, doc2 := signingContract(t, s, admin, "Declined unseen", 1)
	sub2 := signingSubmissionOf(t, signingSubmit(t, s, admin, id2, []int64{doc2}, "", "erin@client.example"))
	is.NoErr(ds.Decline(sub2.ID, "erin@client.example", "no")) // no webhook: found by reading
	submissionsOf(t, s, admin, id2)
	rc.waitFor(t, 4, "submitted, declined (reconciled)")

	id3, doc3 := signingContract(t, s, admin, "Lapsed", 1)
	sub3 := signingSubmissionOf(t, signingSubmit(t, s, admin, id3, []int64{doc3}, "", "erin@client.example"))
	is.NoErr(ds.Expire(sub3.ID))
	header, body, err = ds.Webhook("submission.expired", sub3.ID, "")
	is.NoErr(err)
	is.Equal(docusealWebhook(t, s, header, body).Status, 200)
	rc.waitFor(t, 6, "submitted, expired")

	id4, doc4 := signingContract(t, s, admin, "Signed", 1)
	sub4 := signingSubmissionOf(t, signingSubmit(t, s, admin, id4, []int64{doc4}, "", "hal@client.example"))
	is.NoErr(ds.Complete(sub4.ID, "hal@client.example"))
	header, body, err = ds.Webhook("form.completed", sub4.ID, "hal@client.example")
	is.NoErr(err)
	is.Equal(docusealWebhook(t, s, header, body).Status, 200)
	got := rc.waitFor(t, 8, "submitted, completed")
	time.Sleep(100 * time.Millisecond)
	got = rc.accepted()
	// Deliveries of different events run side by side and may arrive in
	// any order (Standard Webhooks promises none): read them in the order
	// of the events.
	sort.SliceStable(got, func(i, j int) bool { return eventNumber(got[i].ID) < eventNumber(got[j].ID) })
	is.Equal(typesOf(got), []string{"signing.submitted", "signing.declined", "signing.submitted", "signing.declined",
		"signing.submitted", "signing.expired", "signing.submitted", "signing.completed"})
	wh, err := standardwebhooks.NewWebhook(w.Secret)
	is.NoErr(err)
	for _, r := range got {
		// The service's clock is the test's fake one, days behind.
		is.NoErr(wh.VerifyIgnoringTimestamp(r.Body, r.Header))
	}
	is.Equal(got[7].Event.Data["id"], float64(id4))
}

// TestWebhookSlowReceiver: a receiver that takes its time holds up only
// its own deliveries; another subscription's arrive meanwhile.
func TestWebhookSlowReceiver(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	s := webhookServer(t)
	admin := s.Admin(t)
	release := make(chan struct{})
	var slowHits atomic.Int64
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		slowHits.Add(1)
		select {
		case <-release:
		case <-time.After(8 * time.Second): // within the sender's 10 s
		}
		w.WriteHeader(204)
	}))
	defer slow.Close()
	defer close(release)
	fast := newHookReceiver(t, nil)
	subscribe(t, s, admin, slow.URL, webhook.ContractCreated)
	subscribe(t, s, admin, fast.srv.URL, webhook.ContractCreated)

	contractCreate(t, s, admin, map[string]any{"contractName": "first"})
	eventually(t, 10*time.Second, "the slow receiver is called", func() bool { return slowHits.Load() == 1 })
	contractCreate(t, s, admin, map[string]any{"contractName": "second"})
	got := fast.waitForWithin(t, 2, "both events at the fast receiver, before the slow one answers", 5*time.Second)
	is.Equal(len(got), 2)
	// and the slow receiver's second event starts beside its first, still under way
	eventually(t, 5*time.Second, "the slow receiver's second call", func() bool { return slowHits.Load() == 2 })
}
