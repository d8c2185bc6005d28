package sqlrow

import (
	"context"
	"fmt"
	"time"

	"counsel/domain/contract"
	"counsel/ports"
)

// WriteEffects writes the effects of a change in the change's
// transaction x, at now (see ports.Effects). Every kind of ports.Effect
// has its case here; a kind without one fails the transaction rather
// than being lost.
func WriteEffects(ctx context.Context, x Querier, tc Times, now time.Time, effects []ports.Effect) error {
	for _, e := range effects {
		var err error
		switch e := e.(type) {
		case ports.Mail:
			err = insertMail(ctx, x, tc, now, e)
		case ports.AuditEvent:
			err = insertAuditEvent(ctx, x, tc, now, e.Event)
		case ports.WebhookEvent:
			err = insertWebhookEvent(ctx, x, tc, now, e)
		case ports.DeviceSeen:
			err = upsertDevice(ctx, x, tc, e)
		case ports.RearmKeyDates:
			err = rearmKeyDates(ctx, x, e)
		case ports.SigningHistory:
			err = insertSigningHistory(ctx, x, tc, e)
		default:
			err = fmt.Errorf("write effects: no writer for %T", e)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// insertMail queues m in the mail outbox, due at once or at m.NotBefore.
func insertMail(ctx context.Context, x Querier, tc Times, now time.Time, m ports.Mail) error {
	due := now
	if m.NotBefore.After(now) {
		due = m.NotBefore
	}
	id, err := x.Insert(ctx, `INSERT INTO mail_outbox (kind, recipient, subject, body_text, body_html, status,
		attempts, created_at, next_attempt_at, claimed_until, sent_at, error)
		VALUES (?, ?, ?, ?, ?, 'pending', 0, ?, ?, NULL, NULL, '')`,
		m.Kind, m.To, m.Subject, m.Text, m.HTML, tc.Arg(now), tc.Arg(due))
	if err != nil {
		return fmt.Errorf("queue mail: %w", err)
	}
	for i, a := range m.Attachments {
		if _, err := x.Exec(ctx, `INSERT INTO mail_attachments (mail_id, position, name, content_type, data)
			VALUES (?, ?, ?, ?, ?)`, id, i, a.Name, a.ContentType, a.Data); err != nil {
			return fmt.Errorf("queue mail attachment: %w", err)
		}
	}
	return nil
}

// insertSigningHistory writes e's entry into the history of the contract
// that has e's submission, if one has.
func insertSigningHistory(ctx context.Context, x Querier, tc Times, e ports.SigningHistory) error {
	var id int64
	err := x.Row(ctx, `SELECT id FROM contracts WHERE digital_contract_submission_id = ? AND digital_contract_submission_id <> ''
		ORDER BY id DESC LIMIT 1`, e.SubmissionID).Scan(&id)
	if NoRows(err) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("contract of signing submission %s: %w", e.SubmissionID, err)
	}
	return InsertAudit(ctx, x, tc, id, []contract.AuditEntry{e.Entry})
}
