package sqlrow

import (
	"context"
	"fmt"
	"strings"
	"time"

	"counsel/ports"
)

// OutboxStore implements ports.OutboxStore on any Engine.
type OutboxStore struct{ e Engine }

var _ ports.OutboxStore = OutboxStore{}

// NewOutboxStore returns the mail outbox store of e.
func NewOutboxStore(e Engine) OutboxStore { return OutboxStore{e: e} }

const outboxCols = `id, kind, recipient, subject, status, attempts, created_at, next_attempt_at, sent_at, error`

func (s OutboxStore) scan(sc Scanner, m *ports.OutboxMail, more ...any) error {
	return sc.Scan(append([]any{&m.ID, &m.Kind, &m.To, &m.Subject, &m.Status, &m.Attempts,
		Time(s.e, &m.CreatedAt), Time(s.e, &m.NextAttemptAt), NullTime(s.e, &m.SentAt), &m.Error}, more...)...)
}

// AnyDue reports whether query (a claim's SELECT of due rows) finds one,
// read outside a transaction: an idle worker's poll then takes no write
// lock (SQLite's one writer) and writes nothing.
func AnyDue(ctx context.Context, e Engine, query string, args ...any) (bool, error) {
	var one int
	err := e.Read().Row(ctx, `SELECT 1 FROM (`+query+`) due LIMIT 1`, args...).Scan(&one)
	if NoRows(err) {
		return false, nil
	}
	return err == nil, err
}

// ClaimMail implements ports.OutboxStore through the partial index
// mail_outbox_due; on PostgreSQL rows another transaction holds are
// skipped (SKIP LOCKED), so concurrent claims take different messages.
func (s OutboxStore) ClaimMail(ctx context.Context, now time.Time, lease time.Duration, limit int) ([]ports.OutboxMail, error) {
	const due = `SELECT id FROM mail_outbox WHERE status = 'pending' AND next_attempt_at <= ?
		AND (claimed_until IS NULL OR claimed_until <= ?) ORDER BY next_attempt_at, id LIMIT ?`
	if ok, err := AnyDue(ctx, s.e, due, s.e.Arg(now), s.e.Arg(now), limit); err != nil || !ok {
		return nil, err
	}
	var out []ports.OutboxMail
	lock := s.e.LockRow()
	if lock != "" {
		lock += " SKIP LOCKED"
	}
	err := s.e.WriteTx(ctx, func(x Querier) error {
		out = nil
		ids, err := QueryAll(ctx, x, ID, due+lock, s.e.Arg(now), s.e.Arg(now), limit)
		if err != nil || len(ids) == 0 {
			return err
		}
		args := []any{s.e.Arg(now.Add(lease))}
		marks := make([]string, len(ids))
		for i, id := range ids {
			args, marks[i] = append(args, id), "?"
		}
		in := `(` + strings.Join(marks, ", ") + `)`
		if _, err := x.Exec(ctx, `UPDATE mail_outbox SET claimed_until = ? WHERE id IN `+in, args...); err != nil {
			return err
		}
		out, err = QueryAll(ctx, x, func(sc Scanner) (ports.OutboxMail, error) {
			var m ports.OutboxMail
			return m, s.scan(sc, &m, &m.Text, &m.HTML)
		}, `SELECT `+outboxCols+`, body_text, body_html FROM mail_outbox WHERE id IN `+in+` ORDER BY next_attempt_at, id`, args[1:]...)
		if err != nil {
			return err
		}
		return s.attachments(ctx, x, out)
	})
	if err != nil {
		return nil, fmt.Errorf("claim mail: %w", err)
	}
	return out, nil
}

// attachments fills the attachments of ms, read in one query.
func (s OutboxStore) attachments(ctx context.Context, x Querier, ms []ports.OutboxMail) error {
	if len(ms) == 0 {
		return nil
	}
	at := make(map[int64]int, len(ms))
	ids := make([]int64, len(ms))
	for i, m := range ms {
		at[m.ID], ids[i] = i, m.ID
	}
	in, args := s.e.In("mail_id", ids)
	type row struct {
		mail int64
		a    ports.Attachment
	}
	rows, err := QueryAll(ctx, x, func(sc Scanner) (row, error) {
		var r row
		return r, sc.Scan(&r.mail, &r.a.Name, &r.a.ContentType, &r.a.Data)
	}, `SELECT mail_id, name, content_type, data FROM mail_attachments WHERE `+in+` ORDER BY mail_id, position`, args...)
	if err != nil {
		return err
	}
	for _, r := range rows {
		i := at[r.mail]
		ms[i].Attachments = append(ms[i].Attachments, r.a)
	}
	return nil
}

// FinishMail implements ports.OutboxStore.
func (s OutboxStore) FinishMail(ctx context.Context, id int64, status string, attempts int, next time.Time, sentAt *time.Time, errText string) error {
	return s.e.WriteTx(ctx, func(x Querier) error {
		n, err := x.Exec(ctx, `UPDATE mail_outbox SET status = ?, attempts = ?, next_attempt_at = ?, sent_at = ?,
			error = ?, claimed_until = NULL WHERE id = ?`, status, attempts, s.e.Arg(next), NullArg(s.e, sentAt), errText, id)
		if err != nil {
			return fmt.Errorf("record mail %d: %w", id, err)
		}
		if n == 0 {
			return NotFound("mail")
		}
		return nil
	})
}

// PendingMail implements ports.OutboxStore.
func (s OutboxStore) PendingMail(ctx context.Context) (int, error) {
	var n int
	err := s.e.Read().Row(ctx, `SELECT count(*) FROM mail_outbox WHERE status = 'pending'`).Scan(&n)
	return n, err
}

// Mails implements ports.OutboxStore.
func (s OutboxStore) Mails(ctx context.Context, limit, offset int64) ([]ports.OutboxMail, int64, error) {
	out := []ports.OutboxMail{}
	var count int64
	err := s.e.ReadTx(ctx, func(x Querier) error {
		if err := x.Row(ctx, `SELECT count(*) FROM mail_outbox`).Scan(&count); err != nil {
			return err
		}
		if limit == 0 || offset >= count {
			return nil
		}
		var err error
		out, err = QueryAll(ctx, x, func(sc Scanner) (ports.OutboxMail, error) {
			var m ports.OutboxMail
			return m, s.scan(sc, &m)
		}, `SELECT `+outboxCols+` FROM mail_outbox ORDER BY id DESC LIMIT ? OFFSET ?`, limit, offset)
		return err
	})
	if err != nil {
		return nil, 0, fmt.Errorf("list mail: %w", err)
	}
	return out, count, nil
}

// OutboxMail implements ports.OutboxStore.
func (s OutboxStore) OutboxMail(ctx context.Context, id int64) (ports.OutboxMail, error) {
	var m ports.OutboxMail
	err := s.e.ReadTx(ctx, func(x Querier) error {
		if err := s.scan(x.Row(ctx, `SELECT `+outboxCols+`, body_text, body_html FROM mail_outbox WHERE id = ?`, id), &m, &m.Text, &m.HTML); err != nil {
			return IfNoRows(err, "mail")
		}
		ms := []ports.OutboxMail{m}
		if err := s.attachments(ctx, x, ms); err != nil {
			return err
		}
		m = ms[0]
		return nil
	})
	return m, err
}
