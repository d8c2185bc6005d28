// Package otp makes one-time passwords: six digits drawn uniformly from a
// cryptographic random source, and an HMAC-SHA256 of each code keyed with a
// server secret, so the database never holds a usable code.
//
// Codes come from crypto/rand rather than TOTP (pquerna/otp): the service
// needs single-use codes that a newer code replaces and five wrong tries
// void, which is per-code state anyway; a TOTP secret per user would add a
// secret to store without removing any of that state.
package otp

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"io"

	"counsel/ports"
)

// Codes implements ports.OTPCodes.
type Codes struct {
	key  []byte
	rand io.Reader
}

var _ ports.OTPCodes = (*Codes)(nil)

// New returns a code maker keyed with key. A nil r uses crypto/rand.
func New(key []byte, r io.Reader) *Codes {
	if r == nil {
		r = rand.Reader
	}
	return &Codes{key: key, rand: r}
}

// Generate implements ports.OTPCodes. Rejection sampling keeps the digits
// uniform: values at or above the largest multiple of 10^6 are redrawn.
func (c *Codes) Generate() (string, error) {
	const limit = (1 << 32) / 1_000_000 * 1_000_000
	var b [4]byte
	for {
		if _, err := io.ReadFull(c.rand, b[:]); err != nil {
			return "", fmt.Errorf("otp: random: %w", err)
		}
		if v := binary.BigEndian.Uint32(b[:]); v < limit {
			return fmt.Sprintf("%06d", v%1_000_000), nil
		}
	}
}

// Hash implements ports.OTPCodes.
func (c *Codes) Hash(email, code string) []byte {
	m := hmac.New(sha256.New, c.key)
	m.Write([]byte(email))
	m.Write([]byte{0})
	m.Write([]byte(code))
	return m.Sum(nil)
}
