-- Outbound webhooks (docs/decisions.md §17).
--
-- A subscription: events is the subscribed types, comma-separated and
-- framed by commas (",contract.created,user.deleted,") so that the
-- fan-out matches a type with LIKE. secret is the signing secret sealed
-- (AES-256-GCM under a key of its own); previous_secret keeps signing
-- until previous_until after a rotation. failing_since is the first
-- failed attempt since the last success (NULL while deliveries succeed);
-- disabled_at is set when five days of failures disabled it.
CREATE TABLE webhook_subscriptions (
	id              INTEGER PRIMARY KEY AUTOINCREMENT,
	url             TEXT NOT NULL,
	description     TEXT NOT NULL,
	events          TEXT NOT NULL,
	secret          BLOB NOT NULL,
	previous_secret BLOB,
	previous_until  INTEGER,
	active          INTEGER NOT NULL CHECK (active IN (0, 1)),
	created_by      INTEGER NOT NULL REFERENCES users (id),
	created_at      INTEGER NOT NULL,
	updated_at      INTEGER NOT NULL,
	failing_since   INTEGER,
	disabled_at     INTEGER
) STRICT;

-- An event, written in the transaction of the change that caused it.
-- data is the body's data, rendered once by the first delivery that
-- needs it (NULL until then), so every attempt and every subscription
-- receives the same bytes. subscription_id names the one subscription
-- a test event is for (NULL: every subscription of the type).
CREATE TABLE webhook_events (
	id              INTEGER PRIMARY KEY AUTOINCREMENT,
	type            TEXT NOT NULL,
	resource        TEXT NOT NULL,
	resource_id     INTEGER NOT NULL,
	from_status     TEXT NOT NULL,
	to_status       TEXT NOT NULL,
	snapshot        TEXT,
	data            TEXT,
	created_at      INTEGER NOT NULL
) STRICT;

-- One event to one subscription. status: pending (due at
-- next_attempt_at; held by one worker until claimed_until under
-- claim_token), succeeded, failed (every attempt of the schedule failed).
CREATE TABLE webhook_deliveries (
	id              INTEGER PRIMARY KEY AUTOINCREMENT,
	event_id        INTEGER NOT NULL REFERENCES webhook_events (id) ON DELETE CASCADE,
	subscription_id INTEGER NOT NULL REFERENCES webhook_subscriptions (id) ON DELETE CASCADE,
	status          TEXT NOT NULL CHECK (status IN ('pending', 'succeeded', 'failed')),
	attempts        INTEGER NOT NULL,
	created_at      INTEGER NOT NULL,
	next_attempt_at INTEGER NOT NULL,
	claimed_until   INTEGER,
	claim_token     TEXT,
	UNIQUE (event_id, subscription_id)
) STRICT;
CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at) WHERE status = 'pending';
CREATE INDEX webhook_deliveries_subscription ON webhook_deliveries (subscription_id, id);

-- Every attempt of a delivery, as the deliveries list shows it. status:
-- succeeded, pending (failed, retried at next_attempt_at) or failed
-- (failed, the last of the schedule).
CREATE TABLE webhook_attempts (
	id              INTEGER PRIMARY KEY AUTOINCREMENT,
	delivery_id     INTEGER NOT NULL REFERENCES webhook_deliveries (id) ON DELETE CASCADE,
	attempt         INTEGER NOT NULL,
	status          TEXT NOT NULL CHECK (status IN ('pending', 'succeeded', 'failed')),
	response_status INTEGER NOT NULL,
	duration_ms     INTEGER NOT NULL,
	error           TEXT NOT NULL,
	at              INTEGER NOT NULL,
	next_attempt_at INTEGER,
	UNIQUE (delivery_id, attempt)
) STRICT;
