package account

import (
	"net/netip"
	"strings"
	"time"
)

// NewDeviceWindow is how long a device (a user-agent family or an
// address network) is remembered for a user (docs/decisions.md §18): a
// sign-in from one not seen for that long emails the user.
const NewDeviceWindow = 90 * 24 * time.Hour

// Device is how a sign-in is recognised: the family of its user agent
// (browser and system) and its address's network (/24 for IPv4, /48 for
// IPv6). Empty fields are unknown.
type Device struct {
	Agent   string
	Network string
}

// DeviceOf returns the device of a user agent and an address.
func DeviceOf(userAgent, ip string) Device {
	return Device{Agent: AgentFamily(userAgent), Network: Network(ip)}
}

// Network is the /24 (IPv4) or /48 (IPv6) network of ip, "" when ip is
// not an address.
func Network(ip string) string {
	a, err := netip.ParseAddr(ip)
	if err != nil {
		return ""
	}
	a = a.Unmap()
	bits := 48
	if a.Is4() {
		bits = 24
	}
	p, err := a.Prefix(bits)
	if err != nil {
		return ""
	}
	return p.String()
}

// AgentFamily names the browser (or client) and system of a user agent,
// without versions: "Firefox on Linux", "Safari on iOS", "curl". A new
// version of the same browser is the same family.
func AgentFamily(ua string) string {
	ua = strings.TrimSpace(ua)
	if ua == "" {
		return ""
	}
	l := strings.ToLower(ua)
	browser := ""
	for _, b := range []struct{ token, name string }{
		{"edg/", "Edge"}, {"opr/", "Opera"}, {"firefox/", "Firefox"}, {"fxios/", "Firefox"}, {"crios/", "Chrome"},
		{"chromium/", "Chromium"}, {"chrome/", "Chrome"}, {"safari/", "Safari"},
	} {
		if strings.Contains(l, b.token) {
			browser = b.name
			break
		}
	}
	if browser == "" { // a program: its product token without the version
		name, _, _ := strings.Cut(strings.Fields(ua)[0], "/")
		return CutUserAgent(name)
	}
	system := ""
	for _, s := range []struct{ token, name string }{
		{"iphone", "iOS"}, {"ipad", "iOS"}, {"android", "Android"}, {"windows", "Windows"}, {"mac os", "macOS"},
		{"cros", "ChromeOS"}, {"linux", "Linux"},
	} {
		if strings.Contains(l, s.token) {
			system = s.name
			break
		}
	}
	if system == "" {
		return browser
	}
	return browser + " on " + system
}
