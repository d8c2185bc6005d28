// Package webhookhttp delivers outbound webhooks over HTTP (docs/decisions.md
// §17): one POST per attempt, signed by the caller, within a deadline,
// redirects not followed, and never to a refused address
// (webhook.Refused): names are resolved and checked when a subscription
// is made (CheckURL), and every connection is checked again after
// resolution by the dialer's Control function, so a name that later
// resolves to an internal address (DNS rebinding) is refused too.
package webhookhttp

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"syscall"
	"time"

	"counsel/domain"
	"counsel/domain/webhook"
	"counsel/ports"
)

// Options configure a Sender.
type Options struct {
	// AllowPrivate lets webhooks reach refused addresses
	// (COUNSEL_WEBHOOK_ALLOW_PRIVATE: development and tests only).
	AllowPrivate bool
	// Timeout bounds an attempt, connection included; 0: webhook.Timeout.
	Timeout time.Duration
	// Resolver resolves names for CheckURL; nil: net.DefaultResolver.
	Resolver *net.Resolver
	// UserAgent is sent with every delivery.
	UserAgent string
}

// Sender posts webhook deliveries.
type Sender struct {
	opts   Options
	client *http.Client
}

// ErrRefusedAddress is the failure of a connection to a refused address.
var ErrRefusedAddress = errors.New("the address is loopback, private, link-local or unique-local: refused")

// New returns a Sender.
func New(o Options) *Sender {
	if o.Timeout <= 0 {
		o.Timeout = webhook.Timeout
	}
	if o.Resolver == nil {
		o.Resolver = net.DefaultResolver
	}
	if o.UserAgent == "" {
		o.UserAgent = "Counsel-Webhooks/1"
	}
	dialer := &net.Dialer{Timeout: o.Timeout, KeepAlive: 30 * time.Second}
	if !o.AllowPrivate {
		dialer.Control = refuse
	}
	transport := &http.Transport{
		// No proxy from the environment: a proxy would connect for us,
		// past the check of each connection's address.
		Proxy:                 nil,
		DialContext:           dialer.DialContext,
		ForceAttemptHTTP2:     true,
		MaxIdleConns:          100,
		MaxIdleConnsPerHost:   4,
		IdleConnTimeout:       90 * time.Second,
		TLSHandshakeTimeout:   o.Timeout,
		ResponseHeaderTimeout: o.Timeout,
	}
	client := &http.Client{
		Transport: transport,
		Timeout:   o.Timeout,
		// Redirects are not followed: the answer is the 3xx, which is no
		// success.
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
	return &Sender{opts: o, client: client}
}

// refuse is the dialer's Control: it runs after resolution, on the
// address about to be connected to.
func refuse(network, address string, _ syscall.RawConn) error {
	host, _, err := net.SplitHostPort(address)
	if err != nil {
		return fmt.Errorf("webhook connection to %q: %w", address, err)
	}
	a, err := netip.ParseAddr(host)
	if err != nil || webhook.Refused(a) {
		return fmt.Errorf("webhook connection to %s: %w", host, ErrRefusedAddress)
	}
	return nil
}

// CheckURL checks a subscription's URL: webhook.CheckURL, and unless
// private addresses are allowed, that every address its host resolves to
// may be reached (EINVALID on the url field otherwise, or when the host
// does not resolve).
func (s *Sender) CheckURL(ctx context.Context, raw string) error {
	if err := webhook.CheckURL(raw, s.opts.AllowPrivate); err != nil {
		return err
	}
	if s.opts.AllowPrivate {
		return nil
	}
	u, _ := url.Parse(raw)
	host := u.Hostname()
	if _, err := netip.ParseAddr(host); err == nil {
		return nil // a literal, checked above
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	addrs, err := s.opts.Resolver.LookupNetIP(ctx, "ip", host)
	if err != nil || len(addrs) == 0 {
		return domain.Invalid(map[string][]string{"url": {"the host " + host + " does not resolve"}})
	}
	for _, a := range addrs {
		if webhook.Refused(a) {
			return domain.Invalid(map[string][]string{"url": {"the host " + host + " resolves to a loopback, private, link-local or unique-local address"}})
		}
	}
	return nil
}

// Delivery is one attempt to send.
type Delivery struct {
	URL       string
	ID        string // webhook-id: the event's id, the same on every attempt
	Timestamp int64  // webhook-timestamp: unix seconds of this attempt
	Signature string // webhook-signature (webhook.Sign)
	Body      []byte
}

// Result is what an attempt met: the status (0 when no answer came),
// how long it took, and the error (nil only for a 2xx).
type Result struct {
	Status   int
	Duration time.Duration
	Err      error
}

// maxDrain is how much of an answer is read (so the connection can be
// reused); the rest is dropped.
const maxDrain = 64 << 10

// Send makes one attempt. A 2xx within the timeout is success; anything
// else, a refused address included, is an error in Result.
func (s *Sender) Send(ctx context.Context, d Delivery) Result {
	start := time.Now()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, d.URL, bytes.NewReader(d.Body))
	if err != nil {
		return Result{Err: fmt.Errorf("webhook request: %w", err)}
	}
	h := req.Header
	h.Set("Content-Type", "application/json")
	h.Set("User-Agent", s.opts.UserAgent)
	h["webhook-id"] = []string{d.ID}
	h["webhook-timestamp"] = []string{fmt.Sprint(d.Timestamp)}
	h["webhook-signature"] = []string{d.Signature}
	res, err := s.client.Do(req)
	if err != nil {
		return Result{Duration: time.Since(start), Err: cleanError(err)}
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(res.Body, maxDrain))
	res.Body.Close()
	r := Result{Status: res.StatusCode, Duration: time.Since(start)}
	if res.StatusCode < 200 || res.StatusCode > 299 {
		r.Err = fmt.Errorf("the receiver answered %d", res.StatusCode)
	}
	return r
}

// cleanError drops the URL from a client error (it may carry a token in
// its query) and keeps the cause.
func cleanError(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		if ue.Timeout() {
			return fmt.Errorf("no answer within the timeout: %w", ue.Err)
		}
		return ue.Err
	}
	return err
}

// SendWebhook implements ports.WebhookSender with Send.
func (s *Sender) SendWebhook(ctx context.Context, r ports.WebhookRequest) ports.WebhookResult {
	res := s.Send(ctx, Delivery{URL: r.URL, ID: r.ID, Timestamp: r.Timestamp, Signature: r.Signature, Body: r.Body})
	return ports.WebhookResult{Status: res.Status, Duration: res.Duration, Err: res.Err}
}

var _ ports.WebhookSender = (*Sender)(nil)
