package app_test

import (
	"encoding/base64"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/matryer/is"

	"counsel/adapters/postgres/pgtest"
	"counsel/app/apptest"
	"counsel/domain/account"
)

// API keys (docs/decisions.md §17) through HTTP on the engine of
// COUNSEL_TEST_ENGINE, with the fake clock.

type apiKeyOut struct {
	ID          int64
	Name        string
	Permissions []string
	Prefix      string
	CreatedAt   string
	ExpiresAt   *string
	LastUsedAt  *string
	Key         *string
}

// newKey creates a key through token's session and returns it.
func newKey(t *testing.T, s *apptest.Server, token string, body map[string]any) apiKeyOut {
	t.Helper()
	r := s.Do(t, "POST", "/api/account/api-keys", token, body).Expect(t, 201, "create API key")
	var k apiKeyOut
	r.JSON(t, &k)
	if k.Key == nil {
		t.Fatalf("no key in %s", r.Body)
	}
	return k
}

func listKeys(t *testing.T, s *apptest.Server, token, path string) []apiKeyOut {
	t.Helper()
	var l struct{ Items []apiKeyOut }
	s.Do(t, "GET", path, token, nil).Expect(t, 200, "list API keys").JSON(t, &l)
	return l.Items
}

// expectProblem checks status and problem type and returns the detail.
func expectProblem(t *testing.T, r *apptest.Response, status int, typ, what string) string {
	t.Helper()
	r.Expect(t, status, what)
	got, detail := problemType(t, r)
	if got != typ {
		t.Fatalf("%s: type %q, want %q (%s)", what, got, typ, r.Body)
	}
	return detail
}

func TestAPIKeys(t *testing.T) {
	t.Parallel()
	s := apptest.New(t)

	t.Run("created once with its key, listed without it, and accepted as a bearer", func(t *testing.T) {
		is := is.New(t)
		_, tok := s.User(t, account.ContractView, account.RolesView)
		exp := s.Clock.Now().Add(30 * 24 * time.Hour).UTC().Format(time.RFC3339)
		r := s.Do(t, "POST", "/api/account/api-keys", tok, map[string]any{"name": " CI export ", "permissions": []string{"contractview"}, "expiresAt": exp}).
			Expect(t, 201, "create")
		is.Equal(r.Header.Get("Cache-Control"), "no-store")
		var k apiKeyOut
		r.JSON(t, &k)
		is.Equal(r.Header.Get("Location"), fmt.Sprintf("/api/account/api-keys/%d", k.ID))
		is.Equal(k.Name, "CI export")
		is.Equal(k.Permissions, []string{"ContractView"})
		is.Equal(*k.ExpiresAt, exp)
		is.True(k.LastUsedAt == nil)
		is.Equal(k.CreatedAt, s.Clock.Now().UTC().Format(time.RFC3339))
		key := *k.Key
		is.True(strings.HasPrefix(key, "cnsl_"))
		raw, err := base64.RawURLEncoding.DecodeString(strings.TrimPrefix(key, "cnsl_"))
		is.NoErr(err)
		is.Equal(len(raw), 32) // 256 random bits
		is.True(strings.HasPrefix(key, k.Prefix) && len(k.Prefix) > len("cnsl_") && len(k.Prefix) < 16)
		m := r.Map(t)
		for _, f := range []string{"id", "name", "permissions", "prefix", "createdAt", "expiresAt", "lastUsedAt", "key"} {
			_, ok := m[f]
			is.True(ok) // every field of the answer
		}

		list := listKeys(t, s, tok, "/api/account/api-keys")
		is.Equal(len(list), 1)
		is.Equal(list[0].ID, k.ID)
		is.True(list[0].Key == nil) // shown only once
		lr := s.Do(t, "GET", "/api/account/api-keys", tok, nil)
		is.True(!strings.Contains(string(lr.Body), key) && !strings.Contains(string(lr.Body), `"key"`))

		s.Do(t, "GET", "/api/contracts", key, nil).Expect(t, 200, "the key's permission")
		s.Do(t, "GET", "/api/me", key, nil).Expect(t, 200, "any signed-in route")
		s.Do(t, "GET", "/api/account/api-keys", key, nil).Expect(t, 200, "reading the account's keys")
		// The creator holds RolesView; the key does not.
		expectProblem(t, s.Do(t, "GET", "/api/roles", key, nil), 403, "/problems/forbidden", "beyond the key")
		s.Do(t, "GET", "/api/roles", tok, nil).Expect(t, 200, "the creator may")
	})

	t.Run("permissions must be the caller's, names known, expiry within a year", func(t *testing.T) {
		is := is.New(t)
		_, tok := s.User(t, account.ContractView)
		d := expectProblem(t, s.Do(t, "POST", "/api/account/api-keys", tok, map[string]any{"name": "k", "permissions": []string{"ContractView", "UsersEdit", "RolesEdit"}}),
			403, "/problems/forbidden", "more than the caller")
		is.True(strings.Contains(d, "UsersEdit") && strings.Contains(d, "RolesEdit") && !strings.Contains(d, "ContractView"))
		now := s.Clock.Now()
		for _, c := range []struct {
			name  string
			body  map[string]any
			field string
		}{
			{"no name", map[string]any{"permissions": []string{}}, "name"},
			{"blank name", map[string]any{"name": "  "}, "name"},
			{"long name", map[string]any{"name": strings.Repeat("n", 101)}, "name"},
			{"unknown permission", map[string]any{"name": "k", "permissions": []string{"Everything"}}, "permissions"},
			{"past expiry", map[string]any{"name": "k", "expiresAt": now.Add(-time.Minute).Format(time.RFC3339)}, "expiresAt"},
			{"over a year", map[string]any{"name": "k", "expiresAt": now.AddDate(1, 0, 1).Format(time.RFC3339)}, "expiresAt"},
			{"not a date", map[string]any{"name": "k", "expiresAt": "soon"}, "expiresAt"},
		} {
			r := s.Do(t, "POST", "/api/account/api-keys", tok, c.body)
			expectProblem(t, r, 400, "/problems/validation", c.name)
			var p struct{ Errors map[string][]string }
			r.JSON(t, &p)
			is.True(len(p.Errors[c.field]) > 0) // the field is named
		}
		k := newKey(t, s, tok, map[string]any{"name": "a year", "expiresAt": now.AddDate(1, 0, 0).Format(time.RFC3339)})
		is.True(k.ExpiresAt != nil)
		k = newKey(t, s, tok, map[string]any{"name": "forever", "expiresAt": nil})
		is.True(k.ExpiresAt == nil)
		is.Equal(k.Permissions, []string{}) // none asked, none held
	})

	t.Run("creating one needs recent authentication", func(t *testing.T) {
		_, tok := staffUser(t, s, "keys-reauth@example.com")
		s.Clock.Advance(account.DefaultReauthWindow + time.Second)
		expectReauth(t, s.Do(t, "POST", "/api/account/api-keys", tok.AccessToken, map[string]any{"name": "late"}), "create late")
		reauth(t, s, tok.AccessToken, "password-123", emailedCode(t, s, "keys-reauth@example.com")).Expect(t, 200, "re-authenticate")
		newKey(t, s, tok.AccessToken, map[string]any{"name": "after re-authenticating"})
	})

	t.Run("a key cannot change the account", func(t *testing.T) {
		is := is.New(t)
		_, tok := staffUser(t, s, "keys-account@example.com")
		k := newKey(t, s, tok.AccessToken, map[string]any{"name": "k", "permissions": []string{"ContractView"}})
		key := *k.Key
		for _, c := range []struct {
			method, path string
			body         any
		}{
			{"POST", "/api/account/api-keys", map[string]any{"name": "child"}},
			{"DELETE", fmt.Sprintf("/api/account/api-keys/%d", k.ID), nil},
			{"POST", "/api/users/changepassword", map[string]any{"password": "new-password-1", "currentPassword": "password-123"}},
			{"POST", "/api/account/totp/enroll", nil},
			{"POST", "/api/account/totp/confirm", map[string]any{"otp": "123456"}},
			{"DELETE", "/api/account/totp", map[string]any{"password": "password-123", "otp": "123456"}},
			{"POST", "/api/account/logout", map[string]any{"refreshToken": tok.RefreshToken}},
			{"POST", "/api/account/reauthenticate", map[string]any{"password": "password-123", "otp": "123456"}},
			{"DELETE", "/api/account/sessions/nosuchsession", nil},
			{"POST", "/api/account/sessions/revoke-others", nil},
			{"POST", "/api/account/passkeys/register/begin", nil},
			{"POST", "/api/account/passkeys/register/finish", map[string]any{"challengeId": "x", "name": "n", "credential": map[string]any{}}},
			{"PUT", "/api/account/passkeys/1", map[string]any{"name": "n"}},
			{"DELETE", "/api/account/passkeys/1", nil},
		} {
			expectProblem(t, s.Do(t, c.method, c.path, key, c.body), 403, "/problems/forbidden", c.method+" "+c.path)
		}
		// Nothing changed: the key and the session still work.
		s.Do(t, "GET", "/api/me", key, nil).Expect(t, 200, "key")
		s.Do(t, "GET", "/api/me", tok.AccessToken, nil).Expect(t, 200, "session")
		is.Equal(len(listKeys(t, s, tok.AccessToken, "/api/account/api-keys")), 1)
	})

	t.Run("a revoked, expired or unknown key is a 401; so is one whose creator is gone", func(t *testing.T) {
		is := is.New(t)
		admin := s.Admin(t)
		uid, tok := s.User(t, account.ContractView)
		revoked := newKey(t, s, tok, map[string]any{"name": "r"})
		expiring := newKey(t, s, tok, map[string]any{"name": "e", "expiresAt": s.Clock.Now().Add(time.Hour).Format(time.RFC3339)})
		kept := newKey(t, s, tok, map[string]any{"name": "k", "permissions": []string{"ContractView"}})
		for _, k := range []apiKeyOut{revoked, expiring, kept} {
			s.Do(t, "GET", "/api/me", *k.Key, nil).Expect(t, 200, "before") // cached
		}
		s.Do(t, "DELETE", fmt.Sprintf("/api/account/api-keys/%d", revoked.ID), tok, nil).Expect(t, 204, "revoke")
		r := expectProblem(t, s.Do(t, "GET", "/api/me", *revoked.Key, nil), 401, "/problems/unauthorized", "revoked")
		is.True(r != "")
		s.Do(t, "DELETE", fmt.Sprintf("/api/account/api-keys/%d", revoked.ID), tok, nil).Expect(t, 404, "revoked already")
		s.Clock.Advance(time.Hour)
		s.Do(t, "GET", "/api/me", *expiring.Key, nil).Expect(t, 401, "expired")
		s.Do(t, "GET", "/api/me", *kept.Key, nil).Expect(t, 200, "the others stay")
		list := listKeys(t, s, *kept.Key, "/api/account/api-keys") // the session's token has expired
		is.Equal(len(list), 2)                                     // the expired one is listed, the revoked one not
		unknown := s.Do(t, "GET", "/api/me", "cnsl_"+strings.Repeat("A", 43), nil)
		expectProblem(t, unknown, 401, "/problems/unauthorized", "unknown key")
		is.Equal(unknown.Header.Get("WWW-Authenticate")[:6], "Bearer")
		s.Do(t, "GET", "/api/me", "cnsl_", nil).Expect(t, 401, "empty key")
		s.Do(t, "GET", "/api/me", "cnsl_"+strings.Repeat("x", 5000), nil).Expect(t, 401, "long key")
		// The creator deactivated: at once.
		admin = s.Admin(t)
		s.Do(t, "PUT", fmt.Sprintf("/api/users/%d", uid), admin, map[string]any{"active": false}).Expect(t, 200, "deactivate")
		s.Do(t, "GET", "/api/me", *kept.Key, nil).Expect(t, 401, "creator deactivated")
		s.Do(t, "PUT", fmt.Sprintf("/api/users/%d", uid), admin, map[string]any{"active": true}).Expect(t, 200, "reactivate")
		s.Do(t, "GET", "/api/me", *kept.Key, nil).Expect(t, 200, "creator active again")
		s.Do(t, "DELETE", fmt.Sprintf("/api/users/%d", uid), admin, nil).Expect(t, 204, "delete")
		s.Do(t, "GET", "/api/me", *kept.Key, nil).Expect(t, 401, "creator deleted")
	})

	t.Run("a key holds only what its creator still holds", func(t *testing.T) {
		is := is.New(t)
		admin := s.Admin(t)
		uid, tok := s.User(t, account.ContractView, account.RolesView)
		k := newKey(t, s, tok, map[string]any{"name": "both", "permissions": []string{"ContractView", "RolesView"}})
		s.Do(t, "GET", "/api/roles", *k.Key, nil).Expect(t, 200, "before")
		var roles []struct{ ID int64 }
		s.Do(t, "GET", fmt.Sprintf("/api/users/%d/roles", uid), admin, nil).Expect(t, 200, "roles").JSON(t, &roles)
		is.Equal(len(roles), 1)
		s.Do(t, "POST", fmt.Sprintf("/api/roles/%d/permissions", roles[0].ID), admin, []string{"ContractView"}).Expect(t, 200, "narrow the role")
		s.Do(t, "GET", "/api/roles", *k.Key, nil).Expect(t, 403, "the creator lost RolesView")
		s.Do(t, "GET", "/api/contracts", *k.Key, nil).Expect(t, 200, "still ContractView")
	})

	t.Run("a system administrator's narrow key is no system administrator", func(t *testing.T) {
		is := is.New(t)
		admin := s.Admin(t)
		k := newKey(t, s, admin, map[string]any{"name": "roles", "permissions": []string{"RolesView", "RolesCreate"}})
		s.Do(t, "GET", "/api/roles", *k.Key, nil).Expect(t, 200, "within the key")
		r := s.Do(t, "POST", "/api/roles", *k.Key, map[string]any{"name": "second-admins", "isSystemAdmin": true})
		is.Equal(r.Status, 403) // guarded roles are for system administrators
		s.Do(t, "GET", "/api/permissions", *k.Key, nil).Expect(t, 403, "not in the key")
		all := newKey(t, s, admin, map[string]any{"name": "all", "permissions": account.AllPermissionSet.Names()})
		s.Do(t, "POST", "/api/roles", *all.Key, map[string]any{"name": "second-admins", "isSystemAdmin": true}).Expect(t, 201, "every permission")
	})

	t.Run("UsersEdit holders see and revoke others' keys, not a system administrator's", func(t *testing.T) {
		is := is.New(t)
		admin := s.Admin(t)
		staffID, staff := staffUser(t, s, "keys-staff@example.com")
		k := newKey(t, s, staff.AccessToken, map[string]any{"name": "staff key"})
		_, editor := s.User(t, account.UsersEdit, account.UsersView)
		list := listKeys(t, s, editor, fmt.Sprintf("/api/users/%d/api-keys", staffID))
		is.Equal(len(list), 1)
		is.Equal(list[0].ID, k.ID)
		is.True(list[0].Key == nil)
		s.Do(t, "DELETE", fmt.Sprintf("/api/users/%d/api-keys/%d", staffID, k.ID+1000), editor, nil).Expect(t, 404, "unknown key")
		s.Do(t, "DELETE", fmt.Sprintf("/api/users/%d/api-keys/%d", staffID, k.ID), editor, nil).Expect(t, 204, "revoke")
		s.Do(t, "GET", "/api/me", *k.Key, nil).Expect(t, 401, "revoked by an administrator")
		s.Do(t, "GET", "/api/users/999999/api-keys", editor, nil).Expect(t, 404, "unknown user")

		adminKey := newKey(t, s, admin, map[string]any{"name": "admin key"})
		var me struct{ ID int64 }
		s.Do(t, "GET", "/api/me", admin, nil).JSON(t, &me)
		expectProblem(t, s.Do(t, "GET", fmt.Sprintf("/api/users/%d/api-keys", me.ID), editor, nil), 403, "/problems/forbidden", "an administrator's keys")
		expectProblem(t, s.Do(t, "DELETE", fmt.Sprintf("/api/users/%d/api-keys/%d", me.ID, adminKey.ID), editor, nil), 403, "/problems/forbidden", "revoke an administrator's key")
		s.Do(t, "GET", "/api/me", *adminKey.Key, nil).Expect(t, 200, "still working")
		_, viewer := s.User(t, account.UsersView)
		s.Do(t, "GET", fmt.Sprintf("/api/users/%d/api-keys", staffID), viewer, nil).Expect(t, 403, "UsersView is not enough")
		// Another user's key is not one's own.
		other := newKey(t, s, admin, map[string]any{"name": "other"})
		s.Do(t, "DELETE", fmt.Sprintf("/api/account/api-keys/%d", other.ID), staff.AccessToken, nil).Expect(t, 404, "someone else's key")
	})

	t.Run("lastUsedAt is written at most once a minute, after the request", func(t *testing.T) {
		is := is.New(t)
		_, tok := s.User(t, account.ContractView)
		k := newKey(t, s, tok, map[string]any{"name": "used"})
		lastUsed := func(want string) {
			t.Helper()
			deadline := time.Now().Add(5 * time.Second)
			for {
				l := listKeys(t, s, tok, "/api/account/api-keys")
				got := ""
				if l[0].LastUsedAt != nil {
					got = *l[0].LastUsedAt
				}
				if got == want {
					return
				}
				if time.Now().After(deadline) {
					t.Fatalf("lastUsedAt %q, want %q", got, want)
				}
				time.Sleep(20 * time.Millisecond)
			}
		}
		first := s.Clock.Now().UTC().Format(time.RFC3339)
		s.Do(t, "GET", "/api/me", *k.Key, nil).Expect(t, 200, "use")
		lastUsed(first)
		s.Clock.Advance(30 * time.Second)
		s.Do(t, "GET", "/api/me", *k.Key, nil).Expect(t, 200, "use again")
		time.Sleep(100 * time.Millisecond)
		lastUsed(first) // within the minute: not written
		s.Clock.Advance(31 * time.Second)
		s.Do(t, "GET", "/api/me", *k.Key, nil).Expect(t, 200, "a minute later")
		lastUsed(s.Clock.Now().UTC().Format(time.RFC3339))
		is.True(true)
	})

	t.Run("at most 100 keys at once", func(t *testing.T) {
		_, tok := s.User(t)
		for i := range account.MaxAPIKeys {
			newKey(t, s, tok, map[string]any{"name": fmt.Sprint("k", i)})
		}
		expectProblem(t, s.Do(t, "POST", "/api/account/api-keys", tok, map[string]any{"name": "one too many"}), 409, "/problems/conflict", "101st")
	})
}

// TestAPIKeysAcrossInstances checks that a revoked key, and a key whose
// creator is deactivated, are refused by every instance within a second
// (the fake clocks never move: only notifications can tell them).
func TestAPIKeysAcrossInstances(t *testing.T) {
	pgtest.Skip(t)
	s := instances(t, 3, nil)
	a, b, c := s[0], s[1], s[2]
	admin := a.Admin(t)
	uid, tok := a.User(t, account.ContractView)
	revoked := newKey(t, a, tok, map[string]any{"name": "r"})
	kept := newKey(t, a, tok, map[string]any{"name": "k"})
	for _, srv := range s {
		for _, k := range []apiKeyOut{revoked, kept} {
			srv.Do(t, "GET", "/api/me", *k.Key, nil).Expect(t, 200, "cached everywhere")
		}
	}
	c.Do(t, "DELETE", fmt.Sprintf("/api/account/api-keys/%d", revoked.ID), tok, nil).Expect(t, 204, "revoke on c")
	within(t, "revocation", func() bool {
		return a.Do(t, "GET", "/api/me", *revoked.Key, nil).Status == 401 && b.Do(t, "GET", "/api/me", *revoked.Key, nil).Status == 401
	})
	b.Do(t, "GET", "/api/me", *kept.Key, nil).Expect(t, 200, "the other key stays")
	a.Do(t, "PUT", fmt.Sprintf("/api/users/%d", uid), admin, map[string]any{"active": false}).Expect(t, 200, "deactivate on a")
	within(t, "deactivation", func() bool {
		return b.Do(t, "GET", "/api/me", *kept.Key, nil).Status == 401 && c.Do(t, "GET", "/api/me", *kept.Key, nil).Status == 401
	})
}
