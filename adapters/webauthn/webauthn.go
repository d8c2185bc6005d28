// Package webauthn runs the passkey ceremonies of docs/decisions.md §20
// through github.com/go-webauthn/webauthn: discoverable credentials
// (resident keys), user verification required, attestation "none". It
// holds no state: the ceremony's state goes out as bytes that the caller
// keeps server-side (ports.PasskeyStore) until the answer comes.
package webauthn

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"

	"github.com/go-webauthn/webauthn/protocol"
	gowebauthn "github.com/go-webauthn/webauthn/webauthn"

	"counsel/domain"
	"counsel/domain/account"
	"counsel/ports"
)

// Ceremony implements ports.PasskeyCeremony.
type Ceremony struct {
	w *gowebauthn.WebAuthn
}

var _ ports.PasskeyCeremony = (*Ceremony)(nil)

// RelyingParty derives the relying party from the public URL: its host is
// the id and its origin the one origin accepted. A development URL on
// localhost or 127.0.0.1 has the id "localhost" (browsers refuse an IP
// address as an id) and accepts both hosts on the URL's port.
func RelyingParty(publicURL string) (id string, origins []string, err error) {
	u, err := url.Parse(publicURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Hostname() == "" {
		return "", nil, fmt.Errorf("passkeys need an http(s) public URL, got %q", publicURL)
	}
	host := u.Hostname()
	origin := u.Scheme + "://" + u.Host
	if host == "localhost" || host == "127.0.0.1" {
		port := ""
		if u.Port() != "" {
			port = ":" + u.Port()
		}
		return "localhost", []string{u.Scheme + "://localhost" + port, u.Scheme + "://127.0.0.1" + port}, nil
	}
	return host, []string{origin}, nil
}

// New returns the ceremonies of the relying party of publicURL.
func New(publicURL string) (*Ceremony, error) {
	id, origins, err := RelyingParty(publicURL)
	if err != nil {
		return nil, err
	}
	timeout := gowebauthn.TimeoutConfig{Enforce: true, Timeout: account.PasskeyChallengeTTL, TimeoutUVD: account.PasskeyChallengeTTL}
	w, err := gowebauthn.New(&gowebauthn.Config{
		RPID:                  id,
		RPDisplayName:         "Counsel",
		RPOrigins:             origins,
		AttestationPreference: protocol.PreferNoAttestation,
		AuthenticatorSelection: protocol.AuthenticatorSelection{
			RequireResidentKey: protocol.ResidentKeyRequired(),
			ResidentKey:        protocol.ResidentKeyRequirementRequired,
			UserVerification:   protocol.VerificationRequired,
		},
		Timeouts: gowebauthn.TimeoutsConfig{Login: timeout, Registration: timeout},
	})
	if err != nil {
		return nil, fmt.Errorf("passkeys: %w", err)
	}
	return &Ceremony{w: w}, nil
}

// UserHandle implements ports.PasskeyCeremony: the user's id as 8
// big-endian bytes (ids are never reused, so a handle names one account
// for ever; it carries no personal data).
func (c *Ceremony) UserHandle(userID int64) []byte {
	return binary.BigEndian.AppendUint64(nil, uint64(userID))
}

// user is an account as the library sees it.
type user struct {
	handle []byte
	email  string
	creds  []gowebauthn.Credential
}

func (u user) WebAuthnID() []byte                           { return u.handle }
func (u user) WebAuthnName() string                         { return u.email }
func (u user) WebAuthnDisplayName() string                  { return u.email }
func (u user) WebAuthnCredentials() []gowebauthn.Credential { return u.creds }

func (c *Ceremony) user(u account.PasskeyUser) (user, error) {
	out := user{handle: c.UserHandle(u.UserID), email: u.Email}
	for _, p := range u.Passkeys {
		cred, err := decodeCredential(p)
		if err != nil {
			return user{}, err
		}
		out.creds = append(out.creds, cred)
	}
	return out, nil
}

func decodeCredential(p account.Passkey) (gowebauthn.Credential, error) {
	var cred gowebauthn.Credential
	if err := json.Unmarshal(p.Credential, &cred); err != nil {
		return cred, fmt.Errorf("passkey %d: stored credential: %w", p.ID, err)
	}
	cred.Authenticator.SignCount = p.SignCount // the store's counter is the one kept up to date
	return cred, nil
}

// BeginRegistration implements ports.PasskeyCeremony.
func (c *Ceremony) BeginRegistration(u account.PasskeyUser) (json.RawMessage, []byte, error) {
	wu, err := c.user(u)
	if err != nil {
		return nil, nil, err
	}
	creation, sd, err := c.w.BeginRegistration(wu,
		gowebauthn.WithExclusions(gowebauthn.Credentials(wu.creds).CredentialDescriptors()),
		gowebauthn.WithResidentKeyRequirement(protocol.ResidentKeyRequirementRequired),
		gowebauthn.WithConveyancePreference(protocol.PreferNoAttestation))
	if err != nil {
		return nil, nil, fmt.Errorf("begin passkey registration: %w", err)
	}
	return encodeBegin(creation.Response, sd)
}

func encodeBegin(options any, sd *gowebauthn.SessionData) (json.RawMessage, []byte, error) {
	opts, err := json.Marshal(options)
	if err != nil {
		return nil, nil, fmt.Errorf("passkey options: %w", err)
	}
	session, err := json.Marshal(sd)
	if err != nil {
		return nil, nil, fmt.Errorf("passkey ceremony state: %w", err)
	}
	return opts, session, nil
}

func decodeSession(session []byte) (gowebauthn.SessionData, error) {
	var sd gowebauthn.SessionData
	if err := json.Unmarshal(session, &sd); err != nil {
		return sd, fmt.Errorf("passkey ceremony state: %w", err)
	}
	return sd, nil
}

// badCredential is the 400 of a body that is not a WebAuthn answer.
func badCredential(err error) error {
	return domain.Invalid(map[string][]string{"credential": {"credential is not a WebAuthn " + reason(err)}})
}

// reason is the library's short description of what failed (never key
// material: the library's details name the check).
func reason(err error) string {
	var pe *protocol.Error
	if errors.As(err, &pe) && pe.Details != "" {
		return pe.Details
	}
	return "answer"
}

// FinishRegistration implements ports.PasskeyCeremony.
func (c *Ceremony) FinishRegistration(u account.PasskeyUser, session []byte, credential json.RawMessage) (account.Passkey, error) {
	parsed, err := protocol.ParseCredentialCreationResponseBytes(credential)
	if err != nil {
		return account.Passkey{}, badCredential(err)
	}
	sd, err := decodeSession(session)
	if err != nil {
		return account.Passkey{}, err
	}
	wu, err := c.user(u)
	if err != nil {
		return account.Passkey{}, err
	}
	cred, err := c.w.CreateCredential(wu, sd, parsed)
	if err != nil {
		return account.Passkey{}, domain.Invalid(map[string][]string{"credential": {"the passkey was not accepted: " + reason(err)}})
	}
	if !cred.Flags.UserVerified {
		return account.Passkey{}, domain.Invalid(map[string][]string{"credential": {"the passkey was not accepted: user verification is required"}})
	}
	data, err := json.Marshal(cred)
	if err != nil {
		return account.Passkey{}, fmt.Errorf("encode credential: %w", err)
	}
	return account.Passkey{UserID: u.UserID, CredentialID: cred.ID, Credential: data, SignCount: cred.Authenticator.SignCount}, nil
}

// BeginLogin implements ports.PasskeyCeremony.
func (c *Ceremony) BeginLogin() (json.RawMessage, []byte, error) {
	assertion, sd, err := c.w.BeginDiscoverableLogin(gowebauthn.WithUserVerification(protocol.VerificationRequired))
	if err != nil {
		return nil, nil, fmt.Errorf("begin passkey sign-in: %w", err)
	}
	return encodeBegin(assertion.Response, sd)
}

// FinishLogin implements ports.PasskeyCeremony. The library checks the
// challenge, the origin, the relying party id's hash, the user presence
// and verification flags and the signature (TestLibraryRefuses).
func (c *Ceremony) FinishLogin(session []byte, credential json.RawMessage, lookup func(credentialID, userHandle []byte) (account.Passkey, error)) (account.PasskeyAssertion, *account.Passkey, error) {
	parsed, err := protocol.ParseCredentialRequestResponseBytes(credential)
	if err != nil {
		return account.PasskeyAssertion{}, nil, badCredential(err)
	}
	sd, err := decodeSession(session)
	if err != nil {
		return account.PasskeyAssertion{}, nil, err
	}
	var found *account.Passkey
	var lookupErr error
	handler := func(rawID, userHandle []byte) (gowebauthn.User, error) {
		p, err := lookup(rawID, userHandle)
		if err != nil {
			lookupErr = err
			return nil, err
		}
		if !bytes.Equal(userHandle, c.UserHandle(p.UserID)) {
			lookupErr = domain.Errorf(domain.ENOTFOUND, "the user handle is not the passkey's owner")
			return nil, lookupErr
		}
		found = &p
		cred, err := decodeCredential(p)
		if err != nil {
			lookupErr = err
			return nil, err
		}
		return user{handle: c.UserHandle(p.UserID), creds: []gowebauthn.Credential{cred}}, nil
	}
	_, cred, err := c.w.ValidatePasskeyLogin(handler, sd, parsed)
	if lookupErr != nil {
		return account.PasskeyAssertion{}, nil, lookupErr
	}
	if err != nil || found == nil {
		return account.PasskeyAssertion{}, found, &domain.Error{Code: domain.EUNAUTHORIZED, Message: "the passkey's assertion did not verify: " + reason(err)}
	}
	if !parsed.Response.AuthenticatorData.Flags.HasUserVerified() {
		// The library requires it already (user verification required);
		// the rule does not rest on one option.
		return account.PasskeyAssertion{}, found, &domain.Error{Code: domain.EUNAUTHORIZED, Message: "the passkey's assertion has no user verification"}
	}
	return account.PasskeyAssertion{PasskeyID: found.ID, UserID: found.UserID, SignCount: cred.Authenticator.SignCount}, found, nil
}
