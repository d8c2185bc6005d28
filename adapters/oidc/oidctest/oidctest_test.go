package oidctest_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/matryer/is"

	"counsel/adapters/oidc"
	"counsel/adapters/oidc/oidctest"
	"counsel/domain"
)

var now = time.Date(2026, 11, 21, 9, 30, 0, 0, time.UTC)

// verifier returns the real adapter pointed at p, with a clock at now.
func verifier(t *testing.T, p *oidctest.Provider, secret string) *oidc.Provider {
	t.Helper()
	v, err := oidc.New(context.Background(), oidc.Config{
		Issuer: p.Issuer(), ClientID: oidctest.ClientID, ClientSecret: secret, RedirectURI: oidctest.RedirectURI,
		Now: func() time.Time { return now },
	})
	if err != nil {
		t.Fatalf("new verifier: %v", err)
	}
	t.Cleanup(func() { _ = v.Close() })
	return v
}

func TestTokensVerify(t *testing.T) {
	t.Parallel()
	p := oidctest.New(t)
	for _, alg := range []string{"RS384", "RS512", "PS256", "ES384", "EdDSA"} {
		p.Rotate(alg)
	}
	v := verifier(t, p, "")
	claims := p.Claims(now, "subject-1", "ada@example.com")
	tests := []struct {
		alg  string
		code string
	}{
		{"RS256", ""}, {"RS384", ""}, {"RS512", ""}, {"ES256", ""}, {"ES384", ""}, {"EdDSA", ""},
		{"PS256", domain.EUNAUTHORIZED}, // published, but not an algorithm the adapter accepts
	}
	for _, tt := range tests {
		t.Run(tt.alg, func(t *testing.T) {
			is := is.New(t)
			id, err := v.Verify(context.Background(), p.Mint(tt.alg, claims), "")
			is.Equal(domain.ErrorCode(err), tt.code) // outcome
			if tt.code == "" {
				is.Equal(id.Subject, "subject-1")                        // subject
				is.Equal(id.Issuer, p.Issuer())                          // issuer
				is.Equal(id.Email, "ada@example.com")                    // email
				is.True(id.EmailVerified)                                // verified
				is.Equal(id.GivenName+" "+id.FamilyName, "Ada Lovelace") // names
			}
		})
	}
	is := is.New(t)
	is.Equal(p.Hits().Discovery, 1) // discovered once
	is.Equal(p.Hits().JWKS, 1)      // keys fetched once
}

func TestForgeriesAreRefused(t *testing.T) {
	t.Parallel()
	p := oidctest.New(t)
	v := verifier(t, p, "")
	claims := p.Claims(now, "subject-1", "ada@example.com")
	rsa := p.Key("RS256")
	forged := p.NewKey("RS256")
	forged.ID = rsa.ID
	tests := []struct {
		name  string
		token string
	}{
		{"alg none", oidctest.MintNone(rsa.ID, claims)},
		{"HS256 keyed with the public key", oidctest.MintHMAC(rsa.PublicKeyPEM(), rsa.ID, claims)},
		{"signed by another key under a published kid", oidctest.MintWith(forged, claims)},
		{"unpublished key", oidctest.MintWith(p.NewKey("ES256"), claims)},
		{"claims changed after signing", p.Mint("RS256", claims.With("aud", "another-client"))},
		{"email removed", p.Mint("RS256", claims.With("email", nil))},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			_, err := v.Verify(context.Background(), tt.token, "")
			is.Equal(domain.ErrorCode(err), domain.EUNAUTHORIZED) // refused
		})
	}
}

func TestRotateAndPublish(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	p := oidctest.New(t)
	old := p.Key("RS256")
	next := p.Rotate("RS256")
	is.True(next.ID != old.ID)     // a new kid
	is.Equal(p.Key("RS256"), next) // the new signing key
	v := verifier(t, p, "")
	claims := p.Claims(now, "s", "ada@example.com")
	for _, k := range []*oidctest.Key{old, next} {
		_, err := v.Verify(context.Background(), oidctest.MintWith(k, claims), "")
		is.NoErr(err) // both published
	}
	p.Publish(next)
	v2 := verifier(t, p, "")
	_, err := v2.Verify(context.Background(), oidctest.MintWith(old, claims), "")
	is.Equal(domain.ErrorCode(err), domain.EUNAUTHORIZED) // withdrawn
}

func TestCodeRedemption(t *testing.T) {
	t.Parallel()
	p := oidctest.New(t)
	v := verifier(t, p, oidctest.ClientSecret)
	claims := p.Claims(now, "subject-1", "ada@example.com")
	idToken := p.Mint("RS256", claims)
	p.AddCode("good", p.Mint("ES256", claims.With("name", "Ada King")))
	p.AddCode("other-subject", p.Mint("ES256", claims.With("sub", "subject-2")))
	p.FailCode("broken", http.StatusInternalServerError, "server_error")
	tests := []struct {
		name string
		code string
		want string
	}{
		{"redeemed", "good", ""},
		{"used twice", "good", domain.EUNAUTHORIZED},
		{"unknown", "nope", domain.EUNAUTHORIZED},
		{"another subject", "other-subject", domain.EUNAUTHORIZED},
		{"provider error", "broken", domain.EUPSTREAM},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			id, err := v.Verify(context.Background(), idToken, tt.code)
			is.Equal(domain.ErrorCode(err), tt.want) // outcome
			if tt.want == "" {
				is.Equal(id.Name, "Ada King") // from the exchanged token
			}
		})
	}
	t.Run("wrong client secret", func(t *testing.T) {
		is := is.New(t)
		p.AddCode("c2", idToken)
		p.SetClient(oidctest.Client{ID: oidctest.ClientID, Secret: "rotated"})
		defer p.SetClient(oidctest.Client{ID: oidctest.ClientID, Secret: oidctest.ClientSecret, RedirectURI: oidctest.RedirectURI})
		_, err := v.Verify(context.Background(), idToken, "c2")
		is.Equal(domain.ErrorCode(err), domain.EUNAUTHORIZED) // invalid_client
	})
	is := is.New(t)
	is.Equal(p.Hits().Token, 6) // every code went to the token endpoint
}

func TestDownAndUp(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	p := oidctest.New(t)
	v := verifier(t, p, "")
	tok := p.Mint("RS256", p.Claims(now, "s", "ada@example.com"))
	p.Down()
	_, err := v.Verify(context.Background(), tok, "")
	is.Equal(domain.ErrorCode(err), domain.EUPSTREAM) // unreachable
	p.Up()
	_, err = v.Verify(context.Background(), tok, "")
	is.NoErr(err) // back
}
