package docuseal

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"counsel/domain"
	"counsel/domain/signing"
)

// listPageSize is DocuSeal's largest page.
const listPageSize = 100

// wire shape of POST /submissions.
type (
	submissionRequest struct {
		TemplateID int64              `json:"template_id"`
		SendEmail  bool               `json:"send_email"`
		SendSMS    bool               `json:"send_sms"`
		Order      string             `json:"order,omitempty"`
		Message    *submissionMessage `json:"message,omitempty"`
		ExpireAt   string             `json:"expire_at,omitempty"`
		Submitters []submitterRequest `json:"submitters"`
	}
	submissionMessage struct {
		Subject string `json:"subject,omitempty"`
		Body    string `json:"body,omitempty"`
	}
	submitterRequest struct {
		Name  string `json:"name,omitempty"`
		Email string `json:"email,omitempty"`
		Phone string `json:"phone,omitempty"`
		Role  string `json:"role"`
	}
)

// CreateSubmission sends template in.TemplateID to its submitters through
// POST /submissions. Each submitter names their role (default "Signer N",
// as CreateTemplate names unnamed roles). DocuSeal answers a flat list of
// submitters; they are grouped into submissions by submission_id, with the
// signing links from embed_src. in.Name has no DocuSeal counterpart and is
// not sent.
func (c *Client) CreateSubmission(ctx context.Context, in signing.NewSubmission) ([]signing.Submission, error) {
	tid, ok := parseID(in.TemplateID)
	if !ok {
		return nil, &domain.Error{Code: domain.ENOTFOUND, Message: fmt.Sprintf("signing template %q not found", in.TemplateID)}
	}
	fields := domain.FieldErrors{}
	if len(in.Submitters) == 0 {
		fields.Add("submitters", "at least one submitter is required")
	}
	switch in.Order {
	case "", signing.OrderPreserved, signing.OrderRandom:
	default:
		fields.Add("order", `order must be "preserved" or "random"`)
	}
	if err := fields.Err(); err != nil {
		return nil, err
	}

	body := submissionRequest{
		TemplateID: tid,
		SendEmail:  in.SendEmail,
		SendSMS:    in.SendSMS,
		Order:      in.Order,
	}
	// DocuSeal requires message.body whenever a message is sent
	// (lib/params/submission_create_validator.rb).
	switch {
	case strings.TrimSpace(in.Message.Body) != "":
		body.Message = &submissionMessage{Subject: in.Message.Subject, Body: in.Message.Body}
	case strings.TrimSpace(in.Message.Subject) != "":
		return nil, domain.Invalid(map[string][]string{"message.body": {"a message with a subject needs a body"}})
	}
	if in.ExpireAt != nil {
		body.ExpireAt = in.ExpireAt.UTC().Format(time.RFC3339)
	}
	for i, s := range in.Submitters {
		role := strings.TrimSpace(s.Role)
		if role == "" {
			role = defaultRole(i)
		}
		body.Submitters = append(body.Submitters, submitterRequest{
			Name:  s.Name,
			Email: strings.TrimSpace(s.Email),
			Phone: strings.TrimSpace(s.Phone),
			Role:  role,
		})
	}

	var subs []apiSubmitter
	notFound := fmt.Sprintf("signing template %q not found", in.TemplateID)
	if err := c.do(ctx, request{method: http.MethodPost, path: "/submissions", body: body, notFound: notFound, foreignNotFound: true}, &subs); err != nil {
		return nil, err
	}
	out := groupSubmitters(formatID(tid), subs)
	if len(out) == 0 {
		c.log.Warn("docuseal: submission created no submitters", "template_id", tid)
		return nil, &domain.Error{Code: domain.EUPSTREAM, Message: "DocuSeal created no submission: no submitter matched a role of the template"}
	}
	return out, nil
}

// maxDetailReads bounds the submissions one ListSubmissions reads again
// one by one.
const maxDetailReads = 20

// ListSubmissions reads GET /submissions?template_id=, following
// pagination.next (DocuSeal lists newest first) for at most a bounded number
// of pages; past the bound it logs and returns what it read. A template
// DocuSeal does not know simply has no submissions.
//
// DocuSeal's list items lack what only a submission's own read gives
// (lib/submissions/serialize_for_api.rb, called with with_events: false):
// the decline reason, which is in submission_events, and the combined
// document's URL until it has been generated. So each completed submission
// without combined_document_url and each declined one is read again with
// GetSubmission (at most maxDetailReads per list, newest first; a failed
// read keeps the list item as it was).
func (c *Client) ListSubmissions(ctx context.Context, templateID string) ([]signing.Submission, error) {
	out, err := c.listSubmissions(ctx, templateID)
	if err != nil {
		return nil, err
	}
	reads := 0
	for i, s := range out {
		if !(s.Status == signing.SubmissionCompleted && s.CombinedDocumentURL == "") && s.Status != signing.SubmissionDeclined {
			continue
		}
		if reads == maxDetailReads {
			c.log.Info("docuseal: submissions left as listed", "template_id", templateID, "after", maxDetailReads)
			break
		}
		reads++
		full, err := c.GetSubmission(ctx, s.ID)
		if err != nil {
			c.log.Warn("docuseal: submission not read again", "submission", s.ID, "err", err)
			continue
		}
		if full.TemplateID == "" {
			full.TemplateID = s.TemplateID
		}
		out[i] = full
	}
	return out, nil
}

func (c *Client) listSubmissions(ctx context.Context, templateID string) ([]signing.Submission, error) {
	tid, ok := parseID(templateID)
	if !ok {
		return nil, &domain.Error{Code: domain.ENOTFOUND, Message: fmt.Sprintf("signing template %q not found", templateID)}
	}
	out := []signing.Submission{}
	var after int64
	for page := 0; ; page++ {
		if page == c.maxListPages {
			c.log.Warn("docuseal: submissions list truncated", "template_id", tid, "pages", page, "submissions", len(out))
			return out, nil
		}
		q := url.Values{"template_id": {strconv.FormatInt(tid, 10)}, "limit": {strconv.Itoa(listPageSize)}}
		if after > 0 {
			q.Set("after", strconv.FormatInt(after, 10))
		}
		var p apiSubmissionPage
		if err := c.do(ctx, request{method: http.MethodGet, path: "/submissions", query: q}, &p); err != nil {
			return nil, err
		}
		for _, s := range p.Data {
			sub := toSubmission(s)
			if sub.TemplateID == "" {
				sub.TemplateID = formatID(tid)
			}
			out = append(out, sub)
		}
		// DocuSeal's next is the last id of the page even on the last
		// page; a short page ends the list, and next must move forward
		// (down) or the loop would not end.
		if len(p.Data) < listPageSize || p.Pagination.Next == nil || *p.Pagination.Next <= 0 || (after > 0 && *p.Pagination.Next >= after) {
			return out, nil
		}
		after = *p.Pagination.Next
	}
}

// GetSubmission reads GET /submissions/{id}, with the combined document's
// URL once the submission is completed. ENOTFOUND for an id DocuSeal
// does not know or that cannot be a DocuSeal id.
func (c *Client) GetSubmission(ctx context.Context, id string) (signing.Submission, error) {
	notFound := fmt.Sprintf("signing submission %q not found", id)
	n, ok := parseID(id)
	if !ok {
		return signing.Submission{}, &domain.Error{Code: domain.ENOTFOUND, Message: notFound}
	}
	// DocuSeal names the combined PDF (documents and audit log) only when
	// asked; it builds it once, on the first such read after completion.
	q := url.Values{"include": {"combined_document_url"}}
	var s apiSubmission
	if err := c.do(ctx, request{method: http.MethodGet, path: fmt.Sprintf("/submissions/%d", n), query: q, notFound: notFound}, &s); err != nil {
		return signing.Submission{}, err
	}
	return toSubmission(s), nil
}
