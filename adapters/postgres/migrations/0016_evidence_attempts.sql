-- Attempts at making a submission's signed evidence, as SQLite's 0016.
ALTER TABLE signing_submissions ADD COLUMN evidence_attempts integer NOT NULL DEFAULT 0;
ALTER TABLE signing_submissions ADD COLUMN evidence_retry_at timestamptz(3);
ALTER TABLE signing_submissions ADD COLUMN evidence_failed_at timestamptz(3);
