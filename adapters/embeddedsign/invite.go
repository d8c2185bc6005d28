package embeddedsign

import (
	"context"
	"strings"

	"counsel/domain/signing"
	"counsel/ports"
)

// invite emails the submitters whose turn it is (nextToInvite) when the
// submission asks for email and a Mailer is configured, and records those
// it reached as sent. A failed email is logged and leaves the submitter
// awaiting: the link is still in embedSrc. It returns the submission as
// stored afterwards.
func (p *Provider) invite(ctx context.Context, rec ports.SigningSubmissionRecord, templateName string) ports.SigningSubmissionRecord {
	if p.cfg.Mailer == nil || !rec.SendEmail {
		return rec
	}
	idxs := nextToInvite(&rec)
	if len(idxs) == 0 {
		return rec
	}
	// The submission is committed; a client that goes away must not stop
	// its invitations halfway.
	ctx = context.WithoutCancel(ctx)
	title := rec.Name
	if title == "" {
		title = templateName
	}
	var sent []int64
	for _, i := range idxs {
		q := rec.Submitters[i]
		subject, body := invitation(rec.Message, title, q, p.signLink(q.Slug))
		if err := p.cfg.Mailer.Send(ctx, q.Email, subject, body); err != nil {
			p.log.WarnContext(ctx, "embeddedsign: invitation not sent; the signing link is in embedSrc",
				"submission_id", rec.ID, "submitter_id", q.ID, "err", err)
			continue
		}
		sent = append(sent, q.ID)
	}
	if len(sent) == 0 {
		return rec
	}
	updated, err := p.cfg.Store.UpdateSubmission(ctx, rec.ID, func(s *ports.SigningSubmissionRecord) error {
		now := p.now()
		for i := range s.Submitters {
			q := &s.Submitters[i]
			for _, id := range sent {
				if q.ID == id && q.SentAt == nil {
					q.SentAt = &now
					if q.Status == signing.SubmitterAwaiting {
						q.Status = signing.SubmitterSent
					}
					s.UpdatedAt = now
				}
			}
		}
		return nil
	})
	if err != nil {
		p.log.ErrorContext(ctx, "embeddedsign: invitation sent but not recorded", "submission_id", rec.ID, "err", err)
		return rec
	}
	return updated
}

// invitation builds the email of one submitter. A custom message may use
// DocuSeal's variables {{submitter.link}}, {{submitter.name}},
// {{submitter.email}}, {{template.name}} and {{submission.name}}; a body
// without the link gets it appended.
func invitation(m signing.Message, title string, q ports.SigningSubmitterRecord, link string) (subject, body string) {
	name := q.Name
	if name == "" {
		name = q.Email
	}
	vars := strings.NewReplacer(
		"{{submitter.link}}", link,
		"{{submitter.name}}", name,
		"{{submitter.email}}", q.Email,
		"{{template.name}}", title,
		"{{submission.name}}", title,
	)
	subject = strings.TrimSpace(vars.Replace(m.Subject))
	if subject == "" {
		subject = "Please sign: " + title
	}
	body = vars.Replace(m.Body)
	if strings.TrimSpace(body) == "" {
		body = "Hello " + name + ",\n\nYou are asked to sign \"" + title + "\". Open this link to read the documents and sign or decline:\n\n" +
			link + "\n\nThe link is personal to you; please do not forward it.\n"
	} else if !strings.Contains(m.Body, "{{submitter.link}}") {
		body = strings.TrimRight(body, "\n") + "\n\n" + link + "\n"
	}
	return subject, body
}
