package postgres

import "counsel/adapters/sqlrow"

// NewCalendarStore returns the calendar feed store of db, written once
// for both engines (sqlrow.CalendarStore).
func NewCalendarStore(db *DB) sqlrow.CalendarStore {
	return sqlrow.NewCalendarStore(engine{db: db})
}
