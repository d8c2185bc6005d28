package sqlrow

import (
	"context"
	"fmt"
	"time"

	"counsel/ports"
)

// CalendarStore implements ports.CalendarStore on any Engine.
type CalendarStore struct{ e Engine }

var _ ports.CalendarStore = CalendarStore{}

// NewCalendarStore returns the calendar feed store of e.
func NewCalendarStore(e Engine) CalendarStore { return CalendarStore{e: e} }

// SetCalendarFeed implements ports.CalendarStore.
func (s CalendarStore) SetCalendarFeed(ctx context.Context, userID int64, hash []byte, at time.Time) error {
	return s.e.WriteTx(ctx, func(x Querier) error {
		if err := Exists(ctx, x, "user", `SELECT 1 FROM users WHERE id = ? AND deleted_at IS NULL AND active = ?`+s.e.LockRow(), userID, true); err != nil {
			return err
		}
		if _, err := x.Exec(ctx, `DELETE FROM calendar_feeds WHERE user_id = ?`, userID); err != nil {
			return fmt.Errorf("replace the calendar feed of user %d: %w", userID, err)
		}
		if _, err := x.Exec(ctx, `INSERT INTO calendar_feeds (user_id, token_hash, created_at) VALUES (?, ?, ?)`,
			userID, hash, s.e.Arg(at)); err != nil {
			return fmt.Errorf("store the calendar feed of user %d: %w", userID, err)
		}
		return nil
	})
}

// RemoveCalendarFeed implements ports.CalendarStore.
func (s CalendarStore) RemoveCalendarFeed(ctx context.Context, userID int64) error {
	return s.e.WriteTx(ctx, func(x Querier) error {
		_, err := x.Exec(ctx, `DELETE FROM calendar_feeds WHERE user_id = ?`, userID)
		return err
	})
}

// CalendarFeedUser implements ports.CalendarStore, through the unique
// index of token_hash.
func (s CalendarStore) CalendarFeedUser(ctx context.Context, hash []byte) (int64, error) {
	var id int64
	err := s.e.Read().Row(ctx, `SELECT f.user_id FROM calendar_feeds f JOIN users u ON u.id = f.user_id
		WHERE f.token_hash = ? AND u.active = ? AND u.deleted_at IS NULL`, hash, true).Scan(&id)
	if err != nil {
		return 0, IfNoRows(err, "calendar feed")
	}
	return id, nil
}
