package app_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"counsel/adapters/argon2"
	"counsel/app"
	"counsel/app/apptest"
	"counsel/domain/account"
)

// BenchmarkLoginSecondFactor compares a sign-in with an emailed code
// (get-otp then login, and login alone) with a sign-in with an app code,
// through the real handler and database file, with the tests' cheap
// password hash and with argon2id's defaults.
//
//	go test -run '^$' -bench LoginSecondFactor -benchtime 100x ./app
func BenchmarkLoginSecondFactor(b *testing.B) {
	hashes := []struct {
		name   string
		params *argon2.Params
	}{
		{"testhash", nil},
		{"argon2id", &argon2.DefaultParams},
	}
	for _, h := range hashes {
		s := apptest.New(b, func(c *app.Config) {
			if h.params != nil {
				c.HashParams = h.params
			}
		})
		handler := s.App.Handler()
		post := func(path string, body any) []byte {
			j, _ := json.Marshal(body)
			rec := httptest.NewRecorder()
			handler.ServeHTTP(rec, httptest.NewRequest("POST", path, bytes.NewReader(j)))
			if rec.Code != http.StatusOK {
				b.Fatalf("%s: %d %s", path, rec.Code, rec.Body)
			}
			return rec.Body.Bytes()
		}
		getOTP := func(email string) string {
			var r struct{ OTP string }
			json.Unmarshal(post("/api/account/login/get-otp", map[string]string{"email": email}), &r)
			return r.OTP
		}
		login := func(email, code string) {
			post("/api/account/login", map[string]string{"email": email, "password": "password-123", "otp": code})
		}
		// An emailed-code user and an app user.
		_, _, secret, _ := totpUser(b, s, "app@example.com")
		if _, err := s.App.CreateUser(context.Background(), account.NewUser{Email: "mail@example.com", FirstName: "M", LastName: "Ail"}, "password-123"); err != nil {
			b.Fatal(err)
		}

		b.Run(h.name+"/email/get-otp+login", func(b *testing.B) {
			for b.Loop() {
				login("mail@example.com", getOTP("mail@example.com"))
			}
		})
		b.Run(h.name+"/email/login", func(b *testing.B) {
			for range b.N {
				b.StopTimer()
				code := getOTP("mail@example.com")
				b.StartTimer()
				login("mail@example.com", code)
			}
		})
		b.Run(h.name+"/app/login", func(b *testing.B) {
			for range b.N {
				b.StopTimer()
				s.Clock.Advance(30 * time.Second) // a fresh step: each code works once
				code := appCode(b, secret, s.Clock.Now())
				b.StartTimer()
				login("app@example.com", code)
			}
		})
	}
}
