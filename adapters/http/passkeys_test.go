package http

import (
	"net/http/httptest"
	"strings"
	"testing"

	"counsel/domain"
)

// FuzzPasskeyBodies throws arbitrary bodies at the decoders of the passkey
// finish routes and of re-authentication: a value or a client error, never
// a panic or another error. What the credential holds is the WebAuthn
// adapter's to read (its FuzzFinishBodies).
func FuzzPasskeyBodies(f *testing.F) {
	for _, seed := range []string{
		`{"challengeId":"abc","credential":{"id":"AA","rawId":"AA","type":"public-key","response":{}}}`,
		`{"challengeId":"abc","name":"Laptop","credential":{}}`, `{"challengeId":null,"credential":"text"}`,
		`{"password":"p","otp":"1"}`, `{"credential":[1,2]}`, `{`, `[]`, `null`, ``, `{"name":"\u0000"}`,
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, body string) {
		for _, in := range []any{&passkeyLoginIn{}, &passkeyRegisterIn{}, &passkeyRenameIn{}, &reauthenticateIn{}} {
			err := decode(httptest.NewRequest("POST", "/", strings.NewReader(body)), in)
			if err != nil && domain.ErrorCode(err) != domain.EINVALID {
				t.Fatalf("%q: %v (%s)", body, err, domain.ErrorCode(err))
			}
		}
	})
}
