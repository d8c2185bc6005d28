-- A document's bytes are written in the transaction of its row and go
-- with it: removing a row (or its contract, by cascade) removes its
-- bytes in the same statement, so no bytes outlive their row and no
-- housekeeping sweeps for them. The chunks are deleted here too, not
-- only by their foreign key, so a row deleted in a shell without
-- foreign keys leaves nothing either.
CREATE TRIGGER contract_documents_bytes AFTER DELETE ON contract_documents
BEGIN
	DELETE FROM document_chunks WHERE storage_key = OLD.storage_key;
	DELETE FROM document_blobs WHERE storage_key = OLD.storage_key;
END;

-- Bytes that no row names are left from when they were kept in a
-- transaction of their own, before their row: an upload stopped in
-- between. Those an hour old go now (a younger one may belong to a
-- process of that version still between its bytes and its row).
DELETE FROM document_chunks WHERE storage_key IN (
	SELECT b.storage_key FROM document_blobs b
	WHERE b.created_at < CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER) - 3600000
	AND NOT EXISTS (SELECT 1 FROM contract_documents d WHERE d.storage_key = b.storage_key));
DELETE FROM document_blobs
	WHERE created_at < CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER) - 3600000
	AND NOT EXISTS (SELECT 1 FROM contract_documents d WHERE d.storage_key = document_blobs.storage_key);
