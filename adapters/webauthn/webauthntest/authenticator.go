// Package webauthntest is a software authenticator for tests: it answers
// the options of a Counsel ceremony the way a browser and a platform
// authenticator would (attestation "none", ECDSA P-256 over SHA-256),
// written from the WebAuthn specification without the library the server
// uses, so it also checks that library independently. Fields let a test
// break one thing at a time: the origin, the relying party id, the user
// verification flag, the signature counter.
package webauthntest

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"sort"
)

// Flags of authenticator data (WebAuthn §6.1).
const (
	flagUP = 0x01 // user present
	flagUV = 0x04 // user verified
	flagAT = 0x40 // attested credential data included
)

// Authenticator holds one discoverable credential.
type Authenticator struct {
	Key          *ecdsa.PrivateKey
	CredentialID []byte
	UserHandle   []byte // set by Create from the options' user.id
	// Counter is the signature counter; each assertion adds one first
	// (unless NoCounter). Set it to go backwards.
	Counter   uint32
	NoCounter bool
	// Origin is the page's origin the client data names.
	Origin string
	// RPID, when set, replaces the options' relying party id in the
	// authenticator data's hash (a phishing site's own id).
	RPID string
	// SkipUV leaves the user-verified flag out.
	SkipUV bool
}

// New returns an authenticator with a fresh key and credential id for
// pages of origin.
func New(origin string) *Authenticator {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		panic(err)
	}
	id := make([]byte, 16)
	if _, err := rand.Read(id); err != nil {
		panic(err)
	}
	return &Authenticator{Key: key, CredentialID: id, Origin: origin}
}

var b64 = base64.RawURLEncoding

// options is what the authenticator reads of either options object.
type options struct {
	Challenge string `json:"challenge"`
	RPID      string `json:"rpId"`
	RP        struct {
		ID string `json:"id"`
	} `json:"rp"`
	User struct {
		ID string `json:"id"`
	} `json:"user"`
}

func parse(raw []byte) (options, error) {
	var o options
	if err := json.Unmarshal(raw, &o); err != nil {
		return o, err
	}
	if o.RPID == "" {
		o.RPID = o.RP.ID
	}
	return o, nil
}

func (a *Authenticator) clientData(typ, challenge string) []byte {
	b, _ := json.Marshal(map[string]any{"type": typ, "challenge": challenge, "origin": a.Origin, "crossOrigin": false})
	return b
}

func (a *Authenticator) authData(rpID string, flags byte, counter uint32, attested []byte) []byte {
	if a.RPID != "" {
		rpID = a.RPID
	}
	h := sha256.Sum256([]byte(rpID))
	if !a.SkipUV {
		flags |= flagUV
	}
	out := append(h[:], flags|flagUP)
	out = binary.BigEndian.AppendUint32(out, counter)
	return append(out, attested...)
}

// Create answers creation options (the JSON of
// PublicKeyCredentialCreationOptions) with a new credential, as
// PublicKeyCredential.toJSON() writes it.
func (a *Authenticator) Create(creationOptions []byte) ([]byte, error) {
	o, err := parse(creationOptions)
	if err != nil {
		return nil, fmt.Errorf("creation options: %w", err)
	}
	if a.UserHandle, err = b64.DecodeString(o.User.ID); err != nil {
		return nil, fmt.Errorf("user.id: %w", err)
	}
	x, y := a.Key.X.FillBytes(make([]byte, 32)), a.Key.Y.FillBytes(make([]byte, 32))
	// COSE_Key (RFC 9053): kty EC2, alg ES256, crv P-256, x, y.
	coseKey := cborMap([][2][]byte{
		{cborInt(1), cborInt(2)}, {cborInt(3), cborInt(-7)}, {cborInt(-1), cborInt(1)},
		{cborInt(-2), cborBytes(x)}, {cborInt(-3), cborBytes(y)},
	})
	attested := make([]byte, 16) // AAGUID: zero, as attestation "none" allows
	attested = binary.BigEndian.AppendUint16(attested, uint16(len(a.CredentialID)))
	attested = append(attested, a.CredentialID...)
	attested = append(attested, coseKey...)
	authData := a.authData(o.RPID, flagAT, a.Counter, attested)
	attObj := cborMap([][2][]byte{
		{cborText("fmt"), cborText("none")}, {cborText("attStmt"), cborMap(nil)}, {cborText("authData"), cborBytes(authData)},
	})
	return json.Marshal(map[string]any{
		"id": b64.EncodeToString(a.CredentialID), "rawId": b64.EncodeToString(a.CredentialID), "type": "public-key",
		"authenticatorAttachment": "platform", "clientExtensionResults": map[string]any{},
		"response": map[string]any{
			"clientDataJSON":    b64.EncodeToString(a.clientData("webauthn.create", o.Challenge)),
			"attestationObject": b64.EncodeToString(attObj),
			"transports":        []string{"internal"},
		},
	})
}

// Get answers request options (the JSON of
// PublicKeyCredentialRequestOptions) with an assertion of the credential.
func (a *Authenticator) Get(requestOptions []byte) ([]byte, error) {
	o, err := parse(requestOptions)
	if err != nil {
		return nil, fmt.Errorf("request options: %w", err)
	}
	if !a.NoCounter {
		a.Counter++
	}
	authData := a.authData(o.RPID, 0, a.Counter, nil)
	clientData := a.clientData("webauthn.get", o.Challenge)
	cdHash := sha256.Sum256(clientData)
	digest := sha256.Sum256(append(append([]byte{}, authData...), cdHash[:]...))
	sig, err := ecdsa.SignASN1(rand.Reader, a.Key, digest[:])
	if err != nil {
		return nil, err
	}
	return json.Marshal(map[string]any{
		"id": b64.EncodeToString(a.CredentialID), "rawId": b64.EncodeToString(a.CredentialID), "type": "public-key",
		"authenticatorAttachment": "platform", "clientExtensionResults": map[string]any{},
		"response": map[string]any{
			"clientDataJSON":    b64.EncodeToString(clientData),
			"authenticatorData": b64.EncodeToString(authData),
			"signature":         b64.EncodeToString(sig),
			"userHandle":        b64.EncodeToString(a.UserHandle),
		},
	})
}

// The few CBOR items (RFC 8949) the answers need.

func cborHead(major byte, n uint64) []byte {
	switch {
	case n < 24:
		return []byte{major<<5 | byte(n)}
	case n < 1<<8:
		return []byte{major<<5 | 24, byte(n)}
	case n < 1<<16:
		return binary.BigEndian.AppendUint16([]byte{major<<5 | 25}, uint16(n))
	default:
		return binary.BigEndian.AppendUint32([]byte{major<<5 | 26}, uint32(n))
	}
}

func cborInt(v int64) []byte {
	if v >= 0 {
		return cborHead(0, uint64(v))
	}
	return cborHead(1, uint64(-1-v))
}

func cborBytes(b []byte) []byte { return append(cborHead(2, uint64(len(b))), b...) }
func cborText(s string) []byte  { return append(cborHead(3, uint64(len(s))), s...) }

// cborMap encodes pairs in the canonical order (shorter keys first, then
// bytewise), as CTAP2 writes them.
func cborMap(pairs [][2][]byte) []byte {
	sort.SliceStable(pairs, func(i, j int) bool {
		ki, kj := pairs[i][0], pairs[j][0]
		if len(ki) != len(kj) {
			return len(ki) < len(kj)
		}
		return string(ki) < string(kj)
	})
	out := cborHead(5, uint64(len(pairs)))
	for _, p := range pairs {
		out = append(out, p[0]...)
		out = append(out, p[1]...)
	}
	return out
}
