package embeddedsign

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"counsel/domain"
	"counsel/domain/signing"
	"counsel/ports"
)

// formTokenSkew is how far in the future a form token's issue time may
// lie (clocks of several servers behind one address).
const formTokenSkew = time.Minute

// Page implements ports.SigningPages.
func (p *Provider) Page(ctx context.Context, slug string) (ports.SigningPage, error) {
	rec, i, err := p.active(ctx, slug)
	if err != nil {
		return ports.SigningPage{}, err
	}
	tpl, err := p.cfg.Store.Template(ctx, rec.TemplateID)
	if err != nil {
		return ports.SigningPage{}, fmt.Errorf("signing page template: %w", err)
	}
	now := p.now()
	page := ports.SigningPage{
		Title:         title(rec, tpl),
		SubmitterName: rec.Submitters[i].Name,
		Role:          rec.Submitters[i].Role,
		ExpireAt:      rec.ExpireAt,
	}
	if standingOf(&rec, i, now) == waiting {
		page.Waiting = true
		return page, nil
	}
	if rec.Submitters[i].OpenedAt == nil {
		_, err := p.cfg.Store.UpdateSubmission(ctx, rec.ID, func(s *ports.SigningSubmissionRecord) error {
			if standingOf(s, i, now) == canAct {
				markOpened(s, i, now)
			}
			return nil
		})
		if err != nil {
			return ports.SigningPage{}, fmt.Errorf("mark signing page opened: %w", err)
		}
	}
	for _, d := range tpl.Documents {
		page.Documents = append(page.Documents, ports.SigningPageDocument{ID: d.DocumentID, FileName: d.FileName})
	}
	page.FormToken = p.formToken(slug, now)
	return page, nil
}

// Sign implements ports.SigningPages.
func (p *Provider) Sign(ctx context.Context, slug string, in ports.SignInput) (ports.SignResult, error) {
	rec, i, err := p.actor(ctx, slug, in.FormToken)
	if err != nil {
		return ports.SignResult{}, err
	}
	in.Name = strings.Join(strings.Fields(in.Name), " ")
	fields := domain.FieldErrors{}
	switch {
	case in.Name == "":
		fields.Add("name", "type your full name to sign")
	case utf8.RuneCountInString(in.Name) > maxNameLen:
		fields.Add("name", fmt.Sprintf("the name can have at most %d characters", maxNameLen))
	}
	if !in.Consent {
		fields.Add("consent", "tick the box to agree to sign electronically")
	}
	if len(fields) > 0 {
		return ports.SignResult{}, fields.Err()
	}
	tpl, err := p.cfg.Store.Template(ctx, rec.TemplateID)
	if err != nil {
		return ports.SignResult{}, fmt.Errorf("signing template: %w", err)
	}
	// The next signer's invitation (order preserved) is queued with the
	// signature.
	ctx, fx := ports.WithEffects(ctx)
	rec, tpl, err = p.settle(ctx, rec, func(s *ports.SigningSubmissionRecord, now time.Time) []signing.Event {
		events := sign(s, i, in, now)
		p.invite(fx, s, title(*s, tpl), now)
		return events
	}, i)
	if err != nil {
		return ports.SignResult{}, err
	}
	return ports.SignResult{Title: title(rec, tpl), AllCompleted: rec.Status == signing.SubmissionCompleted}, nil
}

// Decline implements ports.SigningPages.
func (p *Provider) Decline(ctx context.Context, slug string, in ports.DeclineInput) (ports.SignResult, error) {
	rec, i, err := p.actor(ctx, slug, in.FormToken)
	if err != nil {
		return ports.SignResult{}, err
	}
	in.Reason = strings.TrimSpace(in.Reason)
	switch {
	case in.Reason == "":
		return ports.SignResult{}, domain.Invalid(map[string][]string{"reason": {"say why you decline"}})
	case utf8.RuneCountInString(in.Reason) > maxReasonLen:
		return ports.SignResult{}, domain.Invalid(map[string][]string{"reason": {fmt.Sprintf("the reason can have at most %d characters", maxReasonLen)}})
	}
	rec, tpl, err := p.settle(ctx, rec, func(s *ports.SigningSubmissionRecord, now time.Time) []signing.Event {
		return decline(s, i, in, now)
	}, i)
	if err != nil {
		return ports.SignResult{}, err
	}
	return ports.SignResult{Title: title(rec, tpl)}, nil
}

// actor checks a form post: its token, that the link is live, and that
// its signer is not waiting for an earlier one. It returns the submission
// and the signer's index.
func (p *Provider) actor(ctx context.Context, slug, token string) (ports.SigningSubmissionRecord, int, error) {
	if !p.checkFormToken(slug, token, p.now()) {
		return ports.SigningSubmissionRecord{}, 0, errBadFormToken()
	}
	rec, i, err := p.active(ctx, slug)
	if err != nil {
		return rec, i, err
	}
	if standingOf(&rec, i, p.now()) == waiting {
		return rec, i, errWaiting()
	}
	return rec, i, nil
}

// settle applies a signer's action in one transaction, emits its events
// after the commit, and returns the submission and its template.
func (p *Provider) settle(ctx context.Context, rec ports.SigningSubmissionRecord,
	change func(*ports.SigningSubmissionRecord, time.Time) []signing.Event, i int) (ports.SigningSubmissionRecord, ports.SigningTemplateRecord, error) {
	var events []signing.Event
	rec, err := p.act(ctx, rec.ID, i, &events, change)
	if err != nil {
		return rec, ports.SigningTemplateRecord{}, err
	}
	p.emit(ctx, events)
	tpl, err := p.cfg.Store.Template(ctx, rec.TemplateID)
	if err != nil {
		return rec, tpl, fmt.Errorf("signing template: %w", err)
	}
	return rec, tpl, nil
}

// act applies change to submitter i of submission id in one transaction,
// after checking again, inside it, that the submitter may act. A
// submission found due is expired (and that committed) instead, and the
// link then answers as not found. The events to report after the commit
// are left in events.
func (p *Provider) act(ctx context.Context, id int64, i int, events *[]signing.Event,
	change func(*ports.SigningSubmissionRecord, time.Time) []signing.Event) (ports.SigningSubmissionRecord, error) {
	var st standing
	rec, err := p.cfg.Store.UpdateSubmission(ctx, id, func(s *ports.SigningSubmissionRecord) error {
		now := p.now()
		switch st = standingOf(s, i, now); st {
		case due:
			*events = expire(s, now)
			return nil
		case waiting:
			return errWaiting()
		case done:
			return errLinkNotFound()
		}
		*events = change(s, now)
		return nil
	})
	if err != nil {
		return rec, err
	}
	if st == due {
		p.emit(ctx, *events)
		*events = nil
		return rec, errLinkNotFound()
	}
	return rec, nil
}

// Document implements ports.SigningPages.
func (p *Provider) Document(ctx context.Context, req ports.SigningDocumentRequest) (ports.SigningDocument, error) {
	var tpl ports.SigningTemplateRecord
	rec, i, err := p.active(ctx, req.Slug)
	switch {
	case err == nil:
		if standingOf(&rec, i, p.now()) == waiting {
			return ports.SigningDocument{}, errWaiting()
		}
		if tpl, err = p.cfg.Store.Template(ctx, rec.TemplateID); err != nil {
			return ports.SigningDocument{}, fmt.Errorf("signing template: %w", err)
		}
	case domain.ErrorCode(err) == domain.ENOTFOUND && req.Signature != "":
		// Not a signer's slug: a template's document link, which carries
		// its own signature and expiry.
		if !p.checkLink(req.Slug, req.DocumentID, req.Expires, req.Signature, p.now()) {
			return ports.SigningDocument{}, errLinkNotFound()
		}
		if tpl, err = p.cfg.Store.TemplateBySlug(ctx, req.Slug); err != nil {
			return ports.SigningDocument{}, notFoundOr(err)
		}
		// The signed evidence of the template's submissions is reached
		// through such a link too, never through a signer's slug.
		if tpl, err = p.withEvidence(ctx, tpl); err != nil {
			return ports.SigningDocument{}, err
		}
	default:
		return ports.SigningDocument{}, err
	}
	for _, d := range tpl.Documents {
		if d.DocumentID != req.DocumentID {
			continue
		}
		body, name, ct, err := p.cfg.Documents(ctx, d.DocumentID)
		if err != nil {
			if domain.ErrorCode(err) == domain.ENOTFOUND {
				return ports.SigningDocument{}, errLinkNotFound()
			}
			return ports.SigningDocument{}, fmt.Errorf("open signing document %s: %w", d.DocumentID, err)
		}
		if name == "" {
			name = d.FileName
		}
		if ct == "" {
			ct = d.ContentType
		}
		if ct == "" {
			ct = "application/octet-stream"
		}
		return ports.SigningDocument{Body: body, FileName: name, ContentType: ct}, nil
	}
	return ports.SigningDocument{}, errLinkNotFound()
}

// active returns the submission of slug and the submitter's index when the
// submitter may still act or is waiting for their turn; expires the
// submission first when it is due. Anything else is errLinkNotFound.
func (p *Provider) active(ctx context.Context, slug string) (ports.SigningSubmissionRecord, int, error) {
	if slug == "" || len(slug) > 64 {
		return ports.SigningSubmissionRecord{}, 0, errLinkNotFound()
	}
	rec, i, err := p.cfg.Store.SubmissionBySlug(ctx, slug)
	if err != nil {
		return rec, 0, notFoundOr(err)
	}
	if rec, err = p.expireIfDue(ctx, rec); err != nil {
		return rec, 0, err
	}
	switch standingOf(&rec, i, p.now()) {
	case canAct, waiting:
		return rec, i, nil
	}
	return rec, 0, errLinkNotFound()
}

// notFoundOr turns any ENOTFOUND into the one not-found answer of the
// pages and passes other errors on.
func notFoundOr(err error) error {
	if domain.ErrorCode(err) == domain.ENOTFOUND {
		return errLinkNotFound()
	}
	return err
}

func title(rec ports.SigningSubmissionRecord, tpl ports.SigningTemplateRecord) string {
	if rec.Name != "" {
		return rec.Name
	}
	return tpl.Name
}

func errBadFormToken() error {
	return &domain.Error{Code: domain.EFORBIDDEN, Message: "the form has expired or did not come from this page; open the signing link again"}
}

// formToken binds a page's forms to its slug and issue time: 8 bytes of
// Unix seconds and an HMAC-SHA256 over slug and time, base64url. It proves
// the form came from a page this server rendered, recently.
func (p *Provider) formToken(slug string, now time.Time) string {
	b := make([]byte, 8, 8+sha256.Size)
	binary.BigEndian.PutUint64(b, uint64(now.Unix()))
	b = append(b, p.formMAC(slug, b[:8])...)
	return base64.RawURLEncoding.EncodeToString(b)
}

func (p *Provider) formMAC(slug string, issued []byte) []byte {
	m := hmac.New(sha256.New, p.formKey)
	m.Write(issued)
	m.Write([]byte(slug))
	return m.Sum(nil)
}

// checkFormToken verifies a form token for slug at now: signature, not
// older than FormTokenMaxAge, not from the future.
func (p *Provider) checkFormToken(slug, token string, now time.Time) bool {
	// Strict: a token has one spelling, so an altered one never passes.
	b, err := base64.RawURLEncoding.Strict().DecodeString(token)
	if err != nil || len(b) != 8+sha256.Size {
		return false
	}
	if !hmac.Equal(b[8:], p.formMAC(slug, b[:8])) {
		return false
	}
	issued := time.Unix(int64(binary.BigEndian.Uint64(b[:8])), 0)
	return !issued.After(now.Add(formTokenSkew)) && now.Sub(issued) <= p.cfg.FormTokenMaxAge
}
