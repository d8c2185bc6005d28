-- Exact counts for searched lists without reading contracts, and the
-- status counts kept per statement rather than per row.
--
-- A search is a case-insensitive substring of search_text (API-DECISIONS
-- 5). A term without ASCII white space can only occur inside one of
-- search_text's white-space-separated words, so the contracts matching it
-- are exactly those with a word that contains it. contract_words holds
-- every distinct word once (a trigram index finds the few that contain a
-- term) and contract_postings one entry per (word, contract), with the
-- contract's status, so that the exact count of a common word, with or
-- without a status, is an index-only count of its entries instead of a
-- read of 40% of the table. A term with white space, or too short for
-- trigrams, is counted on contracts as before.

CREATE TABLE contract_words (
	word_id integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
	-- The SHA-256 of the word is its key: a btree entry of bounded size
	-- however long a word is (a btree refuses entries over ~2.7 kB).
	hash    bytea NOT NULL UNIQUE,
	word    text NOT NULL
);
CREATE INDEX contract_words_word ON contract_words USING gin (word gin_trgm_ops);

-- No foreign keys: the triggers below are the only writers, and bulk
-- loads should not check 10 references per contract.
CREATE TABLE contract_postings (
	word_id     integer NOT NULL,
	status      smallint NOT NULL,
	contract_id bigint NOT NULL,
	PRIMARY KEY (word_id, status, contract_id)
);
CREATE INDEX contract_postings_contract ON contract_postings (contract_id);

-- contract_text_words is the distinct words of a search_text: split at
-- ASCII white space, the separators the Go side refuses in a term it
-- answers from here.
CREATE FUNCTION contract_text_words(t text) RETURNS SETOF text LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
	SELECT DISTINCT w FROM unnest(string_to_array(translate(t, E'\t\n\r\f\x0b', '     '), ' ')) w WHERE w <> ''
$$;

-- contract_words_add indexes the words of cs. New words are inserted in
-- hash order, so two writers adding the same new words wait on each other
-- in one order and cannot deadlock; the postings are read back in a
-- second statement, whose snapshot sees words another writer committed
-- meanwhile (writers run in READ COMMITTED).
CREATE FUNCTION contract_words_add(cs contracts[]) RETURNS void LANGUAGE sql AS $$
	INSERT INTO contract_words (hash, word)
		SELECT DISTINCT sha256(convert_to(w, 'UTF8')) AS h, w
		FROM unnest(cs) c, contract_text_words(c.search_text) w
		ORDER BY h
		ON CONFLICT (hash) DO NOTHING;
	INSERT INTO contract_postings (word_id, status, contract_id)
		SELECT cw.word_id, c.status, c.id
		FROM unnest(cs) c, contract_text_words(c.search_text) w
		JOIN contract_words cw ON cw.hash = sha256(convert_to(w, 'UTF8'));
$$;

-- contract_words_rebuild recomputes both tables from contracts, set-based
-- and with their indexes built at the end: after a bulk load with the
-- triggers off (counsel copy), ten times faster than contract_words_add
-- over every contract. It takes the tables' locks until commit.
CREATE FUNCTION contract_words_rebuild() RETURNS void LANGUAGE plpgsql AS $$
BEGIN
	TRUNCATE contract_words, contract_postings;
	ALTER TABLE contract_postings DROP CONSTRAINT contract_postings_pkey;
	DROP INDEX contract_postings_contract;
	DROP INDEX contract_words_word;
	CREATE TEMP TABLE contract_words_load ON COMMIT DROP AS
		SELECT c.id, c.status, w FROM contracts c, contract_text_words(c.search_text) w;
	INSERT INTO contract_words (hash, word)
		SELECT sha256(convert_to(w, 'UTF8')), w FROM (SELECT DISTINCT w FROM contract_words_load) d;
	INSERT INTO contract_postings (word_id, status, contract_id)
		SELECT cw.word_id, l.status, l.id FROM contract_words_load l JOIN contract_words cw ON cw.word = l.w;
	DROP TABLE contract_words_load;
	ALTER TABLE contract_postings ADD CONSTRAINT contract_postings_pkey PRIMARY KEY (word_id, status, contract_id);
	CREATE INDEX contract_postings_contract ON contract_postings (contract_id);
	CREATE INDEX contract_words_word ON contract_words USING gin (word gin_trgm_ops);
END $$;

-- Statement-level triggers with transition tables: a COPY of 20,000
-- contracts indexes them in two set-based statements, not 20,000 calls.
CREATE FUNCTION contract_words_insert() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	PERFORM contract_words_add(array_agg(n::contracts)) FROM new_rows n HAVING count(*) > 0;
	RETURN NULL;
END $$;

CREATE FUNCTION contract_words_update() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
	changed contracts[];
BEGIN
	SELECT array_agg(n::contracts) INTO changed FROM new_rows n JOIN old_rows o ON o.id = n.id
		WHERE n.search_text <> o.search_text OR n.status <> o.status;
	IF changed IS NOT NULL THEN
		DELETE FROM contract_postings WHERE contract_id IN (SELECT c.id FROM unnest(changed) c);
		PERFORM contract_words_add(changed);
	END IF;
	RETURN NULL;
END $$;

CREATE FUNCTION contract_words_delete() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	DELETE FROM contract_postings WHERE contract_id IN (SELECT id FROM old_rows);
	RETURN NULL;
END $$;

CREATE TRIGGER contract_words_insert AFTER INSERT ON contracts REFERENCING NEW TABLE AS new_rows
	FOR EACH STATEMENT EXECUTE FUNCTION contract_words_insert();
CREATE TRIGGER contract_words_update AFTER UPDATE ON contracts REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
	FOR EACH STATEMENT EXECUTE FUNCTION contract_words_update();
CREATE TRIGGER contract_words_delete AFTER DELETE ON contracts REFERENCING OLD TABLE AS old_rows
	FOR EACH STATEMENT EXECUTE FUNCTION contract_words_delete();

SELECT contract_words_rebuild();

-- The per-status counts of 0003, now one statement per statement: each
-- status's change is summed and applied in status order, so two writers
-- lock the count rows in one order and cannot deadlock.
DROP TRIGGER contract_counts_insert ON contracts;
DROP TRIGGER contract_counts_delete ON contracts;
DROP TRIGGER contract_counts_update ON contracts;
DROP FUNCTION contract_counts_change();

CREATE FUNCTION contract_counts_insert() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	INSERT INTO contract_counts (status, n)
		SELECT status, count(*) FROM new_rows GROUP BY status ORDER BY status
		ON CONFLICT (status) DO UPDATE SET n = contract_counts.n + EXCLUDED.n;
	RETURN NULL;
END $$;

CREATE FUNCTION contract_counts_delete() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	INSERT INTO contract_counts (status, n)
		SELECT status, -count(*) FROM old_rows GROUP BY status ORDER BY status
		ON CONFLICT (status) DO UPDATE SET n = contract_counts.n + EXCLUDED.n;
	RETURN NULL;
END $$;

CREATE FUNCTION contract_counts_update() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	INSERT INTO contract_counts (status, n)
		SELECT status, sum(d) FROM (
			SELECT n.status, 1 AS d FROM new_rows n JOIN old_rows o ON o.id = n.id WHERE n.status <> o.status
			UNION ALL
			SELECT o.status, -1 FROM new_rows n JOIN old_rows o ON o.id = n.id WHERE n.status <> o.status
		) s GROUP BY status HAVING sum(d) <> 0 ORDER BY status
		ON CONFLICT (status) DO UPDATE SET n = contract_counts.n + EXCLUDED.n;
	RETURN NULL;
END $$;

CREATE TRIGGER contract_counts_insert AFTER INSERT ON contracts REFERENCING NEW TABLE AS new_rows
	FOR EACH STATEMENT EXECUTE FUNCTION contract_counts_insert();
CREATE TRIGGER contract_counts_update AFTER UPDATE ON contracts REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
	FOR EACH STATEMENT EXECUTE FUNCTION contract_counts_update();
CREATE TRIGGER contract_counts_delete AFTER DELETE ON contracts REFERENCING OLD TABLE AS old_rows
	FOR EACH STATEMENT EXECUTE FUNCTION contract_counts_delete();

-- Type + signed + a start-date range (the console's and API's usual
-- combination) reads only the rows in the range.
CREATE INDEX contracts_type_signed_start ON contracts (contract_type, is_signed, start_date, id) INCLUDE (status, updated_at);
