-- Attempts at making a submission's signed evidence. Each attempt is
-- counted before it starts (a crash counts too) and sets when the next may
-- start; after the last one fails the submission is no longer pending and
-- evidence_failed_at says when it gave up.
ALTER TABLE signing_submissions ADD COLUMN evidence_attempts INTEGER NOT NULL DEFAULT 0;
ALTER TABLE signing_submissions ADD COLUMN evidence_retry_at INTEGER;
ALTER TABLE signing_submissions ADD COLUMN evidence_failed_at INTEGER;
