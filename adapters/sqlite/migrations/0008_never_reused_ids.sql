-- migrate: foreign keys off
--
-- Ids are never handed out twice. Without AUTOINCREMENT, SQLite gives a
-- new row the largest id in the table plus one, so the contract created
-- after the newest one was deleted took its id, and its audit trail with
-- it. Every table whose integer id a client sees or another row names is
-- rebuilt here with AUTOINCREMENT: its rows go to a temporary copy, the
-- table is dropped and created again, the rows come back with their ids,
-- then its indexes and triggers are created again word for word (the FAQ's
-- procedure, https://sqlite.org/faq.html#q11; unlike SQLite's twelve-step
-- one it renames nothing, and each ALTER TABLE RENAME re-parses the whole
-- schema, which made opening a new database twice as slow). Foreign keys
-- are off meanwhile, so dropping a referenced table deletes nothing; the
-- runner commits only when every index and trigger is back as it was and
-- foreign_key_check finds nothing. The contracts_fts index needs nothing:
-- its rows keep their contract's id, and its triggers come back after the
-- rows, so the copy is not indexed twice.
--
-- Left as they are: tables keyed by text (settings, signing_keys, otps,
-- sessions, refresh_tokens), by the pair they link (role_permissions,
-- user_roles, offering_reviewers, user_identities,
-- signing_template_documents, contract_signing_events), and
-- schema_migrations, whose number is the migration's.

-- Dropping a table drops its planner statistics (0003 and 0007 wrote
-- them by hand): keep them aside and put them back unchanged.
CREATE TEMP TABLE saved_stat1 AS SELECT * FROM sqlite_stat1 WHERE tbl IN (
	'contracts', 'contract_documents', 'contract_audit', 'users', 'roles', 'offices', 'remunerations', 'pqe_adjustments',
	'signing_templates', 'signing_submissions', 'signing_submitters');
CREATE TEMP TABLE saved_stat4 AS SELECT * FROM sqlite_stat4 WHERE tbl IN (
	'contracts', 'contract_documents', 'contract_audit', 'users', 'roles', 'offices', 'remunerations', 'pqe_adjustments',
	'signing_templates', 'signing_submissions', 'signing_submitters');

CREATE TEMP TABLE old_contracts AS SELECT * FROM contracts;
DROP TABLE contracts;
CREATE TABLE contracts (
	id                             INTEGER PRIMARY KEY AUTOINCREMENT,
	uuid                           TEXT NOT NULL UNIQUE,
	contract_name                  TEXT NOT NULL,
	contract_description           TEXT NOT NULL DEFAULT '',
	contract_type                  INTEGER NOT NULL,          -- contract.Type code
	status                         INTEGER NOT NULL,          -- contract.Status code
	start_date                     INTEGER,
	end_date                       INTEGER,
	amount                         INTEGER,                   -- cents; NULL = no amount
	currency                       TEXT NOT NULL DEFAULT '',  -- ISO 4217 or ''
	is_signed                      INTEGER NOT NULL DEFAULT 0,
	comments                       TEXT NOT NULL DEFAULT '',
	matter_id                      INTEGER,
	client_id                      INTEGER,
	project_id                     INTEGER,
	digital_contract_id            TEXT NOT NULL DEFAULT '',  -- signing template id; '' = not digital
	digital_contract_submission_id TEXT NOT NULL DEFAULT '',
	-- A plain column, not a generated one: SQLite never reads a generated
	-- column from an index, so it could not be counted from one.
	is_digital                     INTEGER NOT NULL DEFAULT 0 CHECK (is_digital = (digital_contract_id <> '')),
	created_at                     INTEGER NOT NULL,
	updated_at                     INTEGER NOT NULL
) STRICT;
INSERT INTO contracts SELECT * FROM temp.old_contracts;
DROP TABLE temp.old_contracts;
CREATE INDEX contracts_updated        ON contracts (updated_at, id);
CREATE INDEX contracts_created        ON contracts (created_at, id);
CREATE INDEX contracts_name           ON contracts (contract_name COLLATE NOCASE, id);
CREATE INDEX contracts_start          ON contracts (start_date, id);
CREATE INDEX contracts_end            ON contracts (end_date, id);
CREATE INDEX contracts_amount         ON contracts (amount, id);
CREATE INDEX contracts_status_updated ON contracts (status, updated_at, id);
CREATE INDEX contracts_status_created ON contracts (status, created_at, id);
CREATE INDEX contracts_status_name    ON contracts (status, contract_name COLLATE NOCASE, id);
CREATE INDEX contracts_status_start   ON contracts (status, start_date, id);
CREATE INDEX contracts_status_end     ON contracts (status, end_date, id);
CREATE INDEX contracts_status_amount  ON contracts (status, amount, id);
CREATE INDEX contracts_filter         ON contracts (contract_type, is_signed, is_digital, status, start_date, end_date, matter_id, client_id, project_id);
CREATE INDEX contracts_matter         ON contracts (matter_id) WHERE matter_id IS NOT NULL;
CREATE INDEX contracts_client         ON contracts (client_id) WHERE client_id IS NOT NULL;
CREATE INDEX contracts_project        ON contracts (project_id) WHERE project_id IS NOT NULL;
CREATE INDEX contracts_submission     ON contracts (digital_contract_submission_id) WHERE digital_contract_submission_id <> '';
CREATE INDEX contracts_search ON contracts (status, (contract_name || char(10) || contract_description || char(10) || comments));
CREATE TRIGGER contracts_fts_insert AFTER INSERT ON contracts BEGIN
	INSERT INTO contracts_fts (rowid, contract_name, contract_description, comments)
	VALUES (new.id, new.contract_name, new.contract_description, new.comments);
END;
CREATE TRIGGER contracts_fts_delete AFTER DELETE ON contracts BEGIN
	INSERT INTO contracts_fts (contracts_fts, rowid, contract_name, contract_description, comments)
	VALUES ('delete', old.id, old.contract_name, old.contract_description, old.comments);
END;
CREATE TRIGGER contracts_fts_update AFTER UPDATE OF contract_name, contract_description, comments ON contracts
WHEN old.contract_name IS NOT new.contract_name OR old.contract_description IS NOT new.contract_description
	OR old.comments IS NOT new.comments
BEGIN
	INSERT INTO contracts_fts (contracts_fts, rowid, contract_name, contract_description, comments)
	VALUES ('delete', old.id, old.contract_name, old.contract_description, old.comments);
	INSERT INTO contracts_fts (rowid, contract_name, contract_description, comments)
	VALUES (new.id, new.contract_name, new.contract_description, new.comments);
END;

CREATE TEMP TABLE old_contract_documents AS SELECT * FROM contract_documents;
DROP TABLE contract_documents;
CREATE TABLE contract_documents (
	id           INTEGER PRIMARY KEY AUTOINCREMENT,
	contract_id  INTEGER NOT NULL REFERENCES contracts (id) ON DELETE CASCADE,
	file_name    TEXT NOT NULL,
	content_type TEXT NOT NULL,
	size         INTEGER NOT NULL,
	sha256       TEXT NOT NULL,  -- lower-case hex
	storage_key  TEXT NOT NULL UNIQUE,
	uploaded_at  INTEGER NOT NULL,
	uploaded_by  INTEGER NOT NULL -- users.id
) STRICT;
INSERT INTO contract_documents SELECT * FROM temp.old_contract_documents;
DROP TABLE temp.old_contract_documents;
CREATE INDEX contract_documents_contract ON contract_documents (contract_id, id);

CREATE TEMP TABLE old_contract_audit AS SELECT * FROM contract_audit;
DROP TABLE contract_audit;
CREATE TABLE contract_audit (
	id            INTEGER PRIMARY KEY AUTOINCREMENT,
	contract_id   INTEGER NOT NULL,
	action        TEXT NOT NULL,
	from_status   INTEGER,        -- NULL when not a status change
	to_status     INTEGER,
	actor_kind    INTEGER NOT NULL, -- contract.Actor code
	actor_user_id INTEGER,        -- users.id for a user's action
	actor_name    TEXT NOT NULL,
	at            INTEGER NOT NULL,
	details       TEXT NOT NULL DEFAULT ''
) STRICT;
INSERT INTO contract_audit SELECT * FROM temp.old_contract_audit;
DROP TABLE temp.old_contract_audit;
CREATE INDEX contract_audit_contract ON contract_audit (contract_id, id);

CREATE TEMP TABLE old_users AS SELECT * FROM users;
DROP TABLE users;
CREATE TABLE users (
	id                  INTEGER PRIMARY KEY AUTOINCREMENT,
	email               TEXT NOT NULL,            -- trimmed, lower-case
	first_name          TEXT NOT NULL DEFAULT '',
	last_name           TEXT NOT NULL DEFAULT '',
	contact_number      TEXT NOT NULL DEFAULT '',
	profile_picture_url TEXT NOT NULL DEFAULT '',
	password_hash       TEXT NOT NULL DEFAULT '', -- argon2id PHC string; '' = no password sign-in
	active              INTEGER NOT NULL DEFAULT 1,
	is_legal            INTEGER NOT NULL DEFAULT 0,
	is_staff            INTEGER NOT NULL DEFAULT 1,
	failed_logins       INTEGER NOT NULL DEFAULT 0,
	locked_until        INTEGER NOT NULL DEFAULT 0,
	deleted_at          INTEGER,                  -- soft delete
	created_at          INTEGER NOT NULL,
	updated_at          INTEGER NOT NULL,
	billing_rate        INTEGER NOT NULL DEFAULT 0, -- cents
	admission_date      INTEGER,
	office_id           INTEGER REFERENCES offices (id),
	address1            TEXT NOT NULL DEFAULT '',
	address2            TEXT NOT NULL DEFAULT '',
	suburb              TEXT NOT NULL DEFAULT '',
	state               TEXT NOT NULL DEFAULT '',
	postcode            TEXT NOT NULL DEFAULT '',
	country             TEXT NOT NULL DEFAULT '',
	search_key          TEXT NOT NULL DEFAULT ''
) STRICT;
INSERT INTO users SELECT * FROM temp.old_users;
DROP TABLE temp.old_users;
CREATE UNIQUE INDEX users_email ON users (email) WHERE deleted_at IS NULL;
CREATE INDEX users_list ON users (last_name COLLATE NOCASE, first_name COLLATE NOCASE, id,
	search_key, active, is_legal, is_staff, office_id, billing_rate) WHERE deleted_at IS NULL;
CREATE INDEX users_office ON users (office_id);
CREATE TRIGGER users_search_key_insert AFTER INSERT ON users WHEN NEW.search_key = '' BEGIN
	UPDATE users SET search_key = lower(trim(NEW.first_name || ' ' || NEW.last_name)) || char(10) || lower(NEW.email)
	WHERE id = NEW.id;
END;
CREATE TRIGGER users_search_key_update AFTER UPDATE OF first_name, last_name, email ON users BEGIN
	UPDATE users SET search_key = lower(trim(NEW.first_name || ' ' || NEW.last_name)) || char(10) || lower(NEW.email)
	WHERE id = NEW.id;
END;

CREATE TEMP TABLE old_roles AS SELECT * FROM roles;
DROP TABLE roles;
CREATE TABLE roles (
	id              INTEGER PRIMARY KEY AUTOINCREMENT,
	name            TEXT NOT NULL UNIQUE COLLATE NOCASE,
	is_system_admin INTEGER NOT NULL DEFAULT 0,
	is_default_role INTEGER NOT NULL DEFAULT 0
) STRICT;
INSERT INTO roles SELECT * FROM temp.old_roles;
DROP TABLE temp.old_roles;

CREATE TEMP TABLE old_offices AS SELECT * FROM offices;
DROP TABLE offices;
CREATE TABLE offices (
	id         INTEGER PRIMARY KEY AUTOINCREMENT,
	name       TEXT NOT NULL,
	phone      TEXT NOT NULL DEFAULT '',
	website    TEXT NOT NULL DEFAULT '',
	active     INTEGER NOT NULL DEFAULT 1,
	address1   TEXT NOT NULL DEFAULT '',
	address2   TEXT NOT NULL DEFAULT '',
	suburb     TEXT NOT NULL DEFAULT '',
	state      TEXT NOT NULL DEFAULT '',
	postcode   TEXT NOT NULL DEFAULT '',
	country    TEXT NOT NULL DEFAULT '',
	created_at INTEGER NOT NULL,
	updated_at INTEGER NOT NULL
) STRICT;
INSERT INTO offices SELECT * FROM temp.old_offices;
DROP TABLE temp.old_offices;
CREATE INDEX offices_name ON offices (name COLLATE NOCASE, id);

CREATE TEMP TABLE old_remunerations AS SELECT * FROM remunerations;
DROP TABLE remunerations;
CREATE TABLE remunerations (
	id                     INTEGER PRIMARY KEY AUTOINCREMENT,
	staff_id               INTEGER NOT NULL REFERENCES users (id),
	fte_load               INTEGER NOT NULL, -- ten-thousandths
	remuneration_inc_super INTEGER NOT NULL, -- cents
	billing_rate           INTEGER NOT NULL, -- cents
	billable_percentage    INTEGER NOT NULL, -- hundredths
	remuneration_date      INTEGER NOT NULL,
	commencement_date      INTEGER NOT NULL,
	termination_date       INTEGER,
	cost_per_hour          INTEGER NOT NULL, -- cents
	kpi                    INTEGER NOT NULL, -- cents
	kpi_billable           INTEGER NOT NULL, -- cents
	kpi_invoiced           INTEGER NOT NULL, -- cents
	pqy                    INTEGER,          -- hundredths; NULL without an admission date
	created_at             INTEGER NOT NULL
) STRICT;
INSERT INTO remunerations SELECT * FROM temp.old_remunerations;
DROP TABLE temp.old_remunerations;
CREATE INDEX remunerations_staff ON remunerations (staff_id, remuneration_date, id);
CREATE INDEX remunerations_date ON remunerations (remuneration_date, id);

CREATE TEMP TABLE old_pqe_adjustments AS SELECT * FROM pqe_adjustments;
DROP TABLE pqe_adjustments;
CREATE TABLE pqe_adjustments (
	id         INTEGER PRIMARY KEY AUTOINCREMENT,
	staff_id   INTEGER NOT NULL REFERENCES users (id),
	name       TEXT NOT NULL,
	details    TEXT NOT NULL DEFAULT '',
	start_date INTEGER NOT NULL,
	end_date   INTEGER NOT NULL, -- inclusive: the period's last day
	created_at INTEGER NOT NULL
) STRICT;
INSERT INTO pqe_adjustments SELECT * FROM temp.old_pqe_adjustments;
DROP TABLE temp.old_pqe_adjustments;
CREATE INDEX pqe_adjustments_staff ON pqe_adjustments (staff_id, start_date, id);

CREATE TEMP TABLE old_signing_templates AS SELECT * FROM signing_templates;
DROP TABLE signing_templates;
CREATE TABLE signing_templates (
	id          INTEGER PRIMARY KEY AUTOINCREMENT,
	name        TEXT NOT NULL,
	slug        TEXT NOT NULL UNIQUE,
	external_id TEXT NOT NULL DEFAULT '',   -- the contract's UUID
	roles       TEXT NOT NULL DEFAULT '[]', -- JSON array of role names, in order
	created_at  INTEGER NOT NULL,
	updated_at  INTEGER NOT NULL
) STRICT;
INSERT INTO signing_templates SELECT * FROM temp.old_signing_templates;
DROP TABLE temp.old_signing_templates;
CREATE INDEX signing_templates_external ON signing_templates (external_id);

CREATE TEMP TABLE old_signing_submissions AS SELECT * FROM signing_submissions;
DROP TABLE signing_submissions;
CREATE TABLE signing_submissions (
	id              INTEGER PRIMARY KEY AUTOINCREMENT,
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
INSERT INTO signing_submissions SELECT * FROM temp.old_signing_submissions;
DROP TABLE temp.old_signing_submissions;
CREATE INDEX signing_submissions_template ON signing_submissions (template_id, id);
CREATE INDEX signing_submissions_due ON signing_submissions (expire_at)
	WHERE status = 'pending' AND expire_at IS NOT NULL;

CREATE TEMP TABLE old_signing_submitters AS SELECT * FROM signing_submitters;
DROP TABLE signing_submitters;
CREATE TABLE signing_submitters (
	id             INTEGER PRIMARY KEY AUTOINCREMENT,
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
INSERT INTO signing_submitters SELECT * FROM temp.old_signing_submitters;
DROP TABLE temp.old_signing_submitters;

INSERT INTO sqlite_stat1 SELECT * FROM temp.saved_stat1;
INSERT INTO sqlite_stat4 SELECT * FROM temp.saved_stat4;
DROP TABLE temp.saved_stat1;
DROP TABLE temp.saved_stat4;
ANALYZE sqlite_schema; -- reloads the statistics; analyses nothing

-- Each sequence starts above the largest id used anywhere, not only in
-- its table: a deleted contract's id lives on in its audit trail, a
-- removed document's in its history entry ("name (document 12)") and in
-- signing templates, a user's in every actor and owner column, a
-- template's and a submission's in the contracts that keep them as text.
-- Ids that are not all digits (another provider's) count for nothing.
DELETE FROM sqlite_sequence WHERE name IN (
	'contracts', 'contract_documents', 'contract_audit', 'users', 'roles', 'offices', 'remunerations', 'pqe_adjustments',
	'signing_templates', 'signing_submissions', 'signing_submitters');

INSERT INTO sqlite_sequence (name, seq) VALUES
	('contracts', max(
		(SELECT coalesce(max(id), 0) FROM contracts),
		(SELECT coalesce(max(contract_id), 0) FROM contract_audit),
		(SELECT coalesce(max(contract_id), 0) FROM contract_documents),
		(SELECT coalesce(max(contract_id), 0) FROM contract_signing_events))),
	('contract_documents', max(
		(SELECT coalesce(max(id), 0) FROM contract_documents),
		(SELECT coalesce(max(CAST(document_id AS INTEGER)), 0) FROM signing_template_documents
			WHERE document_id <> '' AND document_id NOT GLOB '*[^0-9]*' AND length(document_id) <= 18),
		-- The digits between the last "(document " and the closing ")".
		(SELECT coalesce(max(CAST(substr(d, length(p) + 1) AS INTEGER)), 0)
			FROM (SELECT d, rtrim(d, '0123456789') AS p
				FROM (SELECT substr(details, 1, length(details) - 1) AS d FROM contract_audit
					WHERE action = 'documentRemoved' AND details LIKE '%)'))
			WHERE p LIKE '%(document ' AND length(d) > length(p) AND length(d) - length(p) <= 18))),
	('contract_audit', (SELECT coalesce(max(id), 0) FROM contract_audit)),
	('users', max(
		(SELECT coalesce(max(id), 0) FROM users),
		(SELECT coalesce(max(actor_user_id), 0) FROM contract_audit),
		(SELECT coalesce(max(uploaded_by), 0) FROM contract_documents),
		(SELECT coalesce(max(staff_id), 0) FROM remunerations),
		(SELECT coalesce(max(staff_id), 0) FROM pqe_adjustments),
		(SELECT coalesce(max(user_id), 0) FROM sessions),
		(SELECT coalesce(max(user_id), 0) FROM user_roles),
		(SELECT coalesce(max(user_id), 0) FROM offering_reviewers),
		(SELECT coalesce(max(user_id), 0) FROM user_identities))),
	('roles', max(
		(SELECT coalesce(max(id), 0) FROM roles),
		(SELECT coalesce(max(role_id), 0) FROM user_roles),
		(SELECT coalesce(max(role_id), 0) FROM role_permissions))),
	('offices', max(
		(SELECT coalesce(max(id), 0) FROM offices),
		(SELECT coalesce(max(office_id), 0) FROM users))),
	('remunerations', (SELECT coalesce(max(id), 0) FROM remunerations)),
	('pqe_adjustments', (SELECT coalesce(max(id), 0) FROM pqe_adjustments)),
	('signing_templates', max(
		(SELECT coalesce(max(id), 0) FROM signing_templates),
		(SELECT coalesce(max(template_id), 0) FROM signing_submissions),
		(SELECT coalesce(max(CAST(digital_contract_id AS INTEGER)), 0) FROM contracts
			WHERE digital_contract_id <> '' AND digital_contract_id NOT GLOB '*[^0-9]*' AND length(digital_contract_id) <= 18))),
	('signing_submissions', max(
		(SELECT coalesce(max(id), 0) FROM signing_submissions),
		(SELECT coalesce(max(submission_id), 0) FROM signing_submitters),
		(SELECT coalesce(max(CAST(digital_contract_submission_id AS INTEGER)), 0) FROM contracts
			WHERE digital_contract_submission_id <> '' AND digital_contract_submission_id NOT GLOB '*[^0-9]*'
				AND length(digital_contract_submission_id) <= 18),
		(SELECT coalesce(max(CAST(submission_id AS INTEGER)), 0) FROM contract_signing_events
			WHERE submission_id <> '' AND submission_id NOT GLOB '*[^0-9]*' AND length(submission_id) <= 18))),
	('signing_submitters', (SELECT coalesce(max(id), 0) FROM signing_submitters));
