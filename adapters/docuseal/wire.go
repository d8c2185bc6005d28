package docuseal

import (
	"encoding/json"
	"strconv"
	"strings"
	"time"

	"counsel/domain/signing"
)

// The types below mirror DocuSeal's JSON (docs/openapi.json and the
// serializers in lib/templates, lib/submissions and lib/submitters of
// docusealco/docuseal), keeping only the fields Counsel maps. Nullable
// strings are pointers.

// apiTemplate is a template as GET /templates/{id}, POST /templates/pdf and
// POST /templates/docx answer it.
type apiTemplate struct {
	ID         int64   `json:"id"`
	Slug       string  `json:"slug"`
	Name       string  `json:"name"`
	ExternalID *string `json:"external_id"`
	Schema     []struct {
		AttachmentUUID string `json:"attachment_uuid"`
		Name           string `json:"name"`
	} `json:"schema"`
	Submitters []struct {
		Name string `json:"name"`
		UUID string `json:"uuid"`
	} `json:"submitters"`
	Documents []struct {
		ID       int64  `json:"id"`
		UUID     string `json:"uuid"`
		URL      string `json:"url"`
		Filename string `json:"filename"`
	} `json:"documents"`
	CreatedAt string `json:"created_at"`
	UpdatedAt string `json:"updated_at"`
}

// apiSubmitter is a submitter: an element of POST /submissions' answer (with
// embed_src), of a submission's submitters, or a form.* webhook's data (with
// its submission and template).
type apiSubmitter struct {
	ID            int64   `json:"id"`
	SubmissionID  int64   `json:"submission_id"`
	UUID          string  `json:"uuid"`
	Email         *string `json:"email"`
	Slug          string  `json:"slug"`
	Name          *string `json:"name"`
	Phone         *string `json:"phone"`
	Role          string  `json:"role"`
	Status        string  `json:"status"`
	SentAt        *string `json:"sent_at"`
	OpenedAt      *string `json:"opened_at"`
	CompletedAt   *string `json:"completed_at"`
	DeclinedAt    *string `json:"declined_at"`
	DeclineReason *string `json:"decline_reason"`
	CreatedAt     string  `json:"created_at"`
	EmbedSrc      string  `json:"embed_src"`

	// Only in webhooks.
	Submission *struct {
		ID         int64  `json:"id"`
		Status     string `json:"status"`
		Submitters []struct {
			Status string `json:"status"`
		} `json:"submitters"`
	} `json:"submission"`
	Template *apiTemplateRef `json:"template"`
}

// apiTemplateRef is the short template object inside submissions and
// webhooks.
type apiTemplateRef struct {
	ID int64 `json:"id"`
}

// apiSubmission is a submission as GET /submissions/{id}, each item of GET
// /submissions and submission.* webhooks carry it.
type apiSubmission struct {
	ID                  int64           `json:"id"`
	Slug                string          `json:"slug"`
	Status              string          `json:"status"`
	SubmittersOrder     string          `json:"submitters_order"`
	AuditLogURL         *string         `json:"audit_log_url"`
	CombinedDocumentURL *string         `json:"combined_document_url"`
	CompletedAt         *string         `json:"completed_at"`
	CreatedAt           string          `json:"created_at"`
	ExpireAt            *string         `json:"expire_at"`
	Submitters          []apiSubmitter  `json:"submitters"`
	Template            *apiTemplateRef `json:"template"`
	// SubmissionEvents comes with GET /submissions/{id} and
	// submission.* webhooks, not with list items.
	SubmissionEvents []apiSubmissionEvent `json:"submission_events"`
}

// apiSubmissionEvent is an entry of submission_events
// (Submitters::SerializeForApi.serialize_events): a decline_form event's
// data.reason is the decline reason, which submitter objects lack.
type apiSubmissionEvent struct {
	SubmitterID int64  `json:"submitter_id"`
	EventType   string `json:"event_type"`
	Data        struct {
		Reason *string `json:"reason"`
	} `json:"data"`
}

// apiSubmissionPage is GET /submissions' answer.
type apiSubmissionPage struct {
	Data       []apiSubmission `json:"data"`
	Pagination struct {
		Count int    `json:"count"`
		Next  *int64 `json:"next"`
		Prev  *int64 `json:"prev"`
	} `json:"pagination"`
}

func toTemplate(t apiTemplate) signing.Template {
	out := signing.Template{
		ID:        formatID(t.ID),
		Name:      t.Name,
		Slug:      t.Slug,
		Roles:     make([]string, 0, len(t.Submitters)),
		Documents: make([]signing.TemplateDocument, 0, len(t.Documents)),
		CreatedAt: parseTime(t.CreatedAt),
		UpdatedAt: parseTime(t.UpdatedAt),
	}
	for _, s := range t.Submitters {
		out.Roles = append(out.Roles, s.Name)
	}
	// Some answers (the PDF and DOCX endpoints' examples) leave out the
	// document's filename; the schema entry names the same attachment.
	schemaName := map[string]string{}
	for _, s := range t.Schema {
		schemaName[s.AttachmentUUID] = s.Name
	}
	for _, d := range t.Documents {
		name := d.Filename
		if name == "" {
			name = schemaName[d.UUID]
		}
		out.Documents = append(out.Documents, signing.TemplateDocument{ID: formatID(d.ID), FileName: name, URL: d.URL})
	}
	return out
}

func toSubmission(s apiSubmission) signing.Submission {
	out := signing.Submission{
		ID:                  formatID(s.ID),
		Status:              s.Status,
		CreatedAt:           parseTime(s.CreatedAt),
		CompletedAt:         parseTimePtr(s.CompletedAt),
		AuditLogURL:         deref(s.AuditLogURL),
		CombinedDocumentURL: deref(s.CombinedDocumentURL),
		Submitters:          make([]signing.Submitter, 0, len(s.Submitters)),
	}
	if s.Template != nil {
		out.TemplateID = formatID(s.Template.ID)
	}
	reasons := map[string]string{}
	for _, e := range s.SubmissionEvents {
		if e.EventType == "decline_form" && e.Data.Reason != nil {
			reasons[formatID(e.SubmitterID)] = *e.Data.Reason
		}
	}
	for _, sub := range s.Submitters {
		st := toSubmitter(sub)
		if st.DeclineReason == "" && st.Status == signing.SubmitterDeclined {
			st.DeclineReason = reasons[st.ID]
		}
		out.Submitters = append(out.Submitters, st)
	}
	if out.Status == "" {
		out.Status = deriveStatus(out.Submitters)
	}
	return out
}

func toSubmitter(s apiSubmitter) signing.Submitter {
	return signing.Submitter{
		ID:            formatID(s.ID),
		Name:          deref(s.Name),
		Email:         deref(s.Email),
		Phone:         deref(s.Phone),
		Role:          s.Role,
		Status:        s.Status,
		SentAt:        parseTimePtr(s.SentAt),
		OpenedAt:      parseTimePtr(s.OpenedAt),
		CompletedAt:   parseTimePtr(s.CompletedAt),
		DeclinedAt:    parseTimePtr(s.DeclinedAt),
		DeclineReason: deref(s.DeclineReason),
		EmbedSrc:      s.EmbedSrc,
	}
}

// groupSubmitters turns POST /submissions' flat list of submitters into
// submissions, in the order DocuSeal listed them. That answer carries no
// submission object, so status and times come from the submitters, the way
// DocuSeal derives them.
func groupSubmitters(templateID string, subs []apiSubmitter) []signing.Submission {
	var out []signing.Submission
	index := map[int64]int{}
	for _, s := range subs {
		i, ok := index[s.SubmissionID]
		if !ok {
			i = len(out)
			index[s.SubmissionID] = i
			out = append(out, signing.Submission{ID: formatID(s.SubmissionID), TemplateID: templateID})
		}
		sub := toSubmitter(s)
		out[i].Submitters = append(out[i].Submitters, sub)
		if created := parseTime(s.CreatedAt); !created.IsZero() && (out[i].CreatedAt.IsZero() || created.Before(out[i].CreatedAt)) {
			out[i].CreatedAt = created
		}
	}
	for i := range out {
		out[i].Status = deriveStatus(out[i].Submitters)
		if out[i].Status == signing.SubmissionCompleted {
			for _, s := range out[i].Submitters {
				if s.CompletedAt != nil && (out[i].CompletedAt == nil || s.CompletedAt.After(*out[i].CompletedAt)) {
					out[i].CompletedAt = s.CompletedAt
				}
			}
		}
	}
	return out
}

// deriveStatus is DocuSeal's submission status rule for the cases the
// submitters alone decide: declined if anyone declined, completed if
// everyone completed, pending otherwise.
func deriveStatus(subs []signing.Submitter) string {
	if len(subs) == 0 {
		return signing.SubmissionPending
	}
	all := true
	for _, s := range subs {
		if s.Status == signing.SubmitterDeclined {
			return signing.SubmissionDeclined
		}
		if s.Status != signing.SubmitterCompleted {
			all = false
		}
	}
	if all {
		return signing.SubmissionCompleted
	}
	return signing.SubmissionPending
}

// timeLayouts are the forms DocuSeal writes times in: Rails' JSON (RFC 3339
// with milliseconds), and the "2024-09-01 12:00:00 UTC" form of its docs.
var timeLayouts = []string{time.RFC3339Nano, "2006-01-02 15:04:05 MST", "2006-01-02 15:04:05 -0700", "2006-01-02T15:04:05"}

// parseTime reads a DocuSeal time; an empty or unreadable one is the zero
// time, since a stray format must not fail a whole read.
func parseTime(s string) time.Time {
	s = strings.TrimSpace(s)
	if s == "" {
		return time.Time{}
	}
	for _, layout := range timeLayouts {
		if t, err := time.Parse(layout, s); err == nil {
			return t.UTC()
		}
	}
	return time.Time{}
}

func parseTimePtr(s *string) *time.Time {
	if s == nil {
		return nil
	}
	t := parseTime(*s)
	if t.IsZero() {
		return nil
	}
	return &t
}

// parseTimestamp reads a webhook's timestamp: an RFC 3339 string, or a Unix
// time in seconds.
func parseTimestamp(raw json.RawMessage) time.Time {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return parseTime(s)
	}
	var n json.Number
	if json.Unmarshal(raw, &n) == nil {
		if secs, err := strconv.ParseInt(n.String(), 10, 64); err == nil {
			return time.Unix(secs, 0).UTC()
		}
	}
	return time.Time{}
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
