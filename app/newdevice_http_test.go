package app_test

import (
	"context"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/matryer/is"

	"counsel/app"
	"counsel/app/apptest"
	"counsel/domain/account"
)

// TestNewDeviceEmail: a sign-in from a user-agent family or a network
// (/24, /48) the user has not used in 90 days emails "New sign-in to
// Counsel" through the outbox, in the sign-in's transaction
// (docs/decisions.md §18); the first sign-in ever, and known devices, do
// not.
func TestNewDeviceEmail(t *testing.T) {
	t.Parallel()
	s := apptest.New(t, func(c *app.Config) {
		c.TrustedProxies = []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}
	})
	is := is.New(t)
	ctx := context.Background()
	const email = "traveller@example.com"
	_, err := s.App.CreateUser(ctx, account.NewUser{Email: email, FirstName: "T", LastName: "Raveller"}, "password-123")
	is.NoErr(err)
	mails := func() (int, string) {
		var n int
		var text string
		is.NoErr(s.QueryRow(ctx, `SELECT count(*) FROM mail_outbox WHERE recipient = ? AND subject = 'New sign-in to Counsel'`, email).Scan(&n))
		if n > 0 {
			is.NoErr(s.QueryRow(ctx, `SELECT body_text FROM mail_outbox WHERE recipient = ? ORDER BY id DESC LIMIT 1`, email).Scan(&text))
		}
		return n, text
	}
	const firefox = "Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0"
	steps := []struct {
		name, ua, xff string
		advance       time.Duration
		mails         int
	}{
		{"the first sign-in ever", "Go-http-client/1.1", "", 0, 0},
		{"the same device", "Go-http-client/1.1", "", 0, 0},
		{"a new browser", firefox, "", 0, 1},
		{"a new network", firefox, "203.0.113.7", 0, 2},
		{"the same /24, a newer version", strings.Replace(firefox, "133.0", "134.0", 2), "203.0.113.99", 0, 2},
		{"known, but not for 90 days", firefox, "203.0.113.99", 91 * 24 * time.Hour, 3},
		{"known again", firefox, "203.0.113.5", time.Hour, 3},
	}
	for _, st := range steps {
		s.Clock.Advance(st.advance)
		loginAs(t, s, email, "password-123", st.ua, st.xff)
		n, text := mails()
		if n != st.mails {
			t.Fatalf("%s: %d emails, want %d", st.name, n, st.mails)
		}
		if st.name == "a new network" {
			is.True(strings.Contains(text, "Address: 203.0.113.7"))
			is.True(strings.Contains(text, "Browser: Firefox on Linux"))
			is.True(strings.Contains(text, "Method:  password and emailed code"))
			is.True(strings.Contains(text, "Time:    "+s.Clock.Now().UTC().Format("2006-01-02 15:04 UTC")))
			is.True(strings.Contains(text, s.Config.PublicURL+"/console/account"))
		}
	}
}

// TestNewDeviceEmailOnPasskeySignIn: a passkey sign-in from a browser the
// user has not used is a new device like any other sign-in's.
func TestNewDeviceEmailOnPasskeySignIn(t *testing.T) {
	t.Parallel()
	s := apptest.New(t)
	is := is.New(t)
	ctx := context.Background()
	const email = "pk-traveller@example.com"
	_, err := s.App.CreateUser(ctx, account.NewUser{Email: email, FirstName: "P", LastName: "Traveller", Roles: []string{account.StaffRole}}, "password-123")
	is.NoErr(err)
	count := func() int {
		var n int
		is.NoErr(s.QueryRow(ctx, `SELECT count(*) FROM mail_outbox WHERE recipient = ? AND subject = 'New sign-in to Counsel'`, email).Scan(&n))
		return n
	}
	const firefox = "Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0"
	tok := loginAs(t, s, email, "password-123", firefox, "") // the first device: no email
	a, _ := addPasskey(t, s, tok.AccessToken, "Laptop")
	is.Equal(count(), 0)
	passkeySignIn(t, s, a).Expect(t, 200, "passkey sign-in from another browser")
	is.Equal(count(), 1) // the test client is a new browser
	passkeySignIn(t, s, a).Expect(t, 200, "again")
	is.Equal(count(), 1) // now known
	var text string
	is.NoErr(s.QueryRow(ctx, `SELECT body_text FROM mail_outbox WHERE recipient = ? ORDER BY id DESC LIMIT 1`, email).Scan(&text))
	is.True(strings.Contains(text, "Method:  passkey")) // the method is named
}
