// Package totp is the authenticator-app adapter: RFC 6238 codes through
// github.com/pquerna/otp (SHA1, six digits, 30-second steps), otpauth URLs
// and their QR codes, and the vault that keeps secrets sealed with
// AES-256-GCM and recovery codes as HMAC-SHA256 hashes.
package totp

import (
	"bytes"
	"crypto/rand"
	"encoding/base32"
	"fmt"
	"image/png"
	"io"
	"net/url"
	"strings"

	"counsel/domain/account"
	"counsel/ports"

	"github.com/pquerna/otp"
	"github.com/pquerna/otp/hotp"
)

// SecretSize is the secret length RFC 4226 recommends: 160 bits.
const SecretSize = 20

// QRSize is the side of the QR code image in pixels.
const QRSize = 256

// Authenticator implements ports.TOTP.
type Authenticator struct {
	issuer string
	rand   io.Reader
}

var _ ports.TOTP = (*Authenticator)(nil)

// New returns an authenticator whose enrolments name issuer. A nil r uses
// crypto/rand.
func New(issuer string, r io.Reader) *Authenticator {
	if r == nil {
		r = rand.Reader
	}
	return &Authenticator{issuer: issuer, rand: r}
}

var b32 = base32.StdEncoding.WithPadding(base32.NoPadding)

// NewSecret implements ports.TOTP.
func (a *Authenticator) NewSecret() ([]byte, error) {
	b := make([]byte, SecretSize)
	if _, err := io.ReadFull(a.rand, b); err != nil {
		return nil, fmt.Errorf("totp: random: %w", err)
	}
	return b, nil
}

var opts = hotp.ValidateOpts{Digits: otp.DigitsSix, Algorithm: otp.AlgorithmSHA1}

// Code implements ports.TOTP: the HOTP code of the step's counter
// (RFC 6238 is HOTP over the time step).
func (a *Authenticator) Code(secret []byte, step int64) string {
	if step < 0 {
		return ""
	}
	c, err := hotp.GenerateCodeCustom(b32.EncodeToString(secret), uint64(step), opts)
	if err != nil {
		return "" // only for a secret that is not base32, which ours always is
	}
	return c
}

// Enrolment implements ports.TOTP.
func (a *Authenticator) Enrolment(secret []byte, accountName string) (account.TOTPEnrolment, error) {
	s := b32.EncodeToString(secret)
	u := keyURL(a.issuer, accountName, s)
	key, err := otp.NewKeyFromURL(u)
	if err != nil {
		return account.TOTPEnrolment{}, fmt.Errorf("totp: key url: %w", err)
	}
	img, err := key.Image(QRSize, QRSize)
	if err != nil {
		return account.TOTPEnrolment{}, fmt.Errorf("totp: qr code: %w", err)
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		return account.TOTPEnrolment{}, fmt.Errorf("totp: png: %w", err)
	}
	return account.TOTPEnrolment{Secret: s, OTPAuthURL: u, QRCodePNG: buf.Bytes()}, nil
}

// keyURL builds the otpauth URL (Google's Key Uri Format) itself:
// pquerna/otp's generator does not escape every character of an issuer
// (& or + would break the query). Some apps read + as a space, so a
// plus is always %2B and a space always %20.
func keyURL(issuer, accountName, secret string) string {
	label := func(s string) string { return strings.ReplaceAll(url.PathEscape(s), "+", "%2B") }
	value := func(s string) string { return strings.ReplaceAll(url.QueryEscape(s), "+", "%20") }
	return "otpauth://totp/" + label(issuer) + ":" + label(accountName) +
		"?secret=" + secret + "&issuer=" + value(issuer) + "&algorithm=SHA1&digits=6&period=30"
}
