package embeddedsign

import (
	"context"
	"fmt"
	"net/mail"
	"strings"
	"time"

	"counsel/domain"
	"counsel/domain/signing"
	"counsel/ports"
)

// CreateSubmission implements ports.SigningProvider. It creates one
// submission of template in.TemplateID with a signing page per submitter
// (embedSrc) and, when in.SendEmail, queues the invitations in the mail
// outbox in the transaction that stores it: in preserved order to the
// first signer only (the next one is invited in the transaction of each
// signature), in random order to everyone. A blank
// submitter role takes the template's role at the same position, else
// "Signer N". Order defaults to preserved, as DocuSeal's does. EINVALID
// for no submitters, a missing or malformed or repeated email, an unknown
// order, or an expiry time not in the future; ENOTFOUND for an unknown
// template.
func (p *Provider) CreateSubmission(ctx context.Context, in signing.NewSubmission) ([]signing.Submission, error) {
	tid, err := parseID("template", in.TemplateID)
	if err != nil {
		return nil, err
	}
	now := p.now()
	fields := domain.FieldErrors{}
	order := strings.ToLower(strings.TrimSpace(in.Order))
	switch order {
	case "":
		order = signing.OrderPreserved
	case signing.OrderPreserved, signing.OrderRandom:
	default:
		fields.Add("order", `order must be "preserved" or "random"`)
	}
	switch {
	case len(in.Submitters) == 0:
		fields.Add("submitters", "at least one submitter is required")
	case len(in.Submitters) > maxSubmitters:
		fields.Add("submitters", fmt.Sprintf("at most %d submitters", maxSubmitters))
	}
	if in.ExpireAt != nil && !in.ExpireAt.After(now) {
		fields.Add("expireAt", "expireAt must be in the future")
	}
	emails := map[string]bool{}
	for i, s := range in.Submitters {
		email := strings.TrimSpace(s.Email)
		key := fmt.Sprintf("submitters[%d].email", i)
		switch {
		case email == "":
			fields.Add(key, "email is required")
		case !validEmail(email):
			fields.Add(key, "email is not a valid address")
		case emails[strings.ToLower(email)]:
			fields.Add(key, "each submitter needs an email of their own")
		}
		emails[strings.ToLower(email)] = true
	}
	if len(fields) > 0 {
		return nil, fields.Err()
	}
	tpl, err := p.cfg.Store.Template(ctx, tid)
	if err != nil {
		return nil, err
	}
	rec := ports.SigningSubmissionRecord{
		TemplateID: tid,
		Name:       truncate(strings.TrimSpace(in.Name), maxNameLen),
		Order:      order,
		Status:     signing.SubmissionPending,
		SendEmail:  in.SendEmail,
		Message:    signing.Message{Subject: truncate(in.Message.Subject, maxNameLen), Body: truncate(in.Message.Body, 20000)},
		ExpireAt:   in.ExpireAt,
		CreatedAt:  now,
		UpdatedAt:  now,
	}
	if rec.ExpireAt != nil {
		t := rec.ExpireAt.UTC().Truncate(time.Millisecond)
		rec.ExpireAt = &t
	}
	for i, s := range in.Submitters {
		slug, err := p.newSlug()
		if err != nil {
			return nil, err
		}
		role := truncate(strings.TrimSpace(s.Role), maxNameLen)
		if role == "" && i < len(tpl.Roles) {
			role = tpl.Roles[i]
		}
		if role == "" {
			role = defaultRole(i)
		}
		rec.Submitters = append(rec.Submitters, ports.SigningSubmitterRecord{
			Slug:   slug,
			Name:   truncate(strings.TrimSpace(s.Name), maxNameLen),
			Email:  strings.TrimSpace(s.Email),
			Phone:  truncate(strings.TrimSpace(s.Phone), 50),
			Role:   role,
			Status: signing.SubmitterAwaiting,
		})
	}
	// The invitations are queued with the submission, or not at all.
	ctx, fx := ports.WithEffects(ctx)
	mark := fx.Begin()
	p.invite(fx, &rec, title(rec, tpl), now)
	rec, err = p.cfg.Store.CreateSubmission(ctx, rec)
	if err != nil {
		fx.Rollback(mark)
		return nil, fmt.Errorf("create signing submission: %w", err)
	}
	return []signing.Submission{p.toSubmission(rec, "")}, nil
}

// validEmail accepts a bare address (no display name, no line breaks).
func validEmail(s string) bool {
	a, err := mail.ParseAddress(s)
	return err == nil && a.Address == s && a.Name == ""
}

// ListSubmissions implements ports.SigningProvider: the template's
// submissions, newest first (at most 500), with any that are due marked
// expired first. An unknown template has none; an id this provider cannot
// have made is ENOTFOUND.
func (p *Provider) ListSubmissions(ctx context.Context, templateID string) ([]signing.Submission, error) {
	tid, err := parseID("template", templateID)
	if err != nil {
		return nil, err
	}
	recs, err := p.cfg.Store.SubmissionsByTemplate(ctx, tid, maxListed)
	if err != nil {
		return nil, err
	}
	slug, err := p.evidenceSlug(ctx, recs...)
	if err != nil {
		return nil, err
	}
	out := make([]signing.Submission, 0, len(recs))
	for _, rec := range recs {
		if rec, err = p.expireIfDue(ctx, rec); err != nil {
			return nil, err
		}
		out = append(out, p.toSubmission(rec, slug))
	}
	return out, nil
}

// GetSubmission implements ports.SigningProvider, marking the submission
// expired first when its time has passed.
func (p *Provider) GetSubmission(ctx context.Context, id string) (signing.Submission, error) {
	n, err := parseID("submission", id)
	if err != nil {
		return signing.Submission{}, err
	}
	rec, err := p.cfg.Store.Submission(ctx, n)
	if err != nil {
		return signing.Submission{}, err
	}
	if rec, err = p.expireIfDue(ctx, rec); err != nil {
		return signing.Submission{}, err
	}
	slug, err := p.evidenceSlug(ctx, rec)
	if err != nil {
		return signing.Submission{}, err
	}
	return p.toSubmission(rec, slug), nil
}

// BuilderToken implements ports.SigningProvider: ENOTIMPLEMENTED.
func (p *Provider) BuilderToken(context.Context, signing.BuilderTokenRequest) (string, error) {
	return "", &domain.Error{Code: domain.ENOTIMPLEMENTED, Message: "the embedded signer has no form builder; it is a DocuSeal feature"}
}

// ParseWebhook implements ports.SigningProvider: EUNAUTHORIZED always,
// since the embedded provider sends no webhooks (its events go to the
// EventSink directly).
func (p *Provider) ParseWebhook(func(string) string, []byte, time.Time) ([]signing.Event, error) {
	return nil, &domain.Error{Code: domain.EUNAUTHORIZED, Message: "the embedded signer sends no webhooks"}
}

// ExpireDue marks every pending submission whose expiry time has passed
// expired, reporting EventSubmissionExpired for each, and returns how
// many it expired. Run it periodically (every minute, beside the contract
// sweep); reads also expire what they find due.
func (p *Provider) ExpireDue(ctx context.Context) (int, error) {
	n := 0
	for {
		ids, err := p.cfg.Store.DueSubmissions(ctx, p.now(), sweepBatch)
		if err != nil {
			return n, fmt.Errorf("due signing submissions: %w", err)
		}
		progressed := false
		for _, id := range ids {
			var events []signing.Event
			_, err := p.cfg.Store.UpdateSubmission(ctx, id, func(s *ports.SigningSubmissionRecord) error {
				events = expire(s, p.now())
				return nil
			})
			if err != nil {
				return n, fmt.Errorf("expire signing submission %d: %w", id, err)
			}
			if len(events) > 0 {
				n++
				progressed = true
			}
			p.emit(ctx, events)
		}
		// A short batch was the last; a batch that expired nothing would
		// only be read again.
		if len(ids) < sweepBatch || !progressed {
			return n, nil
		}
	}
}

// expireIfDue expires rec when it is due and returns its current state.
func (p *Provider) expireIfDue(ctx context.Context, rec ports.SigningSubmissionRecord) (ports.SigningSubmissionRecord, error) {
	if !isDue(&rec, p.now()) {
		return rec, nil
	}
	var events []signing.Event
	rec, err := p.cfg.Store.UpdateSubmission(ctx, rec.ID, func(s *ports.SigningSubmissionRecord) error {
		events = expire(s, p.now())
		return nil
	})
	if err != nil {
		return rec, fmt.Errorf("expire signing submission %d: %w", rec.ID, err)
	}
	p.emit(ctx, events)
	return rec, nil
}

// evidenceSlug returns the slug of the template of recs (all of one
// template) when one of them has stored evidence, whose links are made
// under it; "" otherwise, without reading the template.
func (p *Provider) evidenceSlug(ctx context.Context, recs ...ports.SigningSubmissionRecord) (string, error) {
	for _, rec := range recs {
		if rec.CombinedDocumentID != "" || rec.AuditDocumentID != "" {
			tpl, err := p.cfg.Store.Template(ctx, rec.TemplateID)
			if err != nil {
				return "", fmt.Errorf("signing template %d: %w", rec.TemplateID, err)
			}
			return tpl.Slug, nil
		}
	}
	return "", nil
}

// toSubmission is the provider-neutral submission of rec. With the
// template's slug, stored evidence gets its signed, expiring links
// (docs/decisions.md §12 and §13).
func (p *Provider) toSubmission(rec ports.SigningSubmissionRecord, tplSlug string) signing.Submission {
	s := signing.Submission{
		ID:          formatID(rec.ID),
		TemplateID:  formatID(rec.TemplateID),
		Status:      rec.Status,
		CreatedAt:   rec.CreatedAt,
		CompletedAt: rec.CompletedAt,
		Submitters:  make([]signing.Submitter, len(rec.Submitters)),
	}
	if tplSlug != "" {
		expires := p.now().Add(p.cfg.DocumentLinkTTL).Unix()
		if rec.CombinedDocumentID != "" {
			s.CombinedDocumentURL = p.documentLink(tplSlug, rec.CombinedDocumentID, expires)
		}
		if rec.AuditDocumentID != "" {
			s.AuditLogURL = p.documentLink(tplSlug, rec.AuditDocumentID, expires)
		}
	}
	for i, q := range rec.Submitters {
		s.Submitters[i] = signing.Submitter{
			ID: formatID(q.ID), Name: q.Name, Email: q.Email, Phone: q.Phone, Role: q.Role, Status: q.Status,
			SentAt: q.SentAt, OpenedAt: q.OpenedAt, CompletedAt: q.CompletedAt, DeclinedAt: q.DeclinedAt,
			DeclineReason: q.DeclineReason, EmbedSrc: p.signLink(q.Slug),
		}
	}
	return s
}
