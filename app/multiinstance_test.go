package app_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/matryer/is"

	"counsel/adapters/postgres/pgtest"
	"counsel/adapters/webauthn/webauthntest"
	"counsel/app"
	"counsel/app/apptest"
	"counsel/domain/account"
	"counsel/ports/porttest"
)

// instances starts n services on one PostgreSQL database, as n instances
// behind a load balancer. Their clocks are fake and never move, so no
// cache expires by time: what propagates here propagates by notification.
func instances(t *testing.T, n int, change func(*app.Config)) []*apptest.Server {
	t.Helper()
	url := pgtest.URL(t)
	spool := t.TempDir()
	out := make([]*apptest.Server, n)
	for i := range out {
		out[i] = apptest.New(t, func(c *app.Config) {
			c.DB, c.SpoolDir = url, spool
			if i > 0 { // one public address, that of the load balancer
				c.PublicURL = out[0].Config.PublicURL
			}
			if change != nil {
				change(c)
			}
		})
	}
	return out
}

// within polls until cond holds, failing the test after a second.
func within(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not seen on the other instance within 1 s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestInstancesActAsOne runs three instances on one database and checks
// that what one decides, the others enforce within a second.
func TestInstancesActAsOne(t *testing.T) {
	pgtest.Skip(t)
	s := instances(t, 3, nil)
	a, b, c := s[0], s[1], s[2]
	admin := a.Admin(t)

	t.Run("logout on one instance is enforced on the others", func(t *testing.T) {
		is := is.New(t)
		tok := a.Login(t, apptest.AdminEmail, apptest.AdminPassword)
		is.Equal(b.Do(t, "GET", "/api/me", tok.AccessToken, nil).Status, 200) // cached on b
		is.Equal(c.Do(t, "GET", "/api/me", tok.AccessToken, nil).Status, 200) // and on c
		is.Equal(a.Do(t, "POST", "/api/account/logout", tok.AccessToken, map[string]string{"refreshToken": tok.RefreshToken}).Status, 200)
		within(t, "logout", func() bool {
			return b.Do(t, "GET", "/api/me", tok.AccessToken, nil).Status == 401 && c.Do(t, "GET", "/api/me", tok.AccessToken, nil).Status == 401
		})
	})

	t.Run("a token issued by one verifies on the others, and refresh rotates once", func(t *testing.T) {
		is := is.New(t)
		tok := b.Login(t, apptest.AdminEmail, apptest.AdminPassword)
		is.Equal(c.Do(t, "GET", "/api/me", tok.AccessToken, nil).Status, 200)
		body := map[string]string{"accessToken": tok.AccessToken, "refreshToken": tok.RefreshToken}
		is.Equal(a.Do(t, "POST", "/api/account/refresh-token", "", body).Status, 200)
		is.Equal(c.Do(t, "POST", "/api/account/refresh-token", "", body).Status, 401) // reuse, on another instance
		within(t, "reuse revokes the session", func() bool { return b.Do(t, "GET", "/api/me", tok.AccessToken, nil).Status == 401 })
	})

	t.Run("password change, permission change and deletion", func(t *testing.T) {
		is := is.New(t)
		id, tok := a.User(t, account.ContractView)
		is.Equal(b.Do(t, "GET", "/api/contracts", tok, nil).Status, 200)
		is.Equal(c.Do(t, "GET", "/api/me", tok, nil).Status, 200)
		roles := a.Do(t, "GET", fmt.Sprintf("/api/users/%d/roles", id), admin, nil)
		var held []struct{ ID int64 }
		roles.JSON(t, &held)
		is.Equal(len(held), 1)
		is.Equal(a.Do(t, "POST", fmt.Sprintf("/api/roles/%d/permissions", held[0].ID), admin, []string{}).Status, 200)
		within(t, "permission change", func() bool { return b.Do(t, "GET", "/api/contracts", tok, nil).Status == 403 })

		is.Equal(a.Do(t, "POST", "/api/users/changepassword", admin, map[string]any{"id": id, "password": "another-password-1"}).Status, 200)
		within(t, "password change", func() bool { return c.Do(t, "GET", "/api/me", tok, nil).Status == 401 })

		id2, tok2 := a.User(t, account.ContractView) // (users are made through a: role names count per server)
		is.Equal(b.Do(t, "GET", "/api/me", tok2, nil).Status, 200)
		is.Equal(c.Do(t, "DELETE", fmt.Sprintf("/api/users/%d", id2), admin, nil).Status, 204)
		within(t, "deletion", func() bool { return b.Do(t, "GET", "/api/me", tok2, nil).Status == 401 })
	})

	t.Run("a profile edited on one instance is fresh on the others", func(t *testing.T) {
		is := is.New(t)
		id, tok := a.User(t)
		name := func(s *apptest.Server) string {
			var me struct{ FirstName string }
			s.Do(t, "GET", "/api/me", tok, nil).JSON(t, &me)
			return me.FirstName
		}
		is.Equal(name(b), "Test") // cached on b
		is.Equal(c.Do(t, "PUT", fmt.Sprintf("/api/users/%d", id), admin, map[string]any{"firstName": "Renamed"}).Status, 200)
		within(t, "profile", func() bool { return name(b) == "Renamed" })
	})

	t.Run("a document uploaded on one instance is read on another", func(t *testing.T) {
		is := is.New(t)
		id := contractID(contractCreate(t, a, admin, map[string]any{"contractName": "shared"}))
		pdf := porttest.MinimalPDF(2)
		r := contractUpload(t, a, admin, id, "shared.pdf", pdf)
		is.Equal(r.Status, 201)
		doc := contractID(r.Map(t))
		req, _ := http.NewRequest("GET", fmt.Sprintf("%s/api/contracts/%d/documents/%d/content", c.URL, id, doc), nil)
		req.Header.Set("Authorization", "Bearer "+admin)
		res, err := c.Client().Do(req)
		is.NoErr(err)
		got, _ := io.ReadAll(res.Body)
		res.Body.Close()
		is.Equal(res.StatusCode, 200)
		is.True(bytes.Equal(got, pdf)) // the same bytes
	})

	t.Run("background jobs run on one instance at a time", func(t *testing.T) {
		is := is.New(t)
		ctx := context.Background()
		ok, unlock, err := a.App.Stores().TryLock(ctx, "contract-expiry")
		is.NoErr(err)
		is.True(ok) // a takes the sweep
		for _, other := range []*apptest.Server{b, c} {
			ok2, _, err := other.App.Stores().TryLock(ctx, "contract-expiry")
			is.NoErr(err)
			is.True(!ok2) // the others skip it
		}
		unlock()
		ok, unlock, err = c.App.Stores().TryLock(ctx, "contract-expiry")
		is.NoErr(err)
		is.True(ok) // free again
		unlock()
	})
}

// TestInstancesShareLimits checks that the per-address sign-in limit and
// the account lockout count across instances.
func TestInstancesShareLimits(t *testing.T) {
	pgtest.Skip(t)
	s := instances(t, 3, func(c *app.Config) {
		c.AuthRateLimit = 6
		c.LockoutThreshold, c.LockoutDuration = 3, time.Hour
	})
	is := is.New(t)
	// Three wrong passwords, one per instance, lock the account on all.
	for i, srv := range s {
		r := srv.Do(t, "POST", "/api/account/login/get-otp", "", map[string]string{"email": apptest.AdminEmail})
		is.Equal(r.Status, 200)
		var otp struct{ OTP string }
		r.JSON(t, &otp)
		r = srv.Do(t, "POST", "/api/account/login", "", map[string]string{"email": apptest.AdminEmail, "password": fmt.Sprint("wrong-", i), "otp": otp.OTP})
		is.Equal(r.Status, 401)
	}
	// Six requests a minute from one address in all: the three instances
	// have taken six; the next is refused whichever instance gets it.
	for _, srv := range s {
		r := srv.Do(t, "POST", "/api/account/login/get-otp", "", map[string]string{"email": apptest.AdminEmail})
		is.Equal(r.Status, 429) // the shared limit
	}
	// A fresh address would pass the limit, but the account is locked:
	// check through the store, which every instance reads.
	c, err := s[1].App.Stores().Accounts.CredentialsByEmail(context.Background(), apptest.AdminEmail)
	is.NoErr(err)
	is.True(!c.LockedUntil.IsZero()) // locked by the third failure, made on the third instance
}

// TestPasskeyCeremoniesAcrossInstances: a ceremony begun on one instance
// finishes on another (the challenge is in the database), and a replay on
// a third is refused (taken once).
func TestPasskeyCeremoniesAcrossInstances(t *testing.T) {
	pgtest.Skip(t)
	is := is.New(t)
	s := instances(t, 3, nil)
	a, b, c := s[0], s[1], s[2]
	_, tok := staff(t, a, "pk@example.com")
	key := webauthntest.New(a.URL) // the load balancer's origin
	var reg begun
	a.Do(t, "POST", "/api/account/passkeys/register/begin", tok, nil).Expect(t, 200, "begin on a").JSON(t, &reg)
	cred, err := key.Create(reg.Options)
	is.NoErr(err)
	b.Do(t, "POST", "/api/account/passkeys/register/finish", tok, map[string]any{"challengeId": reg.ChallengeID, "name": "Laptop", "credential": json.RawMessage(cred)}).
		Expect(t, 201, "finish on b")
	var login begun
	b.Do(t, "POST", "/api/account/login/passkey/begin", "", nil).Expect(t, 200, "begin on b").JSON(t, &login)
	assertion, err := key.Get(login.Options)
	is.NoErr(err)
	body := map[string]any{"challengeId": login.ChallengeID, "credential": json.RawMessage(assertion)}
	c.Do(t, "POST", "/api/account/login/passkey/finish", "", body).Expect(t, 200, "finish on c")
	a.Do(t, "POST", "/api/account/login/passkey/finish", "", body).Expect(t, 401, "replayed on a")
}
