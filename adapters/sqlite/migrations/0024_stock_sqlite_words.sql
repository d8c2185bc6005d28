-- A schema the SQLite of distributions parses, and writes whose cost does
-- not grow with the table (issue 28).
--
-- The word triggers of migration 0014 nested 64 replace() calls, more than
-- the parser stack of SQLite as Debian 12 and Ubuntu 22.04 build it holds:
-- their sqlite3 shell and Python module refused the whole file
-- ("malformed database schema ... parser stack overflow"). The same work
-- is done here in steps of 16 replace()s over a one-row scratch table,
-- contract_terms_text, which is empty between statements: the text is
-- written lower-cased, each step turns 16 of the 64 ASCII bytes other than
-- letters, digits and the space into spaces (and skips the text when none
-- is left), and the words are listed from it as before. The words are
-- exactly those of FTS5's ascii tokenizer (contractTerms in the tests is
-- the reference), so a contract written by any program is found by the
-- word search at once. The INSERT into the scratch table takes the outer
-- statement's conflict clause, which cannot apply: the table has no
-- key or constraint a row could meet.
--
-- A NUL character ends a column's text here (printf), as it ends it for
-- LIKE: no SQL function can replace it, and JSON refuses it.

CREATE TABLE contract_terms_text (txt TEXT NOT NULL) STRICT;

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
	DELETE FROM contract_terms_text;
END;

CREATE TRIGGER contract_terms_contract_update AFTER UPDATE OF contract_name, contract_description, comments ON contracts BEGIN
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
	DELETE FROM contract_terms_text;
END;

-- The word index again, without contentless_delete (an option of SQLite
-- 3.43): SQLite 3.40 refused to read or write a table declaring it, so a
-- firm's shell could neither read the index nor insert a contract. A
-- contentless FTS5 table of any version deletes a row by being given the
-- values it was indexed with (the 'delete' command), which the triggers
-- have in old.*: the same expressions as the insert, so the index holds
-- exactly one entry per contract.
DROP TRIGGER contracts_words_insert;
DROP TRIGGER contracts_words_delete;
DROP TRIGGER contracts_words_update;
DROP TABLE contracts_words;

CREATE VIRTUAL TABLE contracts_words USING fts5 (
	contract_name, contract_description, comments, tags,
	content = '', tokenize = 'ascii', detail = 'column'
);

INSERT INTO contracts_words (rowid, contract_name, contract_description, comments, tags)
SELECT id, contract_name, contract_description, comments,
	's' || status || ' t' || contract_type || ' g' || is_signed || ' d' || is_digital FROM contracts;

CREATE TRIGGER contracts_words_insert AFTER INSERT ON contracts BEGIN
	INSERT INTO contracts_words (rowid, contract_name, contract_description, comments, tags)
	VALUES (new.id, new.contract_name, new.contract_description, new.comments,
		's' || new.status || ' t' || new.contract_type || ' g' || new.is_signed || ' d' || new.is_digital);
END;

CREATE TRIGGER contracts_words_delete AFTER DELETE ON contracts BEGIN
	INSERT INTO contracts_words (contracts_words, rowid, contract_name, contract_description, comments, tags)
	VALUES ('delete', old.id, old.contract_name, old.contract_description, old.comments,
		's' || old.status || ' t' || old.contract_type || ' g' || old.is_signed || ' d' || old.is_digital);
END;

CREATE TRIGGER contracts_words_update AFTER UPDATE OF contract_name, contract_description, comments,
	status, contract_type, is_signed, is_digital ON contracts
WHEN old.contract_name IS NOT new.contract_name OR old.contract_description IS NOT new.contract_description
	OR old.comments IS NOT new.comments OR old.status IS NOT new.status OR old.contract_type IS NOT new.contract_type
	OR old.is_signed IS NOT new.is_signed OR old.is_digital IS NOT new.is_digital
BEGIN
	INSERT INTO contracts_words (contracts_words, rowid, contract_name, contract_description, comments, tags)
	VALUES ('delete', old.id, old.contract_name, old.contract_description, old.comments,
		's' || old.status || ' t' || old.contract_type || ' g' || old.is_signed || ' d' || old.is_digital);
	INSERT INTO contracts_words (rowid, contract_name, contract_description, comments, tags)
	VALUES (new.id, new.contract_name, new.contract_description, new.comments,
		's' || new.status || ' t' || new.contract_type || ' g' || new.is_signed || ' d' || new.is_digital);
END;

-- The full-text indexes' data tables (FTS5's shadow tables) are read and
-- written by rowid ranges. Statistics taken while they were nearly empty
-- (PRAGMA optimize on a new database measures two rows) made the planner
-- scan the whole table for each range instead: every segment FTS5 merged
-- away cost a scan of its index, and an insert into 100,000 contracts
-- took 60 to 150 ms. Without a row here the planner assumes a large
-- table and seeks; the store removes any ANALYZE writes again
-- (forgetFullTextStats in db.go).
DELETE FROM sqlite_stat1 WHERE tbl IN ('contracts_fts_data', 'contracts_fts_idx', 'contracts_fts_docsize',
	'contracts_words_data', 'contracts_words_idx', 'contracts_words_docsize',
	'contract_terms_fts_data', 'contract_terms_fts_idx', 'contract_terms_fts_docsize');
ANALYZE sqlite_schema; -- reloads the statistics; analyses nothing
