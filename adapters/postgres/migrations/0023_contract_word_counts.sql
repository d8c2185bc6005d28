-- The number of contracts per word and status, kept in the writing
-- transaction, so that the exact count of a search for a term found in
-- one word, with or without statuses, reads at most eight rows: counting
-- the postings of a word in 40% of 100,000 contracts read 40,000 index
-- entries (3 ms idle, 30 to 50 ms on a busy machine), and more where the
-- visibility map lags behind the writes.
--
-- contract_word_counts(w, s).n is the number of rows of contract_postings
-- with word w and status s: every statement that adds or removes
-- postings applies its change to the counts in the same trigger, summed
-- per (word, status) and in that order, so two writers lock the count
-- rows in one order and cannot deadlock.
CREATE TABLE contract_word_counts (
	word_id integer NOT NULL,
	status  smallint NOT NULL,
	n       bigint NOT NULL,
	PRIMARY KEY (word_id, status)
);

-- contract_word_counts_apply adds to each (word, status) of the pairs the
-- number of times it is listed in plus, less the number in minus.
CREATE FUNCTION contract_word_counts_apply(plus_words integer[], plus_statuses smallint[],
	minus_words integer[], minus_statuses smallint[]) RETURNS void LANGUAGE sql AS $$
	INSERT INTO contract_word_counts (word_id, status, n)
		SELECT w, s, sum(d) FROM (
			SELECT w, s, 1 AS d FROM unnest(plus_words, plus_statuses) p (w, s)
			UNION ALL
			SELECT w, s, -1 FROM unnest(minus_words, minus_statuses) m (w, s)
		) x GROUP BY w, s HAVING sum(d) <> 0 ORDER BY w, s
		ON CONFLICT (word_id, status) DO UPDATE SET n = contract_word_counts.n + EXCLUDED.n;
$$;

-- contract_words_add indexes the words of cs (as in 0007) and returns
-- the postings it added, for the counts.
DROP FUNCTION contract_words_add(contracts[]);
CREATE FUNCTION contract_words_postings(cs contracts[], OUT words integer[], OUT statuses smallint[])
LANGUAGE plpgsql AS $$
BEGIN
	INSERT INTO contract_words (hash, word)
		SELECT DISTINCT sha256(convert_to(w, 'UTF8')) AS h, w
		FROM unnest(cs) c, contract_text_words(c.search_text) w
		ORDER BY h
		ON CONFLICT (hash) DO NOTHING;
	WITH added AS (
		INSERT INTO contract_postings (word_id, status, contract_id)
			SELECT cw.word_id, c.status, c.id
			FROM unnest(cs) c, contract_text_words(c.search_text) w
			JOIN contract_words cw ON cw.hash = sha256(convert_to(w, 'UTF8'))
		RETURNING word_id, status
	)
	SELECT array_agg(word_id), array_agg(status) INTO words, statuses FROM added;
END $$;

CREATE OR REPLACE FUNCTION contract_words_insert() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
	added record;
BEGIN
	SELECT * INTO added FROM contract_words_postings((SELECT array_agg(n::contracts) FROM new_rows n));
	IF added.words IS NOT NULL THEN
		PERFORM contract_word_counts_apply(added.words, added.statuses, '{}', '{}');
	END IF;
	RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION contract_words_update() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
	changed contracts[];
	removed_words integer[];
	removed_statuses smallint[];
	added record;
BEGIN
	SELECT array_agg(n::contracts) INTO changed FROM new_rows n JOIN old_rows o ON o.id = n.id
		WHERE n.search_text <> o.search_text OR n.status <> o.status;
	IF changed IS NOT NULL THEN
		WITH removed AS (
			DELETE FROM contract_postings WHERE contract_id IN (SELECT c.id FROM unnest(changed) c)
			RETURNING word_id, status
		)
		SELECT array_agg(word_id), array_agg(status) INTO removed_words, removed_statuses FROM removed;
		SELECT * INTO added FROM contract_words_postings(changed);
		PERFORM contract_word_counts_apply(coalesce(added.words, '{}'), coalesce(added.statuses, '{}'),
			coalesce(removed_words, '{}'), coalesce(removed_statuses, '{}'));
	END IF;
	RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION contract_words_delete() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
	removed_words integer[];
	removed_statuses smallint[];
BEGIN
	WITH removed AS (
		DELETE FROM contract_postings WHERE contract_id IN (SELECT id FROM old_rows)
		RETURNING word_id, status
	)
	SELECT array_agg(word_id), array_agg(status) INTO removed_words, removed_statuses FROM removed;
	IF removed_words IS NOT NULL THEN
		PERFORM contract_word_counts_apply('{}', '{}', removed_words, removed_statuses);
	END IF;
	RETURN NULL;
END $$;

-- contract_words_rebuild (0007) recomputes the words and postings from
-- contracts; the counts follow from the postings.
ALTER FUNCTION contract_words_rebuild() RENAME TO contract_words_rebuild_postings;
CREATE FUNCTION contract_words_rebuild() RETURNS void LANGUAGE plpgsql AS $$
BEGIN
	PERFORM contract_words_rebuild_postings();
	TRUNCATE contract_word_counts;
	INSERT INTO contract_word_counts (word_id, status, n)
		SELECT word_id, status, count(*) FROM contract_postings GROUP BY word_id, status;
END $$;

INSERT INTO contract_word_counts (word_id, status, n)
	SELECT word_id, status, count(*) FROM contract_postings GROUP BY word_id, status;
