package ports

import (
	"context"

	"counsel/domain/account"
)

// IdentityProvider verifies sign-ins through an external OpenID Connect
// provider (Google Workspace, Microsoft Entra ID, ...).
type IdentityProvider interface {
	// Verify checks idToken (signature, algorithm, issuer, audience, times,
	// email) and, when a client secret is configured, exchanges code at the
	// token endpoint and checks that the returned ID token has the same
	// subject. It returns EUNAUTHORIZED for any token that does not verify
	// (the *domain.Error's Err says why, for the log) and EUPSTREAM when the
	// provider cannot be reached for keys or the code exchange.
	Verify(ctx context.Context, idToken, code string) (account.ExternalIdentity, error)
	// AuthorizationURL is the provider's authorization endpoint with an
	// authorization-code request (scope openid email profile) carrying
	// state, nonce and the PKCE S256 challenge. EUPSTREAM when discovery
	// fails.
	AuthorizationURL(ctx context.Context, state, nonce, challenge, redirectURI string) (string, error)
	// ExchangeCode redeems an authorization code with its PKCE verifier
	// and verifies the ID token the provider answers with (its nonce is
	// returned, not checked). EUNAUTHORIZED, EUPSTREAM as for Verify.
	ExchangeCode(ctx context.Context, code, verifier, redirectURI string) (account.ExternalIdentity, error)
}
