package sqlrow

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"counsel/domain"
	"counsel/ports"
)

// WebhookStore implements ports.WebhookStore on any Engine.
type WebhookStore struct{ e Engine }

var _ ports.WebhookStore = WebhookStore{}

// NewWebhookStore returns the webhook store of e.
func NewWebhookStore(e Engine) WebhookStore { return WebhookStore{e: e} }

// insertWebhookEvent writes event e and one pending delivery, due at now,
// for each active subscription of its type (the one subscription of a
// test event, active or not). An event no subscription wants is not
// written.
func insertWebhookEvent(ctx context.Context, x Querier, tc Times, now time.Time, e ports.WebhookEvent) error {
	var subs []int64
	if e.Subscription != 0 {
		subs = []int64{e.Subscription}
	} else {
		type sub struct {
			id     int64
			events string
		}
		all, err := QueryAll(ctx, x, func(sc Scanner) (sub, error) {
			var s sub
			return s, sc.Scan(&s.id, &s.events)
		}, `SELECT id, events FROM webhook_subscriptions WHERE active = 1 ORDER BY id`)
		if err != nil {
			return fmt.Errorf("webhook subscriptions: %w", err)
		}
		for _, s := range all {
			if strings.Contains(s.events, ","+e.Type+",") {
				subs = append(subs, s.id)
			}
		}
	}
	if len(subs) == 0 {
		return nil
	}
	var data any
	if len(e.Data) > 0 {
		data = string(e.Data)
	}
	id, err := x.Insert(ctx, `INSERT INTO webhook_events (type, resource, resource_id, from_status, to_status, snapshot, data, created_at)
		VALUES (?, ?, ?, ?, ?, NULL, ?, ?)`, e.Type, e.Resource, e.ResourceID, e.FromStatus, e.ToStatus, data, tc.Arg(now))
	if err != nil {
		return fmt.Errorf("webhook event: %w", err)
	}
	for _, s := range subs {
		if _, err := x.Exec(ctx, `INSERT INTO webhook_deliveries (event_id, subscription_id, status, attempts, created_at, next_attempt_at)
			VALUES (?, ?, 'pending', 0, ?, ?)`, id, s, tc.Arg(now), tc.Arg(now)); err != nil {
			return fmt.Errorf("webhook delivery: %w", err)
		}
	}
	return nil
}

const webhookCols = `id, url, description, events, secret, previous_secret, previous_until, active, created_by,
	created_at, updated_at, failing_since, disabled_at`

func (s WebhookStore) scanSub(sc Scanner) (ports.WebhookSubscription, error) {
	var w ports.WebhookSubscription
	var events string
	var active int
	err := sc.Scan(&w.ID, &w.URL, &w.Description, &events, &w.Secret, &w.PreviousSecret, NullTime(s.e, &w.PreviousUntil),
		&active, &w.CreatedBy, Time(s.e, &w.CreatedAt), Time(s.e, &w.UpdatedAt), NullTime(s.e, &w.FailingSince), NullTime(s.e, &w.DisabledAt))
	w.Active = active == 1
	w.Events = splitEvents(events)
	return w, err
}

func splitEvents(s string) []string {
	out := []string{}
	for _, t := range strings.Split(s, ",") {
		if t != "" {
			out = append(out, t)
		}
	}
	return out
}

func joinEvents(ts []string) string { return "," + strings.Join(ts, ",") + "," }

func activeArg(b bool) int {
	if b {
		return 1
	}
	return 0
}

// CreateWebhook implements ports.WebhookStore.
func (s WebhookStore) CreateWebhook(ctx context.Context, w ports.WebhookSubscription) (ports.WebhookSubscription, error) {
	now := s.e.Now()
	var id int64
	err := s.e.WriteTx(ctx, func(x Querier) error {
		var err error
		id, err = x.Insert(ctx, `INSERT INTO webhook_subscriptions (url, description, events, secret, active, created_by, created_at, updated_at)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?)`, w.URL, w.Description, joinEvents(w.Events), w.Secret, activeArg(w.Active), w.CreatedBy,
			s.e.Arg(now), s.e.Arg(now))
		if err == nil {
			ports.Created(ctx, id)
		}
		return err
	})
	if err != nil {
		return ports.WebhookSubscription{}, fmt.Errorf("create webhook: %w", err)
	}
	return s.Webhook(ctx, id)
}

// Webhooks implements ports.WebhookStore.
func (s WebhookStore) Webhooks(ctx context.Context) ([]ports.WebhookSubscription, error) {
	out, err := QueryAll(ctx, s.e.Read(), s.scanSub, `SELECT `+webhookCols+` FROM webhook_subscriptions ORDER BY id`)
	if out == nil {
		out = []ports.WebhookSubscription{}
	}
	return out, err
}

// Webhook implements ports.WebhookStore.
func (s WebhookStore) Webhook(ctx context.Context, id int64) (ports.WebhookSubscription, error) {
	w, err := s.scanSub(s.e.Read().Row(ctx, `SELECT `+webhookCols+` FROM webhook_subscriptions WHERE id = ?`, id))
	return w, IfNoRows(err, "webhook")
}

// UpdateWebhook implements ports.WebhookStore; updatedAt moves only when
// a field a client sees (or the secret) changed.
func (s WebhookStore) UpdateWebhook(ctx context.Context, id int64, fn func(*ports.WebhookSubscription) error) (ports.WebhookSubscription, error) {
	var w ports.WebhookSubscription
	err := s.e.WriteTx(ctx, func(x Querier) error {
		var err error
		w, err = s.scanSub(x.Row(ctx, `SELECT `+webhookCols+` FROM webhook_subscriptions WHERE id = ?`+s.e.LockRow(), id))
		if err != nil {
			return IfNoRows(err, "webhook")
		}
		before := w
		if err := fn(&w); err != nil {
			return err
		}
		if w.URL != before.URL || w.Description != before.Description || joinEvents(w.Events) != joinEvents(before.Events) ||
			w.Active != before.Active || !bytes.Equal(w.Secret, before.Secret) {
			w.UpdatedAt = s.e.Now()
		}
		if w.Active {
			w.DisabledAt = nil
		}
		_, err = x.Exec(ctx, `UPDATE webhook_subscriptions SET url = ?, description = ?, events = ?, secret = ?, previous_secret = ?,
			previous_until = ?, active = ?, updated_at = ?, failing_since = ?, disabled_at = ? WHERE id = ?`,
			w.URL, w.Description, joinEvents(w.Events), w.Secret, w.PreviousSecret, NullArg(s.e, w.PreviousUntil), activeArg(w.Active),
			s.e.Arg(w.UpdatedAt), NullArg(s.e, w.FailingSince), NullArg(s.e, w.DisabledAt), id)
		return err
	})
	return w, err
}

// DeleteWebhook implements ports.WebhookStore.
func (s WebhookStore) DeleteWebhook(ctx context.Context, id int64) error {
	return s.e.WriteTx(ctx, func(x Querier) error {
		if _, err := x.Exec(ctx, `DELETE FROM webhook_attempts WHERE delivery_id IN
			(SELECT id FROM webhook_deliveries WHERE subscription_id = ?)`, id); err != nil {
			return err
		}
		if _, err := x.Exec(ctx, `DELETE FROM webhook_deliveries WHERE subscription_id = ?`, id); err != nil {
			return err
		}
		n, err := x.Exec(ctx, `DELETE FROM webhook_subscriptions WHERE id = ?`, id)
		if err == nil && n == 0 {
			return NotFound("webhook")
		}
		return err
	})
}

// Deliveries implements ports.WebhookStore: the attempts, and each
// pending delivery's next attempt unless its last attempt's row already
// shows it (a manual retry, or a delivery not yet attempted).
func (s WebhookStore) Deliveries(ctx context.Context, id int64, limit, offset int64) ([]ports.WebhookAttempt, int64, error) {
	const rows = `SELECT d.id, e.id, e.type, a.attempt, a.status, a.response_status, a.duration_ms, a.error, a.at, a.next_attempt_at
		FROM webhook_attempts a JOIN webhook_deliveries d ON d.id = a.delivery_id JOIN webhook_events e ON e.id = d.event_id
		WHERE d.subscription_id = ?
		UNION ALL
		SELECT d.id, e.id, e.type, d.attempts + 1, 'pending', 0, 0, '', d.next_attempt_at, d.next_attempt_at
		FROM webhook_deliveries d JOIN webhook_events e ON e.id = d.event_id
		WHERE d.subscription_id = ? AND d.status = 'pending' AND NOT EXISTS (SELECT 1 FROM webhook_attempts a
			WHERE a.delivery_id = d.id AND a.attempt = d.attempts AND a.status = 'pending')`
	out := []ports.WebhookAttempt{}
	var count int64
	err := s.e.ReadTx(ctx, func(x Querier) error {
		if err := Exists(ctx, x, "webhook", `SELECT 1 FROM webhook_subscriptions WHERE id = ?`, id); err != nil {
			return err
		}
		if err := x.Row(ctx, `SELECT count(*) FROM (`+rows+`) r`, id, id).Scan(&count); err != nil {
			return err
		}
		if limit == 0 || offset >= count {
			return nil
		}
		var err error
		out, err = QueryAll(ctx, x, func(sc Scanner) (ports.WebhookAttempt, error) {
			var a ports.WebhookAttempt
			return a, sc.Scan(&a.DeliveryID, &a.EventID, &a.EventType, &a.Attempt, &a.Status, &a.ResponseStatus, &a.DurationMS,
				&a.Error, Time(s.e, &a.At), NullTime(s.e, &a.NextAttemptAt))
		}, `SELECT * FROM (`+rows+`) r ORDER BY 9 DESC, 1 DESC, 4 DESC LIMIT ? OFFSET ?`, id, id, limit, offset)
		return err
	})
	if err != nil {
		return nil, 0, fmt.Errorf("webhook deliveries: %w", err)
	}
	return out, count, nil
}

// RetryDelivery implements ports.WebhookStore.
func (s WebhookStore) RetryDelivery(ctx context.Context, id, deliveryID int64, now time.Time) error {
	return s.e.WriteTx(ctx, func(x Querier) error {
		var status string
		err := x.Row(ctx, `SELECT status FROM webhook_deliveries WHERE id = ? AND subscription_id = ?`+s.e.LockRow(), deliveryID, id).Scan(&status)
		if err != nil {
			return IfNoRows(err, "delivery")
		}
		if status == ports.DeliveryPending {
			return domain.Errorf(domain.ECONFLICT, "the delivery is pending: it is attempted again on its own")
		}
		_, err = x.Exec(ctx, `UPDATE webhook_deliveries SET status = 'pending', next_attempt_at = ?, claimed_until = NULL,
			claim_token = NULL WHERE id = ?`, s.e.Arg(now), deliveryID)
		return err
	})
}

func newClaimToken() (string, error) {
	b := make([]byte, 16)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	return hex.EncodeToString(b), nil
}

// ClaimDeliveries implements ports.WebhookStore through the partial index
// webhook_deliveries_due; on PostgreSQL rows another transaction holds
// are skipped (SKIP LOCKED), and a row claimed meanwhile is seen with
// its new claimed_until (READ COMMITTED re-reads a row it waited for), so
// concurrent claims take different deliveries.
func (s WebhookStore) ClaimDeliveries(ctx context.Context, now time.Time, lease time.Duration, limit int) ([]ports.ClaimedDelivery, error) {
	const due = `SELECT id FROM webhook_deliveries WHERE status = 'pending' AND next_attempt_at <= ?
		AND (claimed_until IS NULL OR claimed_until <= ?)
		AND subscription_id IN (SELECT id FROM webhook_subscriptions WHERE active = 1)
		ORDER BY next_attempt_at, id LIMIT ?`
	args := []any{s.e.Arg(now), s.e.Arg(now), limit}
	if ok, err := AnyDue(ctx, s.e, due, args...); err != nil || !ok {
		return nil, err
	}
	lock := s.e.LockRow()
	if lock != "" {
		lock += " SKIP LOCKED"
	}
	until := now.Add(lease)
	var out []ports.ClaimedDelivery
	err := s.e.WriteTx(ctx, func(x Querier) error {
		out = nil
		ids, err := QueryAll(ctx, x, ID, due+lock, args...)
		if err != nil || len(ids) == 0 {
			return err
		}
		// One token for the batch: a claim taken over later gets its own.
		token, err := newClaimToken()
		if err != nil {
			return err
		}
		in, idArgs := s.e.In("id", ids)
		if _, err := x.Exec(ctx, `UPDATE webhook_deliveries SET claimed_until = ?, claim_token = ? WHERE `+in,
			append([]any{s.e.Arg(until), token}, idArgs...)...); err != nil {
			return err
		}
		in, idArgs = s.e.In("d.id", ids)
		out, err = QueryAll(ctx, x, func(sc Scanner) (ports.ClaimedDelivery, error) {
			d := ports.ClaimedDelivery{Token: token, ClaimedUntil: until}
			var data *string
			sub, err := s.scanSub(prefixScanner{sc, []any{&d.ID, &d.Attempts, Time(s.e, &d.CreatedAt),
				&d.Event.ID, &d.Event.Type, &d.Event.Resource, &d.Event.ResourceID, &d.Event.FromStatus, &d.Event.ToStatus,
				&data, Time(s.e, &d.Event.CreatedAt)}})
			d.Subscription = sub
			if data != nil {
				d.Event.Data = json.RawMessage(*data)
			}
			return d, err
		}, `SELECT d.id, d.attempts, d.created_at, e.id, e.type, e.resource, e.resource_id, e.from_status, e.to_status,
			e.data, e.created_at, `+prefixed("w.", webhookCols)+`
			FROM webhook_deliveries d JOIN webhook_events e ON e.id = d.event_id
			JOIN webhook_subscriptions w ON w.id = d.subscription_id
			WHERE `+in+` ORDER BY d.next_attempt_at, d.id`, idArgs...)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("claim webhook deliveries: %w", err)
	}
	return out, nil
}

// prefixScanner scans a row whose first columns go to pre, the rest to
// what Scan is given.
type prefixScanner struct {
	sc  Scanner
	pre []any
}

func (p prefixScanner) Scan(dest ...any) error { return p.sc.Scan(append(p.pre, dest...)...) }

// prefixed qualifies each of the comma-separated columns cols with p.
func prefixed(p, cols string) string {
	fs := strings.Split(cols, ",")
	for i, f := range fs {
		fs[i] = p + strings.TrimSpace(f)
	}
	return strings.Join(fs, ", ")
}

// SetEventData implements ports.WebhookStore.
func (s WebhookStore) SetEventData(ctx context.Context, id int64, data json.RawMessage) (json.RawMessage, error) {
	var kept string
	err := s.e.WriteTx(ctx, func(x Querier) error {
		if _, err := x.Exec(ctx, `UPDATE webhook_events SET data = ? WHERE id = ? AND data IS NULL`, string(data), id); err != nil {
			return err
		}
		return IfNoRows(x.Row(ctx, `SELECT data FROM webhook_events WHERE id = ?`, id).Scan(&kept), "webhook event")
	})
	return json.RawMessage(kept), err
}

// FinishDelivery implements ports.WebhookStore: the delivery's row is
// changed only under the claim's token, and the attempt is recorded only
// when it was.
func (s WebhookStore) FinishDelivery(ctx context.Context, d ports.ClaimedDelivery, o ports.DeliveryOutcome) (bool, error) {
	held := false
	attempt := d.Attempts + 1
	err := s.e.WriteTx(ctx, func(x Querier) error {
		held = false
		n, err := x.Exec(ctx, `UPDATE webhook_deliveries SET status = ?, attempts = ?, next_attempt_at = ?, claimed_until = NULL,
			claim_token = NULL WHERE id = ? AND claim_token = ? AND status = 'pending'`,
			o.Status, attempt, s.e.Arg(o.Next), d.ID, d.Token)
		if err != nil || n == 0 {
			return err
		}
		held = true
		var next any
		if o.Status == ports.DeliveryPending {
			next = s.e.Arg(o.Next)
		}
		if _, err := x.Exec(ctx, `INSERT INTO webhook_attempts (delivery_id, attempt, status, response_status, duration_ms, error, at, next_attempt_at)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?)`, d.ID, attempt, o.Status, o.ResponseStatus, o.Duration.Milliseconds(), o.Error,
			s.e.Arg(o.At), next); err != nil {
			return err
		}
		if o.Status == ports.DeliverySucceeded {
			_, err := x.Exec(ctx, `UPDATE webhook_subscriptions SET failing_since = NULL WHERE id = ? AND failing_since IS NOT NULL`, d.Subscription.ID)
			return err
		}
		if _, err := x.Exec(ctx, `UPDATE webhook_subscriptions SET failing_since = ? WHERE id = ? AND failing_since IS NULL`,
			s.e.Arg(o.At), d.Subscription.ID); err != nil {
			return err
		}
		if o.DisableAfter <= 0 {
			return nil
		}
		n, err = x.Exec(ctx, `UPDATE webhook_subscriptions SET active = 0, disabled_at = ? WHERE id = ? AND active = 1
			AND failing_since <= ?`, s.e.Arg(o.At), d.Subscription.ID, s.e.Arg(o.At.Add(-o.DisableAfter)))
		if err != nil || n == 0 {
			return err
		}
		if o.Disabled != nil {
			sub, err := s.scanSub(x.Row(ctx, `SELECT `+webhookCols+` FROM webhook_subscriptions WHERE id = ?`, d.Subscription.ID))
			if err != nil {
				return err
			}
			o.Disabled(ctx, sub)
		}
		return nil
	})
	if err != nil {
		return false, fmt.Errorf("record webhook delivery %d: %w", d.ID, err)
	}
	return held, nil
}

// ReleaseDelivery implements ports.WebhookStore.
func (s WebhookStore) ReleaseDelivery(ctx context.Context, d ports.ClaimedDelivery) error {
	return s.e.WriteTx(ctx, func(x Querier) error {
		_, err := x.Exec(ctx, `UPDATE webhook_deliveries SET claimed_until = NULL, claim_token = NULL WHERE id = ? AND claim_token = ?`, d.ID, d.Token)
		return err
	})
}

// PendingDeliveries implements ports.WebhookStore.
func (s WebhookStore) PendingDeliveries(ctx context.Context) (int, error) {
	var n int
	err := s.e.Read().Row(ctx, `SELECT count(*) FROM webhook_deliveries WHERE status = 'pending'`).Scan(&n)
	return n, err
}

// PruneWebhookEvents implements ports.WebhookStore, a thousand events a
// transaction.
func (s WebhookStore) PruneWebhookEvents(ctx context.Context, before time.Time) (int64, error) {
	var total int64
	for {
		var n int
		err := s.e.WriteTx(ctx, func(x Querier) error {
			ids, err := QueryAll(ctx, x, ID, `SELECT id FROM webhook_events e WHERE created_at < ? AND NOT EXISTS
				(SELECT 1 FROM webhook_deliveries d WHERE d.event_id = e.id AND d.status = 'pending') ORDER BY id LIMIT 1000`, s.e.Arg(before))
			if err != nil || len(ids) == 0 {
				n = 0
				return err
			}
			n = len(ids)
			in, args := s.e.In("event_id", ids)
			if _, err := x.Exec(ctx, `DELETE FROM webhook_attempts WHERE delivery_id IN (SELECT id FROM webhook_deliveries WHERE `+in+`)`, args...); err != nil {
				return err
			}
			if _, err := x.Exec(ctx, `DELETE FROM webhook_deliveries WHERE `+in, args...); err != nil {
				return err
			}
			in, args = s.e.In("id", ids)
			_, err = x.Exec(ctx, `DELETE FROM webhook_events WHERE `+in, args...)
			return err
		})
		if err != nil {
			return total, fmt.Errorf("prune webhook events: %w", err)
		}
		total += int64(n)
		if n < 1000 {
			return total, nil
		}
	}
}
