package webauthn_test

import (
	"encoding/json"
	"testing"

	"github.com/matryer/is"

	"counsel/adapters/webauthn"
	"counsel/adapters/webauthn/webauthntest"
	"counsel/domain"
	"counsel/domain/account"
)

const publicURL = "https://counsel.example.com"

// register makes a passkey of user 7 with a's credential.
func register(t *testing.T, c *webauthn.Ceremony, a *webauthntest.Authenticator) account.Passkey {
	t.Helper()
	is := is.New(t)
	u := account.PasskeyUser{UserID: 7, Email: "a@example.com"}
	opts, session, err := c.BeginRegistration(u)
	is.NoErr(err)
	cred, err := a.Create(opts)
	is.NoErr(err)
	p, err := c.FinishRegistration(u, session, cred)
	is.NoErr(err) // registered
	p.ID = 1
	return p
}

func assert(c *webauthn.Ceremony, a *webauthntest.Authenticator, key account.Passkey) (account.PasskeyAssertion, error) {
	opts, session, err := c.BeginLogin()
	if err != nil {
		return account.PasskeyAssertion{}, err
	}
	cred, err := a.Get(opts)
	if err != nil {
		return account.PasskeyAssertion{}, err
	}
	got, _, err := c.FinishLogin(session, cred, func([]byte, []byte) (account.Passkey, error) { return key, nil })
	return got, err
}

func TestRelyingParty(t *testing.T) {
	for _, tc := range []struct {
		url, id string
		origins []string
	}{
		{"https://counsel.example.com", "counsel.example.com", []string{"https://counsel.example.com"}},
		{"https://counsel.example.com:8443/base/", "counsel.example.com", []string{"https://counsel.example.com:8443"}},
		{"http://127.0.0.1:8080", "localhost", []string{"http://localhost:8080", "http://127.0.0.1:8080"}},
		{"http://localhost", "localhost", []string{"http://localhost", "http://127.0.0.1"}},
	} {
		t.Run(tc.url, func(t *testing.T) {
			is := is.New(t)
			id, origins, err := webauthn.RelyingParty(tc.url)
			is.NoErr(err)
			is.Equal(id, tc.id)           // the relying party id
			is.Equal(origins, tc.origins) // and the accepted origins
		})
	}
	_, _, err := webauthn.RelyingParty("http://:8080")
	if err == nil {
		t.Fatal("a URL without a host was accepted")
	}
}

func TestCeremonyRoundTrip(t *testing.T) {
	is := is.New(t)
	c, err := webauthn.New(publicURL)
	is.NoErr(err)
	a := webauthntest.New(publicURL)
	p := register(t, c, a)
	is.Equal(p.CredentialID, a.CredentialID) // the authenticator's credential
	is.Equal(p.UserID, int64(7))
	got, err := assert(c, a, p)
	is.NoErr(err)                           // the assertion verifies
	is.Equal(got.SignCount, uint32(1))      // the counter reported
	is.Equal(got.UserID, int64(7))          // whose
	is.Equal(a.UserHandle, c.UserHandle(7)) // the handle the options named
}

// TestLibraryRefuses proves that the library checks what §20 relies on:
// each case breaks one thing and the ceremony is refused.
func TestLibraryRefuses(t *testing.T) {
	c, err := webauthn.New(publicURL)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		brake func(a *webauthntest.Authenticator)
	}{
		{"another origin", func(a *webauthntest.Authenticator) { a.Origin = "https://counsel.example.com.evil.test" }},
		{"another relying party id", func(a *webauthntest.Authenticator) { a.RPID = "evil.test" }},
		{"no user verification", func(a *webauthntest.Authenticator) { a.SkipUV = true }},
	} {
		t.Run("registration with "+tc.name, func(t *testing.T) {
			is := is.New(t)
			a := webauthntest.New(publicURL)
			tc.brake(a)
			u := account.PasskeyUser{UserID: 7, Email: "a@example.com"}
			opts, session, err := c.BeginRegistration(u)
			is.NoErr(err)
			cred, err := a.Create(opts)
			is.NoErr(err)
			_, err = c.FinishRegistration(u, session, cred)
			is.Equal(domain.ErrorCode(err), domain.EINVALID) // refused
		})
		t.Run("sign-in with "+tc.name, func(t *testing.T) {
			is := is.New(t)
			a := webauthntest.New(publicURL)
			p := register(t, c, a)
			tc.brake(a)
			_, err := assert(c, a, p)
			is.Equal(domain.ErrorCode(err), domain.EUNAUTHORIZED) // refused
		})
	}
	t.Run("another key's signature", func(t *testing.T) {
		is := is.New(t)
		a := webauthntest.New(publicURL)
		p := register(t, c, a)
		a.Key = webauthntest.New(publicURL).Key
		_, err := assert(c, a, p)
		is.Equal(domain.ErrorCode(err), domain.EUNAUTHORIZED) // refused
	})
	t.Run("another ceremony's challenge", func(t *testing.T) {
		is := is.New(t)
		a := webauthntest.New(publicURL)
		p := register(t, c, a)
		opts, _, err := c.BeginLogin()
		is.NoErr(err)
		_, session, err := c.BeginLogin()
		is.NoErr(err)
		cred, err := a.Get(opts)
		is.NoErr(err)
		_, _, err = c.FinishLogin(session, cred, func([]byte, []byte) (account.Passkey, error) { return p, nil })
		is.Equal(domain.ErrorCode(err), domain.EUNAUTHORIZED) // refused
	})
	t.Run("a user handle that is not the owner's", func(t *testing.T) {
		is := is.New(t)
		a := webauthntest.New(publicURL)
		p := register(t, c, a)
		a.UserHandle = c.UserHandle(8)
		_, err := assert(c, a, p)
		is.Equal(domain.ErrorCode(err), domain.ENOTFOUND) // no such passkey for that user
	})
}

// FuzzFinishBodies feeds arbitrary credentials to both finish calls: no
// panic, and a refusal is a client error, never an internal one.
func FuzzFinishBodies(f *testing.F) {
	c, err := webauthn.New(publicURL)
	if err != nil {
		f.Fatal(err)
	}
	a := webauthntest.New(publicURL)
	u := account.PasskeyUser{UserID: 7, Email: "a@example.com"}
	opts, regSession, _ := c.BeginRegistration(u)
	created, _ := a.Create(opts)
	p, err := c.FinishRegistration(u, regSession, created)
	if err != nil {
		f.Fatal(err)
	}
	opts, loginSession, _ := c.BeginLogin()
	asserted, _ := a.Get(opts)
	for _, seed := range [][]byte{created, asserted, []byte(`{}`), []byte(`null`), []byte(`{"id":"AA","rawId":"AA","type":"public-key","response":{}}`),
		[]byte(`{"id":"x","type":"public-key","response":{"clientDataJSON":"e30","attestationObject":"oA"}}`)} {
		f.Add(seed)
	}
	client := func(t *testing.T, err error) {
		switch domain.ErrorCode(err) {
		case "", domain.EINVALID, domain.EUNAUTHORIZED, domain.ENOTFOUND:
		default:
			t.Fatalf("not a client error: %v", err)
		}
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		_, err := c.FinishRegistration(u, regSession, json.RawMessage(body))
		client(t, err)
		_, _, err = c.FinishLogin(loginSession, json.RawMessage(body), func([]byte, []byte) (account.Passkey, error) { return p, nil })
		client(t, err)
	})
}
