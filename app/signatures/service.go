// Package signatures is the digital-signing use case of contracts: sending a
// contract's documents to its signers through the configured signing
// provider (the embedded signer or DocuSeal), reading the provider's
// template and submissions, form-builder tokens, and applying what the
// provider reports (webhooks, the embedded signer's events, and outcomes
// found when submissions are read) to the contract's state machine.
//
// Provider calls never run inside a database write transaction: the
// embedded signer writes to the same single-writer database, and a
// provider may be slow. A change is made as "call the provider, then one
// transaction that re-checks the contract's state, saves it and writes its
// audit entry"; a provider failure (EUPSTREAM) changes nothing.
//
// ApplySigningEvent is the one entry of provider events, whichever way
// they arrive. Each event is recorded with its contract in the same
// transaction that applies it, so a repeated delivery is a no-op.
package signatures

import (
	"context"
	"counsel/domain/mail"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"strconv"
	"strings"
	"time"

	"counsel/domain"
	"counsel/domain/account"
	"counsel/domain/contract"
	"counsel/domain/signing"
	"counsel/domain/user"
	"counsel/ports"
)

// UserLookup finds a user (the caller of a form-builder token, for the
// token's integration_email). ports.UserStore implements it.
type UserLookup interface {
	User(ctx context.Context, id int64) (user.User, error)
}

// Contracts is the part of ports.ContractStore signing uses (the
// contracts are the port's).
type Contracts interface {
	Contract(ctx context.Context, id int64) (contract.Contract, error)
	Document(ctx context.Context, contractID, docID int64) (contract.Document, error)
	History(ctx context.Context, id int64, limit, offset int64) ([]contract.AuditEntry, int64, error)
	UpdateContract(ctx context.Context, id int64, fn func(c *contract.Contract) ([]contract.AuditEntry, error)) (contract.Contract, error)
}

// Deps are what the service needs.
type Deps struct {
	// Render renders a contract as the API returns it, for the webhook
	// events of its changes; nil leaves that to the delivery worker.
	Render    func(ctx context.Context, v any) (json.RawMessage, error)
	Contracts Contracts
	Signing   ports.ContractSigningStore
	Blobs     ports.BlobStore
	Provider  ports.SigningProvider
	Users     UserLookup
	// MailLinks builds the links of the emails this module queues.
	MailLinks mail.Links
	Clock     ports.Clock
	Logger    *slog.Logger
	// DocumentsByReference is true when the provider's templates name
	// contract documents by their id and read them when a signer asks (the
	// embedded signer); false when the provider keeps copies, so a
	// template is built from the documents' bytes (DocuSeal).
	DocumentsByReference bool
	// Evidence makes the signed evidence of completed submissions; its
	// zero value makes none.
	Evidence EvidenceDeps
	// Reminders sends reminders by hand (RemindSigners); nil with a
	// provider that mails its own signers (DocuSeal).
	Reminders ports.SigningReminders
	// AttachLimit is the most bytes of evidence a completion email
	// attaches; 0: DefaultAttachLimit.
	AttachLimit int64
	// Links, when set, seals each submitter's signing link as a
	// submission is created, for a provider that returns the links only
	// then (DocuSeal); they are shown again, opened, to ContractEdit
	// holders. nil keeps none (the embedded signer returns its links on
	// every read).
	Links ports.Sealer
}

// Service implements ports.SigningService.
type Service struct{ d Deps }

var _ ports.SigningService = (*Service)(nil)

// New returns the signing service.
func New(d Deps) *Service {
	if d.Logger == nil {
		d.Logger = slog.New(slog.DiscardHandler)
	}
	return &Service{d: d}
}

// Limits of one request, so each does bounded work (the embedded signer
// has the same limits).
const (
	maxDocuments   = 20
	maxSubmitters  = 20
	maxSubmissions = 20
	maxNameLen     = 200
	maxSubjectLen  = 200
	maxBodyLen     = 20000
	// maxTemplateBytes bounds the documents sent to a provider that keeps
	// copies (base64 in one JSON request).
	maxTemplateBytes = 50 << 20
	// builderTokenTTL is the lifetime of a form-builder token.
	builderTokenTTL = time.Hour
)

// SubmitForSigning implements ports.SigningService.
func (s *Service) SubmitForSigning(ctx context.Context, contractID int64, in ports.SubmitForSigningInput) (signing.Submission, error) {
	p, err := account.Require(ctx, account.ContractEdit)
	if err != nil {
		return signing.Submission{}, err
	}
	now := s.d.Clock.Now()
	f := domain.FieldErrors{}
	docIDs := uniqueIDs(in.DocumentIDs)
	switch {
	case len(docIDs) == 0:
		f.Add("documentIds", "at least one document of the contract is required")
	case len(docIDs) > maxDocuments:
		f.Add("documentIds", fmt.Sprintf("at most %d documents can be signed at once", maxDocuments))
	}
	subs := checkSubmitters("submitters", in.Submitters, f)
	if len(in.Submitters) > 0 && !anyEmail(in.Submitters) {
		f.Add("submitters", "at least one submitter with an email is required")
	}
	order := checkOrder(in.Order, f)
	checkMessage(in.Message, f)
	if in.ExpireAt != nil && !in.ExpireAt.After(now) {
		f.Add("expireAt", "expireAt must be in the future")
	}
	if err := f.Err(); err != nil {
		return signing.Submission{}, err
	}

	c, err := s.d.Contracts.Contract(ctx, contractID)
	if err != nil {
		return signing.Submission{}, err
	}
	if err := contract.CheckSubmitForSigning(c.Status); err != nil {
		return signing.Submission{}, err
	}
	docs, err := s.contractDocuments(ctx, contractID, docIDs)
	if err != nil {
		return signing.Submission{}, err
	}
	roles := make([]string, len(subs))
	for i, sub := range subs {
		roles[i] = sub.Role
	}
	tpl, err := s.template(ctx, c, docs, roles)
	if err != nil {
		return signing.Submission{}, err
	}
	created, err := s.d.Provider.CreateSubmission(ctx, signing.NewSubmission{
		TemplateID: tpl.ID, Submitters: subs, SendEmail: in.SendEmail, SendSMS: in.SendSMS, Order: order,
		Message: in.Message, ExpireAt: in.ExpireAt, Name: c.Name,
	})
	if err != nil {
		return signing.Submission{}, providerError(err, "")
	}
	if len(created) == 0 {
		return signing.Submission{}, domain.Errorf(domain.EUPSTREAM, "the signing provider created no submission")
	}
	s.keepLinks(ctx, contractID, created)
	sub := created[0]

	details := fmt.Sprintf("submission %s (template %s) to %s; documents: %s", sub.ID, tpl.ID, submitterList(subs), documentList(docs))
	ctx, fx := ports.WithEffects(ctx)
	_, err = s.d.Contracts.UpdateContract(ctx, contractID, s.withEvents(ctx, fx, func(c *contract.Contract) ([]contract.AuditEntry, error) {
		// The provider was called outside this transaction: the state
		// is decided again on the contract as it is now.
		ch, err := c.SubmitForSigning(tpl.ID, sub.ID)
		if err != nil {
			return nil, err
		}
		c.UpdatedAt = now
		return ch.Audit(contract.ActionSubmittedForSigning, p.UserID, now, details), nil
	}))
	if err != nil {
		s.d.Logger.WarnContext(ctx, "signing submission created at the provider but not linked to its contract",
			"contract", contractID, "template", tpl.ID, "submission", sub.ID, "err", err)
		return signing.Submission{}, err
	}
	return sub, nil
}

// template returns the template to send: the contract's own when it still
// fits (a role for every submitter, and the same documents), else one
// built from docs. Where the provider refers to our documents, the same
// documents are the same ids; where it keeps copies (DocuSeal), the
// digest of the documents recorded when Counsel built the template must
// be that of docs, so a resubmission never sends old documents; a template
// without a recorded digest (made in DocuSeal itself and linked with
// submission/create) is reused as it is, which keeps a resubmission
// working where templates cannot be built through the API (DocuSeal
// Community Edition). DocuSeal updates in place the template whose
// external_id (the contract's UUID) it already has, so a rebuilt template
// usually keeps its id. The digest of a built template is recorded.
func (s *Service) template(ctx context.Context, c contract.Contract, docs []contract.Document, roles []string) (signing.Template, error) {
	digest := documentsDigest(docs)
	if c.DigitalContractID != "" {
		t, err := s.d.Provider.GetTemplate(ctx, c.DigitalContractID)
		same := false
		if err == nil {
			if same, err = s.sameTemplateDocuments(ctx, c, t, docs, digest); err != nil {
				return signing.Template{}, err
			}
		}
		switch {
		case err == nil && len(t.Roles) >= len(roles) && same:
			return t, nil
		case err == nil:
			s.d.Logger.InfoContext(ctx, "signing template does not fit the submission; building it again",
				"contract", c.ID, "template", t.ID, "roles", len(t.Roles), "submitters", len(roles), "same_documents", same)
		case domain.ErrorCode(err) == domain.ENOTFOUND:
			s.d.Logger.WarnContext(ctx, "the contract's signing template is gone at the provider; building a new one",
				"contract", c.ID, "template", c.DigitalContractID)
		default:
			return signing.Template{}, providerError(err, "")
		}
	}
	nt := signing.NewTemplate{Name: c.Name, ExternalID: c.UUID, Roles: roles}
	total := int64(0)
	for _, d := range docs {
		doc := signing.Document{ID: strconv.FormatInt(d.ID, 10), FileName: d.FileName, ContentType: d.ContentType}
		if !s.d.DocumentsByReference {
			if total += d.Size; total > maxTemplateBytes {
				return signing.Template{}, domain.Invalid(map[string][]string{"documentIds": {
					fmt.Sprintf("the documents to sign are larger than %d MiB together", maxTemplateBytes>>20)}})
			}
			b, err := s.readDocument(ctx, d)
			if err != nil {
				return signing.Template{}, err
			}
			doc.Content = b
		}
		nt.Documents = append(nt.Documents, doc)
	}
	t, err := s.d.Provider.CreateTemplate(ctx, nt)
	if err != nil {
		return signing.Template{}, providerError(err, "")
	}
	if !s.d.DocumentsByReference {
		if err := s.d.Signing.SetTemplateDigest(ctx, t.ID, digest); err != nil {
			return signing.Template{}, fmt.Errorf("record the documents of signing template %s: %w", t.ID, err)
		}
	}
	return t, nil
}

// sameTemplateDocuments tells whether template t (the contract's) was
// built from exactly docs; see template.
func (s *Service) sameTemplateDocuments(ctx context.Context, c contract.Contract, t signing.Template, docs []contract.Document, digest string) (bool, error) {
	if s.d.DocumentsByReference {
		return sameDocuments(t, docs), nil
	}
	recorded, err := s.d.Signing.TemplateDigest(ctx, t.ID)
	if err != nil {
		return false, fmt.Errorf("read the documents of signing template %s: %w", t.ID, err)
	}
	if recorded == "" {
		s.d.Logger.InfoContext(ctx, "signing template not built by Counsel (no documents recorded): reused as it is", "contract", c.ID, "template", t.ID)
		return true, nil
	}
	return recorded == digest, nil
}

// documentsDigest is the SHA-256 of the documents' own SHA-256 and file
// names, in order: equal for the same files sent the same way.
func documentsDigest(docs []contract.Document) string {
	h := sha256.New()
	for _, d := range docs {
		sum := d.SHA256
		if sum == "" {
			sum = "document-" + strconv.FormatInt(d.ID, 10)
		}
		fmt.Fprintf(h, "%s %q\n", sum, d.FileName)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// linkLabel binds a sealed signing link to its submission and submitter.
func linkLabel(submissionID, submitterID string) string {
	return "signer-link:" + submissionID + ":" + submitterID
}

// keepLinks seals and records the signing links of created submissions
// when the provider gives them only once. A failure is logged: the
// submissions exist and the links went out in this answer.
func (s *Service) keepLinks(ctx context.Context, contractID int64, subs []signing.Submission) {
	if s.d.Links == nil {
		return
	}
	for _, sub := range subs {
		sealed := map[string][]byte{}
		for _, p := range sub.Submitters {
			if p.EmbedSrc == "" || p.ID == "" {
				continue
			}
			b, err := s.d.Links.Seal(linkLabel(sub.ID, p.ID), []byte(p.EmbedSrc))
			if err != nil {
				s.d.Logger.ErrorContext(ctx, "signing link not sealed", "contract", contractID, "submission", sub.ID, "err", err)
				return
			}
			sealed[p.ID] = b
		}
		if len(sealed) == 0 {
			continue
		}
		if err := s.d.Signing.SaveSignerLinks(ctx, sub.ID, sealed); err != nil {
			s.d.Logger.ErrorContext(ctx, "signing links not recorded", "contract", contractID, "submission", sub.ID, "err", err)
		}
	}
}

// restoreLinks fills in the signing links the provider no longer returns
// from those recorded when the submissions were created. A link that does
// not open (another key, altered) stays empty and is logged.
func (s *Service) restoreLinks(ctx context.Context, subs []signing.Submission) {
	if s.d.Links == nil {
		return
	}
	for i := range subs {
		missing := false
		for _, p := range subs[i].Submitters {
			missing = missing || p.EmbedSrc == ""
		}
		if !missing {
			continue
		}
		sealed, err := s.d.Signing.SignerLinks(ctx, subs[i].ID)
		if err != nil {
			s.d.Logger.WarnContext(ctx, "signing links not read", "submission", subs[i].ID, "err", err)
			continue
		}
		for j := range subs[i].Submitters {
			p := &subs[i].Submitters[j]
			b, ok := sealed[p.ID]
			if p.EmbedSrc != "" || !ok {
				continue
			}
			link, err := s.d.Links.Open(linkLabel(subs[i].ID, p.ID), b)
			if err != nil {
				s.d.Logger.WarnContext(ctx, "signing link does not open", "submission", subs[i].ID, "submitter", p.ID, "err", err)
				continue
			}
			p.EmbedSrc = string(link)
		}
	}
}

// sameDocuments reports whether template t holds exactly docs.
func sameDocuments(t signing.Template, docs []contract.Document) bool {
	if len(t.Documents) != len(docs) {
		return false
	}
	want := map[string]bool{}
	for _, d := range docs {
		want[strconv.FormatInt(d.ID, 10)] = true
	}
	for _, d := range t.Documents {
		if !want[d.ID] {
			return false
		}
	}
	return true
}

// contractDocuments loads the documents ids of contract contractID; an id
// of another contract or of no document is a field error.
func (s *Service) contractDocuments(ctx context.Context, contractID int64, ids []int64) ([]contract.Document, error) {
	f := domain.FieldErrors{}
	docs := make([]contract.Document, 0, len(ids))
	for _, id := range ids {
		d, err := s.d.Contracts.Document(ctx, contractID, id)
		switch {
		case domain.ErrorCode(err) == domain.ENOTFOUND:
			f.Add("documentIds", fmt.Sprintf("document %d is not a document of contract %d", id, contractID))
		case err != nil:
			return nil, err
		default:
			docs = append(docs, d)
		}
	}
	return docs, f.Err()
}

// readDocument reads a document's bytes (at most contract.MaxDocumentSize).
func (s *Service) readDocument(ctx context.Context, d contract.Document) ([]byte, error) {
	rc, err := s.d.Blobs.Open(ctx, d.StorageKey)
	if err != nil {
		return nil, fmt.Errorf("open document %d of contract %d: %w", d.ID, d.ContractID, err)
	}
	defer rc.Close()
	b, err := io.ReadAll(io.LimitReader(rc, contract.MaxDocumentSize+1))
	if err != nil {
		return nil, fmt.Errorf("read document %d of contract %d: %w", d.ID, d.ContractID, err)
	}
	return b, nil
}

// OpenDocument opens a contract document by its id alone, for the embedded
// signer (its embeddedsign.DocumentOpener). It checks no permission: the
// signer calls it only for a document of a template behind a valid signing
// link or signed document URL. ENOTFOUND for an unknown id.
func (s *Service) OpenDocument(ctx context.Context, documentID string) (io.ReadCloser, string, string, error) {
	id, err := strconv.ParseInt(documentID, 10, 64)
	if err != nil || id <= 0 {
		return nil, "", "", domain.Errorf(domain.ENOTFOUND, "document %q not found", documentID)
	}
	d, err := s.d.Signing.DocumentByID(ctx, id)
	if err != nil {
		return nil, "", "", err
	}
	rc, err := s.d.Blobs.Open(ctx, d.StorageKey)
	if err != nil {
		if domain.ErrorCode(err) == domain.ENOTFOUND {
			// A row without its file is lost data, not a client's mistake.
			err = fmt.Errorf("document %d of contract %d has no file: %v", d.ID, d.ContractID, err)
		}
		return nil, "", "", err
	}
	return rc, d.FileName, d.ContentType, nil
}

// Template implements ports.SigningService.
func (s *Service) Template(ctx context.Context, contractID int64) (signing.Template, error) {
	p, err := account.Require(ctx, account.ContractView)
	if err != nil {
		return signing.Template{}, err
	}
	c, err := s.digital(ctx, contractID)
	if err != nil {
		return signing.Template{}, err
	}
	t, err := s.d.Provider.GetTemplate(ctx, c.DigitalContractID)
	if err != nil {
		return signing.Template{}, providerError(err, fmt.Sprintf("the signing template %s of contract %d no longer exists at the signing provider", c.DigitalContractID, c.ID))
	}
	if !p.Can(account.ContractEdit) {
		// At DocuSeal the slug opens a form anyone can sign: it lets a
		// person act as a signer (docs/decisions.md §12).
		t.Slug = ""
	}
	return t, nil
}

// Submissions implements ports.SigningService. While the contract waits
// for signatures, an outcome of its submission that the contract has not
// seen (a lost webhook) is applied through ApplySigningEvent; a failure to
// do so is logged and does not fail the read.
func (s *Service) Submissions(ctx context.Context, contractID int64) ([]signing.Submission, error) {
	p, err := account.Require(ctx, account.ContractView)
	if err != nil {
		return nil, err
	}
	c, err := s.digital(ctx, contractID)
	if err != nil {
		return nil, err
	}
	subs, err := s.d.Provider.ListSubmissions(ctx, c.DigitalContractID)
	if err != nil {
		return nil, providerError(err, fmt.Sprintf("the signing template %s of contract %d no longer exists at the signing provider", c.DigitalContractID, c.ID))
	}
	if c.Status == contract.WaitingForClientSignature && c.DigitalContractSubmissionID != "" {
		s.reconcile(ctx, c, subs)
	}
	if p.Can(account.ContractEdit) {
		s.restoreLinks(ctx, subs)
	} else {
		withoutSignerLinks(subs)
	}
	return subs, nil
}

// withoutSignerLinks blanks every signer's link: with it a person signs
// in the signer's place, so only ContractEdit sees it (docs/decisions.md §12).
// The submitters and their statuses stay.
func withoutSignerLinks(subs []signing.Submission) {
	for i := range subs {
		for j := range subs[i].Submitters {
			subs[i].Submitters[j].EmbedSrc = ""
		}
	}
}

// reconcile applies the outcome of c's submission, found in subs or read
// from the provider, when it is over.
func (s *Service) reconcile(ctx context.Context, c contract.Contract, subs []signing.Submission) {
	var sub *signing.Submission
	for i := range subs {
		if subs[i].ID == c.DigitalContractSubmissionID {
			sub = &subs[i]
			break
		}
	}
	if sub == nil {
		got, err := s.d.Provider.GetSubmission(ctx, c.DigitalContractSubmissionID)
		if err != nil {
			s.d.Logger.WarnContext(ctx, "reconcile signing: submission not readable", "contract", c.ID, "submission", c.DigitalContractSubmissionID, "err", err)
			return
		}
		sub = &got
	}
	for _, e := range OutcomeEvents(*sub, s.d.Clock.Now()) {
		if err := s.ApplySigningEvent(ctx, e); err != nil {
			s.d.Logger.ErrorContext(ctx, "reconcile signing: event not applied", "contract", c.ID, "submission", sub.ID, "kind", e.Kind, "err", err)
			return
		}
	}
}

// OutcomeEvents returns the events that report a finished submission: one
// EventSubmitterCompleted per signer who signed (in signing order), then
// EventSubmissionCompleted, the decliners' EventSubmitterDeclined, or
// EventSubmissionExpired. A pending submission has none.
func OutcomeEvents(sub signing.Submission, now time.Time) []signing.Event {
	if sub.Status == signing.SubmissionPending || sub.Status == "" {
		return nil
	}
	at := func(t *time.Time) time.Time {
		if t != nil {
			return *t
		}
		return now
	}
	var out []signing.Event
	for _, p := range sub.Submitters {
		if p.Status == signing.SubmitterCompleted {
			out = append(out, signing.Event{Kind: signing.EventSubmitterCompleted, SubmissionID: sub.ID, TemplateID: sub.TemplateID,
				SubmitterEmail: p.Email, At: at(p.CompletedAt)})
		}
	}
	switch sub.Status {
	case signing.SubmissionCompleted:
		out = append(out, signing.Event{Kind: signing.EventSubmissionCompleted, SubmissionID: sub.ID, TemplateID: sub.TemplateID, At: at(sub.CompletedAt)})
	case signing.SubmissionDeclined:
		for _, p := range sub.Submitters {
			if p.Status == signing.SubmitterDeclined {
				out = append(out, signing.Event{Kind: signing.EventSubmitterDeclined, SubmissionID: sub.ID, TemplateID: sub.TemplateID,
					SubmitterEmail: p.Email, Reason: p.DeclineReason, At: at(p.DeclinedAt)})
			}
		}
	case signing.SubmissionExpired:
		out = append(out, signing.Event{Kind: signing.EventSubmissionExpired, SubmissionID: sub.ID, TemplateID: sub.TemplateID, At: now})
	}
	return out
}

// digital loads a contract that must be digital.
func (s *Service) digital(ctx context.Context, contractID int64) (contract.Contract, error) {
	c, err := s.d.Contracts.Contract(ctx, contractID)
	if err != nil {
		return c, err
	}
	if !c.IsDigital() {
		return c, domain.Errorf(domain.ENOTFOUND, "contract %d is not digital: it has no signing template", contractID)
	}
	return c, nil
}

// BuilderToken implements ports.SigningService.
func (s *Service) BuilderToken(ctx context.Context, contractID int64) (string, error) {
	p, err := account.Require(ctx, account.ContractEdit)
	if err != nil {
		return "", err
	}
	c, err := s.d.Contracts.Contract(ctx, contractID)
	if err != nil {
		return "", err
	}
	u, err := s.d.Users.User(ctx, p.UserID)
	if err != nil {
		return "", fmt.Errorf("form-builder token: caller %d: %w", p.UserID, err)
	}
	tok, err := s.d.Provider.BuilderToken(ctx, signing.BuilderTokenRequest{
		IntegrationEmail: u.Email, Name: c.Name, ExternalID: c.UUID, TemplateID: c.DigitalContractID,
		ExpiresAt: s.d.Clock.Now().Add(builderTokenTTL),
	})
	if err != nil {
		return "", providerError(err, "")
	}
	return tok, nil
}

// Webhook implements ports.SigningService.
func (s *Service) Webhook(ctx context.Context, header func(name string) string, body []byte) error {
	events, err := s.d.Provider.ParseWebhook(header, body, s.d.Clock.Now())
	if err != nil {
		if domain.ErrorCode(err) == domain.EUNAUTHORIZED {
			s.d.Logger.WarnContext(ctx, "signing webhook refused", "err", err)
		}
		return err
	}
	for _, e := range events {
		if err := s.ApplySigningEvent(ctx, e); err != nil {
			return err
		}
	}
	return nil
}

// providerError passes a provider's error on. ENOTFOUND becomes the
// message notFound when given (a missing template of an existing
// contract), else EUPSTREAM: a provider that loses what it created
// failed. Validation errors (EINVALID) are the client's and stay.
func providerError(err error, notFound string) error {
	if domain.ErrorCode(err) != domain.ENOTFOUND {
		return err
	}
	if notFound != "" {
		return &domain.Error{Code: domain.ENOTFOUND, Message: notFound, Err: err}
	}
	return &domain.Error{Code: domain.EUPSTREAM, Message: "the signing provider lost a record it had created: " + domain.ErrorMessage(err), Err: err}
}

// uniqueIDs drops repeated ids, keeping the first order.
func uniqueIDs(ids []int64) []int64 {
	seen := map[int64]bool{}
	out := make([]int64, 0, len(ids))
	for _, id := range ids {
		if !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
	}
	return out
}

func submitterList(subs []signing.NewSubmitter) string {
	parts := make([]string, len(subs))
	for i, s := range subs {
		who := s.Email
		if who == "" {
			who = s.Phone
		}
		parts[i] = fmt.Sprintf("%s (%s)", who, s.Role)
	}
	return strings.Join(parts, ", ")
}

func documentList(docs []contract.Document) string {
	parts := make([]string, len(docs))
	for i, d := range docs {
		parts[i] = d.FileName
	}
	return strings.Join(parts, ", ")
}
