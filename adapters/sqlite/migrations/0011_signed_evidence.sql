-- Signed evidence of the embedded signer (API-DECISIONS 13).
--
-- Contract documents gain a kind: the uploaded originals, and the
-- combined signed PDF and the audit certificate of a completed signing,
-- which cannot be removed. /api/signing/verify looks signed PDFs up by
-- their SHA-256.
ALTER TABLE contract_documents ADD COLUMN kind TEXT NOT NULL DEFAULT 'original'
	CHECK (kind IN ('original', 'signed', 'audit'));
CREATE INDEX contract_documents_signed_sha256 ON contract_documents (sha256) WHERE kind = 'signed';

-- A submission's evidence is pending from the transaction of its last
-- signature until its documents are stored; the ids of those documents
-- are its combinedDocumentUrl and auditLogUrl.
ALTER TABLE signing_submissions ADD COLUMN evidence_pending INTEGER NOT NULL DEFAULT 0;
ALTER TABLE signing_submissions ADD COLUMN combined_document_id TEXT NOT NULL DEFAULT '';
ALTER TABLE signing_submissions ADD COLUMN audit_document_id TEXT NOT NULL DEFAULT '';
CREATE INDEX signing_submissions_evidence_pending ON signing_submissions (id) WHERE evidence_pending = 1;
