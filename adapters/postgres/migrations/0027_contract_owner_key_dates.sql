-- Contract owner and key dates (docs/decisions.md §16), as SQLite's 0027.
ALTER TABLE contracts ADD COLUMN owner_id bigint;
ALTER TABLE contracts ADD COLUMN notice_days integer CHECK (notice_days BETWEEN 0 AND 3650);
ALTER TABLE contracts ADD COLUMN auto_renew boolean NOT NULL DEFAULT false;
ALTER TABLE contracts ADD COLUMN notice_date timestamptz(3);
UPDATE contracts c SET notice_date = c.end_date,
	owner_id = (SELECT a.actor_user_id FROM contract_audit a
		WHERE a.contract_id = c.id AND a.action = 'created' ORDER BY a.id LIMIT 1);
CREATE INDEX contracts_owner ON contracts (owner_id, id);
CREATE INDEX contracts_notice ON contracts (notice_date NULLS FIRST, id);
