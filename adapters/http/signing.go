package http

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"math"
	"net/http"
	"strings"

	"counsel/domain"
	"counsel/domain/signing"
	"counsel/ports"
)

// webhookMaxBody bounds a webhook's raw body.
const webhookMaxBody = 1 << 20

// signingWebhookSchema is DocuSeal's webhook body: the handler keeps it
// raw (the signature covers the bytes), so no Go type describes it.
func signingWebhookSchema() js {
	return described(object(js{
		"event_type": strDesc("form.completed, form.declined, submission.completed, submission.expired act; other types are accepted and ignored"),
		"timestamp":  str(),
		"data":       js{"type": "object"},
	}, "event_type", "data"), "DocuSeal's webhook body, authenticated by X-Docuseal-Signature: <unix ts>.<hex HMAC-SHA256(secret, \"<ts>.<raw body>\")>, within 300 seconds")
}

// The API reference entries of the digital-signing routes of contracts
// and the provider's webhook (routes.go).
var (
	opSubmitForSigning = op{summary: "Send documents of a Draft, ContractDesign or Declined contract to its signers: a signing template from the documents (unless the contract has one that fits), a submission, and the contract WaitingForClientSignature. 502 when the signing provider fails (nothing changes)",
		tag: "signing", body: ref("SigningSubmitForSigningInput"), resp: ref("SigningSubmission"), errs: []int{400, 404, 409, 502}}
	opSigningTemplate    = op{summary: "The signing template of a digital contract (404 for a non-digital one)", tag: "signing", resp: ref("SigningTemplateDto"), errs: []int{404, 502}}
	opSigningSubmissions = op{summary: "The submissions of a digital contract's template, newest first (404 for a non-digital contract). Applies any completion, decline or expiry of the contract's submission that it has missed",
		tag: "signing", resp: ref("SigningSubmissionListDto"), errs: []int{404, 502}}
	opCreateSubmissions = op{summary: "Create submissions on an existing template (one made in DocuSeal, e.g. on a Community Edition). A Draft, ContractDesign or Declined contract takes the template and the first submission and waits for signatures; a contract without a template is linked to them. Answers the created submissions; 404 for a templateId the provider does not know or that belongs to another DocuSeal account",
		tag: "signing", body: ref("SigningCreateSubmissionInput"), resp: arrayOf(ref("SigningSubmission")), errs: []int{400, 404, 409, 502}}
	opRemindSigners = op{summary: "Email a reminder with their signing link now to every signer of the submission who may sign (embedded signer; docs/decisions.md §16). A signer reminded within the last hour is skipped and listed in coolingDown; 429 with Retry-After (the shortest wait) when every such signer is cooling down. Each reminder is a signingReminderSent history entry naming the signer and the caller. 404 for an unknown or non-digital contract or a submission not of its template; 409 when the submission is completed, declined or expired, or no signer may sign; 501 with DocuSeal, which reminds its signers itself",
		tag: "signing", resp: ref("SigningRemindResultDto"), errs: []int{404, 409, 429, 501, 502}}
	opBuilderToken = op{summary: "A DocuSeal form-builder token for the contract (user_email, integration_email = the caller, name, external_id = contractUUId, template_id when digital; 1 hour). 501 with the embedded signer",
		tag: "signing", resp: ref("SigningBuilderTokenDto"), errs: []int{404, 501}}
	opSigningWebhook = op{summary: "DocuSeal's webhook (configure https://<host>/api/signing/webhook in DocuSeal). Authenticated by X-Docuseal-Signature (HMAC-SHA256 with the whsec_ secret of COUNSEL_DOCUSEAL_WEBHOOK_SECRET, within 300 seconds) or by the custom header of COUNSEL_DOCUSEAL_WEBHOOK_HEADER (DocuSeal before 2.5.3); 401 otherwise (DocuSeal's unsigned test delivery included), and always with the embedded signer; 200 for accepted events, including those about submissions no contract has",
		tag: "signing", body: signingWebhookSchema(), resp: ref("SigningWebhookResultDto"), errs: []int{400, 401, 413}}
)

type remindResultDTO struct {
	Reminded    []string           `json:"reminded" doc:"the emails of the signers reminded now"`
	CoolingDown []coolingSignerDTO `json:"coolingDown" doc:"signers reminded within the last hour, not reminded again"`
}

type coolingSignerDTO struct {
	Email      string `json:"email"`
	RetryAfter int64  `json:"retryAfter" doc:"seconds until the signer can be reminded again"`
}

func (s *server) handleRemindSigners() http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		id, err := pathID(r, "id")
		if err != nil {
			s.fail(w, r, err)
			return
		}
		res, err := s.svc.Signing.RemindSigners(r.Context(), id, muxVars(r)["submissionId"])
		out := remindResultDTO{Reminded: res.Reminded, CoolingDown: []coolingSignerDTO{}}
		if out.Reminded == nil {
			out.Reminded = []string{}
		}
		for _, c := range res.CoolingDown {
			out.CoolingDown = append(out.CoolingDown, coolingSignerDTO{Email: c.Email, RetryAfter: int64(math.Ceil(c.RetryAfter.Seconds()))})
		}
		s.reply(w, r, http.StatusOK, out, err)
	}
}

// needSigning answers 501 when the service has no signing module.
func (s *server) needSigning(h http.HandlerFunc) http.Handler {
	return s.need(s.svc.Signing != nil, "digital signing is", h)
}

type signingSubmitterDTO struct {
	ID            string  `json:"id" doc:"the provider's submitter id"`
	Name          string  `json:"name"`
	Email         string  `json:"email"`
	Phone         string  `json:"phone"`
	Role          string  `json:"role" doc:"the template role the submitter signs as"`
	Status        string  `json:"status" enum:"awaiting,sent,opened,completed,declined"`
	SentAt        *Time   `json:"sentAt"`
	OpenedAt      *Time   `json:"openedAt"`
	CompletedAt   *Time   `json:"completedAt"`
	DeclinedAt    *Time   `json:"declinedAt"`
	DeclineReason *string `json:"declineReason"`
	EmbedSrc      string  `json:"embedSrc" doc:"the submitter's signing link; empty for callers without ContractEdit"`
}

type signingSubmissionListDTO struct {
	Items []signingSubmissionDTO `json:"items"`
}

type builderTokenDTO struct {
	Token string `json:"token" doc:"a JWT (HS256 with the DocuSeal API key) for DocuSeal's embedded form builder; valid 1 hour"`
}

type webhookResultDTO struct {
	Received bool `json:"received"`
}

type signingSubmissionDTO struct {
	ID                  string                `json:"id" doc:"the provider's submission id (digitalContractSubmissionId)"`
	Status              string                `json:"status" enum:"pending,completed,declined,expired"`
	CreatedAt           *Time                 `json:"createdAt"`
	CompletedAt         *Time                 `json:"completedAt"`
	AuditLogURL         *string               `json:"auditLogUrl" doc:"the audit log of the signing, once there is one: DocuSeal's, or with the embedded signer a signed link (valid for an hour) to the audit certificate PDF"`
	CombinedDocumentURL *string               `json:"combinedDocumentUrl" doc:"the signed documents with the audit log in one PDF, once completed: DocuSeal's, or with the embedded signer a signed link (valid for an hour) to the combined PDF carrying the firm's digital signature"`
	Submitters          []signingSubmitterDTO `json:"submitters"`
}

func toSigningSubmission(sub signing.Submission) signingSubmissionDTO {
	d := signingSubmissionDTO{
		ID: sub.ID, Status: sub.Status, CreatedAt: timePtr(&sub.CreatedAt), CompletedAt: timePtr(sub.CompletedAt),
		AuditLogURL: nonEmpty(sub.AuditLogURL), CombinedDocumentURL: nonEmpty(sub.CombinedDocumentURL),
		Submitters: make([]signingSubmitterDTO, len(sub.Submitters)),
	}
	for i, p := range sub.Submitters {
		d.Submitters[i] = signingSubmitterDTO{
			ID: p.ID, Name: p.Name, Email: p.Email, Phone: p.Phone, Role: p.Role, Status: p.Status,
			SentAt: timePtr(p.SentAt), OpenedAt: timePtr(p.OpenedAt), CompletedAt: timePtr(p.CompletedAt), DeclinedAt: timePtr(p.DeclinedAt),
			DeclineReason: nonEmpty(p.DeclineReason), EmbedSrc: p.EmbedSrc,
		}
	}
	return d
}

func toSigningSubmissions(subs []signing.Submission) []signingSubmissionDTO {
	out := make([]signingSubmissionDTO, len(subs))
	for i, sub := range subs {
		out[i] = toSigningSubmission(sub)
	}
	return out
}

type signingTemplateDocumentDTO struct {
	ID       string `json:"id"`
	FileName string `json:"fileName"`
	URL      string `json:"url" doc:"where the document can be downloaded (the embedded signer's signed links work for COUNSEL_LINK_TTL, 1h by default)"`
}

type signingTemplateDTO struct {
	ID        string                       `json:"id" doc:"the provider's template id (digitalContractId)"`
	Name      string                       `json:"name"`
	Slug      string                       `json:"slug" doc:"the template's slug; empty for callers without ContractEdit"`
	Roles     []string                     `json:"roles"`
	Documents []signingTemplateDocumentDTO `json:"documents"`
	CreatedAt *Time                        `json:"createdAt"`
	UpdatedAt *Time                        `json:"updatedAt"`
}

func toSigningTemplate(t signing.Template) signingTemplateDTO {
	d := signingTemplateDTO{ID: t.ID, Name: t.Name, Slug: t.Slug, Roles: t.Roles,
		Documents: make([]signingTemplateDocumentDTO, len(t.Documents)),
		CreatedAt: timePtr(&t.CreatedAt), UpdatedAt: timePtr(&t.UpdatedAt)}
	if d.Roles == nil {
		d.Roles = []string{}
	}
	for i, doc := range t.Documents {
		d.Documents[i] = signingTemplateDocumentDTO{ID: doc.ID, FileName: doc.FileName, URL: doc.URL}
	}
	return d
}

// signingSubmitterIn is a submitter of either request body.
type signingSubmitterIn struct {
	Name      string `json:"name"`
	Email     string `json:"email" doc:"required for at least one submitter; the embedded signer needs one for every submitter"`
	Phone     string `json:"phone"`
	Role      string `json:"role" doc:"the template role; default Signer 1, Signer 2, ... by position; distinct"`
	SendEmail *bool  `json:"sendEmail" doc:"false: this submitter wants no email (createSubmissions only)"`
	SendSMS   *bool  `json:"sendSms"`
}

func toSigningSubmitters(in []signingSubmitterIn) []ports.SigningSubmitter {
	out := make([]ports.SigningSubmitter, len(in))
	for i, p := range in {
		out[i] = ports.SigningSubmitter{Name: p.Name, Email: p.Email, Phone: p.Phone, Role: p.Role, SendEmail: p.SendEmail, SendSMS: p.SendSMS}
	}
	return out
}

type submitForSigningIn struct {
	DocumentIDs []int64              `json:"documentIds" required:"true" doc:"1 to 20 documents of this contract"`
	Submitters  []signingSubmitterIn `json:"submitters" required:"true" doc:"1 to 20 signing parties, in signing order"`
	SendEmail   *bool                `json:"sendEmail" doc:"send the invitations by email; default true"`
	SendSMS     *bool                `json:"sendSms" doc:"send them by SMS (DocuSeal); default false"`
	Order       string               `json:"order" enum:",preserved,random" doc:"preserved (default): each signer after the one before; random: all at once"`
	Message     *struct {
		Subject string `json:"subject"`
		Body    string `json:"body"`
	} `json:"message"`
	ExpireAt dateIn `json:"expireAt" doc:"when the submission expires; in the future"`
}

func (s *server) handleSubmitForSigning() http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		id, err := pathID(r, "id")
		if err != nil {
			s.fail(w, r, err)
			return
		}
		var in submitForSigningIn
		if err := decode(r, &in); err != nil {
			s.fail(w, r, err)
			return
		}
		f := domain.FieldErrors{}
		req := ports.SubmitForSigningInput{
			DocumentIDs: in.DocumentIDs, Submitters: toSigningSubmitters(in.Submitters),
			SendEmail: in.SendEmail == nil || *in.SendEmail, SendSMS: in.SendSMS != nil && *in.SendSMS,
			Order: in.Order, ExpireAt: in.ExpireAt.optional("expireAt", f),
		}
		if req.ExpireAt != nil && req.ExpireAt.IsZero() {
			req.ExpireAt = nil // null: no expiry
		}
		if in.Message != nil {
			req.Message = signing.Message{Subject: in.Message.Subject, Body: in.Message.Body}
		}
		if err := invalid(f); err != nil {
			s.fail(w, r, err)
			return
		}
		sub, err := s.svc.Signing.SubmitForSigning(r.Context(), id, req)
		s.reply(w, r, http.StatusOK, toSigningSubmission(sub), detailed(err))
	}
}

func (s *server) handleSigningTemplate() http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		id, err := pathID(r, "id")
		if err != nil {
			s.fail(w, r, err)
			return
		}
		t, err := s.svc.Signing.Template(r.Context(), id)
		s.reply(w, r, http.StatusOK, toSigningTemplate(t), err)
	}
}

func (s *server) handleSigningSubmissions() http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		id, err := pathID(r, "id")
		if err != nil {
			s.fail(w, r, err)
			return
		}
		subs, err := s.svc.Signing.Submissions(r.Context(), id)
		s.reply(w, r, http.StatusOK, signingSubmissionListDTO{Items: toSigningSubmissions(subs)}, err)
	}
}

// templateIDIn is a template id given as a JSON integer (as the spec has
// it) or a string (as ids are written).
type templateIDIn struct {
	v   string
	bad bool
}

// UnmarshalJSON implements json.Unmarshaler.
func (t *templateIDIn) UnmarshalJSON(b []byte) error {
	var n json.Number
	var s string
	switch {
	case string(b) == "null":
	case json.Unmarshal(b, &s) == nil:
		t.v = strings.TrimSpace(s)
	case bytes.IndexAny(b, ".eE") < 0 && json.Unmarshal(b, &n) == nil:
		t.v = n.String()
	default:
		t.bad = true
	}
	return nil
}

// signingSubmissionIn is one submission of createSubmissionsIn: its
// signing parties.
type signingSubmissionIn struct {
	Submitters []signingSubmitterIn `json:"submitters"`
}

type createSubmissionsIn struct {
	TemplateID templateIDIn          `json:"templateId" required:"true" doc:"an existing template of the provider"`
	Submission []signingSubmissionIn `json:"submission" required:"true" doc:"1 to 20 submissions, each of 1 to 20 submitters"`
	SendEmail  *bool                 `json:"sendEmail" doc:"default true"`
	SendSMS    *bool                 `json:"sendSms" doc:"default false"`
	Order      string                `json:"order" enum:",preserved,random"`
}

func (s *server) handleCreateSubmissions() http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		id, err := pathID(r, "id")
		if err != nil {
			s.fail(w, r, err)
			return
		}
		var in createSubmissionsIn
		if err := decode(r, &in); err != nil {
			s.fail(w, r, err)
			return
		}
		if in.TemplateID.bad {
			s.fail(w, r, invalid(domain.FieldErrors{"templateId": {"templateId must be an integer or a string"}}))
			return
		}
		req := ports.CreateSubmissionsInput{
			TemplateID: in.TemplateID.v, Order: in.Order,
			SendEmail: in.SendEmail == nil || *in.SendEmail, SendSMS: in.SendSMS != nil && *in.SendSMS,
		}
		for _, item := range in.Submission {
			req.Submissions = append(req.Submissions, toSigningSubmitters(item.Submitters))
		}
		subs, err := s.svc.Signing.CreateSubmissions(r.Context(), id, req)
		s.reply(w, r, http.StatusOK, toSigningSubmissions(subs), detailed(err))
	}
}

func (s *server) handleBuilderToken() http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		id, err := pathID(r, "id")
		if err != nil {
			s.fail(w, r, err)
			return
		}
		tok, err := s.svc.Signing.BuilderToken(r.Context(), id)
		s.reply(w, r, http.StatusOK, builderTokenDTO{Token: tok}, err)
	}
}

func (s *server) handleSigningWebhook() http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		// The signature covers the raw bytes: they are read as they are,
		// not decoded and encoded again.
		body, err := io.ReadAll(r.Body)
		if err != nil {
			var mbe *http.MaxBytesError
			if errors.As(err, &mbe) {
				s.fail(w, r, errBodyTooLarge)
				return
			}
			s.fail(w, r, domain.Errorf(domain.EINVALID, "the request body could not be read"))
			return
		}
		err = s.svc.Signing.Webhook(r.Context(), r.Header.Get, body)
		s.reply(w, r, http.StatusOK, webhookResultDTO{Received: true}, err)
	}
}
