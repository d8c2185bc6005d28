-- Users: offices, the profile columns users lacks, offering reviewers,
-- remunerations and PQE adjustments.
-- Timestamps and dates are UTC Unix milliseconds. Money is INTEGER cents;
-- fte_load is in ten-thousandths (7500 = 0.75), billable_percentage and
-- pqy in hundredths (8550 = 85.50).

CREATE TABLE offices (
	id         INTEGER PRIMARY KEY,
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
CREATE INDEX offices_name ON offices (name COLLATE NOCASE, id);

ALTER TABLE users ADD COLUMN billing_rate INTEGER NOT NULL DEFAULT 0; -- cents
ALTER TABLE users ADD COLUMN admission_date INTEGER;
ALTER TABLE users ADD COLUMN office_id INTEGER REFERENCES offices (id);
ALTER TABLE users ADD COLUMN address1 TEXT NOT NULL DEFAULT '';
ALTER TABLE users ADD COLUMN address2 TEXT NOT NULL DEFAULT '';
ALTER TABLE users ADD COLUMN suburb TEXT NOT NULL DEFAULT '';
ALTER TABLE users ADD COLUMN state TEXT NOT NULL DEFAULT '';
ALTER TABLE users ADD COLUMN postcode TEXT NOT NULL DEFAULT '';
ALTER TABLE users ADD COLUMN country TEXT NOT NULL DEFAULT '';
-- search_key is what the Search filter looks in: lower(full name) || LF ||
-- lower(email). The triggers keep it right for every writer (with SQLite's
-- ASCII-only lower); the user store then rewrites it with Unicode case
-- folding, so names like "Élodie" are found by "élodie" too.
ALTER TABLE users ADD COLUMN search_key TEXT NOT NULL DEFAULT '';
UPDATE users SET search_key = lower(trim(first_name || ' ' || last_name)) || char(10) || lower(email);

CREATE TRIGGER users_search_key_insert AFTER INSERT ON users WHEN NEW.search_key = '' BEGIN
	UPDATE users SET search_key = lower(trim(NEW.first_name || ' ' || NEW.last_name)) || char(10) || lower(NEW.email)
	WHERE id = NEW.id;
END;
CREATE TRIGGER users_search_key_update AFTER UPDATE OF first_name, last_name, email ON users BEGIN
	UPDATE users SET search_key = lower(trim(NEW.first_name || ' ' || NEW.last_name)) || char(10) || lower(NEW.email)
	WHERE id = NEW.id;
END;

-- User lists walk this index in their order (last name, first name, id)
-- and stop at the page's end. It also holds every column the user filter
-- tests, so matching reads no table row: only the page's rows are fetched,
-- and a count is an index-only scan.
CREATE INDEX users_list ON users (last_name COLLATE NOCASE, first_name COLLATE NOCASE, id,
	search_key, active, is_legal, is_staff, office_id, billing_rate) WHERE deleted_at IS NULL;
CREATE INDEX users_office ON users (office_id);

-- Offerings live in another service: only (offering, user) pairs are kept.
CREATE TABLE offering_reviewers (
	offering_id INTEGER NOT NULL,
	user_id     INTEGER NOT NULL REFERENCES users (id),
	PRIMARY KEY (offering_id, user_id)
) STRICT, WITHOUT ROWID;
CREATE INDEX offering_reviewers_user ON offering_reviewers (user_id, offering_id);

-- The computed columns are kept as computed at creation.
CREATE TABLE remunerations (
	id                     INTEGER PRIMARY KEY,
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
CREATE INDEX remunerations_staff ON remunerations (staff_id, remuneration_date, id);
CREATE INDEX remunerations_date ON remunerations (remuneration_date, id);

CREATE TABLE pqe_adjustments (
	id         INTEGER PRIMARY KEY,
	staff_id   INTEGER NOT NULL REFERENCES users (id),
	name       TEXT NOT NULL,
	details    TEXT NOT NULL DEFAULT '',
	start_date INTEGER NOT NULL,
	end_date   INTEGER NOT NULL, -- inclusive: the period's last day
	created_at INTEGER NOT NULL
) STRICT;
CREATE INDEX pqe_adjustments_staff ON pqe_adjustments (staff_id, start_date, id);
