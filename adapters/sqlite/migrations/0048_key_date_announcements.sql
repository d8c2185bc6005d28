-- Key-date thresholds announced (docs/decisions.md §16): one row per
-- contract and threshold (days before its notice date) a digest has
-- recorded, so that each is announced once across instances and
-- restarts: the primary key decides between concurrent digests, and the
-- digest that inserts a row queues its mail in the same transaction. A
-- change of the contract's notice date deletes, in its transaction, the
-- rows of thresholds not yet reached with the new date. notice_date is
-- the date the threshold was announced for. Rows go with their contract.
CREATE TABLE key_date_announcements (
	contract_id    INTEGER NOT NULL REFERENCES contracts (id) ON DELETE CASCADE,
	threshold_days INTEGER NOT NULL CHECK (threshold_days BETWEEN 0 AND 3650),
	notice_date    INTEGER NOT NULL,
	announced_at   INTEGER NOT NULL,
	PRIMARY KEY (contract_id, threshold_days)
) STRICT;
