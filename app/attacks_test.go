package app_test

// The attack suite: what a hostile client tries, one table per
// area, through HTTP against a real SQLite file. Every case asserts that
// the attack fails. The holes the outside review found have their own
// tests in security_test.go; access control on every route is
// TestEveryProtectedRouteRefuses (permissions_http_test.go).

import (
	"archive/zip"
	"bytes"
	"compress/flate"
	"context"
	"crypto/ed25519"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"hash/crc32"
	"log/slog"
	"mime/multipart"
	"net/http"
	"net/textproto"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"counsel/app"
	"counsel/app/apptest"
	"counsel/domain/account"
	"counsel/ports/porttest"

	"github.com/matryer/is"
)

// forger re-signs access tokens with the service's own key, read from the
// database, so each attack differs from a valid token in one thing only.
type forger struct {
	kid  string
	key  ed25519.PrivateKey
	hdr  map[string]any
	body map[string]any
}

func newForger(t *testing.T, s *apptest.Server, token string) *forger {
	t.Helper()
	f := &forger{}
	var seed []byte
	err := s.QueryRow(context.Background(),
		`SELECT kid, private_key FROM signing_keys ORDER BY created_at DESC LIMIT 1`).Scan(&f.kid, &seed)
	if err != nil {
		t.Fatalf("signing key: %v", err)
	}
	f.key = ed25519.NewKeyFromSeed(seed)
	parts := strings.Split(token, ".")
	for i, v := range []*map[string]any{&f.hdr, &f.body} {
		b, err := base64.RawURLEncoding.DecodeString(parts[i])
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(b, v); err != nil {
			t.Fatal(err)
		}
	}
	return f
}

func b64json(v any) string {
	b, _ := json.Marshal(v)
	return base64.RawURLEncoding.EncodeToString(b)
}

func clone(m map[string]any) map[string]any {
	c := map[string]any{}
	for k, v := range m {
		c[k] = v
	}
	return c
}

// sign builds a token from edited copies of the header and claims,
// signed with alg ("EdDSA" with the real key, "HS256" keyed with the
// public key, "none").
func (f *forger) sign(alg string, hdr, body func(h map[string]any)) string {
	h, c := clone(f.hdr), clone(f.body)
	h["alg"] = alg
	if hdr != nil {
		hdr(h)
	}
	if body != nil {
		body(c)
	}
	input := b64json(h) + "." + b64json(c)
	var sig []byte
	switch alg {
	case "EdDSA":
		sig = ed25519.Sign(f.key, []byte(input))
	case "HS256":
		m := hmac.New(sha256.New, f.key.Public().(ed25519.PublicKey))
		m.Write([]byte(input))
		sig = m.Sum(nil)
	}
	return input + "." + base64.RawURLEncoding.EncodeToString(sig)
}

func TestAttackTokens(t *testing.T) {
	t.Parallel()
	s := apptest.New(t)
	tok := s.Login(t, apptest.AdminEmail, apptest.AdminPassword)
	f := newForger(t, s, tok.AccessToken)
	_, other, _ := ed25519.GenerateKey(nil)
	otherJWK := map[string]any{"kty": "OKP", "crv": "Ed25519", "x": base64.RawURLEncoding.EncodeToString(other.Public().(ed25519.PublicKey))}
	past := float64(apptest.Start.Add(-time.Hour).Unix())
	tests := []struct {
		name  string
		token string
		want  int
	}{
		{"control: re-signed unchanged", f.sign("EdDSA", nil, nil), 200},
		{"alg none", f.sign("none", nil, nil), 401},
		{"alg none without the dot", strings.TrimSuffix(f.sign("none", nil, nil), "."), 401},
		{"HS256 keyed with the public key", f.sign("HS256", nil, nil), 401},
		{"unknown kid", f.sign("EdDSA", func(h map[string]any) { h["kid"] = "not-ours" }, nil), 401},
		{"no kid", f.sign("EdDSA", func(h map[string]any) { delete(h, "kid") }, nil), 401},
		{"kid path traversal", f.sign("EdDSA", func(h map[string]any) { h["kid"] = "../../../../dev/null" }, nil), 401},
		{"kid SQL", f.sign("EdDSA", func(h map[string]any) { h["kid"] = "' OR '1'='1" }, nil), 401},
		{"embedded jwk of the attacker", func() string {
			h, c := clone(f.hdr), clone(f.body)
			h["jwk"], h["kid"] = otherJWK, "attacker"
			in := b64json(h) + "." + b64json(c)
			return in + "." + base64.RawURLEncoding.EncodeToString(ed25519.Sign(other, []byte(in)))
		}(), 401},
		{"jku to the attacker", f.sign("EdDSA", func(h map[string]any) { h["jku"] = "https://evil.example/jwks.json"; h["kid"] = "x" }, nil), 401},
		{"tampered claims, old signature", func() string {
			parts := strings.Split(tok.AccessToken, ".")
			c := clone(f.body)
			c["sub"] = "2"
			return parts[0] + "." + b64json(c) + "." + parts[2]
		}(), 401},
		{"truncated signature", tok.AccessToken[:len(tok.AccessToken)-4], 401},
		{"expired", f.sign("EdDSA", nil, func(c map[string]any) { c["exp"] = past }), 401},
		{"no expiry", f.sign("EdDSA", nil, func(c map[string]any) { delete(c, "exp") }), 401},
		{"other issuer", f.sign("EdDSA", nil, func(c map[string]any) { c["iss"] = "https://accounts.google.com" }), 401},
		{"ID token typ", f.sign("EdDSA", func(h map[string]any) { h["typ"] = "JWT" }, nil), 401},
		{"no typ", f.sign("EdDSA", func(h map[string]any) { delete(h, "typ") }, nil), 401},
		{"unknown session", f.sign("EdDSA", nil, func(c map[string]any) { c["sid"] = "00000000-0000-0000-0000-000000000000" }), 401},
		{"another user's session", f.sign("EdDSA", nil, func(c map[string]any) { c["sub"] = "999" }), 401},
		{"garbage", "a.b.c", 401},
		{"empty parts", "..", 401},
		{"huge", strings.Repeat("A", 64<<10), 401},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			r := s.Do(t, "GET", "/api/permissions/me", tt.token, nil)
			is.Equal(r.Status, tt.want) // the forged token is refused
		})
	}
	t.Run("a revoked session's token", func(t *testing.T) {
		is := is.New(t)
		is.Equal(s.Do(t, "POST", "/api/account/logout", tok.AccessToken, map[string]string{"refreshToken": tok.RefreshToken}).Status, 200)
		is.Equal(s.Do(t, "GET", "/api/permissions/me", f.sign("EdDSA", nil, nil), nil).Status, 401) // even re-signed
	})
}

func TestAttackSessions(t *testing.T) {
	t.Parallel()
	s := apptest.New(t)
	refresh := func(tok apptest.Tokens) *apptest.Response {
		return s.Do(t, "POST", "/api/account/refresh-token", "", map[string]string{"accessToken": tok.AccessToken, "refreshToken": tok.RefreshToken})
	}
	tests := []struct {
		name   string
		attack func(t *testing.T) bool // true when the attack failed
	}{
		{"reuse a rotated refresh token", func(t *testing.T) bool {
			tok := s.Login(t, apptest.AdminEmail, apptest.AdminPassword)
			var next apptest.Tokens
			refresh(tok).JSON(t, &next)
			reuse := refresh(tok).Status
			// Reuse revokes the whole session: the thief's and the owner's tokens die.
			return reuse == 401 && refresh(next).Status == 401 && s.Do(t, "GET", "/api/me", next.AccessToken, nil).Status == 401
		}},
		{"race one refresh token", func(t *testing.T) bool {
			tok := s.Login(t, apptest.AdminEmail, apptest.AdminPassword)
			var wg sync.WaitGroup
			var mu sync.Mutex
			ok := 0
			for range 8 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					if refresh(tok).Status == 200 {
						mu.Lock()
						ok++
						mu.Unlock()
					}
				}()
			}
			wg.Wait()
			return ok <= 1
		}},
		{"refresh with another user's access token", func(t *testing.T) bool {
			a := s.Login(t, apptest.AdminEmail, apptest.AdminPassword)
			_, _ = s.User(t)
			b := s.Login(t, "user1@example.com", "password-123")
			return refresh(apptest.Tokens{AccessToken: b.AccessToken, RefreshToken: a.RefreshToken}).Status == 401
		}},
		{"log out another user's session", func(t *testing.T) bool {
			victim := s.Login(t, apptest.AdminEmail, apptest.AdminPassword)
			_, attacker := s.User(t, account.UsersView)
			st := s.Do(t, "POST", "/api/account/logout", attacker, map[string]string{"refreshToken": victim.RefreshToken}).Status
			return st == 401 && s.Do(t, "GET", "/api/me", victim.AccessToken, nil).Status == 200 && refresh(victim).Status == 200
		}},
		{"a refresh token as an access token", func(t *testing.T) bool {
			tok := s.Login(t, apptest.AdminEmail, apptest.AdminPassword)
			return s.Do(t, "GET", "/api/me", tok.RefreshToken, nil).Status == 401
		}},
		{"refresh after the session's end", func(t *testing.T) bool {
			tok := s.Login(t, apptest.AdminEmail, apptest.AdminPassword)
			s.Clock.Advance(s.Config.RefreshTTL + time.Minute)
			defer s.Clock.Set(apptest.Start)
			return refresh(tok).Status == 401
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is.New(t).True(tt.attack(t)) // the attack failed
		})
	}
}

func TestAttackOTPAndLockout(t *testing.T) {
	t.Parallel()
	s := apptest.New(t, func(c *app.Config) { c.LockoutThreshold, c.LockoutDuration = 5, 15*time.Minute })
	admin := s.Admin(t)
	usrCreate(t, s, admin, map[string]any{"email": "otp@example.com", "firstName": "O", "password": "otp-password-1"})
	usrCreate(t, s, admin, map[string]any{"email": "lock@example.com", "firstName": "L", "password": "lock-password-1"})
	getOTP := func(email string) string {
		var r struct{ OTP string }
		s.Do(t, "POST", "/api/account/login/get-otp", "", map[string]string{"email": email}).JSON(t, &r)
		return r.OTP
	}
	login := func(email, password, otp string) int {
		return s.Do(t, "POST", "/api/account/login", "", map[string]string{"email": email, "password": password, "otp": otp}).Status
	}
	wrong := func(code string) string {
		if code == "000000" {
			return "111111"
		}
		return "000000"
	}
	tests := []struct {
		name   string
		attack func(t *testing.T) bool
	}{
		{"guess the code: five wrong tries void it", func(t *testing.T) bool {
			code := getOTP("otp@example.com")
			for range 5 {
				login("otp@example.com", "otp-password-1", wrong(code))
			}
			return login("otp@example.com", "otp-password-1", code) == 401
		}},
		{"replay a used code", func(t *testing.T) bool {
			s.Clock.Advance(time.Hour) // past the lockout of the previous case
			code := getOTP("otp@example.com")
			first := login("otp@example.com", "otp-password-1", code)
			return first == 200 && login("otp@example.com", "otp-password-1", code) == 401
		}},
		{"an expired code", func(t *testing.T) bool {
			code := getOTP("otp@example.com")
			s.Clock.Advance(s.Config.OTPTTL + time.Second)
			return login("otp@example.com", "otp-password-1", code) == 401
		}},
		{"another email's code", func(t *testing.T) bool {
			code := getOTP(apptest.AdminEmail)
			getOTP("otp@example.com")
			return login("otp@example.com", "otp-password-1", code) == 401 || code == ""
		}},
		{"brute-force the password: the account locks", func(t *testing.T) bool {
			for i := range 5 {
				login("lock@example.com", fmt.Sprintf("guess-%d-password", i), getOTP("lock@example.com"))
			}
			return login("lock@example.com", "lock-password-1", getOTP("lock@example.com")) == 401
		}},
		{"code not a number", func(t *testing.T) bool {
			getOTP("otp@example.com")
			st := login("otp@example.com", "otp-password-1", "' OR 1=1 --")
			return st == 401 || st == 400
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is.New(t).True(tt.attack(t)) // the attack failed
		})
	}
}

func TestAttackIDOR(t *testing.T) {
	t.Parallel()
	s := apptest.New(t)
	admin := s.Admin(t)
	a, docA := signingContract(t, s, admin, "Contract A", 1)
	b, docB := signingContract(t, s, admin, "Contract B", 1)
	subA := signingSubmissionOf(t, signingSubmit(t, s, admin, a, []int64{docA}, "", "a@client.example"))
	subB := signingSubmissionOf(t, signingSubmit(t, s, admin, b, []int64{docB}, "", "b@client.example"))
	linkA, linkB := subA.Submitters[0].EmbedSrc, subB.Submitters[0].EmbedSrc
	_, viewer := s.User(t, account.ContractView)
	get := func(u string) int {
		req, _ := http.NewRequest("GET", u, nil)
		return s.Send(t, req).Status
	}
	// changed replaces the last n characters of link with others.
	changed := func(link string, n int) string {
		out := []byte(link)
		for i := len(out) - n; i < len(out); i++ {
			if out[i] == 'x' {
				out[i] = 'y'
			} else {
				out[i] = 'x'
			}
		}
		return string(out)
	}
	tests := []struct {
		name   string
		status int
		want   int
	}{
		{"B's document through A's path", s.Do(t, "GET", fmt.Sprintf("/api/contracts/%d/documents/%d/content", a, docB), viewer, nil).Status, 404},
		{"delete B's document through A's path", s.Do(t, "DELETE", fmt.Sprintf("/api/contracts/%d/documents/%d", a, docB), admin, nil).Status, 404},
		{"B's document through A's signing link", get(fmt.Sprintf("%s/documents/%d", linkA, docB)), 404},
		{"a guessed signing link", get(changed(linkB, 4)), 404},
		{"a signing link one character off", get(changed(linkA, 1)), 404},
		{"another user's roles with UsersView only", s.Do(t, "GET", "/api/users/1/roles", viewer, nil).Status, 403},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is.New(t).Equal(tt.status, tt.want) // refused
		})
	}
}

func TestAttackInjection(t *testing.T) {
	t.Parallel()
	s := apptest.New(t)
	admin := s.Admin(t)
	contractCreate(t, s, admin, map[string]any{"contractName": "Visible"})
	tests := []struct {
		name, method, path string
		body               any
		ok                 func(r *apptest.Response) bool
	}{
		{"SQL in search", "GET", "/api/contracts?Search=%27%20OR%201%3D1%20--", nil, func(r *apptest.Response) bool {
			return r.Status == 200 && !strings.Contains(string(r.Body), "Visible")
		}},
		{"FTS syntax in search", "GET", "/api/contracts?Search=%22*%20NEAR%28a%29%20OR%20", nil, func(r *apptest.Response) bool { return r.Status == 200 }},
		{"LIKE wildcards in search", "GET", "/api/contracts?Search=%25", nil, func(r *apptest.Response) bool {
			return r.Status == 200 && !strings.Contains(string(r.Body), "Visible")
		}},
		{"SQL in sort", "GET", "/api/contracts?SortBy=contractName%3BDROP%20TABLE%20contracts", nil, func(r *apptest.Response) bool { return r.Status == 400 }},
		{"SQL in a user search", "GET", "/api/users?Search=%27)%20UNION%20SELECT%20password_hash%20FROM%20users--", nil, func(r *apptest.Response) bool {
			return r.Status == 200 && !strings.Contains(string(r.Body), "argon2")
		}},
		{"SQL in a numeric filter", "GET", "/api/contracts?MatterId=1%20OR%201=1", nil, func(r *apptest.Response) bool { return r.Status == 400 }},
		{"HTML in a name is stored as text", "POST", "/api/contracts", map[string]any{"contractName": "<script>alert(1)</script>"}, func(r *apptest.Response) bool {
			return r.Status == 201 && r.Header.Get("Content-Type") == "application/json"
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := s.Do(t, tt.method, tt.path, admin, tt.body)
			is.New(t).True(tt.ok(r)) // harmless
		})
	}
	t.Run("file names", func(t *testing.T) {
		c := contractID(contractCreate(t, s, admin, map[string]any{"contractName": "Files"}))
		for _, name := range []string{"../../../etc/passwd", "a\r\nSet-Cookie: x=1.pdf", "..\\..\\win.ini", "\x00.pdf", `"; filename*=UTF-8''evil.exe`} {
			is := is.New(t)
			r := contractUpload(t, s, admin, c, name, porttest.MinimalPDF(1))
			if r.Status != 201 {
				is.Equal(r.Status, 400) // refused, or kept as a name only
				continue
			}
			id := int64(r.Map(t)["id"].(float64))
			d := s.Do(t, "GET", fmt.Sprintf("/api/contracts/%d/documents/%d/content", c, id), admin, nil)
			is.Equal(d.Status, 200)
			is.True(d.Header.Get("Set-Cookie") == "")                                  // no header smuggled
			is.True(!strings.ContainsAny(d.Header.Get("Content-Disposition"), "\r\n")) // one header line
			is.True(!strings.Contains(d.Header.Get("Content-Disposition"), "evil.exe\"") || strings.Contains(d.Header.Get("Content-Disposition"), "filename*"))
		}
	})
	t.Run("headers", func(t *testing.T) {
		is := is.New(t)
		req, _ := http.NewRequest("GET", s.URL+"/healthz", nil)
		req.Header.Set("X-Request-Id", "x\" level=ERROR msg=forged")
		r := s.Send(t, req)
		is.True(!strings.Contains(r.Header.Get("X-Request-Id"), " ")) // a forged request id is replaced
		req, _ = http.NewRequest("GET", s.URL+"/healthz", nil)
		req.Header.Set("X-Request-Id", strings.Repeat("a", 1000))
		is.True(len(s.Send(t, req).Header.Get("X-Request-Id")) <= 64) // and so is a long one
	})
}

func TestAttackWebhook(t *testing.T) {
	t.Parallel()
	s, ds := docusealFixture(t)
	admin := s.Admin(t)
	id, doc := signingContract(t, s, admin, "Webhook", 1)
	sub := signingSubmissionOf(t, signingSubmit(t, s, admin, id, []int64{doc}, "", "client@client.example"))
	is.New(t).NoErr(ds.Complete(sub.ID, "client@client.example"))
	header, body, err := ds.Webhook("form.completed", sub.ID, "client@client.example")
	is.New(t).NoErr(err)
	tampered := bytes.Replace(body, []byte("completed"), []byte("declined"), 1)
	tests := []struct {
		name   string
		header string
		body   []byte
	}{
		{"no signature", "", body},
		{"a wrong signature", "sha256=" + strings.Repeat("0", 64), body},
		{"a tampered body", header, tampered},
		{"a signature of another body", header, []byte(`{"event_type":"form.completed","data":{}}`)},
		{"garbage signature", "%%%", body},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			r := docusealWebhook(t, s, tt.header, tt.body)
			is.True(r.Status == 401 || r.Status == 403 || r.Status == 400)                       // refused
			is.Equal(signingContractGet(t, s, admin, id)["status"], "WaitingForClientSignature") // nothing changed
		})
	}
}

func TestAttackBounds(t *testing.T) {
	s := apptest.New(t)
	admin := s.Admin(t)
	c := contractID(contractCreate(t, s, admin, map[string]any{"contractName": "Bounds"}))
	deep := strings.Repeat(`{"a":`, 20000) + "1" + strings.Repeat("}", 20000)
	tests := []struct {
		name string
		req  func() *http.Request
		want []int
	}{
		{"a body over 1 MiB", func() *http.Request {
			body := `{"contractName":"` + strings.Repeat("x", 2<<20) + `"}`
			return jsonReq(s, admin, "POST", "/api/contracts", body)
		}, []int{413}},
		{"a body over 1 MiB without a length", func() *http.Request {
			r := jsonReq(s, admin, "POST", "/api/contracts", `{"contractName":"`+strings.Repeat("x", 2<<20)+`"}`)
			r.ContentLength = -1
			return r
		}, []int{413}},
		{"deeply nested JSON", func() *http.Request { return jsonReq(s, admin, "POST", "/api/contracts", deep) }, []int{400}},
		{"a huge number", func() *http.Request {
			return jsonReq(s, admin, "POST", "/api/contracts", `{"contractName":"n","amount":1e999999}`)
		}, []int{400}},
		{"many parts before the file", func() *http.Request {
			var buf bytes.Buffer
			mw := multipart.NewWriter(&buf)
			for i := range 1000 {
				mw.WriteField(fmt.Sprintf("f%d", i), "x")
			}
			w, _ := mw.CreateFormFile("file", "a.pdf")
			w.Write(porttest.MinimalPDF(1))
			mw.Close()
			r, _ := http.NewRequest("POST", fmt.Sprintf("%s/api/contracts/%d/documents", s.URL, c), &buf)
			r.Header.Set("Content-Type", mw.FormDataContentType())
			r.Header.Set("Authorization", "Bearer "+admin)
			return r
		}, []int{400}},
		{"a zip bomb as DOCX is not inflated", func() *http.Request {
			var buf bytes.Buffer
			mw := multipart.NewWriter(&buf)
			h := textproto.MIMEHeader{}
			h.Set("Content-Disposition", `form-data; name="file"; filename="bomb.docx"`)
			w, _ := mw.CreatePart(h)
			w.Write(zipBomb(t, 512))
			mw.Close()
			r, _ := http.NewRequest("POST", fmt.Sprintf("%s/api/contracts/%d/documents", s.URL, c), &buf)
			r.Header.Set("Content-Type", mw.FormDataContentType())
			r.Header.Set("Authorization", "Bearer "+admin)
			return r
		}, []int{201, 400, 415}},
		{"a long URL", func() *http.Request {
			r, _ := http.NewRequest("GET", s.URL+"/api/contracts?Search="+strings.Repeat("a", 300), nil)
			r.Header.Set("Authorization", "Bearer "+admin)
			return r
		}, []int{400}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			start := time.Now()
			r := s.Send(t, tt.req())
			ok := false
			for _, w := range tt.want {
				ok = ok || r.Status == w
			}
			if !ok {
				t.Fatalf("status %d, want one of %v: %.200s", r.Status, tt.want, r.Body)
			}
			is.True(time.Since(start) < 10*time.Second) // answered promptly
		})
	}
	t.Run("slow clients", func(t *testing.T) {
		is := is.New(t)
		srv := app.NewHTTPServer(http.NotFoundHandler())
		is.True(srv.ReadHeaderTimeout > 0 && srv.ReadHeaderTimeout <= 30*time.Second) // a client that never ends its headers is cut off
		is.True(srv.ReadTimeout > 0)                                                  // and one that trickles its body
		is.True(srv.IdleTimeout > 0)                                                  // idle connections close
		is.True(srv.MaxHeaderBytes > 0 && srv.MaxHeaderBytes <= 1<<20)                // headers are bounded
	})
}

// zipBomb is a DOCX-looking zip whose word/document.xml inflates to mib
// MiB of zeros from about mib KiB. The deflate stream is one sync-flushed
// block of 1 MiB of zeros repeated, then an empty final block, so making
// it costs nothing.
func zipBomb(t *testing.T, mib int) []byte {
	t.Helper()
	zero := make([]byte, 1<<20)
	var block bytes.Buffer
	fw, _ := flate.NewWriter(&block, flate.BestCompression)
	fw.Write(zero)
	fw.Flush()
	var stream bytes.Buffer
	crc := uint32(0)
	for range mib {
		stream.Write(block.Bytes())
		crc = crc32.Update(crc, crc32.IEEETable, zero)
	}
	stream.Write([]byte{0x03, 0x00}) // final empty fixed-Huffman block
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	ct, _ := zw.Create("[Content_Types].xml")
	ct.Write([]byte(`<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"/>`))
	raw, err := zw.CreateRaw(&zip.FileHeader{Name: "word/document.xml", Method: zip.Deflate, CRC32: crc,
		CompressedSize64: uint64(stream.Len()), UncompressedSize64: uint64(mib) << 20})
	if err != nil {
		t.Fatal(err)
	}
	raw.Write(stream.Bytes())
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// jsonReq is a JSON request with a bearer token.
func jsonReq(s *apptest.Server, token, method, path, body string) *http.Request {
	r, _ := http.NewRequest(method, s.URL+path, strings.NewReader(body))
	r.Header.Set("Content-Type", "application/json")
	r.Header.Set("Authorization", "Bearer "+token)
	return r
}

func TestAttackCORS(t *testing.T) {
	t.Parallel()
	s := apptest.New(t, func(c *app.Config) { c.CORSOrigins = []string{"https://console.firm.example"} })
	tests := []struct {
		name, origin string
		allowed      bool
	}{
		{"the configured origin", "https://console.firm.example", true},
		{"another site", "https://evil.example", false},
		{"a suffix of the origin", "https://console.firm.example.evil.example", false},
		{"a prefix of the origin", "https://evil-console.firm.example", false},
		{"the null origin", "null", false},
		{"another scheme", "http://console.firm.example", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			req, _ := http.NewRequest("OPTIONS", s.URL+"/api/me", nil)
			req.Header.Set("Origin", tt.origin)
			req.Header.Set("Access-Control-Request-Method", "GET")
			r := s.Send(t, req)
			got := r.Header.Get("Access-Control-Allow-Origin")
			is.Equal(got == tt.origin, tt.allowed)                         // only the configured origin
			is.True(got != "*")                                            // never a wildcard
			is.Equal(r.Header.Get("Access-Control-Allow-Credentials"), "") // bearer tokens, no cookies
		})
	}
}

// randomRuns matches base64 and base32 runs long enough to be data, never
// an error message (which has spaces or underscores).
var randomRuns = regexp.MustCompile(`[A-Za-z0-9+/=]{40,}|[A-Z2-7]{16,}`)

// TestAttackErrorBodies sends garbage to every route of the served
// document, anonymous and as the administrator, and checks no answer is a
// 500 or leaks internals.
func TestAttackErrorBodies(t *testing.T) {
	t.Parallel()
	s := apptest.New(t)
	admin := s.Admin(t)
	var doc struct {
		Paths map[string]map[string]any
	}
	s.Do(t, "GET", "/openapi.json", "", nil).JSON(t, &doc)
	leaks := []string{"sqlite", "SQL", "goroutine", ".go:", "panic", "runtime error", "constraint", "/home/", "/tmp/"}
	for p, methods := range doc.Paths {
		for m := range methods {
			path := strings.NewReplacer("{id}", "99999999999999999999", "{docId}", "-1", "{roleId}", "abc", "{slug}", "..%2f..%2fetc").Replace(p)
			for _, body := range []string{`{"x":`, `[1,2]`, `{"id":"1e400","email":["a"],"password":{"$ne":1}}`, "\x00\xff"} {
				for _, tok := range []string{"", admin} {
					r := s.Do(t, strings.ToUpper(m), path, tok, body)
					if r.Status >= 500 && r.Status != 501 && r.Status != 502 && r.Status != 503 {
						t.Errorf("%s %s %q: %d %s", m, path, body, r.Status, r.Body)
					}
					// Random data (a QR code, a TOTP secret, a token) may spell "SQL"
					// by chance: long base64 or base32 runs are not messages.
					body := randomRuns.ReplaceAllString(string(r.Body), "")
					for _, l := range leaks {
						if strings.Contains(body, l) && !strings.HasPrefix(r.Header.Get("Content-Type"), "text/html") && p != "/openapi.json" {
							t.Errorf("%s %s: the answer mentions %q: %.300s", m, path, l, r.Body)
						}
					}
				}
			}
		}
	}
}

// TestAttackSecretsInLogs runs sign-in, refresh, password changes and
// signing with a debug log captured, and checks that no password, code,
// token or signing link reaches it.
func TestAttackSecretsInLogs(t *testing.T) {
	t.Parallel()
	logs := &syncBuffer{}
	s := apptest.New(t, func(c *app.Config) {
		c.Logger = slog.New(slog.NewJSONHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	})
	tok := s.Login(t, apptest.AdminEmail, apptest.AdminPassword)
	var otp struct{ OTP string }
	s.Do(t, "POST", "/api/account/login/get-otp", "", map[string]string{"email": apptest.AdminEmail}).JSON(t, &otp)
	s.Do(t, "POST", "/api/account/login", "", map[string]string{"email": apptest.AdminEmail, "password": "wrong-password-9", "otp": otp.OTP})
	var next apptest.Tokens
	s.Do(t, "POST", "/api/account/refresh-token", "", map[string]string{"accessToken": tok.AccessToken, "refreshToken": tok.RefreshToken}).JSON(t, &next)
	u := usrCreate(t, s, next.AccessToken, map[string]any{"email": "logs@example.com", "firstName": "L", "password": "created-password-7"})
	s.Do(t, "POST", "/api/users/changepassword", next.AccessToken, map[string]any{"id": u.ID, "password": "changed-password-8"})
	id, doc := signingContract(t, s, next.AccessToken, "Logged", 1)
	sub := signingSubmissionOf(t, signingSubmit(t, s, next.AccessToken, id, []int64{doc}, "", "client@client.example"))
	link := sub.Submitters[0].EmbedSrc
	signingPage(t, s, link)
	secrets := map[string]string{
		"admin password": apptest.AdminPassword, "wrong password": "wrong-password-9", "created password": "created-password-7",
		"changed password": "changed-password-8", "otp": otp.OTP, "access token": tok.AccessToken, "refresh token": tok.RefreshToken,
		"new refresh token": next.RefreshToken, "signing slug": link[strings.LastIndex(link, "/")+1:],
	}
	out := logs.String()
	is := is.New(t)
	is.True(strings.Contains(out, `"route"`)) // requests were logged
	for name, v := range secrets {
		if v != "" && strings.Contains(out, v) {
			t.Errorf("the log holds the %s", name)
		}
	}
}
