// Package jwt issues and verifies Counsel's access tokens with
// github.com/lestrrat-go/jwx/v2: Ed25519 (alg EdDSA) JWS with typ at+jwt
// and a kid, claims iss, sub, sid, iat, exp and jti.
//
// Verification trusts nothing in the token but the kid: the algorithm must
// be EdDSA, the type at+jwt and the kid one of ours, before the signature is
// checked with that key. So alg none, HMAC tokens made with the public key,
// and ID tokens of other issuers fail.
//
// Tokens are signed here without jwx (the header is fixed per key and the
// claims are written in jwx's order), and an Issuer remembers the SHA-256
// of the tokens it signed lately (signed.go): such a token is the exact
// bytes this process signed, so its signature needs no second check.
package jwt

import (
	"context"
	"crypto/ed25519"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strconv"
	"time"

	"counsel/domain"
	"counsel/domain/account"
	"counsel/ports"

	"github.com/lestrrat-go/jwx/v2/jwa"
	"github.com/lestrrat-go/jwx/v2/jwk"
	"github.com/lestrrat-go/jwx/v2/jws"
	xjwt "github.com/lestrrat-go/jwx/v2/jwt"
)

// TokenType is the typ header of access tokens (RFC 9068).
const TokenType = "at+jwt"

// Issuer implements ports.TokenIssuer.
type Issuer struct {
	issuer  string
	current ed25519.PrivateKey
	kid     string
	public  map[string]ed25519.PublicKey
	jwks    []byte
	// header is the encoded protected header of the tokens Issue signs
	// ({"alg":"EdDSA","kid":...,"typ":"at+jwt"}, as jwx writes it) and
	// issJSON the iss claim's value as JSON.
	header  string
	issJSON []byte
	signed  signedTokens
}

var _ ports.TokenIssuer = (*Issuer)(nil)

// New returns an issuer named iss that signs with the first key of keys and
// verifies with any of them. keys must not be empty.
func New(iss string, keys []account.SigningKey) (*Issuer, error) {
	if len(keys) == 0 {
		return nil, fmt.Errorf("jwt: no signing key")
	}
	is := &Issuer{issuer: iss, public: map[string]ed25519.PublicKey{}}
	is.signed.entries = map[[32]byte]account.AccessClaims{}
	set := jwk.NewSet()
	for i, k := range keys {
		if len(k.PrivateKey) != ed25519.SeedSize {
			return nil, fmt.Errorf("jwt: key %s: bad seed length", k.ID)
		}
		priv := ed25519.NewKeyFromSeed(k.PrivateKey)
		pub := priv.Public().(ed25519.PublicKey)
		if i == 0 {
			is.current, is.kid = priv, k.ID
		}
		is.public[k.ID] = pub
		jk, err := jwk.FromRaw(pub)
		if err != nil {
			return nil, fmt.Errorf("jwt: key %s: %w", k.ID, err)
		}
		_ = jk.Set(jwk.KeyIDKey, k.ID)
		_ = jk.Set(jwk.AlgorithmKey, jwa.EdDSA)
		_ = jk.Set(jwk.KeyUsageKey, "sig")
		if err := set.AddKey(jk); err != nil {
			return nil, err
		}
	}
	b, err := json.Marshal(set)
	if err != nil {
		return nil, err
	}
	is.jwks = b
	kid, err := json.Marshal(is.kid)
	if err != nil {
		return nil, err
	}
	is.header = b64.EncodeToString([]byte(`{"alg":"EdDSA","kid":` + string(kid) + `,"typ":"` + TokenType + `"}`))
	if is.issJSON, err = json.Marshal(iss); err != nil {
		return nil, err
	}
	return is, nil
}

// NewKey makes a signing key from 32 random bytes of seed.
func NewKey(kid string, seed []byte, now time.Time) account.SigningKey {
	return account.SigningKey{ID: kid, PrivateKey: seed, CreatedAt: now}
}

// JWKS implements ports.TokenIssuer.
func (is *Issuer) JWKS() []byte { return is.jwks }

var b64 = base64.RawURLEncoding

// Issue implements ports.TokenIssuer. The token is what jwx would make of
// the same claims: the claims in its (sorted) order, times as whole
// seconds.
func (is *Issuer) Issue(_ context.Context, c account.AccessClaims) (string, error) {
	p := make([]byte, 0, 192)
	p = append(p, `{"exp":`...)
	p = strconv.AppendInt(p, c.ExpiresAt.Unix(), 10)
	p = append(p, `,"iat":`...)
	p = strconv.AppendInt(p, c.IssuedAt.Unix(), 10)
	p = append(p, `,"iss":`...)
	p = append(p, is.issJSON...)
	if c.ID != "" {
		p = append(p, `,"jti":`...)
		p = appendString(p, c.ID)
	}
	p = append(p, `,"sid":`...)
	p = appendString(p, c.SessionID)
	p = append(p, `,"sub":"`...)
	p = strconv.AppendInt(p, c.UserID, 10)
	p = append(p, `"}`...)
	tok := make([]byte, 0, len(is.header)+2+b64.EncodedLen(len(p))+b64.EncodedLen(ed25519.SignatureSize))
	tok = append(tok, is.header...)
	tok = append(tok, '.')
	tok = b64.AppendEncode(tok, p)
	sig := ed25519.Sign(is.current, tok)
	tok = append(tok, '.')
	tok = b64.AppendEncode(tok, sig)
	s := string(tok)
	// What Verify would read back: whole seconds, UTC.
	c.IssuedAt, c.ExpiresAt = time.Unix(c.IssuedAt.Unix(), 0).UTC(), time.Unix(c.ExpiresAt.Unix(), 0).UTC()
	is.signed.put(s, c)
	return s, nil
}

// appendString appends v as a JSON string.
func appendString(p []byte, v string) []byte {
	b, _ := json.Marshal(v) // a string always marshals
	return append(p, b...)
}

func unauthorized(reason string, err error) error {
	if err != nil {
		err = fmt.Errorf("%s: %w", reason, err)
	} else {
		err = fmt.Errorf("%s", reason)
	}
	return &domain.Error{Code: domain.EUNAUTHORIZED, Message: "the access token is invalid or expired", Err: err}
}

// Verify implements ports.TokenIssuer.
func (is *Issuer) Verify(token string, now time.Time, ignoreExpiry bool) (account.AccessClaims, error) {
	var c account.AccessClaims
	if len(token) > 4096 {
		return c, unauthorized("token too long", nil)
	}
	// A refresh (ignoreExpiry) uses its access token once: its entry goes.
	if sc, ok := is.signed.get(token, ignoreExpiry); ok {
		// jwx's time checks, at its one-second truncation without skew.
		t := now.Truncate(time.Second)
		if !ignoreExpiry && (!t.Before(sc.ExpiresAt) || t.Before(sc.IssuedAt)) {
			return c, unauthorized("claims: expired or not yet issued", nil)
		}
		return sc, nil
	}
	msg, err := jws.ParseString(token)
	if err != nil {
		return c, unauthorized("parse", err)
	}
	sigs := msg.Signatures()
	if len(sigs) != 1 {
		return c, unauthorized("want exactly one signature", nil)
	}
	h := sigs[0].ProtectedHeaders()
	if h.Algorithm() != jwa.EdDSA {
		return c, unauthorized("algorithm "+h.Algorithm().String()+" refused", nil)
	}
	if h.Type() != TokenType {
		return c, unauthorized("type "+strconv.Quote(h.Type())+" refused", nil)
	}
	pub, ok := is.public[h.KeyID()]
	if !ok {
		return c, unauthorized("unknown kid", nil)
	}
	payload, err := jws.Verify([]byte(token), jws.WithKey(jwa.EdDSA, pub))
	if err != nil {
		return c, unauthorized("signature", err)
	}
	opts := []xjwt.ParseOption{xjwt.WithVerify(false), xjwt.WithValidate(true),
		xjwt.WithIssuer(is.issuer), xjwt.WithRequiredClaim("sub"), xjwt.WithRequiredClaim("sid"),
		xjwt.WithRequiredClaim("exp"), xjwt.WithClock(xjwt.ClockFunc(func() time.Time { return now }))}
	if ignoreExpiry {
		// Refresh accepts an expired access token: skip the time checks by
		// validating against its own expiry, but still require the claim.
		opts = append(opts, xjwt.WithAcceptableSkew(100*365*24*time.Hour))
	}
	tok, err := xjwt.Parse(payload, opts...)
	if err != nil {
		return c, unauthorized("claims", err)
	}
	uid, err := strconv.ParseInt(tok.Subject(), 10, 64)
	if err != nil || uid <= 0 {
		return c, unauthorized("bad subject", err)
	}
	sid, _ := tok.Get("sid")
	c.SessionID, _ = sid.(string)
	if c.SessionID == "" {
		return c, unauthorized("bad sid", nil)
	}
	c.UserID, c.ID, c.IssuedAt, c.ExpiresAt = uid, tok.JwtID(), tok.IssuedAt(), tok.Expiration()
	return c, nil
}
