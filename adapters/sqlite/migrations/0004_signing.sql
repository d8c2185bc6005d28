-- The embedded signer: templates (references to contract documents),
-- submissions and their submitters with their signing-page slugs.
-- Timestamps are UTC Unix milliseconds.

CREATE TABLE signing_templates (
	id          INTEGER PRIMARY KEY,
	name        TEXT NOT NULL,
	slug        TEXT NOT NULL UNIQUE,
	external_id TEXT NOT NULL DEFAULT '',   -- the contract's UUID
	roles       TEXT NOT NULL DEFAULT '[]', -- JSON array of role names, in order
	created_at  INTEGER NOT NULL,
	updated_at  INTEGER NOT NULL
) STRICT;
CREATE INDEX signing_templates_external ON signing_templates (external_id);

-- Documents by reference: the bytes stay with the contract's documents.
CREATE TABLE signing_template_documents (
	template_id  INTEGER NOT NULL REFERENCES signing_templates (id) ON DELETE CASCADE,
	position     INTEGER NOT NULL,
	document_id  TEXT NOT NULL,
	file_name    TEXT NOT NULL,
	content_type TEXT NOT NULL DEFAULT '',
	PRIMARY KEY (template_id, position),
	UNIQUE (template_id, document_id)
) STRICT, WITHOUT ROWID;

CREATE TABLE signing_submissions (
	id              INTEGER PRIMARY KEY,
	template_id     INTEGER NOT NULL REFERENCES signing_templates (id),
	name            TEXT NOT NULL DEFAULT '',
	signing_order   TEXT NOT NULL CHECK (signing_order IN ('preserved', 'random')),
	status          TEXT NOT NULL CHECK (status IN ('pending', 'completed', 'declined', 'expired')),
	send_email      INTEGER NOT NULL DEFAULT 0,
	message_subject TEXT NOT NULL DEFAULT '',
	message_body    TEXT NOT NULL DEFAULT '',
	expire_at       INTEGER,
	created_at      INTEGER NOT NULL,
	updated_at      INTEGER NOT NULL,
	completed_at    INTEGER,
	declined_at     INTEGER,
	expired_at      INTEGER
) STRICT;
-- A template's submissions, newest first.
CREATE INDEX signing_submissions_template ON signing_submissions (template_id, id);
-- The expiry sweep reads only pending submissions with an expiry.
CREATE INDEX signing_submissions_due ON signing_submissions (expire_at)
	WHERE status = 'pending' AND expire_at IS NOT NULL;

CREATE TABLE signing_submitters (
	id             INTEGER PRIMARY KEY,
	submission_id  INTEGER NOT NULL REFERENCES signing_submissions (id) ON DELETE CASCADE,
	position       INTEGER NOT NULL,
	slug           TEXT NOT NULL UNIQUE, -- >= 128 random bits, base64url
	name           TEXT NOT NULL DEFAULT '',
	email          TEXT NOT NULL,
	phone          TEXT NOT NULL DEFAULT '',
	role           TEXT NOT NULL DEFAULT '',
	status         TEXT NOT NULL CHECK (status IN ('awaiting', 'sent', 'opened', 'completed', 'declined')),
	sent_at        INTEGER,
	opened_at      INTEGER,
	completed_at   INTEGER,
	declined_at    INTEGER,
	decline_reason TEXT NOT NULL DEFAULT '',
	signed_name    TEXT NOT NULL DEFAULT '',
	signer_addr    TEXT NOT NULL DEFAULT '',
	signer_agent   TEXT NOT NULL DEFAULT '',
	UNIQUE (submission_id, position)
) STRICT;
