package embeddedsign

import (
	"context"
	"fmt"
	"time"

	"counsel/domain"
	"counsel/domain/contract"
	"counsel/domain/mail"
	"counsel/domain/signing"
	"counsel/ports"
)

// Every email of the embedded signer (invitations, reminders) is queued
// in the mail outbox by the transaction that records it (ports.Effects):
// a submitter is marked sent exactly when their invitation is queued, and
// reminded exactly when their reminder is.

// invite marks the submitters whose turn it is (nextToInvite) sent at now
// and queues their invitations on fx, when the submission asks for email.
// Call it inside the transaction that saves s.
func (p *Provider) invite(fx *ports.Effects, s *ports.SigningSubmissionRecord, title string, now time.Time) {
	if !s.SendEmail {
		return
	}
	for _, i := range nextToInvite(s) {
		q := &s.Submitters[i]
		m := mail.Invitation(p.signer(s, q, title), mail.CustomMessage{Subject: s.Message.Subject, Body: s.Message.Body})
		fx.Add(ports.Mail{To: q.Email, Subject: m.Subject, Kind: m.Kind, Text: m.Text, HTML: m.HTML})
		t := now
		q.SentAt = &t
		if q.Status == signing.SubmitterAwaiting {
			q.Status = signing.SubmitterSent
		}
		s.UpdatedAt = now
	}
}

// signer is what a message to submitter q of s shows.
func (p *Provider) signer(s *ports.SigningSubmissionRecord, q *ports.SigningSubmitterRecord, title string) mail.Signer {
	return mail.Signer{Name: q.Name, Email: q.Email, Title: title, Link: p.signLink(q.Slug), ExpireAt: s.ExpireAt}
}

// remind queues a reminder to submitter i of s at now and its history
// entry (signingReminderSent, by actor; userID for a user), and counts it.
// Call it inside the transaction that saves s.
func (p *Provider) remind(fx *ports.Effects, s *ports.SigningSubmissionRecord, i int, title string, now time.Time, actor contract.Actor, userID int64) {
	q := &s.Submitters[i]
	m := mail.Reminder(p.signer(s, q, title))
	fx.Add(ports.Mail{To: q.Email, Subject: m.Subject, Kind: m.Kind, Text: m.Text, HTML: m.HTML},
		ports.SigningHistory{SubmissionID: formatID(s.ID), Entry: contract.AuditEntry{
			Action: contract.ActionSigningReminderSent, Actor: actor, ActorUserID: userID, At: now,
			Details: fmt.Sprintf("reminder %d emailed to %s (submission %s)", q.Reminders+1, q.Email, formatID(s.ID)),
		}})
	t := now
	q.Reminders++
	q.RemindedAt = &t
}

// reminderState is what the reminder rules read of submitter i of s.
func reminderState(s *ports.SigningSubmissionRecord, i int) signing.ReminderState {
	q := s.Submitters[i]
	return signing.ReminderState{Status: q.Status, SubmissionStatus: s.Status, SentAt: q.SentAt,
		Reminders: q.Reminders, RemindedAt: q.RemindedAt}
}

// RemindDue implements ports.SigningReminders: for each submission with
// a signer whose automatic reminder is due (cfg.Reminders), one
// transaction that decides again on the locked submission, queues the
// reminders and their history entries, and counts them; a second
// instance running at once finds them counted and sends nothing.
func (p *Provider) RemindDue(ctx context.Context) (int, error) {
	r := p.cfg.Reminders
	if r.Interval <= 0 || r.Max <= 0 {
		return 0, nil
	}
	n := 0
	now := p.now()
	// One pass in id order: a submission found but not due after all
	// (expired, its signer waiting) is passed over, not read again.
	for after := int64(0); ; {
		ids, err := p.cfg.Store.RemindableSubmissions(ctx, now.Add(-r.Interval), r.Max, after, sweepBatch)
		if err != nil {
			return n, fmt.Errorf("signing submissions to remind: %w", err)
		}
		for _, id := range ids {
			if err := ctx.Err(); err != nil {
				return n, err
			}
			sent, err := p.remindDue(ctx, id)
			if err != nil {
				return n, err
			}
			n += sent
			after = id
		}
		if len(ids) < sweepBatch {
			return n, nil
		}
	}
}

// remindDue sends the due reminders of one submission.
func (p *Provider) remindDue(ctx context.Context, id int64) (int, error) {
	rec, err := p.cfg.Store.Submission(ctx, id)
	if err != nil {
		return 0, fmt.Errorf("signing submission %d: %w", id, err)
	}
	tpl, err := p.cfg.Store.Template(ctx, rec.TemplateID)
	if err != nil {
		return 0, fmt.Errorf("signing template %d: %w", rec.TemplateID, err)
	}
	ctx, fx := ports.WithEffects(ctx)
	sent := 0
	_, err = p.cfg.Store.UpdateSubmission(ctx, id, func(s *ports.SigningSubmissionRecord) error {
		sent = 0
		now := p.now()
		for i := range s.Submitters {
			if standingOf(s, i, now) == canAct && p.cfg.Reminders.Due(reminderState(s, i), now) {
				p.remind(fx, s, i, title(*s, tpl), now, contract.ActorSigningProvider, 0)
				sent++
			}
		}
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("remind signers of submission %d: %w", id, err)
	}
	return sent, nil
}

// RemindNow implements ports.SigningReminders.
func (p *Provider) RemindNow(ctx context.Context, submissionID string, by int64) (ports.RemindResult, error) {
	id, err := parseID("submission", submissionID)
	if err != nil {
		return ports.RemindResult{}, err
	}
	rec, err := p.cfg.Store.Submission(ctx, id)
	if err != nil {
		return ports.RemindResult{}, err
	}
	if rec, err = p.expireIfDue(ctx, rec); err != nil {
		return ports.RemindResult{}, err
	}
	tpl, err := p.cfg.Store.Template(ctx, rec.TemplateID)
	if err != nil {
		return ports.RemindResult{}, fmt.Errorf("signing template %d: %w", rec.TemplateID, err)
	}
	ctx, fx := ports.WithEffects(ctx)
	var out ports.RemindResult
	_, err = p.cfg.Store.UpdateSubmission(ctx, id, func(s *ports.SigningSubmissionRecord) error {
		out = ports.RemindResult{}
		now := p.now()
		if s.Status != signing.SubmissionPending || isDue(s, now) {
			return domain.Errorf(domain.ECONFLICT, "the submission is %s: there is no one to remind", statusWord(s, now))
		}
		var wait time.Duration
		for i, q := range s.Submitters {
			if standingOf(s, i, now) != canAct {
				continue
			}
			if left, cooling := signing.CoolingDown(reminderState(s, i), now); cooling {
				out.CoolingDown = append(out.CoolingDown, ports.CoolingSigner{Email: q.Email, RetryAfter: left})
				if wait == 0 || left < wait {
					wait = left
				}
				continue
			}
			p.remind(fx, s, i, title(*s, tpl), now, contract.ActorUser, by)
			out.Reminded = append(out.Reminded, q.Email)
		}
		switch {
		case len(out.Reminded) > 0:
			return nil
		case len(out.CoolingDown) > 0:
			return &domain.Error{Code: domain.ERATELIMITED, RetryAfter: wait,
				Message: fmt.Sprintf("every signer who may sign was reminded within the last %s; try again later", signing.ReminderCooldown)}
		}
		return domain.Errorf(domain.ECONFLICT, "no signer may sign now: there is no one to remind")
	})
	if err != nil {
		return ports.RemindResult{}, err
	}
	return out, nil
}

// statusWord names why a submission has no one to remind.
func statusWord(s *ports.SigningSubmissionRecord, now time.Time) string {
	if isDue(s, now) {
		return signing.SubmissionExpired
	}
	return s.Status
}
