-- Security and administration events (docs/decisions.md §18), written in
-- the transaction of the change they record. actor_user_id is kept
-- without a foreign key: an event outlives what it names. details is a
-- JSON object of names and categories (never secrets or pay figures).
-- The indexes serve the list's filters, newest first.
CREATE TABLE audit_events (
	id            INTEGER PRIMARY KEY AUTOINCREMENT,
	at            INTEGER NOT NULL,
	action        TEXT NOT NULL,
	actor_kind    TEXT NOT NULL,
	actor_user_id INTEGER,
	actor_name    TEXT NOT NULL,
	target_type   TEXT NOT NULL,
	target_id     TEXT NOT NULL,
	ip            TEXT NOT NULL,
	user_agent    TEXT NOT NULL,
	request_id    TEXT NOT NULL,
	details       TEXT NOT NULL
) STRICT;
CREATE INDEX audit_events_at ON audit_events (at, id);
CREATE INDEX audit_events_action ON audit_events (action, at, id);
CREATE INDEX audit_events_actor ON audit_events (actor_user_id, at, id) WHERE actor_user_id IS NOT NULL;
CREATE INDEX audit_events_target ON audit_events (target_type, target_id, at, id);
