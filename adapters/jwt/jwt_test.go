package jwt_test

import (
	"crypto/ed25519"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"counsel/adapters/jwt"
	"counsel/domain"
	"counsel/domain/account"

	"github.com/matryer/is"
)

var now = time.Date(2026, 11, 21, 9, 30, 0, 0, time.UTC)

func seed(b byte) []byte {
	s := make([]byte, ed25519.SeedSize)
	for i := range s {
		s[i] = b
	}
	return s
}

func newIssuer(t testing.TB) (*jwt.Issuer, ed25519.PrivateKey) {
	t.Helper()
	is, err := jwt.New("https://counsel.example", []account.SigningKey{jwt.NewKey("k1", seed(1), now)})
	if err != nil {
		t.Fatal(err)
	}
	return is, ed25519.NewKeyFromSeed(seed(1))
}

var claims = account.AccessClaims{UserID: 42, SessionID: "s1", ID: "j1", IssuedAt: now, ExpiresAt: now.Add(15 * time.Minute)}

func b64(v any) string {
	b, _ := json.Marshal(v)
	return base64.RawURLEncoding.EncodeToString(b)
}

// sign makes a compact JWS with any header and claims, signed with key.
func sign(key ed25519.PrivateKey, hdr, cl map[string]any) string {
	in := b64(hdr) + "." + b64(cl)
	return in + "." + base64.RawURLEncoding.EncodeToString(ed25519.Sign(key, []byte(in)))
}

func goodClaims() map[string]any {
	return map[string]any{"iss": "https://counsel.example", "sub": "42", "sid": "s1", "iat": now.Unix(), "exp": now.Add(time.Minute).Unix(), "jti": "j"}
}

func with(m map[string]any, k string, v any) map[string]any {
	c := map[string]any{}
	for a, b := range m {
		c[a] = b
	}
	if v == nil {
		delete(c, k)
	} else {
		c[k] = v
	}
	return c
}

func TestIssueAndVerify(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	iss, _ := newIssuer(t)
	tok, err := iss.Issue(t.Context(), claims)
	is.NoErr(err) // issue
	hdr, _ := base64.RawURLEncoding.DecodeString(strings.Split(tok, ".")[0])
	var h map[string]string
	is.NoErr(json.Unmarshal(hdr, &h))
	is.Equal(h["alg"], "EdDSA")
	is.Equal(h["typ"], "at+jwt")
	is.Equal(h["kid"], "k1")
	got, err := iss.Verify(tok, now.Add(time.Minute), false)
	is.NoErr(err) // verify
	is.Equal(got.UserID, int64(42))
	is.Equal(got.SessionID, "s1")
	is.Equal(got.ID, "j1")
	is.True(got.ExpiresAt.Equal(claims.ExpiresAt))
	_, err = iss.Verify(tok, now.Add(16*time.Minute), false)
	is.Equal(domain.ErrorCode(err), domain.EUNAUTHORIZED) // expired
	_, err = iss.Verify(tok, now.Add(16*time.Minute), true)
	is.NoErr(err) // expiry ignored for refresh
	var set struct {
		Keys []map[string]string
	}
	is.NoErr(json.Unmarshal(iss.JWKS(), &set))
	is.Equal(len(set.Keys), 1)
	is.Equal(set.Keys[0]["kid"], "k1")
	is.Equal(set.Keys[0]["crv"], "Ed25519")
	is.True(set.Keys[0]["d"] == "") // no private part published
}

func TestForgeries(t *testing.T) {
	t.Parallel()
	iss, key := newIssuer(t)
	other := ed25519.NewKeyFromSeed(seed(2))
	pub := key.Public().(ed25519.PublicKey)
	hdr := map[string]any{"alg": "EdDSA", "typ": "at+jwt", "kid": "k1"}
	hmacTok := func() string {
		in := b64(with(hdr, "alg", "HS256")) + "." + b64(goodClaims())
		m := hmac.New(sha256.New, pub)
		m.Write([]byte(in))
		return in + "." + base64.RawURLEncoding.EncodeToString(m.Sum(nil))
	}
	tests := []struct {
		name  string
		token string
		ok    bool
	}{
		{"well formed", sign(key, hdr, goodClaims()), true},
		{"alg none", b64(with(hdr, "alg", "none")) + "." + b64(goodClaims()) + ".", false},
		{"HS256 with the public key", hmacTok(), false},
		{"wrong kid", sign(key, with(hdr, "kid", "k9"), goodClaims()), false},
		{"no kid", sign(key, with(hdr, "kid", nil), goodClaims()), false},
		{"signed by another key", sign(other, hdr, goodClaims()), false},
		{"missing exp", sign(key, hdr, with(goodClaims(), "exp", nil)), false},
		{"wrong iss", sign(key, hdr, with(goodClaims(), "iss", "https://evil.example")), false},
		{"missing sid", sign(key, hdr, with(goodClaims(), "sid", nil)), false},
		{"non-numeric sub", sign(key, hdr, with(goodClaims(), "sub", "admin")), false},
		{"ID-token typ", sign(key, with(hdr, "typ", "JWT"), goodClaims()), false},
		{"no typ", sign(key, with(hdr, "typ", nil), goodClaims()), false},
		{"not yet valid", sign(key, hdr, with(goodClaims(), "nbf", now.Add(time.Hour).Unix())), false},
		{"garbage", "a.b.c", false},
		{"empty", "", false},
		{"huge", strings.Repeat("a", 5000), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			_, err := iss.Verify(tt.token, now, false)
			if tt.ok {
				is.NoErr(err)
				return
			}
			is.Equal(domain.ErrorCode(err), domain.EUNAUTHORIZED)               // refused
			is.True(!strings.Contains(err.Error(), tt.token) || tt.token == "") // the token is never echoed
		})
	}
}

func TestKeyRotationVerifiesOldTokens(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	old, err := jwt.New("i", []account.SigningKey{jwt.NewKey("old", seed(1), now)})
	is.NoErr(err)
	tok, err := old.Issue(t.Context(), claims)
	is.NoErr(err)
	rotated, err := jwt.New("i", []account.SigningKey{jwt.NewKey("new", seed(2), now), jwt.NewKey("old", seed(1), now)})
	is.NoErr(err)
	_, err = rotated.Verify(tok, now, false)
	is.NoErr(err) // a retired key still verifies its tokens
	fresh, err := rotated.Issue(t.Context(), claims)
	is.NoErr(err)
	is.True(strings.Contains(string(mustDecode(strings.Split(fresh, ".")[0])), `"kid":"new"`)) // new tokens use the newest key
	_, err = jwt.New("i", nil)
	is.True(err != nil) // no key, no issuer
}

func mustDecode(s string) []byte {
	b, _ := base64.RawURLEncoding.DecodeString(s)
	return b
}

// BenchmarkVerify measures a full access-token verification (parse,
// header checks, Ed25519 signature, claims) — what an uncached request
// costs, here with a token another instance signed. Cached requests skip
// it (app/accounts authenticate.go); "signed here" is a token this
// instance signed (signed.go).
func BenchmarkVerify(b *testing.B) {
	iss, _ := newIssuer(b)
	signer, _ := newIssuer(b)
	tok, err := signer.Issue(b.Context(), claims)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("elsewhere", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := iss.Verify(tok, now, false); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("signed here", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := signer.Verify(tok, now, false); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkIssue measures signing an access token.
func BenchmarkIssue(b *testing.B) {
	iss, _ := newIssuer(b)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := iss.Issue(b.Context(), claims); err != nil {
			b.Fatal(err)
		}
	}
}

// TestSignedTokensVerifyElsewhere checks that a token Issue signs without
// jwx is one jwx verifies: another instance (no memory of it) reads the
// same claims, and this instance reads them the same after a refresh took
// its remembered entry.
func TestSignedTokensVerifyElsewhere(t *testing.T) {
	t.Parallel()
	iss, _ := newIssuer(t)
	other, _ := newIssuer(t)
	odd := claims
	odd.SessionID, odd.ID = `s"\<>&`+"\u2028é", ""
	tests := []struct {
		name string
		c    account.AccessClaims
	}{
		{"plain", claims},
		{"characters JSON escapes, no jti", odd},
		{"sub-second times", account.AccessClaims{UserID: 7, SessionID: "s", ID: "j", IssuedAt: now.Add(300 * time.Millisecond), ExpiresAt: now.Add(time.Minute + 700*time.Millisecond)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			tok, err := iss.Issue(t.Context(), tt.c)
			is.NoErr(err)
			mine, err := iss.Verify(tok, now, true) // a refresh: takes the entry
			is.NoErr(err)
			theirs, err := other.Verify(tok, now, false)
			is.NoErr(err) // verified by jwx
			again, err := iss.Verify(tok, now, false)
			is.NoErr(err) // verified by jwx here too
			is.Equal(mine, theirs)
			is.Equal(mine, again)
			is.Equal(theirs.SessionID, tt.c.SessionID)
			is.Equal(theirs.ID, tt.c.ID)
			is.True(theirs.ExpiresAt.Equal(tt.c.ExpiresAt.Truncate(time.Second)))
			_, err = other.Verify(tok, theirs.ExpiresAt, false)
			is.Equal(domain.ErrorCode(err), domain.EUNAUTHORIZED) // expired at exp
		})
	}
	t.Run("remembered tokens still expire", func(t *testing.T) {
		is := is.New(t)
		tok, err := iss.Issue(t.Context(), claims)
		is.NoErr(err)
		for _, at := range []time.Time{claims.ExpiresAt, now.Add(-time.Second)} {
			_, err = iss.Verify(tok, at, false)
			is.Equal(domain.ErrorCode(err), domain.EUNAUTHORIZED) // expired, or issued in the future
		}
		_, err = iss.Verify(tok, claims.ExpiresAt.Add(time.Hour), true)
		is.NoErr(err) // a refresh ignores the expiry
	})
}
