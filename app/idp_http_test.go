package app_test

import (
	"context"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/matryer/is"

	"counsel/adapters/oidc/oidctest"
	"counsel/app"
	"counsel/app/apptest"
	"counsel/domain/account"
)

// idpEnv is a Counsel signing people in through a local OpenID Connect
// provider.
type idpEnv struct {
	*apptest.Server
	idp  *oidctest.Provider
	logs *syncBuffer
}

// newIdPEnv starts a provider and a Counsel configured for it; change
// adjusts the configuration further.
func newIdPEnv(t *testing.T, change func(c *app.Config, p *oidctest.Provider)) *idpEnv {
	t.Helper()
	p := oidctest.New(t)
	logs := &syncBuffer{}
	s := apptest.New(t, func(c *app.Config) {
		c.OIDCIssuer, c.OIDCClientID = p.Issuer(), oidctest.ClientID
		c.Logger = slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
		if change != nil {
			change(c, p)
		}
	})
	return &idpEnv{Server: s, idp: p, logs: logs}
}

// login posts an ID token (and code) to the identity-provider sign-in.
func (e *idpEnv) login(t *testing.T, idToken, code string) *apptest.Response {
	t.Helper()
	body := map[string]string{"idToken": idToken}
	if code != "" {
		body["code"] = code
	}
	return e.Do(t, "POST", "/api/account/login/idp", "", body)
}

// claims are valid claims at the service's clock.
func (e *idpEnv) claims(subject, email string) oidctest.Claims {
	return e.idp.Claims(e.Clock.Now(), subject, email)
}

// user creates a user with a password and the default roles.
func (e *idpEnv) user(t *testing.T, email string) int64 {
	t.Helper()
	id, err := e.App.CreateUser(context.Background(), account.NewUser{Email: email, FirstName: "Known", LastName: "User"}, "password-123")
	if err != nil {
		t.Fatalf("create user %s: %v", email, err)
	}
	return id
}

// count runs a counting query.
func (e *idpEnv) count(t *testing.T, query string, args ...any) int {
	t.Helper()
	var n int
	if err := e.QueryRow(context.Background(), query, args...).Scan(&n); err != nil {
		t.Fatalf("count: %v", err)
	}
	return n
}

// linkedTo returns the user (issuer, subject) is linked to, 0 if none.
func (e *idpEnv) linkedTo(t *testing.T, subject string) int64 {
	t.Helper()
	var id int64
	err := e.QueryRow(context.Background(),
		`SELECT coalesce((SELECT user_id FROM user_identities WHERE issuer = ? AND subject = ?), 0)`, e.idp.Issuer(), subject).Scan(&id)
	if err != nil {
		t.Fatalf("link: %v", err)
	}
	return id
}

// signedIn checks a 200 token result for userID and returns the tokens.
func signedIn(t *testing.T, r *apptest.Response, userID int64) apptest.Tokens {
	t.Helper()
	if r.Status != 200 {
		t.Fatalf("idp login: %d %s", r.Status, r.Body)
	}
	var tok apptest.Tokens
	r.JSON(t, &tok)
	if tok.UserID != strconv.FormatInt(userID, 10) && userID != 0 {
		t.Fatalf("idp login signed in user %s, want %d", tok.UserID, userID)
	}
	if tok.AccessToken == "" || tok.RefreshToken == "" {
		t.Fatalf("idp login: tokens missing in %s", r.Body)
	}
	return tok
}

func TestIdPSignsInKnownUser(t *testing.T) {
	t.Parallel()
	e := newIdPEnv(t, nil)
	for _, alg := range []string{"RS256", "ES256"} {
		t.Run(alg, func(t *testing.T) {
			is := is.New(t)
			email := strings.ToLower(alg) + "@example.com"
			id := e.user(t, email)
			// The provider may spell the email in any case.
			r := e.login(t, e.idp.Mint(alg, e.claims("subject-"+alg, strings.ToUpper(email))), "")
			tok := signedIn(t, r, id)
			is.Equal(r.Header.Get("Cache-Control"), "no-store") // a token response
			is.Equal(e.linkedTo(t, "subject-"+alg), id)         // linked by the verified email

			me := e.Do(t, "GET", "/api/permissions/me", tok.AccessToken, nil)
			is.Equal(me.Status, 200)                                         // the access token works
			is.Equal(strings.TrimSpace(string(me.Body)), `["ContractView"]`) // the default role's permissions

			var method string
			is.NoErr(e.QueryRow(context.Background(), `SELECT method FROM sessions WHERE user_id = ?`, id).Scan(&method))
			is.Equal(method, account.MethodIdP) // recorded as an identity-provider sign-in

			rr := e.Do(t, "POST", "/api/account/refresh-token", "", map[string]string{"accessToken": tok.AccessToken, "refreshToken": tok.RefreshToken})
			is.Equal(rr.Status, 200) // the refresh works
			var next apptest.Tokens
			rr.JSON(t, &next)
			is.Equal(next.UserID, tok.UserID)                                                  // same user
			is.Equal(e.Do(t, "GET", "/api/permissions/me", next.AccessToken, nil).Status, 200) // the new access token works
		})
	}
}

func TestIdPFindsLinkedUserBySubject(t *testing.T) {
	t.Parallel()
	e := newIdPEnv(t, nil)
	ada := e.user(t, "ada@example.com")
	bob := e.user(t, "bob@example.com")
	signedIn(t, e.login(t, e.idp.Mint("RS256", e.claims("subject-ada", "ada@example.com")), ""), ada)

	tests := []struct {
		name    string
		subject string
		email   string
		want    int64 // 0: refused
	}{
		{"email changed at the provider", "subject-ada", "ada.lovelace@example.com", ada},
		{"email changed to another user's", "subject-ada", "bob@example.com", ada},
		{"another subject with a linked user's email", "subject-imposter", "ada@example.com", 0},
		{"bob's first sign-in", "subject-bob", "bob@example.com", bob},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			r := e.login(t, e.idp.Mint("ES256", e.claims(tt.subject, tt.email)), "")
			if tt.want == 0 {
				is.Equal(r.Status, 401) // refused
				return
			}
			signedIn(t, r, tt.want)
		})
	}
	is := is.New(t)
	is.Equal(e.linkedTo(t, "subject-imposter"), int64(0)) // nothing linked for the refused subject
}

func TestIdPAutoProvisioning(t *testing.T) {
	t.Parallel()
	e := newIdPEnv(t, func(c *app.Config, _ *oidctest.Provider) {
		c.OIDCAutoProvision = true
		c.OIDCAllowedDomains = []string{"example.com", "lawfirm.example"}
	})
	tests := []struct {
		name        string
		subject     string
		email       string
		edit        func(oidctest.Claims) oidctest.Claims
		first, last string
	}{
		{"given and family names", "s-1", "grace@example.com", nil, "Ada", "Lovelace"},
		{"full name split", "s-2", "grace.hopper@lawfirm.example", func(c oidctest.Claims) oidctest.Claims {
			return c.With("given_name", nil).With("family_name", nil).With("name", "Grace  Brewster Hopper")
		}, "Grace", "Brewster Hopper"},
		{"no name: the email's local part", "s-3", "Katherine.J@Example.com", func(c oidctest.Claims) oidctest.Claims {
			return c.With("given_name", nil).With("family_name", nil).With("name", nil)
		}, "katherine.j", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			c := e.claims(tt.subject, tt.email)
			if tt.edit != nil {
				c = tt.edit(c)
			}
			tok := signedIn(t, e.login(t, e.idp.Mint("RS256", c), ""), 0)
			id, err := strconv.ParseInt(tok.UserID, 10, 64)
			is.NoErr(err) // an integer id

			var email, first, last, hash string
			var active bool
			is.NoErr(e.QueryRow(context.Background(), `SELECT email, first_name, last_name, password_hash, active FROM users WHERE id = ?`, id).
				Scan(&email, &first, &last, &hash, &active))
			is.Equal(email, strings.ToLower(tt.email)) // the verified email, normalised
			is.Equal(first, tt.first)                  // first name
			is.Equal(last, tt.last)                    // last name
			is.Equal(hash, "")                         // no password sign-in
			is.Equal(active, true)                     // active
			is.Equal(e.linkedTo(t, tt.subject), id)    // linked

			me := e.Do(t, "GET", "/api/permissions/me", tok.AccessToken, nil)
			is.Equal(strings.TrimSpace(string(me.Body)), `["ContractView"]`) // the default roles

			again := e.login(t, e.idp.Mint("ES256", c.With("email", "renamed-"+tt.subject+"@elsewhere.example")), "")
			signedIn(t, again, id)                                                       // found by the link next time
			is.Equal(e.count(t, `SELECT count(*) FROM users WHERE email = ?`, email), 1) // created once
		})
	}

	refused := []struct {
		name  string
		email string
	}{
		{"domain not allowed", "mallory@evil.example"},
		{"subdomain of an allowed domain", "eve@mail.example.com"},
		{"allowed domain as a suffix only", "eve@notexample.com"},
	}
	for _, tt := range refused {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			r := e.login(t, e.idp.Mint("RS256", e.claims("s-"+tt.email, tt.email)), "")
			is.Equal(r.Status, 401)                                                         // refused
			is.Equal(e.count(t, `SELECT count(*) FROM users WHERE email = ?`, tt.email), 0) // nobody created
		})
	}

	t.Run("off", func(t *testing.T) {
		is := is.New(t)
		off := newIdPEnv(t, func(c *app.Config, _ *oidctest.Provider) { c.OIDCAllowedDomains = []string{"example.com"} })
		r := off.login(t, off.idp.Mint("RS256", off.claims("s-1", "newcomer@example.com")), "")
		is.Equal(r.Status, 401)                                                                      // no account, no provisioning
		is.Equal(off.count(t, `SELECT count(*) FROM users WHERE email = 'newcomer@example.com'`), 0) // nobody created
	})
	t.Run("on without allowed domains", func(t *testing.T) {
		is := is.New(t)
		none := newIdPEnv(t, func(c *app.Config, _ *oidctest.Provider) { c.OIDCAutoProvision = true })
		r := none.login(t, none.idp.Mint("RS256", none.claims("s-1", "newcomer@example.com")), "")
		is.Equal(r.Status, 401)                                                                // an empty list allows no domain
		is.True(strings.Contains(none.logs.String(), "COUNSEL_OIDC_ALLOWED_DOMAINS is empty")) // warned at start
	})
}

func TestIdPRefusalsLookAlike(t *testing.T) {
	t.Parallel()
	e := newIdPEnv(t, nil)
	e.user(t, "ada@example.com")
	inactive := e.user(t, "inactive@example.com")
	deleted := e.user(t, "deleted@example.com")
	now := e.Clock.Now()
	if err := e.SetUserState(context.Background(), inactive, false, false, now); err != nil {
		t.Fatal(err)
	}
	if err := e.SetUserState(context.Background(), deleted, true, true, now); err != nil {
		t.Fatal(err)
	}

	p := e.idp
	valid := e.claims("subject-ada", "ada@example.com")
	rsa := p.Key("RS256")
	forged := p.NewKey("RS256")
	forged.ID = rsa.ID // names the published kid, signed by another key
	parts := strings.Split(p.Mint("RS256", valid), ".")
	tampered := parts[0] + "." + b64(valid.With("sub", "subject-admin")) + "." + parts[2]

	tests := []struct {
		name  string
		token string
	}{
		{"bad signature", oidctest.MintWith(forged, valid)},
		{"tampered claims", tampered},
		{"wrong issuer", p.Mint("RS256", valid.With("iss", "https://evil.example"))},
		{"wrong audience", p.Mint("RS256", valid.With("aud", "another-client"))},
		{"expired", p.Mint("ES256", valid.With("iat", now.Add(-2*time.Hour).Unix()).With("exp", now.Add(-2*time.Minute).Unix()))},
		{"issued in the future", p.Mint("ES256", valid.With("iat", now.Add(5*time.Minute).Unix()))},
		{"alg none", oidctest.MintNone(rsa.ID, valid)},
		{"HS256 keyed with the public key", oidctest.MintHMAC(rsa.PublicKeyPEM(), rsa.ID, valid)},
		{"unverified email", p.Mint("RS256", valid.With("email_verified", false))},
		{"unknown kid", oidctest.MintWith(p.NewKey("RS256"), valid)},
		{"not a token", "not-a-token"},
		{"unknown user", p.Mint("RS256", e.claims("subject-ghost", "ghost@example.com"))},
		{"inactive user", p.Mint("RS256", e.claims("subject-inactive", "inactive@example.com"))},
		{"deleted user", p.Mint("RS256", e.claims("subject-deleted", "deleted@example.com"))},
	}
	var first []byte
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			r := e.login(t, tt.token, "")
			is.Equal(r.Status, 401)                                            // refused
			is.Equal(r.Header.Get("Content-Type"), "application/problem+json") // a problem
			is.Equal(r.Header.Get("WWW-Authenticate"), "Bearer")               // a challenge
			is.Equal(r.Map(t)["type"], "/problems/unauthorized")
			if first == nil {
				first = r.Body
			}
			is.Equal(string(r.Body), string(first)) // the same body for every cause
		})
	}

	is := is.New(t)
	logs := e.logs.String()
	is.True(strings.Contains(logs, "identity provider sign-in refused")) // reasons are logged
	is.True(strings.Contains(logs, "the user is inactive"))              // with the detail
	for _, tt := range tests {
		if len(tt.token) > 20 {
			is.True(!strings.Contains(logs, tt.token))                    // never the token
			is.True(!strings.Contains(logs, tt.token[len(tt.token)-20:])) // nor its signature
		}
	}
	is.Equal(e.linkedTo(t, "subject-inactive"), int64(0)) // a refused user is not linked
	is.Equal(e.linkedTo(t, "subject-deleted"), int64(0))
}

func TestIdPKeyRotation(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	e := newIdPEnv(t, nil)
	id := e.user(t, "ada@example.com")
	signedIn(t, e.login(t, e.idp.Mint("RS256", e.claims("subject-ada", "ada@example.com")), ""), id)
	fetches := e.idp.Hits().JWKS

	next := e.idp.NewKey("RS256") // the provider's next key, not yet published
	r := e.login(t, oidctest.MintWith(next, e.claims("subject-ada", "ada@example.com")), "")
	is.Equal(r.Status, 401)                // unknown kid
	is.Equal(e.idp.Hits().JWKS, fetches+1) // the key set was fetched again for it

	e.idp.Publish(e.idp.Key("RS256"), e.idp.Key("ES256"), next) // the provider rotates it in
	r = e.login(t, oidctest.MintWith(next, e.claims("subject-ada", "ada@example.com")), "")
	is.Equal(r.Status, 401)                // at most one refetch a minute
	is.Equal(e.idp.Hits().JWKS, fetches+1) // no new fetch

	e.Clock.Advance(61 * time.Second)
	signedIn(t, e.login(t, oidctest.MintWith(next, e.claims("subject-ada", "ada@example.com")), ""), id) // the rotated set is accepted
	is.Equal(e.idp.Hits().JWKS, fetches+2)                                                               // after one more fetch
}

// newCodeExchangeEnv is an IdP environment where sign-in may redeem a
// code, with the user ada@example.com, her claims and an ID token of them.
func newCodeExchangeEnv(t *testing.T) (e *idpEnv, id int64, c oidctest.Claims, idToken string) {
	t.Helper()
	e = newIdPEnv(t, func(c *app.Config, _ *oidctest.Provider) {
		c.OIDCClientSecret, c.OIDCRedirectURI = oidctest.ClientSecret, oidctest.RedirectURI
	})
	id = e.user(t, "ada@example.com")
	c = e.claims("subject-ada", "ada@example.com")
	return e, id, c, e.idp.Mint("RS256", c)
}

func TestIdPCodeExchange(t *testing.T) {
	t.Parallel()
	e, id, c, idToken := newCodeExchangeEnv(t)
	e.idp.AddCode("good", e.idp.Mint("ES256", c))
	e.idp.AddCode("other-subject", e.idp.Mint("ES256", e.claims("subject-bob", "ada@example.com")))
	e.idp.AddCode("bad-token", e.idp.Mint("ES256", c.With("aud", "another-client")))
	e.idp.FailCode("provider-error", 503, "temporarily_unavailable")

	tests := []struct {
		name   string
		code   string
		status int
	}{
		{"exchanged", "good", 200},
		{"code used twice", "good", 401},
		{"code refused", "forged-code", 401},
		{"subject mismatch", "other-subject", 401},
		{"exchanged token does not verify", "bad-token", 401},
		{"token endpoint fails", "provider-error", 502},
		{"no code: the ID token alone", "", 200},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			hits := e.idp.Hits().Token
			r := e.login(t, idToken, tt.code)
			is.Equal(r.Status, tt.status) // outcome
			if tt.code != "" {
				is.Equal(e.idp.Hits().Token, hits+1) // redeemed at the token endpoint
			}
			if tt.status == 200 {
				signedIn(t, r, id)
			}
			if tt.status == 502 {
				is.Equal(r.Map(t)["type"], "/problems/upstream") // the provider failed
			}
		})
	}
	is := is.New(t)
	is.True(!strings.Contains(e.logs.String(), "forged-code")) // codes stay out of the log
}

func TestIdPProviderDown(t *testing.T) {
	t.Parallel()
	e, id, _, idToken := newCodeExchangeEnv(t)

	is := is.New(t)
	e.idp.Down()
	r := e.login(t, idToken, "")
	is.Equal(r.Status, 502)                             // keys out of reach
	is.Equal(r.Map(t)["type"], "/problems/upstream")    // an upstream problem
	is.True(!strings.Contains(string(r.Body), idToken)) // no token in the answer

	e.idp.Up()
	signedIn(t, e.login(t, idToken, ""), id) // tried again once the provider is back

	e.idp.AddCode("good", idToken)
	e.idp.Down()
	is.Equal(e.login(t, idToken, "good").Status, 502) // the code exchange needs the provider
	signedIn(t, e.login(t, idToken, ""), id)          // cached keys still verify
}

func TestIdPNotConfigured(t *testing.T) {
	t.Parallel()
	s := apptest.New(t)
	tests := []struct {
		name   string
		body   string
		status int
	}{
		{"a token", `{"idToken":"eyJhbGciOiJSUzI1NiJ9.e30.c2ln"}`, 401},
		{"missing idToken", `{"code":"x"}`, 400},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			r := s.Do(t, "POST", "/api/account/login/idp", "", tt.body)
			is.Equal(r.Status, tt.status) // status
			if tt.status == 401 {
				is.Equal(r.Map(t)["type"], "/problems/unauthorized") // not configured
			}
		})
	}
}

func TestIdPBadRequests(t *testing.T) {
	t.Parallel()
	e := newIdPEnv(t, nil)
	tests := []struct {
		name  string
		body  string
		field string
	}{
		{"malformed JSON", `{"idToken":`, ""},
		{"not an object", `["x"]`, ""},
		{"empty body", ``, ""},
		{"missing idToken", `{"code":"abc"}`, "idToken"},
		{"blank idToken", `{"idToken":"  "}`, "idToken"},
		{"idToken of the wrong type", `{"idToken":42}`, "idToken"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			r := e.Do(t, "POST", "/api/account/login/idp", "", tt.body)
			is.Equal(r.Status, 400) // malformed
			m := r.Map(t)
			is.Equal(m["type"], "/problems/validation") // a validation problem
			if tt.field != "" {
				errs, _ := m["errors"].(map[string]any)
				is.True(errs[tt.field] != nil) // names the field
			}
		})
	}
	is := is.New(t)
	is.Equal(e.idp.Hits().Discovery, 0) // nothing reached the provider
}

func TestIdPInactiveAndDeletedUsers(t *testing.T) {
	t.Parallel()
	e := newIdPEnv(t, func(c *app.Config, _ *oidctest.Provider) {
		c.OIDCAutoProvision, c.OIDCAllowedDomains = true, []string{"example.com"}
	})
	ctx := context.Background()
	ada := e.user(t, "ada@example.com")
	token := func() string { return e.idp.Mint("RS256", e.claims("subject-ada", "ada@example.com")) }
	signedIn(t, e.login(t, token(), ""), ada) // linked

	is := is.New(t)
	is.NoErr(e.SetUserState(ctx, ada, false, false, e.Clock.Now())) // deactivated
	is.Equal(e.login(t, token(), "").Status, 401)                   // an inactive linked user is refused
	is.NoErr(e.SetUserState(ctx, ada, true, false, e.Clock.Now()))  // active again
	signedIn(t, e.login(t, token(), ""), ada)                       // signs in again

	is.NoErr(e.SetUserState(ctx, ada, true, true, e.Clock.Now()))                         // deleted
	is.Equal(e.login(t, token(), "").Status, 401)                                         // a deleted linked user is refused...
	is.Equal(e.count(t, `SELECT count(*) FROM users WHERE email = 'ada@example.com'`), 1) // ...and not provisioned again
	is.Equal(e.linkedTo(t, "subject-ada"), ada)                                           // the link stays

	// An administrator makes the person a new account: the link moves to
	// it, since its verified email matches.
	again := e.user(t, "ada@example.com")
	signedIn(t, e.login(t, token(), ""), again)
	is.Equal(e.linkedTo(t, "subject-ada"), again) // linked to the new account
}

func TestIdPConcurrentFirstSignIns(t *testing.T) {
	t.Parallel()
	e := newIdPEnv(t, func(c *app.Config, _ *oidctest.Provider) {
		c.OIDCAutoProvision, c.OIDCAllowedDomains = true, []string{"example.com"}
	})
	known := e.user(t, "known@example.com")
	tests := []struct {
		name  string
		email string
	}{
		{"linked by email", "known@example.com"},
		{"provisioned", "newcomer@example.com"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			tok := e.idp.Mint("ES256", e.claims("subject-"+tt.email, tt.email))
			const n = 8
			ids := make(chan string, n)
			var wg sync.WaitGroup
			for range n {
				wg.Add(1)
				go func() {
					defer wg.Done()
					r := e.login(t, tok, "")
					if r.Status != 200 {
						ids <- "status " + strconv.Itoa(r.Status) + " " + string(r.Body)
						return
					}
					ids <- r.Map(t)["userId"].(string)
				}()
			}
			wg.Wait()
			close(ids)
			first := ""
			for id := range ids {
				if first == "" {
					first = id
				}
				is.Equal(id, first) // every sign-in is the same user
			}
			if tt.email == "known@example.com" {
				is.Equal(first, strconv.FormatInt(known, 10)) // the known user
			}
			is.Equal(e.count(t, `SELECT count(*) FROM users WHERE email = ?`, tt.email), 1)                        // one account
			is.Equal(e.count(t, `SELECT count(*) FROM user_identities WHERE subject = ?`, "subject-"+tt.email), 1) // one link
		})
	}
}

func TestIdPRouteDocumented(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	s := apptest.New(t)
	var doc struct {
		Paths map[string]map[string]struct {
			RequestBody map[string]any            `json:"requestBody"`
			Responses   map[string]map[string]any `json:"responses"`
		} `json:"paths"`
	}
	s.Do(t, "GET", "/openapi.json", "", nil).JSON(t, &doc)
	op, ok := doc.Paths["/api/account/login/idp"]["post"]
	is.True(ok)                    // the route is documented
	is.True(op.RequestBody != nil) // with its body
	for _, status := range []string{"200", "400", "401", "502"} {
		_, ok := op.Responses[status]
		is.True(ok) // every status it answers
	}
}
