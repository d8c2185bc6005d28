package docuseal

import (
	"crypto/hmac"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"counsel/domain"
	"counsel/domain/signing"
)

// SignatureHeader is the header DocuSeal signs its webhooks in.
const SignatureHeader = "X-Docuseal-Signature"

// WebhookTolerance is how far a webhook's signed timestamp may be from now,
// either way, as in DocuSeal's own verifier (WebhookUrls::Signatures).
const WebhookTolerance = 300 * time.Second

// DocuSeal's webhook event types that change a submission.
const (
	eventFormCompleted       = "form.completed"
	eventFormDeclined        = "form.declined"
	eventSubmissionCompleted = "submission.completed"
	eventSubmissionExpired   = "submission.expired"
)

// webhookBody is DocuSeal's webhook envelope.
type webhookBody struct {
	EventType string          `json:"event_type"`
	Timestamp json.RawMessage `json:"timestamp"`
	Data      json.RawMessage `json:"data"`
}

// ParseWebhook authenticates and decodes a DocuSeal webhook.
//
// A delivery is authenticated by either of:
//   - X-Docuseal-Signature: "<unix ts>.<hex HMAC-SHA256 of "<ts>.<raw
//     body>" keyed with the whole webhook secret>" (DocuSeal 2.5.3 and
//     later, lib/webhook_urls/signatures.rb), the MAC compared in constant
//     time and the timestamp (the attempt's, not the body's) within
//     WebhookTolerance of now;
//   - the configured custom header with its value, compared in constant
//     time (DocuSeal before 2.5.3 signs nothing but sends the webhook's
//     custom "Secret" header with every delivery).
//
// Anything else is EUNAUTHORIZED. An unsigned delivery without the custom
// header (DocuSeal's settings-page test delivery, or an older DocuSeal)
// carries, as its cause, the hint naming the setting to use. A body that
// is not DocuSeal's {event_type, timestamp, data} is EINVALID.
//
// form.completed gives EventSubmitterCompleted (AllCompleted when the
// submission in the payload is completed or all of its listed submitters
// are), form.declined EventSubmitterDeclined (Reason from decline_reason),
// submission.completed EventSubmissionCompleted and submission.expired
// EventSubmissionExpired. Other event types give no events and no error.
func (c *Client) ParseWebhook(header func(name string) string, body []byte, now time.Time) ([]signing.Event, error) {
	if err := c.authenticate(header, body, now); err != nil {
		return nil, err
	}

	var env webhookBody
	if err := json.Unmarshal(body, &env); err != nil {
		return nil, &domain.Error{Code: domain.EINVALID, Message: "the webhook body is not DocuSeal JSON", Err: err}
	}
	if env.EventType == "" {
		return nil, domain.Errorf(domain.EINVALID, "the webhook body names no event_type")
	}
	at := parseTimestamp(env.Timestamp)
	if at.IsZero() {
		at = now.UTC()
	}

	switch env.EventType {
	case eventFormCompleted, eventFormDeclined:
		var s apiSubmitter
		if err := decodeData(env, &s); err != nil {
			return nil, err
		}
		ev := signing.Event{SubmitterEmail: deref(s.Email), At: at}
		ev.SubmissionID = formatID(s.SubmissionID)
		if s.Submission != nil && s.Submission.ID != 0 {
			ev.SubmissionID = formatID(s.Submission.ID)
		}
		if s.Template != nil {
			ev.TemplateID = formatID(s.Template.ID)
		}
		if ev.SubmissionID == "" {
			return nil, domain.Errorf(domain.EINVALID, "the %s webhook names no submission", env.EventType)
		}
		if env.EventType == eventFormDeclined {
			ev.Kind = signing.EventSubmitterDeclined
			ev.Reason = deref(s.DeclineReason)
			if t := parseTimePtr(s.DeclinedAt); t != nil {
				ev.At = *t
			}
		} else {
			ev.Kind = signing.EventSubmitterCompleted
			ev.AllCompleted = submissionCompleted(s)
			if t := parseTimePtr(s.CompletedAt); t != nil {
				ev.At = *t
			}
		}
		return []signing.Event{ev}, nil

	case eventSubmissionCompleted, eventSubmissionExpired:
		var s apiSubmission
		if err := decodeData(env, &s); err != nil {
			return nil, err
		}
		if s.ID == 0 {
			return nil, domain.Errorf(domain.EINVALID, "the %s webhook names no submission", env.EventType)
		}
		ev := signing.Event{Kind: signing.EventSubmissionExpired, SubmissionID: formatID(s.ID), At: at}
		if s.Template != nil {
			ev.TemplateID = formatID(s.Template.ID)
		}
		if env.EventType == eventSubmissionCompleted {
			ev.Kind = signing.EventSubmissionCompleted
			if t := parseTimePtr(s.CompletedAt); t != nil {
				ev.At = *t
			}
		}
		return []signing.Event{ev}, nil
	}
	return nil, nil
}

// UnsignedHint is the cause of the EUNAUTHORIZED error of an unsigned
// delivery that carries no configured custom header either.
const UnsignedHint = "an unsigned DocuSeal webhook: DocuSeal's settings-page test delivery is never signed (real events are, " +
	"from DocuSeal 2.5.3 on, with the whsec_ secret to copy into COUNSEL_DOCUSEAL_WEBHOOK_SECRET); " +
	"for DocuSeal before 2.5.3, set a custom header under the webhook's Secret in DocuSeal and the same " +
	"\"Name: value\" in COUNSEL_DOCUSEAL_WEBHOOK_HEADER"

// ParseWebhookHeader reads a WebhookHeader setting, "Name: value"; an
// empty setting gives empty strings. The name must be a valid header
// name and the value must not be empty.
func ParseWebhookHeader(s string) (name, value string, err error) {
	if strings.TrimSpace(s) == "" {
		return "", "", nil
	}
	name, value, ok := strings.Cut(s, ":")
	name, value = strings.TrimSpace(name), strings.TrimSpace(value)
	if !ok || name == "" || value == "" || strings.Trim(name, "!#$%&'*+-.^_`|~0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ") != "" {
		return "", "", fmt.Errorf(`WebhookHeader must be "Name: value" with a header name and a non-empty value`)
	}
	if strings.EqualFold(name, SignatureHeader) {
		// DocuSeal then leaves its signature out, and the value would be
		// read as one.
		return "", "", fmt.Errorf("WebhookHeader must not be named %s", SignatureHeader)
	}
	return name, value, nil
}

// authenticate accepts a delivery signed with the secret or carrying the
// custom header, when configured.
func (c *Client) authenticate(header func(string) string, body []byte, now time.Time) error {
	sig := strings.TrimSpace(header(SignatureHeader))
	var sigErr error
	if sig != "" && c.webhookSecret != "" {
		if sigErr = c.verifySignature(sig, body, now); sigErr == nil {
			return nil
		}
	}
	if c.headerName != "" {
		got := sha256.Sum256([]byte(strings.TrimSpace(header(c.headerName))))
		want := sha256.Sum256([]byte(c.headerValue))
		// Both sides hashed first: the comparison takes the same time
		// whatever the lengths.
		if subtle.ConstantTimeCompare(got[:], want[:]) == 1 {
			return nil
		}
	}
	switch {
	case sigErr != nil:
		return sigErr
	case sig == "" && c.webhookSecret != "":
		return &domain.Error{Code: domain.EUNAUTHORIZED, Message: "the webhook signature is missing or invalid", Err: errors.New(UnsignedHint)}
	case sig == "":
		return &domain.Error{Code: domain.EUNAUTHORIZED, Message: "the webhook does not carry the configured header",
			Err: fmt.Errorf("docuseal webhook: no %s header with the value of COUNSEL_DOCUSEAL_WEBHOOK_HEADER", c.headerName)}
	}
	return &domain.Error{Code: domain.EUNAUTHORIZED, Message: "the webhook does not carry the configured header",
		Err: fmt.Errorf("docuseal webhook: signed, but no secret is configured (COUNSEL_DOCUSEAL_WEBHOOK_SECRET) and no %s header with the configured value", c.headerName)}
}

// verifySignature checks X-Docuseal-Signature the way DocuSeal's
// WebhookUrls::Signatures.verify does.
func (c *Client) verifySignature(header string, body []byte, now time.Time) error {
	unauthorized := func(why string) error {
		return &domain.Error{Code: domain.EUNAUTHORIZED, Message: "the webhook signature is missing or invalid", Err: fmt.Errorf("docuseal webhook: %s", why)}
	}
	header = strings.TrimSpace(header)
	if header == "" {
		return unauthorized("no " + SignatureHeader + " header")
	}
	tsText, sigText, ok := strings.Cut(header, ".")
	if !ok || tsText == "" || len(tsText) > 12 || strings.Trim(tsText, "0123456789") != "" {
		return unauthorized("malformed header")
	}
	ts, err := strconv.ParseInt(tsText, 10, 64)
	if err != nil {
		return unauthorized("malformed timestamp")
	}
	sig, err := hex.DecodeString(sigText)
	if err != nil || len(sig) != sha256.Size {
		return unauthorized("malformed signature")
	}
	mac := hmac.New(sha256.New, []byte(c.webhookSecret))
	mac.Write([]byte(tsText))
	mac.Write([]byte("."))
	mac.Write(body)
	if !hmac.Equal(mac.Sum(nil), sig) {
		return unauthorized("signature does not match")
	}
	if age := now.Sub(time.Unix(ts, 0)); age > WebhookTolerance || age < -WebhookTolerance {
		return unauthorized(fmt.Sprintf("timestamp %d is %s away from now", ts, age.Round(time.Second)))
	}
	return nil
}

// SignWebhook returns the X-Docuseal-Signature value DocuSeal sends with
// body at ts, keyed with secret. Tests and tools use it to forge valid
// callbacks.
func SignWebhook(secret string, ts time.Time, body []byte) string {
	t := strconv.FormatInt(ts.Unix(), 10)
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write([]byte(t + "."))
	mac.Write(body)
	return t + "." + hex.EncodeToString(mac.Sum(nil))
}

func decodeData(env webhookBody, into any) error {
	data := strings.TrimSpace(string(env.Data))
	if !strings.HasPrefix(data, "{") {
		return domain.Errorf(domain.EINVALID, "the %s webhook carries no data object", env.EventType)
	}
	if err := json.Unmarshal(env.Data, into); err != nil {
		return &domain.Error{Code: domain.EINVALID, Message: fmt.Sprintf("the %s webhook data could not be read", env.EventType), Err: err}
	}
	return nil
}

// submissionCompleted tells, as far as a form.completed payload does,
// whether the whole submission is complete.
func submissionCompleted(s apiSubmitter) bool {
	if s.Submission == nil {
		return false
	}
	if s.Submission.Status == signing.SubmissionCompleted {
		return true
	}
	if len(s.Submission.Submitters) == 0 {
		return false
	}
	for _, sub := range s.Submission.Submitters {
		if sub.Status != signing.SubmitterCompleted {
			return false
		}
	}
	return true
}
