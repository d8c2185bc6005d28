-- A document's bytes are written in the transaction of its row and go
-- with it: removing a row (or its contract, by cascade) removes its
-- bytes in the same transaction, so no bytes outlive their row and no
-- housekeeping sweeps for them.
CREATE FUNCTION contract_documents_bytes() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	DELETE FROM document_blobs WHERE storage_key = OLD.storage_key;
	RETURN NULL;
END
$$;
CREATE TRIGGER contract_documents_bytes AFTER DELETE ON contract_documents
	FOR EACH ROW EXECUTE FUNCTION contract_documents_bytes();

-- Bytes that no row names are left from when they were kept in a
-- transaction of their own, before their row: an upload stopped in
-- between. Those an hour old go now (a younger one may belong to an
-- instance of that version still between its bytes and its row).
DELETE FROM document_blobs
	WHERE created_at < now() - interval '1 hour'
	AND NOT EXISTS (SELECT 1 FROM contract_documents d WHERE d.storage_key = document_blobs.storage_key);
