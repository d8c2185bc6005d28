-- Contract lists at 100,000 contracts whatever the text (issue 17).
-- Only indexes, virtual tables and triggers: the contracts table itself
-- is not rebuilt, so this holds with or without migration 0008.

-- Stored counts: the number of contracts per status, type, signed and
-- digital (at most 8 * 6 * 2 * 2 rows), kept by triggers. A list whose
-- filter names only these (the first page, one status, a deep page of a
-- status) sums a few rows instead of counting 100,000 index entries.
CREATE TABLE contract_counts (
	status        INTEGER NOT NULL,
	contract_type INTEGER NOT NULL,
	is_signed     INTEGER NOT NULL,
	is_digital    INTEGER NOT NULL,
	n             INTEGER NOT NULL,
	PRIMARY KEY (status, contract_type, is_signed, is_digital)
) STRICT, WITHOUT ROWID;

INSERT INTO contract_counts (status, contract_type, is_signed, is_digital, n)
SELECT status, contract_type, is_signed, is_digital, count(*) FROM contracts GROUP BY 1, 2, 3, 4;

CREATE TRIGGER contract_counts_insert AFTER INSERT ON contracts BEGIN
	INSERT INTO contract_counts (status, contract_type, is_signed, is_digital, n)
	VALUES (new.status, new.contract_type, new.is_signed, new.is_digital, 1)
	ON CONFLICT DO UPDATE SET n = n + 1;
END;

CREATE TRIGGER contract_counts_delete AFTER DELETE ON contracts BEGIN
	UPDATE contract_counts SET n = n - 1 WHERE status = old.status AND contract_type = old.contract_type
		AND is_signed = old.is_signed AND is_digital = old.is_digital;
END;

CREATE TRIGGER contract_counts_update AFTER UPDATE OF status, contract_type, is_signed, is_digital ON contracts
WHEN old.status IS NOT new.status OR old.contract_type IS NOT new.contract_type
	OR old.is_signed IS NOT new.is_signed OR old.is_digital IS NOT new.is_digital
BEGIN
	UPDATE contract_counts SET n = n - 1 WHERE status = old.status AND contract_type = old.contract_type
		AND is_signed = old.is_signed AND is_digital = old.is_digital;
	INSERT INTO contract_counts (status, contract_type, is_signed, is_digital, n)
	VALUES (new.status, new.contract_type, new.is_signed, new.is_digital, 1)
	ON CONFLICT DO UPDATE SET n = n + 1;
END;

-- A word index beside the trigram one. The ascii tokenizer makes words
-- of runs of ASCII letters and digits and any non-ASCII character, and
-- folds ASCII case. tags holds the contract's status, type, signed and
-- digital as words (s4 t1 g1 d0), so "a word within a status" is one
-- intersection of two lists of ids inside the index, and its count
-- reads no contract. Contentless: it keeps no copy of the text.
CREATE VIRTUAL TABLE contracts_words USING fts5 (
	contract_name, contract_description, comments, tags,
	content = '', contentless_delete = 1, tokenize = 'ascii', detail = 'column'
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
	DELETE FROM contracts_words WHERE rowid = old.id;
END;

CREATE TRIGGER contracts_words_update AFTER UPDATE OF contract_name, contract_description, comments,
	status, contract_type, is_signed, is_digital ON contracts
WHEN old.contract_name IS NOT new.contract_name OR old.contract_description IS NOT new.contract_description
	OR old.comments IS NOT new.comments OR old.status IS NOT new.status OR old.contract_type IS NOT new.contract_type
	OR old.is_signed IS NOT new.is_signed OR old.is_digital IS NOT new.is_digital
BEGIN
	DELETE FROM contracts_words WHERE rowid = old.id;
	INSERT INTO contracts_words (rowid, contract_name, contract_description, comments, tags)
	VALUES (new.id, new.contract_name, new.contract_description, new.comments,
		's' || new.status || ' t' || new.contract_type || ' g' || new.is_signed || ' d' || new.is_digital);
END;

-- Every word of the contracts' text, with a trigram index over it, so a
-- substring search turns into the words that contain it: "standard"
-- into standard, standards, nonstandard. The words are added by the
-- store as it writes a contract's text (see contractTerms); a word no
-- contract holds any more only costs a lookup that finds nothing. The
-- trigram index folds case as contracts_fts does, so a term matches the
-- same words in both.
CREATE TABLE contract_terms (
	id   INTEGER PRIMARY KEY,
	term TEXT NOT NULL UNIQUE
) STRICT;

CREATE VIRTUAL TABLE contract_terms_fts USING fts5 (term, content = 'contract_terms', content_rowid = 'id', tokenize = 'trigram');

CREATE TRIGGER contract_terms_insert AFTER INSERT ON contract_terms BEGIN
	INSERT INTO contract_terms_fts (rowid, term) VALUES (new.id, new.term);
END;

CREATE VIRTUAL TABLE temp.contracts_words_vocab USING fts5vocab (main, contracts_words, 'col');
INSERT OR IGNORE INTO contract_terms (term)
SELECT term FROM temp.contracts_words_vocab WHERE col <> 'tags';
DROP TABLE temp.contracts_words_vocab;
