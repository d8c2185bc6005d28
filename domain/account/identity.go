package account

import "counsel/domain"

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

// RelinkCheck decides whether an identity already linked to user linkedID
// (deleted: whether that user is deleted) may be linked to another user.
// Stores read the link and the user's state in the transaction that
// relinks, lock them there, and call it before writing; an error leaves
// the link as it was and is returned as is.
type RelinkCheck func(linkedID int64, deleted bool) error

// CheckRelink is the relinking rule: an identity linked to a deleted user
// may move to another user (an account an administrator made for the
// person anew), while a link to an undeleted user stays (ECONFLICT), so a
// matching email never takes an identity from a live account.
func CheckRelink(_ int64, deleted bool) error {
	if deleted {
		return nil
	}
	return domain.Errorf(domain.ECONFLICT, "the identity is already linked to a user")
}
