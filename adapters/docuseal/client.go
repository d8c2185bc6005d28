// Package docuseal is the signing provider backed by a DocuSeal server
// (docuseal.com or a self-hosted instance) through its REST API.
//
// It builds templates from contract documents (POST /templates/pdf and
// /templates/docx, DocuSeal Pro features), sends submissions, reads them back,
// signs form-builder tokens and authenticates DocuSeal's webhooks. Every call
// has a timeout; idempotent reads are retried a bounded number of times on
// network errors and 5xx answers; answers are read up to a size limit. A
// failure is a *domain.Error: ENOTFOUND for an unknown template or submission
// id, EUPSTREAM for everything DocuSeal did wrong or refused, always with a
// message safe to show a client (never the API key nor a long raw body).
package docuseal

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"counsel/domain"
	"counsel/ports"
)

const (
	// DefaultTimeout bounds each HTTP exchange with DocuSeal.
	DefaultTimeout = 15 * time.Second
	// maxResponseBytes bounds the body read from DocuSeal: a page of 100
	// submissions with their values is far below it.
	maxResponseBytes = 8 << 20
	// maxMessageRunes bounds DocuSeal's own error text quoted to clients.
	maxMessageRunes = 200
	// maxLogBytes bounds the raw body excerpt written to the log.
	maxLogBytes = 500
)

// ErrProEditionRequired is the cause (see errors.Is) of the EUPSTREAM error
// CreateTemplate returns when the DocuSeal server is a Community Edition,
// which has no API to create templates from documents.
var ErrProEditionRequired = errors.New("docuseal: creating templates through the API needs DocuSeal Pro Edition")

// Config configures a Client.
type Config struct {
	// BaseURL is the API root: https://api.docuseal.com, or
	// https://sign.example.com/api for a self-hosted server.
	BaseURL string
	// APIKey is sent as X-Auth-Token and signs form-builder tokens.
	APIKey string
	// WebhookSecret is the HMAC key DocuSeal (2.5.3 and later) signs
	// webhooks with: the "whsec_..." value DocuSeal generates and shows
	// read-only in its webhook settings, used whole as the key.
	WebhookSecret string
	// WebhookHeader is "Name: value", a custom header DocuSeal sends with
	// every delivery (its webhook's "Secret" key and value): the way to
	// authenticate DocuSeal older than 2.5.3, which signs nothing. With
	// both set, either is enough.
	WebhookHeader string
	// UserEmail is the email of the DocuSeal user owning APIKey; it is the
	// form-builder token's user_email when the request names none.
	UserEmail string
	// HTTPClient sends the requests; nil means a new http.Client. Timeouts
	// come from Timeout, so the client needs none of its own. Unless it
	// has its own CheckRedirect, redirects are followed only within the
	// same host, so the API key never goes elsewhere.
	HTTPClient *http.Client
	// Timeout bounds each HTTP exchange (each try of a retried read);
	// 0 means DefaultTimeout.
	Timeout time.Duration
	// Now is the clock for default token expiry; nil means time.Now.
	Now func() time.Time
	// Logger receives upstream failures with their details; nil discards.
	Logger *slog.Logger
}

// Client is a ports.SigningProvider talking to DocuSeal. It is safe for
// concurrent use.
type Client struct {
	base          *url.URL
	apiKey        string
	webhookSecret string
	headerName    string
	headerValue   string
	userEmail     string
	http          *http.Client
	timeout       time.Duration
	now           func() time.Time
	log           *slog.Logger
	// backoff lists the waits before each retry of an idempotent read; its
	// length is the number of retries.
	backoff []time.Duration
	// maxListPages bounds how many pages ListSubmissions follows.
	maxListPages int
}

var _ ports.SigningProvider = (*Client)(nil)

// New validates cfg and returns a Client. It makes no request.
func New(cfg Config) (*Client, error) {
	var problems []string
	base, err := url.Parse(strings.TrimSpace(cfg.BaseURL))
	switch {
	case strings.TrimSpace(cfg.BaseURL) == "":
		problems = append(problems, "BaseURL is required")
	case err != nil:
		problems = append(problems, "BaseURL is not a URL")
	case base.Scheme != "http" && base.Scheme != "https":
		problems = append(problems, "BaseURL must be an http or https URL")
	case base.Host == "":
		problems = append(problems, "BaseURL has no host")
	case base.User != nil || base.RawQuery != "" || base.Fragment != "":
		problems = append(problems, "BaseURL must not carry credentials, a query or a fragment")
	}
	if strings.TrimSpace(cfg.APIKey) == "" {
		problems = append(problems, "APIKey is required")
	}
	headerName, headerValue, headerErr := ParseWebhookHeader(cfg.WebhookHeader)
	if headerErr != nil {
		problems = append(problems, headerErr.Error())
	}
	if cfg.WebhookSecret == "" && cfg.WebhookHeader == "" {
		problems = append(problems, "WebhookSecret or WebhookHeader is required (DocuSeal webhooks could not be authenticated)")
	}
	if cfg.Timeout < 0 {
		problems = append(problems, "Timeout must not be negative")
	}
	if len(problems) > 0 {
		return nil, fmt.Errorf("docuseal config: %s", strings.Join(problems, "; "))
	}
	base.Path = strings.TrimRight(base.Path, "/")

	c := &Client{
		base:          base,
		apiKey:        cfg.APIKey,
		webhookSecret: cfg.WebhookSecret,
		headerName:    headerName,
		headerValue:   headerValue,
		userEmail:     cfg.UserEmail,
		http:          cfg.HTTPClient,
		timeout:       cfg.Timeout,
		now:           cfg.Now,
		log:           cfg.Logger,
		backoff:       []time.Duration{200 * time.Millisecond, 600 * time.Millisecond},
		maxListPages:  50,
	}
	if c.http == nil {
		c.http = &http.Client{}
	}
	if c.http.CheckRedirect == nil {
		// Go forwards custom headers such as X-Auth-Token on redirects to
		// other hosts; a misconfigured or hostile redirect must not carry
		// the API key away.
		hc := *c.http
		hc.CheckRedirect = sameHostRedirects
		c.http = &hc
	}
	if c.timeout == 0 {
		c.timeout = DefaultTimeout
	}
	if c.now == nil {
		c.now = time.Now
	}
	if c.log == nil {
		c.log = slog.New(slog.DiscardHandler)
	}
	return c, nil
}

// request describes one API call.
type request struct {
	method string
	path   string // below BaseURL, starting with "/"
	query  url.Values
	body   any // marshalled to JSON when non-nil
	// notFound, when set, turns a 404 answer into ENOTFOUND with this
	// message; the calls that read one resource by id set it.
	notFound string
	// foreignNotFound turns a 403 answer into ENOTFOUND with notFound too:
	// with a valid API key, DocuSeal answers 403 for a record of another
	// account (CanCan's AccessDenied in Api::ApiBaseController), which
	// for Counsel does not exist.
	foreignNotFound bool
	// proEdition marks the template-creation endpoints, whose 404 on a
	// Community Edition server gets its own explanation.
	proEdition bool
}

// do performs r and decodes a successful JSON answer into out (unless out
// is nil). GETs are retried on network errors, timeouts and 5xx answers.
func (c *Client) do(ctx context.Context, r request, out any) error {
	var payload []byte
	if r.body != nil {
		var err error
		if payload, err = json.Marshal(r.body); err != nil {
			return &domain.Error{Code: domain.EINTERNAL, Message: "could not encode the DocuSeal request", Err: err}
		}
	}
	u := *c.base
	u.Path += r.path
	u.RawQuery = r.query.Encode()

	tries := 1
	if r.method == http.MethodGet {
		tries += len(c.backoff)
	}
	var lastErr error
	for try := 0; try < tries; try++ {
		if try > 0 {
			if err := sleep(ctx, c.backoff[try-1]); err != nil {
				return c.cancelled(r, err)
			}
		}
		status, body, err := c.exchange(ctx, r.method, u.String(), payload)
		if err != nil {
			if ctx.Err() != nil {
				return c.cancelled(r, ctx.Err())
			}
			lastErr = c.unreachable(r, err)
			continue
		}
		switch {
		case status >= 200 && status < 300:
			if out == nil {
				return nil
			}
			if err := json.Unmarshal(body, out); err != nil {
				c.log.Warn("docuseal: unreadable answer", "method", r.method, "path", r.path, "status", status, "err", err, "body", excerpt(body, maxLogBytes))
				return &domain.Error{Code: domain.EUPSTREAM, Message: "DocuSeal sent an answer that could not be read", Err: fmt.Errorf("decode %s %s: %w", r.method, r.path, err)}
			}
			return nil
		case status == http.StatusNotFound && r.notFound != "":
			return &domain.Error{Code: domain.ENOTFOUND, Message: r.notFound}
		case status == http.StatusForbidden && r.foreignNotFound && r.notFound != "":
			c.log.Info("docuseal: a record of another account", "method", r.method, "path", r.path, "body", excerpt(body, maxLogBytes))
			return &domain.Error{Code: domain.ENOTFOUND, Message: r.notFound + " (DocuSeal answered 403: it belongs to another account)"}
		case status == http.StatusNotFound && r.proEdition && bytes.Contains(body, []byte("Pro Edition")):
			c.log.Warn("docuseal: template API needs Pro Edition", "method", r.method, "path", r.path, "body", excerpt(body, maxLogBytes))
			return &domain.Error{
				Code: domain.EUPSTREAM,
				Message: "this DocuSeal server cannot create templates from documents through its API (a DocuSeal Pro Edition feature): " +
					"create the template in DocuSeal, then use /api/contracts/{id}/submission/create with its templateId",
				Err: ErrProEditionRequired,
			}
		case status >= 500:
			lastErr = c.refused(r, status, body)
			continue
		default:
			return c.refused(r, status, body)
		}
	}
	return lastErr
}

// exchange sends one HTTP request under the per-try timeout and reads the
// bounded answer.
func (c *Client) exchange(ctx context.Context, method, target string, payload []byte) (int, []byte, error) {
	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	var body io.Reader
	if payload != nil {
		body = bytes.NewReader(payload)
	}
	req, err := http.NewRequestWithContext(ctx, method, target, body)
	if err != nil {
		return 0, nil, err
	}
	req.Header.Set("X-Auth-Token", c.apiKey)
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", "counsel-docuseal")
	if payload != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, maxResponseBytes+1))
	if err != nil {
		return 0, nil, fmt.Errorf("read answer: %w", err)
	}
	if len(b) > maxResponseBytes {
		return 0, nil, fmt.Errorf("answer larger than %d bytes", maxResponseBytes)
	}
	return resp.StatusCode, b, nil
}

// sameHostRedirects follows at most five redirects, all to the host of the
// original request; any other redirect answer is returned as is, and
// refused as a non-2xx answer.
func sameHostRedirects(req *http.Request, via []*http.Request) error {
	if len(via) >= 5 || req.URL.Host != via[0].URL.Host {
		return http.ErrUseLastResponse
	}
	return nil
}

func (c *Client) unreachable(r request, err error) error {
	c.log.Warn("docuseal: request failed", "method", r.method, "path", r.path, "err", err)
	msg := "DocuSeal could not be reached"
	if errors.Is(err, context.DeadlineExceeded) {
		msg = "DocuSeal did not answer in time"
	}
	return &domain.Error{Code: domain.EUPSTREAM, Message: msg, Err: fmt.Errorf("%s %s: %w", r.method, r.path, err)}
}

func (c *Client) cancelled(r request, err error) error {
	return &domain.Error{Code: domain.EUPSTREAM, Message: "the request to DocuSeal was cancelled", Err: fmt.Errorf("%s %s: %w", r.method, r.path, err)}
}

// refused turns a non-2xx answer into EUPSTREAM. DocuSeal's own error text
// (its {"error": ...} or {"message": ...}) is short and names the problem
// ("Template does not contain fields"), so a bounded excerpt of it goes into
// the message; the raw body only goes to the log.
func (c *Client) refused(r request, status int, body []byte) error {
	c.log.Warn("docuseal: request refused", "method", r.method, "path", r.path, "status", status, "body", excerpt(body, maxLogBytes))
	var msg string
	switch {
	case status == http.StatusUnauthorized || status == http.StatusForbidden:
		msg = fmt.Sprintf("DocuSeal refused the configured API key (%d)", status)
	case status == http.StatusTooManyRequests:
		msg = "DocuSeal is rate limiting requests (429)"
	case status >= 500:
		msg = fmt.Sprintf("DocuSeal failed (%d)", status)
	default:
		msg = fmt.Sprintf("DocuSeal refused the request (%d)", status)
		if text := apiErrorText(body); text != "" {
			msg += ": " + text
		}
	}
	return &domain.Error{Code: domain.EUPSTREAM, Message: msg, Err: fmt.Errorf("%s %s: status %d", r.method, r.path, status)}
}

// apiErrorText extracts DocuSeal's error text from an error body, cut to
// maxMessageRunes.
func apiErrorText(body []byte) string {
	var e struct {
		Error   any    `json:"error"`
		Message string `json:"message"`
	}
	if json.Unmarshal(body, &e) != nil {
		return ""
	}
	text := e.Message
	if s, ok := e.Error.(string); ok && s != "" {
		text = s
	}
	text = strings.Join(strings.Fields(text), " ")
	if utf8.RuneCountInString(text) > maxMessageRunes {
		text = string([]rune(text)[:maxMessageRunes]) + "..."
	}
	return text
}

func excerpt(b []byte, n int) string {
	if len(b) > n {
		return string(b[:n]) + "..."
	}
	return string(b)
}

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// parseID reads a DocuSeal id (a positive decimal integer) given as one of
// our string ids; ok is false for anything else, which cannot name a
// DocuSeal record.
func parseID(s string) (int64, bool) {
	if s == "" || len(s) > 18 {
		return 0, false
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return 0, false
		}
	}
	n, err := strconv.ParseInt(s, 10, 64)
	return n, err == nil && n > 0
}

func formatID(n int64) string {
	if n == 0 {
		return ""
	}
	return strconv.FormatInt(n, 10)
}
