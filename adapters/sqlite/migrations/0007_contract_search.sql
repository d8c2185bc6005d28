-- Search within a status without the trigram index. A common word (in
-- one contract of seven) or a term of one or two letters matches
-- thousands of contracts: finding them through contracts_fts, or by LIKE
-- over each row, and reading their rows cost 25 to 40 ms over 100,000
-- contracts. This index holds each contract's searched text behind its
-- status, so LIKE over the text of one status's contracts reads that
-- range of the index alone (about 3 ms for 12,500 contracts), whatever
-- the term. The text is the three columns joined by a line feed, which
-- no search that reads it contains (see searchText in contracts.go).
CREATE INDEX contracts_search ON contracts (status, (contract_name || char(10) || contract_description || char(10) || comments));

-- Its planner statistics, as migration 0003's (do not ANALYZE): without
-- them the planner takes a status for one contract in this index and
-- reads every other search through it. sz= is the entry's size in bytes:
-- the planner cannot tell the text's width and would otherwise count the
-- whole table through this index, the widest of all.
INSERT INTO sqlite_stat1 (tbl, idx, stat) VALUES ('contracts', 'contracts_search', '100000 12500 1 sz=200');
