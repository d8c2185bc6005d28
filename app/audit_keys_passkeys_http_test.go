package app_test

import (
	"fmt"
	"strconv"
	"testing"

	"github.com/matryer/is"

	"counsel/app/apptest"
)

// TestAuditOfKeysAndPasskeys: API keys and passkeys leave the events of
// docs/decisions.md §18, a key's requests are acted by "apiKey", and a
// refused passkey sign-in writes a failure, never a success.
func TestAuditOfKeysAndPasskeys(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	s := apptest.New(t)
	admin := s.Admin(t)
	uid, tok := staff(t, s, "audited@example.com")
	user := strconv.FormatInt(uid, 10)

	// API keys: created and revoked, each once, acted by the user.
	k := newKey(t, s, tok, map[string]any{"name": "export"})
	id := strconv.FormatInt(k.ID, 10)
	es, _ := events(t, s, admin, "Action=api_key.created&TargetId="+id)
	is.Equal(len(es), 1) // one creation event
	is.Equal(es[0].ActorKind, "user")
	is.Equal(*es[0].ActorUserID, uid)
	s.Do(t, "DELETE", fmt.Sprintf("/api/account/api-keys/%d", k.ID), tok, nil).Expect(t, 204, "revoke")
	es, _ = events(t, s, admin, "Action=api_key.revoked&TargetId="+id)
	is.Equal(len(es), 1) // one revocation event
	s.Do(t, "DELETE", fmt.Sprintf("/api/account/api-keys/%d", k.ID), tok, nil).Expect(t, 404, "revoked twice")
	es, _ = events(t, s, admin, "Action=api_key.revoked&TargetId="+id)
	is.Equal(len(es), 1) // a refused revocation writes none

	// A change made with a key is acted by "apiKey".
	adminKey := newKey(t, s, admin, map[string]any{"name": "admin script", "permissions": []string{"UsersView", "UsersEdit"}})
	s.Do(t, "PUT", fmt.Sprintf("/api/users/%d", uid), *adminKey.Key, map[string]any{"firstName": "Renamed"}).Expect(t, 200, "update by key")
	es, _ = events(t, s, admin, "Action=user.updated&TargetId="+user)
	is.True(len(es) >= 1)
	is.Equal(es[0].ActorKind, "apiKey") // the key acted

	// Passkeys: added, used to sign in, a counter going backwards, removed.
	a, p := addPasskey(t, s, tok, "Laptop")
	es, _ = events(t, s, admin, "Action=passkey.added&TargetId="+user)
	is.Equal(len(es), 1) // one addition event
	passkeySignIn(t, s, a).Expect(t, 200, "sign in with the passkey")
	es, _ = events(t, s, admin, "Action=signin.succeeded&TargetId="+user)
	is.True(len(es) >= 1)
	is.Equal(es[0].Details["method"], "passkey") // the newest sign-in was by passkey
	before := len(es)
	a.Counter -= 2
	passkeySignIn(t, s, a).Expect(t, 401, "counter backwards")
	es, _ = events(t, s, admin, "Action=passkey.counter_regressed&TargetId="+user)
	is.Equal(len(es), 1) // recorded
	es, _ = events(t, s, admin, "Action=signin.failed&TargetId="+user)
	is.True(len(es) >= 1)
	is.Equal(es[0].Details["method"], "passkey") // a failure, by passkey
	es, _ = events(t, s, admin, "Action=signin.succeeded&TargetId="+user)
	is.Equal(len(es), before) // and no success
	s.Do(t, "DELETE", fmt.Sprintf("/api/account/passkeys/%d", p.ID), tok, nil).Expect(t, 204, "remove")
	es, _ = events(t, s, admin, "Action=passkey.removed&TargetId="+user)
	is.Equal(len(es), 1) // one removal event
	addPasskey(t, s, tok, "Phone")
	s.Do(t, "DELETE", fmt.Sprintf("/api/users/%d/passkeys", uid), admin, nil).Expect(t, 204, "an administrator removes them")
	es, _ = events(t, s, admin, "Action=passkey.removed&TargetId="+user)
	is.Equal(len(es), 2) // and that is recorded too
}
