package totp_test

import (
	"bytes"
	"crypto/rand"
	"image/png"
	"net/url"
	"strings"
	"testing"
	"time"

	"counsel/adapters/totp"
	"counsel/domain/account"

	"github.com/matryer/is"
)

// TestRFC6238Vectors checks the SHA1 test vectors of RFC 6238 appendix B,
// truncated to six digits (the last six of the eight-digit values).
func TestRFC6238Vectors(t *testing.T) {
	t.Parallel()
	a := totp.New("Counsel", nil)
	secret := []byte("12345678901234567890")
	tests := []struct {
		unix int64
		want string
	}{
		{59, "287082"},
		{1111111109, "081804"},
		{1111111111, "050471"},
		{1234567890, "005924"},
		{2000000000, "279037"},
		{20000000000, "353130"},
	}
	for _, tt := range tests {
		is := is.New(t)
		is.Equal(a.Code(secret, account.TOTPStep(time.Unix(tt.unix, 0))), tt.want) // RFC 6238 vector
	}
	is.New(t).Equal(a.Code(secret, -1), "") // no code before the epoch
}

func TestEnrolment(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	a := totp.New("Smith & Co; Law+Partners", nil)
	secret, err := a.NewSecret()
	is.NoErr(err)
	is.Equal(len(secret), totp.SecretSize) // 160 bits
	other, _ := a.NewSecret()
	is.True(!bytes.Equal(secret, other)) // random

	e, err := a.Enrolment(secret, "jane+law@firm.example")
	is.NoErr(err)
	is.Equal(len(e.Secret), 32)               // base32 without padding
	is.True(!strings.Contains(e.Secret, "=")) // apps want no padding
	u, err := url.Parse(e.OTPAuthURL)
	is.NoErr(err)
	is.Equal(u.Scheme, "otpauth")
	is.Equal(u.Host, "totp")
	is.Equal(u.Path, "/Smith & Co; Law+Partners:jane+law@firm.example") // label: issuer and account
	q := u.Query()
	is.Equal(q.Get("secret"), e.Secret)
	is.Equal(q.Get("issuer"), "Smith & Co; Law+Partners") // escaped so & ; + survive
	is.Equal(q.Get("algorithm"), "SHA1")
	is.Equal(q.Get("digits"), "6")
	is.Equal(q.Get("period"), "30")
	is.True(!strings.Contains(e.OTPAuthURL, "+")) // spaces as %20, never +

	img, err := png.Decode(bytes.NewReader(e.QRCodePNG))
	is.NoErr(err)                                  // a PNG
	is.Equal(img.Bounds().Dx(), totp.QRSize)       // of the stated size
	is.Equal(a.Code(secret, 1), a.Code(secret, 1)) // deterministic
}

func TestVault(t *testing.T) {
	t.Parallel()
	key := make([]byte, totp.KeySize)
	rand.Read(key)
	v, err := totp.NewVault(key, nil)
	is.New(t).NoErr(err)
	secret := []byte("12345678901234567890")

	t.Run("round trip", func(t *testing.T) {
		is := is.New(t)
		sealed, err := v.Seal(7, secret)
		is.NoErr(err)
		is.True(!bytes.Contains(sealed, secret)) // encrypted
		again, _ := v.Seal(7, secret)
		is.True(!bytes.Equal(sealed, again)) // a fresh nonce each time
		got, err := v.Open(7, sealed)
		is.NoErr(err)
		is.Equal(got, secret)
	})
	t.Run("refused", func(t *testing.T) {
		sealed, _ := v.Seal(7, secret)
		otherKey := make([]byte, totp.KeySize)
		other, _ := totp.NewVault(otherKey, nil)
		flipped := bytes.Clone(sealed)
		flipped[len(flipped)-1] ^= 1
		tests := []struct {
			name   string
			vault  *totp.Vault
			user   int64
			sealed []byte
		}{
			{"another user", v, 8, sealed},
			{"another key", other, 7, sealed},
			{"altered", v, 7, flipped},
			{"truncated", v, 7, sealed[:10]},
			{"empty", v, 7, nil},
			{"unknown version", v, 7, append([]byte{9}, sealed[1:]...)},
		}
		for _, tt := range tests {
			is := is.New(t)
			_, err := tt.vault.Open(tt.user, tt.sealed)
			is.True(err != nil) // does not open
		}
	})
	t.Run("recovery hashes", func(t *testing.T) {
		is := is.New(t)
		h := v.HashRecovery(7, "aaaaa11111")
		is.Equal(len(h), 32)
		is.Equal(h, v.HashRecovery(7, "aaaaa11111"))              // stable
		is.True(!bytes.Equal(h, v.HashRecovery(8, "aaaaa11111"))) // bound to the user
		is.True(!bytes.Equal(h, v.HashRecovery(7, "aaaaa11112"))) // and the code
	})
	t.Run("key size", func(t *testing.T) {
		is := is.New(t)
		_, err := totp.NewVault(key[:16], nil)
		is.True(err != nil) // AES-256 only
	})
}

// BenchmarkSecondFactorCheck is the cost of checking an app code: the
// three steps of the window, as sign-in does.
func BenchmarkSecondFactorCheck(b *testing.B) {
	a := totp.New("Counsel", nil)
	secret, _ := a.NewSecret()
	now := time.Now()
	tp := &account.TOTP{ConfirmedAt: &now}
	code := a.Code(secret, account.TOTPStep(now))
	for b.Loop() {
		if _, ok := tp.Match(account.TOTPAttempt{Code: code, CodeAt: func(s int64) string { return a.Code(secret, s) }}, now); !ok {
			b.Fatal("refused")
		}
	}
}
