package sqlrow

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"counsel/domain/audit"
	"counsel/ports"
)

// insertAuditEvent writes e, at now unless it names its time; an actor
// user without a name is named from the users table (full name, else
// email), as it is at the time.
func insertAuditEvent(ctx context.Context, x Querier, tc Times, now time.Time, e audit.Event) error {
	at := e.At
	if at.IsZero() {
		at = now
	}
	details := []byte("{}")
	if len(e.Details) > 0 {
		var err error
		if details, err = json.Marshal(e.Details); err != nil {
			return fmt.Errorf("audit event %s: details: %w", e.Action, err)
		}
	}
	var actorID any
	if e.UserID != 0 {
		actorID = e.UserID
		if e.Name == "" {
			var first, last, email string
			err := x.Row(ctx, `SELECT first_name, last_name, email FROM users WHERE id = ?`, e.UserID).Scan(&first, &last, &email)
			if err != nil && !NoRows(err) {
				return fmt.Errorf("audit event %s: actor name: %w", e.Action, err)
			}
			if e.Name = strings.TrimSpace(first + " " + last); e.Name == "" {
				e.Name = email
			}
		}
	}
	if e.Name == "" {
		e.Name = e.Kind
	}
	_, err := x.Exec(ctx, `INSERT INTO audit_events (at, action, actor_kind, actor_user_id, actor_name, target_type, target_id,
		ip, user_agent, request_id, details) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		tc.Arg(at), e.Action, e.Kind, actorID, e.Name, e.TargetType, e.TargetID, e.IP, e.UserAgent, e.RequestID, string(details))
	if err != nil {
		return fmt.Errorf("audit event %s: %w", e.Action, err)
	}
	return nil
}

// AuditStore implements ports.AuditStore on any Engine.
type AuditStore struct{ E Engine }

var _ ports.AuditStore = AuditStore{}

const auditCols = `id, at, action, actor_kind, actor_user_id, actor_name, target_type, target_id, ip, user_agent, request_id, details`

// auditWhere is the WHERE of f and its arguments; every condition has an
// index leading with its column (migration 0035).
func auditWhere(tc Times, f audit.Filter) (string, []any) {
	var conds []string
	var args []any
	if len(f.Actions) > 0 {
		conds = append(conds, "action IN (?"+strings.Repeat(", ?", len(f.Actions)-1)+")")
		for _, a := range f.Actions {
			args = append(args, a)
		}
	}
	if f.ActorUserID != nil {
		conds = append(conds, "actor_user_id = ?")
		args = append(args, *f.ActorUserID)
	}
	if f.TargetType != "" {
		conds = append(conds, "target_type = ?")
		args = append(args, f.TargetType)
	}
	if f.TargetID != "" {
		conds = append(conds, "target_id = ?")
		args = append(args, f.TargetID)
	}
	if f.From != nil {
		conds = append(conds, "at >= ?")
		args = append(args, tc.Arg(*f.From))
	}
	if f.To != nil {
		conds = append(conds, "at <= ?")
		args = append(args, tc.Arg(*f.To))
	}
	if len(conds) == 0 {
		return "", nil
	}
	return " WHERE " + strings.Join(conds, " AND "), args
}

func scanAuditEvent(tc Times) func(Scanner) (audit.Event, error) {
	return func(r Scanner) (audit.Event, error) {
		var e audit.Event
		var actor *int64
		var details string
		if err := r.Scan(&e.ID, Time(tc, &e.At), &e.Action, &e.Kind, &actor, &e.Name, &e.TargetType, &e.TargetID,
			&e.IP, &e.UserAgent, &e.RequestID, &details); err != nil {
			return e, err
		}
		if actor != nil {
			e.UserID = *actor
		}
		e.Details = map[string]any{}
		if err := json.Unmarshal([]byte(details), &e.Details); err != nil {
			return e, fmt.Errorf("audit event %d: details: %w", e.ID, err)
		}
		return e, nil
	}
}

// AuditEvents implements ports.AuditStore.
func (s AuditStore) AuditEvents(ctx context.Context, f audit.Filter) ([]audit.Event, int64, error) {
	where, args := auditWhere(s.E, f)
	var out []audit.Event
	var n int64
	err := s.E.ListTx(ctx, func(x Querier) error {
		if err := x.Row(ctx, `SELECT count(*) FROM audit_events`+where, args...).Scan(&n); err != nil {
			return err
		}
		var err error
		out, err = QueryAll(ctx, x, scanAuditEvent(s.E), `SELECT `+auditCols+` FROM audit_events`+where+
			` ORDER BY at DESC, id DESC LIMIT ? OFFSET ?`, append(args, f.Limit, f.Offset)...)
		return err
	})
	if err != nil {
		return nil, 0, fmt.Errorf("list audit events: %w", err)
	}
	return out, n, nil
}

// exportBatch is how many events EachAuditEvent reads at a time.
const exportBatch = 500

// EachAuditEvent implements ports.AuditStore: batches of exportBatch
// after the last (at, id) seen (keyset paging), so memory stays bounded
// however many events match and no read holds a transaction open while
// fn writes to a slow client.
func (s AuditStore) EachAuditEvent(ctx context.Context, f audit.Filter, fn func(audit.Event) error) error {
	where, args := auditWhere(s.E, f)
	var after *audit.Event
	for {
		w, a := where, append([]any(nil), args...)
		if after != nil {
			cond := "(at < ? OR (at = ? AND id < ?))"
			if w == "" {
				w = " WHERE " + cond
			} else {
				w += " AND " + cond
			}
			a = append(a, s.E.Arg(after.At), s.E.Arg(after.At), after.ID)
		}
		var batch []audit.Event
		err := s.E.ReadTx(ctx, func(x Querier) error {
			var err error
			batch, err = QueryAll(ctx, x, scanAuditEvent(s.E), `SELECT `+auditCols+` FROM audit_events`+w+
				` ORDER BY at DESC, id DESC LIMIT ?`, append(a, exportBatch)...)
			return err
		})
		if err != nil {
			return fmt.Errorf("export audit events: %w", err)
		}
		for _, e := range batch {
			if err := fn(e); err != nil {
				return err
			}
		}
		if len(batch) < exportBatch {
			return nil
		}
		last := batch[len(batch)-1]
		after = &last
	}
}

// PruneAuditEvents implements ports.AuditStore.
func (s AuditStore) PruneAuditEvents(ctx context.Context, before time.Time) (int64, error) {
	var n int64
	err := s.E.WriteTx(ctx, func(x Querier) error {
		var err error
		n, err = x.Exec(ctx, `DELETE FROM audit_events WHERE at < ?`, s.E.Arg(before))
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("remove old audit events: %w", err)
	}
	return n, nil
}

// RecordEffects implements ports.AuditStore.
func (s AuditStore) RecordEffects(ctx context.Context) error {
	return s.E.WriteTx(ctx, func(Querier) error { return nil })
}
