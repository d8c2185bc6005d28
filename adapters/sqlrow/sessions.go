package sqlrow

import (
	"context"
	"fmt"
	"time"

	"counsel/domain/account"
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
