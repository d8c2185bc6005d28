-- Signed evidence of the embedded signer (API-DECISIONS 13), as SQLite's
-- 0011.
ALTER TABLE contract_documents ADD COLUMN kind text NOT NULL DEFAULT 'original'
	CHECK (kind IN ('original', 'signed', 'audit'));
CREATE INDEX contract_documents_signed_sha256 ON contract_documents (sha256) WHERE kind = 'signed';

ALTER TABLE signing_submissions ADD COLUMN evidence_pending boolean NOT NULL DEFAULT false;
ALTER TABLE signing_submissions ADD COLUMN combined_document_id text NOT NULL DEFAULT '';
ALTER TABLE signing_submissions ADD COLUMN audit_document_id text NOT NULL DEFAULT '';
CREATE INDEX signing_submissions_evidence_pending ON signing_submissions (id) WHERE evidence_pending;
