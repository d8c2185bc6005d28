// Package webhook holds the rules of outbound webhooks (docs/decisions.md
// §17, the Standard Webhooks specification): the event types, the
// signing secret and its signatures, the retry schedule, and which
// destinations are refused (URLs and addresses).
package webhook

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"io"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"time"

	"counsel/domain"
	"counsel/domain/contract"
)

// Event types of docs/decisions.md §17, and the test event.
const (
	ContractCreated         = "contract.created"
	ContractUpdated         = "contract.updated"
	ContractStatusChanged   = "contract.status_changed"
	ContractDeleted         = "contract.deleted"
	ContractDocumentAdded   = "contract.document_added"
	ContractDocumentRemoved = "contract.document_removed"
	SigningSubmitted        = "signing.submitted"
	SigningCompleted        = "signing.completed"
	SigningDeclined         = "signing.declined"
	SigningExpired          = "signing.expired"
	UserCreated             = "user.created"
	UserUpdated             = "user.updated"
	UserDeactivated         = "user.deactivated"
	UserDeleted             = "user.deleted"
	// Test is the event POST /api/webhooks/{id}/test sends; no
	// subscription lists it.
	Test = "webhook.test"
)

// EventTypes lists the types a subscription may name, in documented order.
var EventTypes = []string{
	ContractCreated, ContractUpdated, ContractStatusChanged, ContractDeleted, ContractDocumentAdded, ContractDocumentRemoved,
	SigningSubmitted, SigningCompleted, SigningDeclined, SigningExpired,
	UserCreated, UserUpdated, UserDeactivated, UserDeleted,
}

// KnownEvent reports whether t is one of EventTypes.
func KnownEvent(t string) bool {
	for _, e := range EventTypes {
		if e == t {
			return true
		}
	}
	return false
}

// SecretPrefix starts every signing secret (whsec_ and the base64 of
// SecretBytes random bytes).
const SecretPrefix = "whsec_"

// SecretBytes is the size of a signing secret.
const SecretBytes = 32

// NewSecret returns a fresh signing secret from rand.
func NewSecret(rand io.Reader) (string, error) {
	b := make([]byte, SecretBytes)
	if _, err := io.ReadFull(rand, b); err != nil {
		return "", fmt.Errorf("random: %w", err)
	}
	return SecretPrefix + base64.StdEncoding.EncodeToString(b), nil
}

// SecretKey returns the bytes a secret signs with: the base64 after
// whsec_.
func SecretKey(secret string) ([]byte, error) {
	k, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(secret, SecretPrefix))
	if err != nil || len(k) == 0 {
		return nil, fmt.Errorf("a signing secret is whsec_ and base64")
	}
	return k, nil
}

// Sign is the webhook-signature header of a delivery: for each key, in
// order, "v1," and the base64 HMAC-SHA256 of "<id>.<timestamp>.<body>",
// separated by spaces (several while a rotation's old secret still signs).
func Sign(keys [][]byte, id string, timestamp int64, body []byte) string {
	signed := make([]byte, 0, len(id)+len(body)+24)
	signed = append(signed, id...)
	signed = append(signed, '.')
	signed = strconv.AppendInt(signed, timestamp, 10)
	signed = append(signed, '.')
	signed = append(signed, body...)
	parts := make([]string, len(keys))
	for i, k := range keys {
		m := hmac.New(sha256.New, k)
		m.Write(signed)
		parts[i] = "v1," + base64.StdEncoding.EncodeToString(m.Sum(nil))
	}
	return strings.Join(parts, " ")
}

// RotationOverlap is how long a rotated-out secret keeps signing beside
// the new one.
const RotationOverlap = 24 * time.Hour

// Schedule is the wait before each retry after a failed attempt: the
// first retry about 5 s after the first attempt, ..., the eighth 14 h
// after the seventh; a delivery whose ninth attempt fails is failed.
var Schedule = []time.Duration{5 * time.Second, 5 * time.Minute, 30 * time.Minute, 2 * time.Hour,
	5 * time.Hour, 10 * time.Hour, 10 * time.Hour, 14 * time.Hour}

// MaxAttempts is the first attempt and every retry of Schedule.
var MaxAttempts = len(Schedule) + 1

// NextAttempt is the wait after failed attempt n (1-based), the schedule
// multiplied by scale (1 in production; tests shrink it), and whether
// there is one.
func NextAttempt(n int, scale float64) (time.Duration, bool) {
	if n < 1 || n > len(Schedule) {
		return 0, false
	}
	return time.Duration(float64(Schedule[n-1]) * scale), true
}

// Retention is how long events are kept, with their deliveries and
// attempts, once none is pending (housekeeping removes older ones).
const Retention = 30 * 24 * time.Hour

// Timeout is how long a receiver has to answer 2xx.
const Timeout = 10 * time.Second

// DisableAfter is how long a subscription's deliveries may all fail
// before it is disabled (and its creator emailed).
const DisableAfter = 5 * 24 * time.Hour

// CheckURL refuses a destination that is not an absolute http or https
// URL with a host, carries credentials, or (unless allowPrivate) names a
// refused address literally (Refused). Names are resolved and checked by
// the sender, at subscription and again at every connection.
func CheckURL(raw string, allowPrivate bool) error {
	bad := func(msg string) error { return domain.Invalid(map[string][]string{"url": {msg}}) }
	if strings.TrimSpace(raw) == "" {
		return bad("url is required")
	}
	if len(raw) > 2048 {
		return bad("must be at most 2048 characters")
	}
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.Opaque != "" {
		return bad("must be an absolute http or https URL")
	}
	if u.User != nil {
		return bad("must not carry a user name or password")
	}
	host := u.Hostname()
	if host == "" {
		return bad("must name a host")
	}
	if a, err := netip.ParseAddr(host); err == nil && Refused(a) && !allowPrivate {
		return bad("must not point to a loopback, private, link-local or unique-local address")
	}
	return nil
}

// refusedPrefixes are ranges no webhook may reach besides those the
// netip predicates name: "this network", shared (carrier-grade NAT)
// space, IETF protocol assignments, benchmarking, the limited broadcast,
// deprecated site-local IPv6, and NAT64's and 6to4's embeddings of IPv4
// (which could carry a private address).
var refusedPrefixes = []netip.Prefix{
	netip.MustParsePrefix("0.0.0.0/8"),
	netip.MustParsePrefix("100.64.0.0/10"),
	netip.MustParsePrefix("192.0.0.0/24"),
	netip.MustParsePrefix("198.18.0.0/15"),
	netip.MustParsePrefix("255.255.255.255/32"),
	netip.MustParsePrefix("fec0::/10"),
	netip.MustParsePrefix("64:ff9b::/96"),
	netip.MustParsePrefix("64:ff9b:1::/48"),
	netip.MustParsePrefix("2002::/16"),
}

// Refused reports whether a webhook may not connect to a: loopback,
// private (RFC 1918), link-local, unique-local (fc00::/7), unspecified,
// multicast, and the ranges of refusedPrefixes; IPv4-mapped IPv6 is
// judged as its IPv4 address.
func Refused(a netip.Addr) bool {
	a = a.Unmap()
	if !a.IsValid() || a.IsLoopback() || a.IsPrivate() || a.IsLinkLocalUnicast() || a.IsLinkLocalMulticast() ||
		a.IsUnspecified() || a.IsMulticast() || a.IsInterfaceLocalMulticast() {
		return true
	}
	for _, p := range refusedPrefixes {
		if p.Contains(a) {
			return true
		}
	}
	return false
}

// Change is an event a change causes: its type and, for a status change,
// the statuses (their API names).
type Change struct {
	Type     string
	From, To string
}

// ContractChanges are the events of a contract change, read from the
// history entries it writes: each entry's own event (created, updated,
// document added or removed, deleted; submitted for signing; a signing
// provider's event that completed, declined or expired the signing), and
// contract.status_changed for every entry that moved the status.
func ContractChanges(entries []contract.AuditEntry) []Change {
	var out []Change
	for _, e := range entries {
		moved := e.From != 0 && e.To != 0 && e.From != e.To
		var t string
		switch e.Action {
		case contract.ActionCreated:
			t = ContractCreated
		case contract.ActionUpdated:
			t = ContractUpdated
		case contract.ActionDocumentAdded:
			t = ContractDocumentAdded
		case contract.ActionDocumentRemoved:
			t = ContractDocumentRemoved
		case contract.ActionDeleted:
			t = ContractDeleted
		case contract.ActionSubmittedForSigning:
			t = SigningSubmitted
		case contract.ActionSigningEvent:
			if moved {
				switch e.To {
				case contract.Signed:
					t = SigningCompleted
				case contract.Declined:
					t = SigningDeclined
				case contract.Expired:
					t = SigningExpired
				}
			}
		}
		if t != "" {
			out = append(out, Change{Type: t})
		}
		if moved {
			out = append(out, Change{Type: ContractStatusChanged, From: e.From.String(), To: e.To.String()})
		}
	}
	return out
}
