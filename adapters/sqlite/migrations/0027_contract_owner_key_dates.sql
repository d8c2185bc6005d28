-- Contract owner and key dates (docs/decisions.md §16). owner_id is the
-- user answerable for the contract: existing contracts take the user of
-- their created entry. notice_days is null or 0..3650; notice_date is
-- end_date minus notice_days (end_date when null), written by the store
-- with the contract, so that lists filter and digests select on it by
-- index. owner_id names a user (never removed: deletion is soft) without a
-- foreign key, so bulk imports may name their importer before it exists.
ALTER TABLE contracts ADD COLUMN owner_id INTEGER;
ALTER TABLE contracts ADD COLUMN notice_days INTEGER CHECK (notice_days BETWEEN 0 AND 3650);
ALTER TABLE contracts ADD COLUMN auto_renew INTEGER NOT NULL DEFAULT 0 CHECK (auto_renew IN (0, 1));
ALTER TABLE contracts ADD COLUMN notice_date INTEGER;
UPDATE contracts SET notice_date = end_date,
	owner_id = (SELECT a.actor_user_id FROM contract_audit a
		WHERE a.contract_id = contracts.id AND a.action = 'created' ORDER BY a.id LIMIT 1);
CREATE INDEX contracts_owner ON contracts (owner_id, id);
CREATE INDEX contracts_notice ON contracts (notice_date, id);
