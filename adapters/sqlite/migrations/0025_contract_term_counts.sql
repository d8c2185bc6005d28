-- The number of contracts per word and status, kept by the triggers that
-- list a contract's words, so that the exact count of a search for a term
-- found in one word, with or without statuses, reads at most eight rows:
-- counting a word in 40% of 100,000 contracts from the word index read
-- 40,000 entries (3 to 4 ms, most of such a list's time).
--
-- contract_term_counts(w, s).n is the number of contracts with status s
-- whose text (name, description, comments) holds the word w as the word
-- triggers list it (FTS5's ascii tokenizer: the words of contracts_words).
-- A contract counts once per word however often the word occurs in it.
-- The words are listed with the steps of migration 0024 over its scratch
-- table: the old text's counted down, the new text's up.
CREATE TABLE contract_term_counts (
	term_id INTEGER NOT NULL,
	status  INTEGER NOT NULL,
	n       INTEGER NOT NULL,
	PRIMARY KEY (term_id, status)
) STRICT, WITHOUT ROWID;

DROP TRIGGER contract_terms_contract_insert;
DROP TRIGGER contract_terms_contract_update;

CREATE TRIGGER contract_terms_contract_insert AFTER INSERT ON contracts BEGIN
	INSERT INTO contract_terms_text (txt)
	VALUES (lower(printf('%s %s %s', new.contract_name, new.contract_description, new.comments)));
	UPDATE contract_terms_text SET txt = replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(txt
		, char(1), ' '), char(2), ' '), char(3), ' '), char(4), ' '), char(5), ' '), char(6), ' '), char(7), ' '), char(8), ' ')
		, char(9), ' '), char(10), ' '), char(11), ' '), char(12), ' '), char(13), ' '), char(14), ' '), char(15), ' '), char(16), ' ')
	WHERE txt GLOB '*[^a-z0-9 ]*';
	UPDATE contract_terms_text SET txt = replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(txt
		, char(17), ' '), char(18), ' '), char(19), ' '), char(20), ' '), char(21), ' '), char(22), ' '), char(23), ' '), char(24), ' ')
		, char(25), ' '), char(26), ' '), char(27), ' '), char(28), ' '), char(29), ' '), char(30), ' '), char(31), ' '), char(33), ' ')
	WHERE txt GLOB '*[^a-z0-9 ]*';
	UPDATE contract_terms_text SET txt = replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(txt
		, char(34), ' '), char(35), ' '), char(36), ' '), char(37), ' '), char(38), ' '), char(39), ' '), char(40), ' '), char(41), ' ')
		, char(42), ' '), char(43), ' '), char(44), ' '), char(45), ' '), char(46), ' '), char(47), ' '), char(58), ' '), char(59), ' ')
	WHERE txt GLOB '*[^a-z0-9 ]*';
	UPDATE contract_terms_text SET txt = replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(txt
		, char(60), ' '), char(61), ' '), char(62), ' '), char(63), ' '), char(64), ' '), char(91), ' '), char(92), ' '), char(93), ' ')
		, char(94), ' '), char(95), ' '), char(96), ' '), char(123), ' '), char(124), ' '), char(125), ' '), char(126), ' '), char(127), ' ')
	WHERE txt GLOB '*[^a-z0-9 ]*';
	INSERT INTO contract_terms (term)
	SELECT DISTINCT w.value FROM contract_terms_text t, json_each('["' || replace(t.txt, ' ', '","') || '"]') w
	WHERE w.value <> '' AND NOT EXISTS (SELECT 1 FROM contract_terms x WHERE x.term = w.value);
	INSERT INTO contract_term_counts (term_id, status, n)
	SELECT x.id, new.status, 1 FROM contract_terms x WHERE x.term IN (SELECT w.value FROM contract_terms_text t, json_each('["' || replace(t.txt, ' ', '","') || '"]') w WHERE w.value <> '')
	ON CONFLICT (term_id, status) DO UPDATE SET n = n + excluded.n;
	DELETE FROM contract_terms_text;
END;

CREATE TRIGGER contract_terms_contract_update AFTER UPDATE OF contract_name, contract_description, comments, status ON contracts
WHEN old.contract_name IS NOT new.contract_name OR old.contract_description IS NOT new.contract_description
	OR old.comments IS NOT new.comments OR old.status IS NOT new.status
BEGIN
	INSERT INTO contract_terms_text (txt)
	VALUES (lower(printf('%s %s %s', old.contract_name, old.contract_description, old.comments)));
	UPDATE contract_terms_text SET txt = replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(txt
		, char(1), ' '), char(2), ' '), char(3), ' '), char(4), ' '), char(5), ' '), char(6), ' '), char(7), ' '), char(8), ' ')
		, char(9), ' '), char(10), ' '), char(11), ' '), char(12), ' '), char(13), ' '), char(14), ' '), char(15), ' '), char(16), ' ')
	WHERE txt GLOB '*[^a-z0-9 ]*';
	UPDATE contract_terms_text SET txt = replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(txt
		, char(17), ' '), char(18), ' '), char(19), ' '), char(20), ' '), char(21), ' '), char(22), ' '), char(23), ' '), char(24), ' ')
		, char(25), ' '), char(26), ' '), char(27), ' '), char(28), ' '), char(29), ' '), char(30), ' '), char(31), ' '), char(33), ' ')
	WHERE txt GLOB '*[^a-z0-9 ]*';
	UPDATE contract_terms_text SET txt = replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(txt
		, char(34), ' '), char(35), ' '), char(36), ' '), char(37), ' '), char(38), ' '), char(39), ' '), char(40), ' '), char(41), ' ')
		, char(42), ' '), char(43), ' '), char(44), ' '), char(45), ' '), char(46), ' '), char(47), ' '), char(58), ' '), char(59), ' ')
	WHERE txt GLOB '*[^a-z0-9 ]*';
	UPDATE contract_terms_text SET txt = replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(txt
		, char(60), ' '), char(61), ' '), char(62), ' '), char(63), ' '), char(64), ' '), char(91), ' '), char(92), ' '), char(93), ' ')
		, char(94), ' '), char(95), ' '), char(96), ' '), char(123), ' '), char(124), ' '), char(125), ' '), char(126), ' '), char(127), ' ')
	WHERE txt GLOB '*[^a-z0-9 ]*';
	INSERT INTO contract_term_counts (term_id, status, n)
	SELECT x.id, old.status, -1 FROM contract_terms x WHERE x.term IN (SELECT w.value FROM contract_terms_text t, json_each('["' || replace(t.txt, ' ', '","') || '"]') w WHERE w.value <> '')
	ON CONFLICT (term_id, status) DO UPDATE SET n = n + excluded.n;
	DELETE FROM contract_terms_text;
	INSERT INTO contract_terms_text (txt)
	VALUES (lower(printf('%s %s %s', new.contract_name, new.contract_description, new.comments)));
	UPDATE contract_terms_text SET txt = replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(txt
		, char(1), ' '), char(2), ' '), char(3), ' '), char(4), ' '), char(5), ' '), char(6), ' '), char(7), ' '), char(8), ' ')
		, char(9), ' '), char(10), ' '), char(11), ' '), char(12), ' '), char(13), ' '), char(14), ' '), char(15), ' '), char(16), ' ')
	WHERE txt GLOB '*[^a-z0-9 ]*';
	UPDATE contract_terms_text SET txt = replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(txt
		, char(17), ' '), char(18), ' '), char(19), ' '), char(20), ' '), char(21), ' '), char(22), ' '), char(23), ' '), char(24), ' ')
		, char(25), ' '), char(26), ' '), char(27), ' '), char(28), ' '), char(29), ' '), char(30), ' '), char(31), ' '), char(33), ' ')
	WHERE txt GLOB '*[^a-z0-9 ]*';
	UPDATE contract_terms_text SET txt = replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(txt
		, char(34), ' '), char(35), ' '), char(36), ' '), char(37), ' '), char(38), ' '), char(39), ' '), char(40), ' '), char(41), ' ')
		, char(42), ' '), char(43), ' '), char(44), ' '), char(45), ' '), char(46), ' '), char(47), ' '), char(58), ' '), char(59), ' ')
	WHERE txt GLOB '*[^a-z0-9 ]*';
	UPDATE contract_terms_text SET txt = replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(txt
		, char(60), ' '), char(61), ' '), char(62), ' '), char(63), ' '), char(64), ' '), char(91), ' '), char(92), ' '), char(93), ' ')
		, char(94), ' '), char(95), ' '), char(96), ' '), char(123), ' '), char(124), ' '), char(125), ' '), char(126), ' '), char(127), ' ')
	WHERE txt GLOB '*[^a-z0-9 ]*';
	INSERT INTO contract_terms (term)
	SELECT DISTINCT w.value FROM contract_terms_text t, json_each('["' || replace(t.txt, ' ', '","') || '"]') w
	WHERE w.value <> '' AND NOT EXISTS (SELECT 1 FROM contract_terms x WHERE x.term = w.value);
	INSERT INTO contract_term_counts (term_id, status, n)
	SELECT x.id, new.status, 1 FROM contract_terms x WHERE x.term IN (SELECT w.value FROM contract_terms_text t, json_each('["' || replace(t.txt, ' ', '","') || '"]') w WHERE w.value <> '')
	ON CONFLICT (term_id, status) DO UPDATE SET n = n + excluded.n;
	DELETE FROM contract_terms_text;
END;

CREATE TRIGGER contract_terms_contract_delete AFTER DELETE ON contracts BEGIN
	INSERT INTO contract_terms_text (txt)
	VALUES (lower(printf('%s %s %s', old.contract_name, old.contract_description, old.comments)));
	UPDATE contract_terms_text SET txt = replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(txt
		, char(1), ' '), char(2), ' '), char(3), ' '), char(4), ' '), char(5), ' '), char(6), ' '), char(7), ' '), char(8), ' ')
		, char(9), ' '), char(10), ' '), char(11), ' '), char(12), ' '), char(13), ' '), char(14), ' '), char(15), ' '), char(16), ' ')
	WHERE txt GLOB '*[^a-z0-9 ]*';
	UPDATE contract_terms_text SET txt = replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(txt
		, char(17), ' '), char(18), ' '), char(19), ' '), char(20), ' '), char(21), ' '), char(22), ' '), char(23), ' '), char(24), ' ')
		, char(25), ' '), char(26), ' '), char(27), ' '), char(28), ' '), char(29), ' '), char(30), ' '), char(31), ' '), char(33), ' ')
	WHERE txt GLOB '*[^a-z0-9 ]*';
	UPDATE contract_terms_text SET txt = replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(txt
		, char(34), ' '), char(35), ' '), char(36), ' '), char(37), ' '), char(38), ' '), char(39), ' '), char(40), ' '), char(41), ' ')
		, char(42), ' '), char(43), ' '), char(44), ' '), char(45), ' '), char(46), ' '), char(47), ' '), char(58), ' '), char(59), ' ')
	WHERE txt GLOB '*[^a-z0-9 ]*';
	UPDATE contract_terms_text SET txt = replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(txt
		, char(60), ' '), char(61), ' '), char(62), ' '), char(63), ' '), char(64), ' '), char(91), ' '), char(92), ' '), char(93), ' ')
		, char(94), ' '), char(95), ' '), char(96), ' '), char(123), ' '), char(124), ' '), char(125), ' '), char(126), ' '), char(127), ' ')
	WHERE txt GLOB '*[^a-z0-9 ]*';
	INSERT INTO contract_term_counts (term_id, status, n)
	SELECT x.id, old.status, -1 FROM contract_terms x WHERE x.term IN (SELECT w.value FROM contract_terms_text t, json_each('["' || replace(t.txt, ' ', '","') || '"]') w WHERE w.value <> '')
	ON CONFLICT (term_id, status) DO UPDATE SET n = n + excluded.n;
	DELETE FROM contract_terms_text;
END;

WITH s0 AS (SELECT id, status, lower(printf('%s %s %s', contract_name, contract_description, comments)) AS txt FROM contracts),
s1 AS (SELECT id, status, CASE WHEN txt GLOB '*[^a-z0-9 ]*' THEN replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(txt
		, char(1), ' '), char(2), ' '), char(3), ' '), char(4), ' '), char(5), ' '), char(6), ' '), char(7), ' '), char(8), ' ')
		, char(9), ' '), char(10), ' '), char(11), ' '), char(12), ' '), char(13), ' '), char(14), ' '), char(15), ' '), char(16), ' ') ELSE txt END AS txt FROM s0),
s2 AS (SELECT id, status, CASE WHEN txt GLOB '*[^a-z0-9 ]*' THEN replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(txt
		, char(17), ' '), char(18), ' '), char(19), ' '), char(20), ' '), char(21), ' '), char(22), ' '), char(23), ' '), char(24), ' ')
		, char(25), ' '), char(26), ' '), char(27), ' '), char(28), ' '), char(29), ' '), char(30), ' '), char(31), ' '), char(33), ' ') ELSE txt END AS txt FROM s1),
s3 AS (SELECT id, status, CASE WHEN txt GLOB '*[^a-z0-9 ]*' THEN replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(txt
		, char(34), ' '), char(35), ' '), char(36), ' '), char(37), ' '), char(38), ' '), char(39), ' '), char(40), ' '), char(41), ' ')
		, char(42), ' '), char(43), ' '), char(44), ' '), char(45), ' '), char(46), ' '), char(47), ' '), char(58), ' '), char(59), ' ') ELSE txt END AS txt FROM s2),
s4 AS (SELECT id, status, CASE WHEN txt GLOB '*[^a-z0-9 ]*' THEN replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(txt
		, char(60), ' '), char(61), ' '), char(62), ' '), char(63), ' '), char(64), ' '), char(91), ' '), char(92), ' '), char(93), ' ')
		, char(94), ' '), char(95), ' '), char(96), ' '), char(123), ' '), char(124), ' '), char(125), ' '), char(126), ' '), char(127), ' ') ELSE txt END AS txt FROM s3),
words AS (SELECT DISTINCT s4.id, s4.status, w.value AS term FROM s4, json_each('["' || replace(s4.txt, ' ', '","') || '"]') w WHERE w.value <> '')
INSERT INTO contract_term_counts (term_id, status, n)
SELECT x.id, words.status, count(*) FROM words JOIN contract_terms x ON x.term = words.term WHERE true GROUP BY x.id, words.status;
