-- The planner without hand-written statistics, and contract_terms kept
-- by the database itself (issue 17).

-- Migrations 0003 and 0007 wrote planner statistics for one shape of
-- data into sqlite_stat1 (0008 kept them). Every contract list query now
-- names its index (INDEXED BY, NOT INDEXED) where the choice matters, so
-- no statistics are needed; the store runs PRAGMA optimize on open and
-- in housekeeping, and ANALYZE after counsel copy, so what statistics
-- there are describe the data a firm actually has.
DELETE FROM sqlite_stat1 WHERE tbl = 'contracts';
ANALYZE sqlite_schema; -- reloads the statistics; analyses nothing

-- contract_terms was filled by the store as it wrote a contract's text,
-- so a contract written any other way (counsel copy, the sqlite3 shell,
-- a script) was not found by the word path. These triggers add the words
-- of any contract's text as FTS5's ascii tokenizer makes them (runs of
-- ASCII letters and digits and non-ASCII characters, ASCII folded to lower
-- case; contractTerms in the tests is the reference): every ASCII byte
-- other than a letter or digit becomes a space, the spaces become the
-- separators of a JSON array, and json_each lists the words. Text of
-- lower-case letters, digits and spaces alone skips the 64 replace()s. NOT EXISTS
-- rather than INSERT OR IGNORE: an outer INSERT OR REPLACE would turn the
-- IGNORE into a REPLACE, and replacing a row would leave
-- contract_terms_fts pointing at its old id. A NUL character ends a
-- column's text here (printf), as it ends it for LIKE: no SQL function
-- can replace it, and JSON refuses it.
CREATE TRIGGER contract_terms_contract_insert AFTER INSERT ON contracts BEGIN
	INSERT INTO contract_terms (term)
	SELECT DISTINCT w.value FROM json_each('["' || replace(
		CASE WHEN NOT lower(printf('%s %s %s', new.contract_name, new.contract_description, new.comments)) GLOB '*[^a-z0-9 ]*'
		THEN lower(printf('%s %s %s', new.contract_name, new.contract_description, new.comments)) ELSE
		replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(
			lower(printf('%s %s %s', new.contract_name, new.contract_description, new.comments))
			, char(1), ' '), char(2), ' '), char(3), ' '), char(4), ' '), char(5), ' '), char(6), ' '), char(7), ' '), char(8), ' ')
			, char(9), ' '), char(10), ' '), char(11), ' '), char(12), ' '), char(13), ' '), char(14), ' '), char(15), ' '), char(16), ' ')
			, char(17), ' '), char(18), ' '), char(19), ' '), char(20), ' '), char(21), ' '), char(22), ' '), char(23), ' '), char(24), ' ')
			, char(25), ' '), char(26), ' '), char(27), ' '), char(28), ' '), char(29), ' '), char(30), ' '), char(31), ' '), char(33), ' ')
			, char(34), ' '), char(35), ' '), char(36), ' '), char(37), ' '), char(38), ' '), char(39), ' '), char(40), ' '), char(41), ' ')
			, char(42), ' '), char(43), ' '), char(44), ' '), char(45), ' '), char(46), ' '), char(47), ' '), char(58), ' '), char(59), ' ')
			, char(60), ' '), char(61), ' '), char(62), ' '), char(63), ' '), char(64), ' '), char(91), ' '), char(92), ' '), char(93), ' ')
			, char(94), ' '), char(95), ' '), char(96), ' '), char(123), ' '), char(124), ' '), char(125), ' '), char(126), ' '), char(127), ' ') END,
		' ', '","') || '"]') w
	WHERE w.value <> '' AND NOT EXISTS (SELECT 1 FROM contract_terms t WHERE t.term = w.value);
END;

CREATE TRIGGER contract_terms_contract_update AFTER UPDATE OF contract_name, contract_description, comments ON contracts BEGIN
	INSERT INTO contract_terms (term)
	SELECT DISTINCT w.value FROM json_each('["' || replace(
		CASE WHEN NOT lower(printf('%s %s %s', new.contract_name, new.contract_description, new.comments)) GLOB '*[^a-z0-9 ]*'
		THEN lower(printf('%s %s %s', new.contract_name, new.contract_description, new.comments)) ELSE
		replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(
			lower(printf('%s %s %s', new.contract_name, new.contract_description, new.comments))
			, char(1), ' '), char(2), ' '), char(3), ' '), char(4), ' '), char(5), ' '), char(6), ' '), char(7), ' '), char(8), ' ')
			, char(9), ' '), char(10), ' '), char(11), ' '), char(12), ' '), char(13), ' '), char(14), ' '), char(15), ' '), char(16), ' ')
			, char(17), ' '), char(18), ' '), char(19), ' '), char(20), ' '), char(21), ' '), char(22), ' '), char(23), ' '), char(24), ' ')
			, char(25), ' '), char(26), ' '), char(27), ' '), char(28), ' '), char(29), ' '), char(30), ' '), char(31), ' '), char(33), ' ')
			, char(34), ' '), char(35), ' '), char(36), ' '), char(37), ' '), char(38), ' '), char(39), ' '), char(40), ' '), char(41), ' ')
			, char(42), ' '), char(43), ' '), char(44), ' '), char(45), ' '), char(46), ' '), char(47), ' '), char(58), ' '), char(59), ' ')
			, char(60), ' '), char(61), ' '), char(62), ' '), char(63), ' '), char(64), ' '), char(91), ' '), char(92), ' '), char(93), ' ')
			, char(94), ' '), char(95), ' '), char(96), ' '), char(123), ' '), char(124), ' '), char(125), ' '), char(126), ' '), char(127), ' ') END,
		' ', '","') || '"]') w
	WHERE w.value <> '' AND NOT EXISTS (SELECT 1 FROM contract_terms t WHERE t.term = w.value);
END;

-- Words of contracts written outside the store before this migration.
CREATE VIRTUAL TABLE temp.contracts_words_vocab USING fts5vocab (main, contracts_words, 'col');
INSERT OR IGNORE INTO contract_terms (term)
SELECT term FROM temp.contracts_words_vocab WHERE col <> 'tags';
DROP TABLE temp.contracts_words_vocab;
