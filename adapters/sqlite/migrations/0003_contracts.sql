-- Contracts: the contracts themselves, a trigram full-text index for
-- substring search, document metadata, and the audit trail.
-- Timestamps are UTC Unix milliseconds; amounts are integer cents.

CREATE TABLE contracts (
	id                             INTEGER PRIMARY KEY,
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

-- Indexes, chosen by measuring a list over 100,000 contracts (with the
-- planner statistics at the end of this file):
-- * one per sort order, the id last, so a page is read in order without
--   sorting;
-- * the same behind status, the most used filter, so a status filter
--   with any sort (and its count) reads one index, and a deep page skips
--   index entries instead of rows; (status, end_date) also finds the
--   contracts the expiry sweep is due to expire;
-- * one covering every other filter, so a count over any combination of
--   them reads that index and never the table;
-- * the related records', which are selective, and the submission id the
--   signing callbacks look contracts up by.
-- Booleans have no index of their own: half the table matches either way.
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

-- Substring search over name, description and comments: a trigram index
-- (case-insensitive) kept in step with contracts by the triggers below.
-- It stores no copy of the text (external content).
CREATE VIRTUAL TABLE contracts_fts USING fts5 (
	contract_name, contract_description, comments,
	content = 'contracts', content_rowid = 'id', tokenize = 'trigram'
);

CREATE TRIGGER contracts_fts_insert AFTER INSERT ON contracts BEGIN
	INSERT INTO contracts_fts (rowid, contract_name, contract_description, comments)
	VALUES (new.id, new.contract_name, new.contract_description, new.comments);
END;

CREATE TRIGGER contracts_fts_delete AFTER DELETE ON contracts BEGIN
	INSERT INTO contracts_fts (contracts_fts, rowid, contract_name, contract_description, comments)
	VALUES ('delete', old.id, old.contract_name, old.contract_description, old.comments);
END;

-- Only a change of the searched text touches the index: status changes
-- and the expiry sweep do not.
CREATE TRIGGER contracts_fts_update AFTER UPDATE OF contract_name, contract_description, comments ON contracts
WHEN old.contract_name IS NOT new.contract_name OR old.contract_description IS NOT new.contract_description
	OR old.comments IS NOT new.comments
BEGIN
	INSERT INTO contracts_fts (contracts_fts, rowid, contract_name, contract_description, comments)
	VALUES ('delete', old.id, old.contract_name, old.contract_description, old.comments);
	INSERT INTO contracts_fts (rowid, contract_name, contract_description, comments)
	VALUES (new.id, new.contract_name, new.contract_description, new.comments);
END;

-- Document metadata; the bytes are files under COUNSEL_DATA_DIR named by
-- storage_key. Rows go with their contract (the files are removed by the
-- application after the commit).
CREATE TABLE contract_documents (
	id           INTEGER PRIMARY KEY,
	contract_id  INTEGER NOT NULL REFERENCES contracts (id) ON DELETE CASCADE,
	file_name    TEXT NOT NULL,
	content_type TEXT NOT NULL,
	size         INTEGER NOT NULL,
	sha256       TEXT NOT NULL,  -- lower-case hex
	storage_key  TEXT NOT NULL UNIQUE,
	uploaded_at  INTEGER NOT NULL,
	uploaded_by  INTEGER NOT NULL -- users.id
) STRICT;
CREATE INDEX contract_documents_contract ON contract_documents (contract_id, id);

-- The audit trail. No foreign key to contracts: the trail outlives a
-- deleted contract. actor_name is the name at the time of the action.
CREATE TABLE contract_audit (
	id            INTEGER PRIMARY KEY,
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
CREATE INDEX contract_audit_contract ON contract_audit (contract_id, id);

-- Planner statistics. Without any, SQLite takes every equality on an
-- indexed column for a selective one and, for instance, counts "not
-- digital" (most of the table) through an index, row by row. ANALYZE
-- could measure them, but it samples (PRAGMA optimize put 2,001 rows per
-- status where there were 12,500), and each connection keeps the
-- statistics it read when it opened, so the read pool would plan with
-- none until restarted. These hand-written ones (the manual control of
-- query plans SQLite documents for sqlite_stat1) describe a typical table
-- of 100,000 contracts: 8 statuses, 6 types, half linked to a matter,
-- dates shared by a few dozen contracts. They only steer the choice of
-- index, so they hold as the table grows or shrinks; do not ANALYZE the
-- contracts table, which would replace them with samples.
ANALYZE contracts; -- creates sqlite_stat1 when missing
DELETE FROM sqlite_stat1 WHERE tbl = 'contracts';
INSERT INTO sqlite_stat1 (tbl, idx, stat) VALUES
	('contracts', 'sqlite_autoindex_contracts_1', '100000 1'),
	('contracts', 'contracts_updated', '100000 1 1'),
	('contracts', 'contracts_created', '100000 1 1'),
	('contracts', 'contracts_name', '100000 3 1'),
	('contracts', 'contracts_start', '100000 40 1'),
	('contracts', 'contracts_end', '100000 40 1'),
	('contracts', 'contracts_amount', '100000 20 1'),
	('contracts', 'contracts_status_updated', '100000 12500 1 1'),
	('contracts', 'contracts_status_created', '100000 12500 1 1'),
	('contracts', 'contracts_status_name', '100000 12500 3 1'),
	('contracts', 'contracts_status_start', '100000 12500 10 1'),
	('contracts', 'contracts_status_end', '100000 12500 10 1'),
	('contracts', 'contracts_status_amount', '100000 12500 5 1'),
	('contracts', 'contracts_filter', '100000 16000 8000 4000 500 20 5 2 1 1'),
	('contracts', 'contracts_matter', '50000 10'),
	('contracts', 'contracts_client', '30000 15'),
	('contracts', 'contracts_project', '20000 10'),
	('contracts', 'contracts_submission', '10000 1');
