package sqlrow

import (
	"context"
	"fmt"
	"time"

	"counsel/domain/account"
	"counsel/ports"
)

// SessionStore is what both engines' account stores do with a user's
// sessions as the user sees them (docs/decisions.md §18), written once.
type SessionStore struct{ E Engine }

// UserSessions implements ports.AccountStore: the live sessions of a
// user at now, newest first (index sessions_user_live).
func (s SessionStore) UserSessions(ctx context.Context, userID int64, now time.Time) ([]account.Session, error) {
	tc := s.E
	out, err := QueryAll(ctx, s.E.Read(), func(r Scanner) (account.Session, error) {
		ss := account.Session{UserID: userID}
		err := r.Scan(&ss.ID, &ss.Method, &ss.IP, &ss.UserAgent, &ss.Kind, Time(tc, &ss.CreatedAt), Time(tc, &ss.ExpiresAt),
			Time(tc, &ss.LastSeen))
		return ss, err
	}, `SELECT id, method, ip, user_agent, kind, created_at, expires_at, COALESCE(last_seen, created_at)
		FROM sessions WHERE user_id = ? AND revoked_at IS NULL AND expires_at > ?
		ORDER BY created_at DESC, id DESC`, userID, tc.Arg(now))
	if err != nil {
		return nil, fmt.Errorf("list the sessions of user %d: %w", userID, err)
	}
	return out, nil
}

// RevokeUserSession implements ports.AccountStore.
func (s SessionStore) RevokeUserSession(ctx context.Context, userID int64, id string, at time.Time) error {
	return s.E.AccessTx(ctx, func(x Querier) error {
		n, err := x.Exec(ctx, `UPDATE sessions SET revoked_at = ? WHERE id = ? AND user_id = ? AND revoked_at IS NULL AND expires_at > ?`,
			s.E.Arg(at), id, userID, s.E.Arg(at))
		if err != nil {
			return fmt.Errorf("revoke a session of user %d: %w", userID, err)
		}
		if n == 0 {
			return NotFound("session")
		}
		return nil
	})
}

// RevokeOtherSessions implements ports.AccountStore.
func (s SessionStore) RevokeOtherSessions(ctx context.Context, userID int64, keep string, at time.Time) (int64, error) {
	var n int64
	err := s.E.AccessTx(ctx, func(x Querier) error {
		var err error
		n, err = x.Exec(ctx, `UPDATE sessions SET revoked_at = ? WHERE user_id = ? AND revoked_at IS NULL AND id <> ?`,
			s.E.Arg(at), userID, keep)
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("revoke the other sessions of user %d: %w", userID, err)
	}
	return n, nil
}

// SeeSessions implements ports.AccountStore: one transaction for the
// batch; a session whose last_seen is already within every of at is left
// alone (another instance wrote it), so last_seen moves at most once per
// every however many instances see the session.
func (s SessionStore) SeeSessions(ctx context.Context, seen []account.SessionSeen, every time.Duration) error {
	if len(seen) == 0 {
		return nil
	}
	err := s.E.WriteTx(ctx, func(x Querier) error {
		for _, v := range seen {
			if _, err := x.Exec(ctx, `UPDATE sessions SET last_seen = ?
				WHERE id = ? AND revoked_at IS NULL AND (last_seen IS NULL OR last_seen <= ?)`,
				s.E.Arg(v.At), v.ID, s.E.Arg(v.At.Add(-every))); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("record when %d sessions were seen: %w", len(seen), err)
	}
	return nil
}

// upsertDevice records a sign-in's device (ports.DeviceSeen).
func upsertDevice(ctx context.Context, x Querier, tc Times, d ports.DeviceSeen) error {
	for _, kv := range [][2]string{{"agent", d.Device.Agent}, {"network", d.Device.Network}} {
		if kv[1] == "" {
			continue
		}
		if _, err := x.Exec(ctx, `INSERT INTO sign_in_devices (user_id, kind, value, last_seen) VALUES (?, ?, ?, ?)
			ON CONFLICT (user_id, kind, value) DO UPDATE SET last_seen = excluded.last_seen`,
			d.UserID, kv[0], kv[1], tc.Arg(d.At)); err != nil {
			return fmt.Errorf("record a sign-in device of user %d: %w", d.UserID, err)
		}
	}
	return nil
}

// KnownDevice implements ports.AccountStore (one read of the user's rows,
// by the primary key's prefix).
func (s SessionStore) KnownDevice(ctx context.Context, userID int64, d account.Device, since time.Time) (agent, network, any bool, err error) {
	var a, n, total int64
	err = s.E.Read().Row(ctx, `SELECT
		COALESCE(SUM(CASE WHEN kind = 'agent' AND value = ? AND last_seen >= ? THEN 1 ELSE 0 END), 0),
		COALESCE(SUM(CASE WHEN kind = 'network' AND value = ? AND last_seen >= ? THEN 1 ELSE 0 END), 0),
		count(*)
		FROM sign_in_devices WHERE user_id = ?`, d.Agent, s.E.Arg(since), d.Network, s.E.Arg(since), userID).Scan(&a, &n, &total)
	if err != nil {
		return false, false, false, fmt.Errorf("read the sign-in devices of user %d: %w", userID, err)
	}
	return a > 0, n > 0, total > 0, nil
}
