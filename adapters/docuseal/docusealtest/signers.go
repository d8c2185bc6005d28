package docusealtest

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Open records that the submitter with email opened the signing form of
// submission submissionID.
func (s *Server) Open(submissionID, email string) error {
	return s.act(submissionID, email, func(now time.Time, sub *submission, st *submitter) error {
		if st.OpenedAt == nil {
			st.OpenedAt, st.UpdatedAt = ptr(now), now
			s.addEvent(sub, st.ID, "view_form", now)
		}
		return nil
	})
}

// Complete signs submission submissionID as the submitter with email, the
// way the signing form does: in preserved order only once everyone before
// them has signed, and never on a declined or expired submission. With
// preserved order the next submitter is then sent their invitation; when
// everyone has signed the submission is completed with an audit log.
func (s *Server) Complete(submissionID, email string) error {
	return s.act(submissionID, email, func(now time.Time, sub *submission, st *submitter) error {
		if err := s.canAct(sub, st, now); err != nil {
			return err
		}
		if sub.Order == "preserved" {
			for _, before := range sub.Submitters {
				if before == st {
					break
				}
				if before.CompletedAt == nil {
					return fmt.Errorf("docusealtest: %s cannot sign submission %d before %s (preserved order)", email, sub.ID, before.Email)
				}
			}
		}
		if st.OpenedAt == nil {
			st.OpenedAt = ptr(now)
			s.addEvent(sub, st.ID, "view_form", now)
		}
		st.CompletedAt, st.UpdatedAt = ptr(now), now
		sub.UpdatedAt = now
		s.addEvent(sub, st.ID, "complete_form", now)

		all := true
		for i, other := range sub.Submitters {
			if other.CompletedAt == nil {
				all = false
				// ProcessSubmitterCompletionJob invites the next signer.
				if sub.Order == "preserved" && i > 0 && sub.Submitters[i-1] == st && other.SentAt == nil && other.SendEmail && other.Email != "" {
					other.SentAt, other.UpdatedAt = ptr(now), now
					s.addEvent(sub, other.ID, "send_email", now)
				}
			}
		}
		if all {
			sub.CompletedAt = ptr(now)
			sub.AuditLogURL = s.fileURL(newUUID(), "Audit Log - "+sub.Template.Name+".pdf")
		}
		return nil
	})
}

// Decline declines submission submissionID as the submitter with email,
// with reason.
func (s *Server) Decline(submissionID, email, reason string) error {
	return s.act(submissionID, email, func(now time.Time, sub *submission, st *submitter) error {
		if err := s.canAct(sub, st, now); err != nil {
			return err
		}
		st.DeclinedAt, st.DeclineReason, st.UpdatedAt = ptr(now), reason, now
		sub.UpdatedAt = now
		s.addEvent(sub, st.ID, "decline_form", now)
		sub.Events[len(sub.Events)-1].Reason = reason
		return nil
	})
}

// Expire makes submission submissionID expire now.
func (s *Server) Expire(submissionID string) error {
	now := s.now().UTC()
	s.mu.Lock()
	defer s.mu.Unlock()
	sub, err := s.findSubmission(submissionID)
	if err != nil {
		return err
	}
	if st := sub.status(now); st != "pending" {
		return fmt.Errorf("docusealtest: submission %d is %s, it cannot expire", sub.ID, st)
	}
	sub.ExpireAt, sub.UpdatedAt = ptr(now), now
	return nil
}

// Webhook returns the X-Docuseal-Signature header and body DocuSeal would
// POST for eventType about the current state of submission submissionID:
// for "form.*" events (form.viewed, form.started, form.completed,
// form.declined) data is the submitter with email, for "submission.*"
// events (submission.created, submission.completed, submission.expired,
// submission.archived) the submission. The body's timestamp is the
// event's creation time at the server's clock, with milliseconds, and
// stays so on every retry; the header signs this attempt at the server's
// clock with WebhookSecret (lib/send_webhook_request.rb), and is "" for a
// server WithUnsignedWebhooks. Resign signs a later attempt.
func (s *Server) Webhook(eventType, submissionID, email string) (header string, body []byte, err error) {
	h, body, err := s.Delivery(eventType, submissionID, email)
	return h.Get(SignatureHeader), body, err
}

// Delivery is Webhook with every header DocuSeal sends: Content-Type,
// User-Agent, the custom header of WithWebhookHeader, and
// X-Docuseal-Signature unless the server is WithUnsignedWebhooks or the
// custom header is itself named X-Docuseal-Signature.
func (s *Server) Delivery(eventType, submissionID, email string) (http.Header, []byte, error) {
	now := s.now().UTC()
	s.mu.Lock()
	var data map[string]any
	switch {
	case strings.HasPrefix(eventType, "form."):
		sub, st, ferr := s.find(submissionID, email)
		if ferr != nil {
			s.mu.Unlock()
			return nil, nil, ferr
		}
		data = s.submitterWebhookJSON(sub, st)
	case strings.HasPrefix(eventType, "submission."):
		sub, ferr := s.findSubmission(submissionID)
		if ferr != nil {
			s.mu.Unlock()
			return nil, nil, ferr
		}
		data = s.submissionJSON(sub, true, false)
	default:
		s.mu.Unlock()
		return nil, nil, fmt.Errorf("docusealtest: unknown webhook event type %q", eventType)
	}
	s.mu.Unlock()

	body, err := json.Marshal(map[string]any{
		"event_type": eventType,
		"timestamp":  railsTime(now), // webhook_event.created_at.to_json
		"data":       data,
	})
	if err != nil {
		return nil, nil, err
	}
	return s.headers(body, true), body, nil
}

// Resign returns the X-Docuseal-Signature of another attempt to deliver
// body, signed at the server's clock now: DocuSeal signs each attempt
// afresh and keeps the body ("" WithUnsignedWebhooks).
func (s *Server) Resign(body []byte) string {
	return s.headers(body, true).Get(SignatureHeader)
}

// headers builds a delivery's headers; signed is false for the test
// delivery.
func (s *Server) headers(body []byte, signed bool) http.Header {
	h := http.Header{}
	h.Set("Content-Type", "application/json")
	h.Set("User-Agent", "DocuSeal.com Webhook")
	if s.headerName != "" {
		h.Set(s.headerName, s.headerValue)
	}
	if signed && !s.unsigned && h.Get(SignatureHeader) == "" {
		h.Set(SignatureHeader, s.SignWebhook(s.now().UTC(), body))
	}
	return h
}

// TestDelivery is what the "Test webhook" button of DocuSeal's webhook
// settings sends (app/jobs/send_test_webhook_request_job.rb): a
// form.completed event about the account's last completed submitter, its
// timestamp in whole seconds, with the custom header but never signed.
// An error when no submitter has completed (DocuSeal sends nothing then).
func (s *Server) TestDelivery() (http.Header, []byte, error) {
	now := s.now().UTC()
	s.mu.Lock()
	var data map[string]any
	var last *submitter
	for _, sub := range s.submissions {
		for _, st := range sub.Submitters {
			if st.CompletedAt != nil && (last == nil || st.ID > last.ID) {
				last, data = st, s.submitterWebhookJSON(sub, st)
			}
		}
	}
	s.mu.Unlock()
	if last == nil {
		return nil, nil, fmt.Errorf("docusealtest: no completed submitter to send a test webhook about")
	}
	body, err := json.Marshal(map[string]any{"event_type": "form.completed", "timestamp": now.Format(time.RFC3339), "data": data})
	if err != nil {
		return nil, nil, err
	}
	return s.headers(body, false), body, nil
}

// StartForm is a visitor opening the template's shared link and starting a
// submission as email (app/controllers/start_form_controller.rb): it works
// only when the template's shared_link is on. It returns the new
// submission's id.
func (s *Server) StartForm(templateID, email string) (string, error) {
	n, err := strconv.ParseInt(templateID, 10, 64)
	if err != nil {
		return "", fmt.Errorf("docusealtest: template id %q is not a number", templateID)
	}
	now := s.now().UTC()
	s.mu.Lock()
	defer s.mu.Unlock()
	t := s.templateByID(n)
	switch {
	case t == nil:
		return "", fmt.Errorf("docusealtest: no template %d", n)
	case !t.SharedLink:
		return "", fmt.Errorf("docusealtest: template %d has no shared link: the start form redirects", n)
	}
	sub := &submission{ID: s.nextID("submission"), Slug: newSlug(), Template: t, Source: "link", Order: "preserved", CreatedAt: now, UpdatedAt: now}
	sub.Submitters = append(sub.Submitters, &submitter{ID: s.nextID("submitter"), UUID: t.Roles[0].UUID, Slug: newSlug(),
		Role: t.Roles[0].Name, Email: strings.ToLower(email), CreatedAt: now, UpdatedAt: now, OpenedAt: ptr(now)})
	s.submissions = append(s.submissions, sub)
	return strconv.FormatInt(sub.ID, 10), nil
}

// SignWebhook returns the X-Docuseal-Signature value for body sent at ts:
// "<unix ts>.<hex HMAC-SHA256(WebhookSecret, "<ts>.<body>")>", as DocuSeal's
// WebhookUrls::Signatures.sign computes it.
func (s *Server) SignWebhook(ts time.Time, body []byte) string {
	return Sign(s.WebhookSecret, ts, body)
}

// Sign is SignWebhook for any secret.
func Sign(secret string, ts time.Time, body []byte) string {
	t := strconv.FormatInt(ts.Unix(), 10)
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write([]byte(t + "." + string(body)))
	return t + "." + hex.EncodeToString(mac.Sum(nil))
}

// act runs fn on submission submissionID and its submitter with email,
// under s.mu, at the server's clock.
func (s *Server) act(submissionID, email string, fn func(now time.Time, sub *submission, st *submitter) error) error {
	now := s.now().UTC()
	s.mu.Lock()
	defer s.mu.Unlock()
	sub, st, err := s.find(submissionID, email)
	if err != nil {
		return err
	}
	return fn(now, sub, st)
}

// canAct refuses a signer action on a submission that is over; the caller
// holds s.mu.
func (s *Server) canAct(sub *submission, st *submitter, now time.Time) error {
	if status := sub.status(now); status != "pending" {
		return fmt.Errorf("docusealtest: submission %d is %s", sub.ID, status)
	}
	if st.CompletedAt != nil {
		return fmt.Errorf("docusealtest: %s already signed submission %d", st.Email, sub.ID)
	}
	return nil
}

// find returns a submission and its submitter by email; the caller holds
// s.mu.
func (s *Server) find(submissionID, email string) (*submission, *submitter, error) {
	sub, err := s.findSubmission(submissionID)
	if err != nil {
		return nil, nil, err
	}
	for _, st := range sub.Submitters {
		if strings.EqualFold(st.Email, strings.TrimSpace(email)) {
			return sub, st, nil
		}
	}
	return nil, nil, fmt.Errorf("docusealtest: submission %d has no submitter %s", sub.ID, email)
}

func (s *Server) findSubmission(submissionID string) (*submission, error) {
	id, err := strconv.ParseInt(submissionID, 10, 64)
	if err != nil {
		return nil, fmt.Errorf("docusealtest: submission id %q is not a number", submissionID)
	}
	sub := s.submissionByID(id)
	if sub == nil {
		return nil, fmt.Errorf("docusealtest: no submission %d", id)
	}
	return sub, nil
}

// Template is a snapshot of a stored template, for tests that check what a
// client asked DocuSeal to build.
type Template struct {
	ID         string
	Name       string
	ExternalID string
	Kind       string // "pdf" or "docx": the endpoint that built it
	SharedLink bool
	Roles      []string
	Documents  []Document
	Fields     []Field
}

// Document is a template's document.
type Document struct {
	ID      string
	Name    string
	Pages   int // 0 when the fake cannot tell (DOCX)
	Content []byte
}

// Field is a template field.
type Field struct {
	Name     string
	Type     string
	Role     string
	Required bool
	Areas    []Area
}

// Area is where a field sits.
type Area struct {
	X, Y, W, H float64
	Document   int // index into Template.Documents
	Page       int // 1-based, as clients send it
}

// Template returns a snapshot of template id.
func (s *Server) Template(id string) (Template, bool) {
	n, err := strconv.ParseInt(id, 10, 64)
	if err != nil {
		return Template{}, false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	t := s.templateByID(n)
	if t == nil {
		return Template{}, false
	}
	out := Template{ID: id, Name: t.Name, ExternalID: t.ExternalID, Kind: t.Kind, SharedLink: t.SharedLink}
	docIndex := map[string]int{}
	for i, d := range t.Documents {
		docIndex[d.UUID] = i
		out.Documents = append(out.Documents, Document{ID: strconv.FormatInt(d.ID, 10), Name: d.Name, Pages: d.Pages, Content: d.Content})
	}
	roleName := map[string]string{}
	for _, r := range t.Roles {
		out.Roles = append(out.Roles, r.Name)
		roleName[r.UUID] = r.Name
	}
	for _, f := range t.Fields {
		fl := Field{Name: f.Name, Type: f.Type, Role: roleName[f.SubmitterUUID], Required: f.Required}
		for _, a := range f.Areas {
			fl.Areas = append(fl.Areas, Area{X: a.X, Y: a.Y, W: a.W, H: a.H, Document: docIndex[a.AttachmentUUID], Page: a.Page + 1})
		}
		out.Fields = append(out.Fields, fl)
	}
	return out, true
}
