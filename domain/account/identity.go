package account

// ExternalIdentity is what a verified identity-provider ID token says about
// its subject.
type ExternalIdentity struct {
	Issuer        string
	Subject       string
	Email         string
	EmailVerified bool
	Name          string
	GivenName     string
	FamilyName    string
	// Nonce is the token's nonce claim; the redirect flow checks it
	// against the one it sent.
	Nonce string
}
