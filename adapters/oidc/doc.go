// Package oidc verifies OpenID Connect ID tokens for the identity-provider
// login (POST /api/account/login/idp) and implements ports.IdentityProvider.
//
// A Provider checks an ID token's signature against the provider's published
// keys (fetched from the discovery document's jwks_uri, or from
// COUNSEL_OIDC_JWKS_URL, cached, refetched when a token names an unknown kid
// but at most once a minute), its alg (RS256, RS384, RS512, ES256, ES384 or
// EdDSA; never none or HMAC), iss (exactly the configured issuer), aud (must
// contain the client id; with several audiences azp must be the client id),
// exp, nbf and iat (60 seconds of clock skew), and that it carries an email
// whose email_verified is not false. With a client secret configured, the
// code sent with the token is redeemed at the token endpoint and the ID token
// returned there must verify too and name the same subject.
//
// Nothing is fetched at start: discovery and the first key fetch happen on
// the first login and are retried on later logins while the provider is
// unreachable (those logins fail with 502).
//
// # Settings
//
//	COUNSEL_OIDC_ISSUER         issuer URL, exactly as the tokens' iss claim (Config.Issuer)
//	COUNSEL_OIDC_CLIENT_ID      client id registered with the provider (Config.ClientID)
//	COUNSEL_OIDC_CLIENT_SECRET  optional; turns on the code exchange (Config.ClientSecret)
//	COUNSEL_OIDC_REDIRECT_URI   the redirect URI the browser used to obtain the code (Config.RedirectURI)
//	COUNSEL_OIDC_JWKS_URL       optional; keys from here instead of the discovery document (Config.JWKSURL)
//
// The redirect URI must be registered with the provider and must be the very
// URI of the authorization request that produced the code: the token
// endpoint compares them. Without a client secret the code is ignored and
// the ID token alone signs the user in; leave the secret empty when the
// front end obtains only an ID token (for example Google's "Sign in with
// Google" button). With a secret, the front end sends both the ID token and
// the code, as a hybrid flow (response_type "code id_token") returns them.
// Ask for the scopes "openid email profile": email is required, and the
// name comes from the name, given_name and family_name claims.
//
// # Google
//
// In the Google Cloud console create an OAuth client of type "Web
// application" (APIs & Services, Credentials) and add the redirect URI to
// its authorized redirect URIs.
//
//	COUNSEL_OIDC_ISSUER=https://accounts.google.com
//	COUNSEL_OIDC_CLIENT_ID=1234567890-abc123.apps.googleusercontent.com
//	COUNSEL_OIDC_CLIENT_SECRET=<the client secret, for the code exchange>
//	COUNSEL_OIDC_REDIRECT_URI=https://counsel.example.com/auth/callback
//
// Google's tokens carry iss as either https://accounts.google.com or
// accounts.google.com; both are accepted, and the identity's issuer is
// always the configured https://accounts.google.com, so linked accounts do
// not depend on the spelling. Google sends email_verified.
//
// # Microsoft Entra ID
//
// In the Microsoft Entra admin center register an application (App
// registrations, New registration), add the redirect URI under
// Authentication with the platform "Web", and for the code exchange create a
// client secret under Certificates & secrets (use its Value). The issuer
// names your tenant by its Directory (tenant) ID:
//
//	COUNSEL_OIDC_ISSUER=https://login.microsoftonline.com/<tenant-id>/v2.0
//	COUNSEL_OIDC_CLIENT_ID=<Application (client) ID>
//	COUNSEL_OIDC_CLIENT_SECRET=<client secret value, for the code exchange>
//	COUNSEL_OIDC_REDIRECT_URI=https://counsel.example.com/auth/callback
//
// Use the tenant-specific v2.0 issuer, not common or organizations: the
// tokens' iss names the tenant and must equal the configured issuer, so a
// token from any other tenant is refused. A discovery document whose issuer
// is Microsoft's multi-tenant template
// (https://login.microsoftonline.com/{tenantid}/v2.0) is accepted for a
// configured issuer that names a tenant in its place. Entra publishes its
// keys without alg; they are chosen by kid and key type. Entra ID tokens
// carry email only when the user has one and the email scope is requested
// (add the email optional claim under Token configuration if they still
// lack it), and they carry no email_verified, which counts as verified:
// restrict sign-ins with COUNSEL_OIDC_ALLOWED_DOMAINS.
//
// # Errors
//
// Every refused token is a *domain.Error with Code EUNAUTHORIZED and one
// Message for every cause; its Err holds the reason for the server log. A
// provider that cannot be reached (connection refused, timeout, 5xx, a
// broken answer) is EUPSTREAM. A code the token endpoint refuses (4xx) is
// EUNAUTHORIZED. Error texts never contain the token or the code. Every
// outbound call has a timeout (Config.Timeout, 10 s by default) and reads at
// most 1 MiB.
package oidc
