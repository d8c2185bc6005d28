package totp

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"io"

	"counsel/ports"
)

// KeySize is the vault's master key length.
const KeySize = 32

// sealVersion starts every sealed secret, so a later key or algorithm can
// be told apart from this one.
const sealVersion = 1

// Vault implements ports.TOTPVault. Two keys are derived from the master
// key: one for AES-256-GCM, one for the recovery-code HMAC, so neither use
// weakens the other.
type Vault struct {
	aead     cipher.AEAD
	hmacKey  []byte
	rand     io.Reader
	overhead int
}

var _ ports.TOTPVault = (*Vault)(nil)

// NewVault returns a vault under master (KeySize bytes). A nil r uses
// crypto/rand for nonces.
func NewVault(master []byte, r io.Reader) (*Vault, error) {
	if len(master) != KeySize {
		return nil, fmt.Errorf("totp vault: key is %d bytes, want %d", len(master), KeySize)
	}
	if r == nil {
		r = rand.Reader
	}
	block, err := aes.NewCipher(derive(master, "counsel totp secret encryption"))
	if err != nil {
		return nil, fmt.Errorf("totp vault: %w", err)
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return nil, fmt.Errorf("totp vault: %w", err)
	}
	return &Vault{aead: aead, hmacKey: derive(master, "counsel totp recovery codes"), rand: r,
		overhead: 1 + aead.NonceSize() + aead.Overhead()}, nil
}

func derive(master []byte, purpose string) []byte {
	m := hmac.New(sha256.New, master)
	m.Write([]byte(purpose))
	return m.Sum(nil)
}

// aad binds a sealed secret to its user: a row copied onto another user
// does not open.
func aad(userID int64) []byte {
	b := make([]byte, 0, 20)
	b = append(b, "totp-user:"...)
	return binary.BigEndian.AppendUint64(b, uint64(userID))
}

// Seal implements ports.TOTPVault: version, random nonce, ciphertext.
func (v *Vault) Seal(userID int64, secret []byte) ([]byte, error) {
	out := make([]byte, 1+v.aead.NonceSize(), v.overhead+len(secret))
	out[0] = sealVersion
	if _, err := io.ReadFull(v.rand, out[1:]); err != nil {
		return nil, fmt.Errorf("totp vault: random: %w", err)
	}
	return v.aead.Seal(out, out[1:], secret, aad(userID)), nil
}

var errSealed = errors.New("totp vault: the sealed secret does not open (altered, another user's, or another key)")

// Open implements ports.TOTPVault.
func (v *Vault) Open(userID int64, sealed []byte) ([]byte, error) {
	if len(sealed) < v.overhead || sealed[0] != sealVersion {
		return nil, errSealed
	}
	n := 1 + v.aead.NonceSize()
	out, err := v.aead.Open(nil, sealed[1:n], sealed[n:], aad(userID))
	if err != nil {
		return nil, errSealed
	}
	return out, nil
}

// HashRecovery implements ports.TOTPVault.
func (v *Vault) HashRecovery(userID int64, code string) []byte {
	m := hmac.New(sha256.New, v.hmacKey)
	m.Write(aad(userID))
	m.Write([]byte(code))
	return m.Sum(nil)
}
