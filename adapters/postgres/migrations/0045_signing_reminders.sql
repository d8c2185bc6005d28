-- Reminders of the embedded signer (docs/decisions.md §16), as SQLite's 0045.
ALTER TABLE signing_submitters ADD COLUMN reminders integer NOT NULL DEFAULT 0;
ALTER TABLE signing_submitters ADD COLUMN reminded_at timestamptz(3);
CREATE INDEX signing_submitters_remind ON signing_submitters (submission_id)
	WHERE status IN ('sent', 'opened') AND sent_at IS NOT NULL;
