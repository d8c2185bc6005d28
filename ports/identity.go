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
}
