package totp

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"errors"
	"fmt"
	"io"

	"counsel/ports"
)

// Sealer implements ports.Sealer with AES-256-GCM under a key derived from
// the vault's master key for one purpose, so secrets of one kind never
// open as another kind, nor as authenticator secrets. The label is the
// additional data: a sealed value copied to another record does not open.
type Sealer struct {
	aead cipher.AEAD
	rand io.Reader
}

var _ ports.Sealer = (*Sealer)(nil)

// NewSealer returns a sealer under master (KeySize bytes) for purpose. A
// nil r uses crypto/rand for nonces.
func NewSealer(master []byte, purpose string, r io.Reader) (*Sealer, error) {
	if len(master) != KeySize {
		return nil, fmt.Errorf("sealer: key is %d bytes, want %d", len(master), KeySize)
	}
	if purpose == "" {
		return nil, errors.New("sealer: a purpose is required")
	}
	if r == nil {
		r = rand.Reader
	}
	block, err := aes.NewCipher(derive(master, "counsel sealer: "+purpose))
	if err != nil {
		return nil, fmt.Errorf("sealer: %w", err)
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return nil, fmt.Errorf("sealer: %w", err)
	}
	return &Sealer{aead: aead, rand: r}, nil
}

// Seal implements ports.Sealer: version, random nonce, ciphertext.
func (s *Sealer) Seal(label string, plain []byte) ([]byte, error) {
	n := s.aead.NonceSize()
	out := make([]byte, 1+n, 1+n+len(plain)+s.aead.Overhead())
	out[0] = sealVersion
	if _, err := io.ReadFull(s.rand, out[1:]); err != nil {
		return nil, fmt.Errorf("sealer: random: %w", err)
	}
	return s.aead.Seal(out, out[1:], plain, []byte(label)), nil
}

var errNotOpened = errors.New("sealer: the sealed value does not open (altered, another record's, or another key)")

// Open implements ports.Sealer.
func (s *Sealer) Open(label string, sealed []byte) ([]byte, error) {
	n := 1 + s.aead.NonceSize()
	if len(sealed) < n+s.aead.Overhead() || sealed[0] != sealVersion {
		return nil, errNotOpened
	}
	out, err := s.aead.Open(nil, sealed[1:n], sealed[n:], []byte(label))
	if err != nil {
		return nil, errNotOpened
	}
	return out, nil
}
