package totp_test

import (
	"bytes"
	"testing"

	"github.com/matryer/is"

	"counsel/adapters/totp"
)

func TestSealer(t *testing.T) {
	is := is.New(t)
	key := bytes.Repeat([]byte{7}, totp.KeySize)
	s, err := totp.NewSealer(key, "signer links", nil)
	is.NoErr(err)
	sealed, err := s.Seal("signer-link:1:2", []byte("https://sign.example/s/abc"))
	is.NoErr(err)                                            // sealed
	is.True(!bytes.Contains(sealed, []byte("sign.example"))) // unreadable at rest
	got, err := s.Open("signer-link:1:2", sealed)
	is.NoErr(err)                                       // opens
	is.Equal(string(got), "https://sign.example/s/abc") // as it was

	other, err := totp.NewSealer(key, "another purpose", nil)
	is.NoErr(err)
	otherKey, err := totp.NewSealer(bytes.Repeat([]byte{8}, totp.KeySize), "signer links", nil)
	is.NoErr(err)
	altered := append([]byte(nil), sealed...)
	altered[len(altered)-1] ^= 1
	for _, tc := range []struct {
		name   string
		s      *totp.Sealer
		label  string
		sealed []byte
	}{
		{"another label", s, "signer-link:1:3", sealed},
		{"another purpose", other, "signer-link:1:2", sealed},
		{"another key", otherKey, "signer-link:1:2", sealed},
		{"altered", s, "signer-link:1:2", altered},
		{"too short", s, "signer-link:1:2", sealed[:5]},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := tc.s.Open(tc.label, tc.sealed)
			is.New(t).True(err != nil) // does not open
		})
	}
	_, err = totp.NewSealer(key[:5], "x", nil)
	is.True(err != nil) // a short key is refused
}
