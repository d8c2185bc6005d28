package account_test

import (
	"testing"

	"github.com/matryer/is"

	"counsel/domain/account"
)

func TestDeviceOf(t *testing.T) {
	t.Parallel()
	tests := []struct {
		ua, ip string
		want   account.Device
	}{
		{"Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0", "203.0.113.7", account.Device{"Firefox on Linux", "203.0.113.0/24"}},
		{"Mozilla/5.0 (X11; Linux x86_64; rv:134.0) Gecko/20100101 Firefox/134.0", "203.0.113.200", account.Device{"Firefox on Linux", "203.0.113.0/24"}},
		{"Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 Version/17.0 Mobile/15E148 Safari/604.1", "2001:db8:1:2::5", account.Device{"Safari on iOS", "2001:db8:1::/48"}},
		{"Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 Chrome/131.0 Safari/537.36 Edg/131.0", "::ffff:198.51.100.9", account.Device{"Edge on Windows", "198.51.100.0/24"}},
		{"Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 Chrome/131.0 Safari/537.36", "", account.Device{"Chrome on macOS", ""}},
		{"curl/8.5.0", "not an ip", account.Device{"curl", ""}},
		{"", "127.0.0.1", account.Device{"", "127.0.0.0/24"}},
	}
	for _, tt := range tests {
		t.Run(tt.ua, func(t *testing.T) {
			is := is.New(t)
			is.Equal(account.DeviceOf(tt.ua, tt.ip), tt.want)
		})
	}
}
