-- Key-date thresholds announced (docs/decisions.md §16), as SQLite's 0048.
CREATE TABLE key_date_announcements (
	contract_id    bigint NOT NULL REFERENCES contracts (id) ON DELETE CASCADE,
	threshold_days integer NOT NULL CHECK (threshold_days BETWEEN 0 AND 3650),
	notice_date    timestamptz(3) NOT NULL,
	announced_at   timestamptz(3) NOT NULL,
	PRIMARY KEY (contract_id, threshold_days)
);
