-- The number of contracts per status, kept by triggers, so that a list
-- filtered by status alone (or not at all), the most common shapes,
-- reads its exact count from at most eight rows instead of counting the
-- table. Writers that change one status's count queue on its row; a
-- status change locks the two rows in status order, so two such changes
-- cannot deadlock.
CREATE TABLE contract_counts (
	status smallint PRIMARY KEY,
	n      bigint NOT NULL
);
INSERT INTO contract_counts (status, n) SELECT s, 0 FROM generate_series(1, 8) s;
UPDATE contract_counts k SET n = c.n FROM (SELECT status, count(*) AS n FROM contracts GROUP BY status) c WHERE c.status = k.status;

CREATE FUNCTION contract_counts_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	IF TG_OP = 'INSERT' THEN
		INSERT INTO contract_counts (status, n) VALUES (NEW.status, 1)
			ON CONFLICT (status) DO UPDATE SET n = contract_counts.n + 1;
	ELSIF TG_OP = 'DELETE' THEN
		UPDATE contract_counts SET n = n - 1 WHERE status = OLD.status;
	ELSIF NEW.status IS DISTINCT FROM OLD.status THEN
		INSERT INTO contract_counts (status, n) VALUES (NEW.status, 0) ON CONFLICT (status) DO NOTHING;
		PERFORM 1 FROM contract_counts WHERE status IN (OLD.status, NEW.status) ORDER BY status FOR UPDATE;
		UPDATE contract_counts SET n = n - 1 WHERE status = OLD.status;
		UPDATE contract_counts SET n = n + 1 WHERE status = NEW.status;
	END IF;
	RETURN NULL;
END $$;

CREATE TRIGGER contract_counts_insert AFTER INSERT ON contracts FOR EACH ROW EXECUTE FUNCTION contract_counts_change();
CREATE TRIGGER contract_counts_delete AFTER DELETE ON contracts FOR EACH ROW EXECUTE FUNCTION contract_counts_change();
CREATE TRIGGER contract_counts_update AFTER UPDATE OF status ON contracts FOR EACH ROW EXECUTE FUNCTION contract_counts_change();
