package postgres

import "counsel/adapters/sqlrow"

// NewCalendarStore returns the calendar feed store of db, written once
// for both engines (sqlrow.CalendarStore).
func NewCalendarStore(db *DB) sqlrow.CalendarStore {
	return sqlrow.NewCalendarStore(engine{db: db})
}

// NewOutboxStore returns the mail outbox store of db, written once for
// both engines (sqlrow.OutboxStore).
func NewOutboxStore(db *DB) sqlrow.OutboxStore {
	return sqlrow.NewOutboxStore(engine{db: db})
}

// NewWebhookStore returns the webhook store of db, written once for both
// engines (sqlrow.WebhookStore).
func NewWebhookStore(db *DB) sqlrow.WebhookStore {
	return sqlrow.NewWebhookStore(engine{db: db})
}
