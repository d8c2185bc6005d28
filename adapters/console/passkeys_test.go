package console_test

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/matryer/is"

	"counsel/domain/account"
)

// The passkey routes without a browser: what the script meets when it
// asks to begin, and what a post without a credential (no script, or a
// forged form) gets.
func TestPasskeyRoutes(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	s := newServer(t)
	b, _, _ := signedInUser(t, s, account.ContractView)

	r := b.get("/console/account")
	is.True(contains(r.Body, "Add a passkey"))                                        // the part is there
	is.True(strings.Contains(r.Body, `data-passkey="create"`))                        // for the script
	is.True(contains(r.Body, "Adding a passkey needs a browser that runs this page")) // and says what it needs

	r = b.post("/console/account/passkeys/begin", nil)
	is.Equal(r.Status, http.StatusOK)
	var begun struct {
		ChallengeID string          `json:"challengeId"`
		Options     json.RawMessage `json:"options"`
	}
	is.NoErr(json.Unmarshal([]byte(r.Body), &begun))
	is.True(begun.ChallengeID != "") // a challenge
	is.Equal(r.Header.Get("Cache-Control"), "no-store")

	// A post without a credential: the banner says why, nothing is added.
	r = b.post("/console/account/passkeys", url.Values{"name": {"Laptop"}, "challengeId": {begun.ChallengeID}})
	is.Equal(r.Status, http.StatusBadRequest)
	is.True(contains(r.Body, "The passkey was not added: credential is required")) // said in the banner

	// A stale sign-in: begin answers where to confirm.
	s.Clock.Advance(account.DefaultReauthWindow + time.Minute)
	b.get("/console/account")
	r = b.post("/console/account/passkeys/begin", nil)
	is.Equal(r.Status, http.StatusForbidden)
	var refused struct{ Error, Confirm string }
	is.NoErr(json.Unmarshal([]byte(r.Body), &refused))
	is.Equal(refused.Confirm, "/console/confirm?next=%2Fconsole%2Faccount") // the way to confirm

	// The begin routes need the form's token like any post.
	r = b.post("/console/account/passkeys/begin", url.Values{"csrf": {"forged"}})
	is.Equal(r.Status, http.StatusForbidden)

	// Signed out: the sign-in page offers the passkey, and a bad answer is
	// the one sentence of every failure.
	anon := newBrowser(t, s)
	r = anon.get("/console/login")
	is.True(contains(r.Body, "Sign in with a passkey"))
	r = anon.post("/console/login/passkey/begin", nil)
	is.Equal(r.Status, http.StatusOK)
	is.NoErr(json.Unmarshal([]byte(r.Body), &begun))
	r = anon.post("/console/login/passkey", url.Values{"challengeId": {begun.ChallengeID}, "credential": {`{"id":"AAAA","rawId":"AAAA","type":"public-key","response":{"clientDataJSON":"e30","authenticatorData":"AAAA","signature":"AAAA","userHandle":"AAAA"}}`}})
	is.True(r.Status == http.StatusUnauthorized || r.Status == http.StatusBadRequest)
	is.True(contains(r.Body, "did not sign you in") || contains(r.Body, "did not send a passkey")) // said on the page
}
