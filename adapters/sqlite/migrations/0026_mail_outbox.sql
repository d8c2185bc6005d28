-- The mail outbox (docs/decisions.md §16): every email but a one-time
-- code is written here in the transaction of the change that causes it,
-- then sent by a background worker. status: pending (to send; due at
-- next_attempt_at, held by one sender until claimed_until), sent, failed
-- (given up after retries), kept (no SMTP configured: shown, not sent).
CREATE TABLE mail_outbox (
	id              INTEGER PRIMARY KEY AUTOINCREMENT,
	kind            TEXT NOT NULL,
	recipient       TEXT NOT NULL,
	subject         TEXT NOT NULL,
	body_text       TEXT NOT NULL,
	body_html       TEXT NOT NULL,
	status          TEXT NOT NULL CHECK (status IN ('pending', 'sent', 'failed', 'kept')),
	attempts        INTEGER NOT NULL,
	created_at      INTEGER NOT NULL,
	next_attempt_at INTEGER NOT NULL,
	claimed_until   INTEGER,
	sent_at         INTEGER,
	error           TEXT NOT NULL
) STRICT;
-- The worker's claim: the pending messages due first.
CREATE INDEX mail_outbox_due ON mail_outbox (next_attempt_at) WHERE status = 'pending';

-- A message's attachments, in the order given.
CREATE TABLE mail_attachments (
	mail_id      INTEGER NOT NULL REFERENCES mail_outbox (id) ON DELETE CASCADE,
	position     INTEGER NOT NULL,
	name         TEXT NOT NULL,
	content_type TEXT NOT NULL,
	data         BLOB NOT NULL,
	PRIMARY KEY (mail_id, position)
) STRICT;
