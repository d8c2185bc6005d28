package docusealtest

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
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
// submission.archived) the submission. It is signed with WebhookSecret at the
// server's clock.
func (s *Server) Webhook(eventType, submissionID, email string) (header string, body []byte, err error) {
	now := s.now().UTC()
	s.mu.Lock()
	var data map[string]any
	switch {
	case strings.HasPrefix(eventType, "form."):
		sub, st, ferr := s.find(submissionID, email)
		if ferr != nil {
			s.mu.Unlock()
			return "", nil, ferr
		}
		data = s.submitterWebhookJSON(sub, st)
	case strings.HasPrefix(eventType, "submission."):
		sub, ferr := s.findSubmission(submissionID)
		if ferr != nil {
			s.mu.Unlock()
			return "", nil, ferr
		}
		data = s.submissionJSON(sub, true, false)
	default:
		s.mu.Unlock()
		return "", nil, fmt.Errorf("docusealtest: unknown webhook event type %q", eventType)
	}
	s.mu.Unlock()

	body, err = json.Marshal(map[string]any{
		"event_type": eventType,
		"timestamp":  now.Format(time.RFC3339),
		"data":       data,
	})
	if err != nil {
		return "", nil, err
	}
	return s.SignWebhook(now, body), body, nil
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
	out := Template{ID: id, Name: t.Name, ExternalID: t.ExternalID, Kind: t.Kind}
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
