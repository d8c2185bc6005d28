-- Document bytes in the database file (issue 26), in the shape PostgreSQL
-- has kept them in since its first migration: one row per document blob
-- and its bytes in chunks of 256 KiB, so the file is the firm's whole
-- record and a download holds one chunk at a time. contract_documents
-- names its blob by storage_key, as before; the files a database of the
-- older layout kept under COUNSEL_DATA_DIR/documents are moved in at
-- start, each checked against its SHA-256 (MoveDocumentFiles).
-- An ordinary rowid table rather than WITHOUT ROWID: its rows are far
-- larger than a page, which WITHOUT ROWID tables handle badly.
CREATE TABLE document_blobs (
	storage_key TEXT PRIMARY KEY,
	size        INTEGER NOT NULL,
	created_at  INTEGER NOT NULL
) STRICT;
CREATE TABLE document_chunks (
	storage_key TEXT NOT NULL REFERENCES document_blobs (storage_key) ON DELETE CASCADE,
	seq         INTEGER NOT NULL,
	data        BLOB NOT NULL,
	PRIMARY KEY (storage_key, seq)
) STRICT;
