package app_test

import (
	"flag"
	"io"
	"os"
	"strings"
	"testing"
	"time"

	"counsel/app"

	"github.com/matryer/is"
)

func load(args []string, env map[string]string) (app.Config, error) {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	return app.LoadConfig(fs, args, func(k string) string { return env[k] })
}

func TestLoadConfig(t *testing.T) {
	t.Parallel()
	t.Run("defaults", func(t *testing.T) {
		is := is.New(t)
		c, err := load(nil, nil)
		is.NoErr(err)
		is.Equal(c.Addr, "127.0.0.1:8080")
		is.Equal(c.DB, "./counsel.db")
		is.Equal(c.DataDir, "./data")
		is.Equal(c.AccessTTL, 15*time.Minute)
		is.Equal(c.RefreshTTL, 30*24*time.Hour)
		is.Equal(c.OTPTTL, 5*time.Minute)
		is.Equal(c.OTPResendInterval, 30*time.Second)
		is.Equal(c.OTPHourlyLimit, 10)
		is.Equal(c.LockoutThreshold, 10)
		is.Equal(c.LockoutDuration, 15*time.Minute)
		is.Equal(c.AuthRateLimit, 30)
		is.Equal(c.OTPDelivery, "response")
		is.Equal(c.SigningProvider, "embedded")
		is.Equal(c.AdminEmail, "admin@localhost")
		is.Equal(c.LinkTTL, time.Hour)                    // signed template document links
		is.Equal(c.SigningReminderInterval, 72*time.Hour) // signing reminders
		is.Equal(c.SigningReminderMax, 3)
		is.Equal(len(c.FrameAncestors), 0)       // no site may frame the signer's pages
		is.Equal(c.ReauthWindow, 10*time.Minute) // recent authentication
		is.Equal(c.KeyDateReminders, []int{7, 30, 90})
		is.Equal(c.KeyDateInterval, time.Hour)
	})
	t.Run("environment, then flags", func(t *testing.T) {
		is := is.New(t)
		c, err := load([]string{"--access-ttl", "5m", "--cors-origins", "https://a.example, https://b.example"},
			map[string]string{"COUNSEL_ACCESS_TTL": "10m", "COUNSEL_ADDR": ":9000", "COUNSEL_OTP_RESEND_INTERVAL": "0",
				"COUNSEL_TRUSTED_PROXIES": "10.0.0.0/8,127.0.0.1", "COUNSEL_OIDC_ALLOWED_DOMAINS": "@Firm.example",
				"COUNSEL_LINK_TTL": "30m", "COUNSEL_FRAME_ANCESTORS": "https://WWW.Firm.example/, http://intranet.example:8080"})
		is.NoErr(err)
		is.Equal(c.AccessTTL, 5*time.Minute) // the flag wins
		is.Equal(c.Addr, ":9000")
		is.Equal(c.OTPResendInterval, time.Duration(0)) // 0 turns it off
		is.Equal(c.CORSOrigins, []string{"https://a.example", "https://b.example"})
		is.Equal(len(c.TrustedProxies), 2)
		is.Equal(c.OIDCAllowedDomains, []string{"firm.example"})
		is.Equal(c.LinkTTL, 30*time.Minute)
		is.Equal(c.FrameAncestors, []string{"https://www.firm.example", "http://intranet.example:8080"})
	})
	bad := []struct {
		name string
		env  map[string]string
		want string
	}{
		{"log format", map[string]string{"COUNSEL_LOG_FORMAT": "xml"}, "COUNSEL_LOG_FORMAT"},
		{"log level", map[string]string{"COUNSEL_LOG_LEVEL": "loud"}, "COUNSEL_LOG_LEVEL"},
		{"duration", map[string]string{"COUNSEL_OTP_TTL": "soon"}, "COUNSEL_OTP_TTL"},
		{"number", map[string]string{"COUNSEL_OTP_HOURLY_LIMIT": "-1"}, "COUNSEL_OTP_HOURLY_LIMIT"},
		{"smtp without relay", map[string]string{"COUNSEL_OTP_DELIVERY": "smtp"}, "COUNSEL_SMTP_ADDR"},
		{"delivery", map[string]string{"COUNSEL_OTP_DELIVERY": "pigeon"}, "COUNSEL_OTP_DELIVERY"},
		{"docuseal without key", map[string]string{"COUNSEL_SIGNING_PROVIDER": "docuseal"}, "COUNSEL_DOCUSEAL"},
		{"provider", map[string]string{"COUNSEL_SIGNING_PROVIDER": "fax"}, "COUNSEL_SIGNING_PROVIDER"},
		{"public url", map[string]string{"COUNSEL_PUBLIC_URL": "counsel.example"}, "COUNSEL_PUBLIC_URL"},
		{"proxy", map[string]string{"COUNSEL_TRUSTED_PROXIES": "proxy.local"}, "COUNSEL_TRUSTED_PROXIES"},
		{"oidc half", map[string]string{"COUNSEL_OIDC_ISSUER": "https://accounts.google.com"}, "COUNSEL_OIDC_CLIENT_ID"},
		{"short admin password", map[string]string{"COUNSEL_ADMIN_PASSWORD": "short"}, "COUNSEL_ADMIN_PASSWORD"},
		{"link ttl too short", map[string]string{"COUNSEL_LINK_TTL": "10s"}, "COUNSEL_LINK_TTL"},
		{"link ttl too long", map[string]string{"COUNSEL_LINK_TTL": "169h"}, "COUNSEL_LINK_TTL"},
		{"frame ancestor wildcard", map[string]string{"COUNSEL_FRAME_ANCESTORS": "*"}, "COUNSEL_FRAME_ANCESTORS"},
		{"frame ancestor with path", map[string]string{"COUNSEL_FRAME_ANCESTORS": "https://firm.example/page"}, "COUNSEL_FRAME_ANCESTORS"},
		{"frame ancestor scheme", map[string]string{"COUNSEL_FRAME_ANCESTORS": "javascript:alert(1)"}, "COUNSEL_FRAME_ANCESTORS"},
		{"frame ancestor injection", map[string]string{"COUNSEL_FRAME_ANCESTORS": "https://a.example;script-src *"}, "COUNSEL_FRAME_ANCESTORS"},
		{"totp issuer with a colon", map[string]string{"COUNSEL_TOTP_ISSUER": "Smith: Law"}, "COUNSEL_TOTP_ISSUER"},
		{"blank totp issuer", map[string]string{"COUNSEL_TOTP_ISSUER": "  "}, "COUNSEL_TOTP_ISSUER"},
		{"long totp issuer", map[string]string{"COUNSEL_TOTP_ISSUER": strings.Repeat("x", 101)}, "COUNSEL_TOTP_ISSUER"},
		{"audit retention under 720h", map[string]string{"COUNSEL_AUDIT_RETENTION": "719h"}, "COUNSEL_AUDIT_RETENTION"},
		{"audit retention not a duration", map[string]string{"COUNSEL_AUDIT_RETENTION": "a year"}, "COUNSEL_AUDIT_RETENTION"},
		{"reauth window under a second", map[string]string{"COUNSEL_REAUTH_WINDOW": "500ms"}, "COUNSEL_REAUTH_WINDOW"},
		{"reauth window zero", map[string]string{"COUNSEL_REAUTH_WINDOW": "0"}, "COUNSEL_REAUTH_WINDOW"},
		{"reauth window not a duration", map[string]string{"COUNSEL_REAUTH_WINDOW": "soon"}, "COUNSEL_REAUTH_WINDOW"},
		{"key date reminders blank", map[string]string{"COUNSEL_KEY_DATE_REMINDERS": " "}, "COUNSEL_KEY_DATE_REMINDERS"},
		{"key date reminders negative", map[string]string{"COUNSEL_KEY_DATE_REMINDERS": "90,-7"}, "COUNSEL_KEY_DATE_REMINDERS"},
		{"key date reminders over ten years", map[string]string{"COUNSEL_KEY_DATE_REMINDERS": "3651"}, "COUNSEL_KEY_DATE_REMINDERS"},
		{"key date reminders repeated", map[string]string{"COUNSEL_KEY_DATE_REMINDERS": "30,30"}, "COUNSEL_KEY_DATE_REMINDERS"},
		{"key date reminders not days", map[string]string{"COUNSEL_KEY_DATE_REMINDERS": "90d"}, "COUNSEL_KEY_DATE_REMINDERS"},
		{"key date interval under a second", map[string]string{"COUNSEL_KEY_DATE_INTERVAL": "999ms"}, "COUNSEL_KEY_DATE_INTERVAL"},
		{"key date interval not a duration", map[string]string{"COUNSEL_KEY_DATE_INTERVAL": "hourly"}, "COUNSEL_KEY_DATE_INTERVAL"},
		{"reminder interval under a second", map[string]string{"COUNSEL_SIGNING_REMINDER_INTERVAL": "500ms"}, "COUNSEL_SIGNING_REMINDER_INTERVAL"},
		{"reminder interval negative", map[string]string{"COUNSEL_SIGNING_REMINDER_INTERVAL": "-1h"}, "COUNSEL_SIGNING_REMINDER_INTERVAL"},
		{"reminder max over 100", map[string]string{"COUNSEL_SIGNING_REMINDER_MAX": "101"}, "COUNSEL_SIGNING_REMINDER_MAX"},
		{"reminder max negative", map[string]string{"COUNSEL_SIGNING_REMINDER_MAX": "-1"}, "COUNSEL_SIGNING_REMINDER_MAX"},
		{"webhook retry scale above 1", map[string]string{"COUNSEL_WEBHOOK_RETRY_SCALE": "2"}, "COUNSEL_WEBHOOK_RETRY_SCALE"},
		{"webhook retry scale zero", map[string]string{"COUNSEL_WEBHOOK_RETRY_SCALE": "0"}, "COUNSEL_WEBHOOK_RETRY_SCALE"},
		{"webhook retry scale not a number", map[string]string{"COUNSEL_WEBHOOK_RETRY_SCALE": "fast"}, "COUNSEL_WEBHOOK_RETRY_SCALE"},
		{"webhook allow private not a boolean", map[string]string{"COUNSEL_WEBHOOK_ALLOW_PRIVATE": "maybe"}, "COUNSEL_WEBHOOK_ALLOW_PRIVATE"},
		{"refresh shorter than access", map[string]string{"COUNSEL_REFRESH_TTL": "1m", "COUNSEL_ACCESS_TTL": "5m"}, "COUNSEL_REFRESH_TTL"},
	}
	for _, tt := range bad {
		t.Run("invalid "+tt.name, func(t *testing.T) {
			is := is.New(t)
			_, err := load(nil, tt.env)
			is.True(err != nil)                             // refused
			is.True(strings.Contains(err.Error(), tt.want)) // naming the setting
		})
	}
}

// TestReadmeListsEverySetting keeps the settings table (docs/configuration.md) complete.
func TestReadmeListsEverySetting(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	b, err := os.ReadFile("../docs/configuration.md")
	is.NoErr(err)
	for _, s := range app.Settings() {
		is.True(strings.Contains(string(b), "`"+s[0]+"`")) // the settings table names the setting
	}
}
