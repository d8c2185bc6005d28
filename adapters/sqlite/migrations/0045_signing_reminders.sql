-- Reminders of the embedded signer (docs/decisions.md §16): how many each
-- signer was sent (automatic and by hand) and when the last was. The
-- partial index holds the signers who may still be reminded.
ALTER TABLE signing_submitters ADD COLUMN reminders INTEGER NOT NULL DEFAULT 0;
ALTER TABLE signing_submitters ADD COLUMN reminded_at INTEGER;
CREATE INDEX signing_submitters_remind ON signing_submitters (submission_id)
	WHERE status IN ('sent', 'opened') AND sent_at IS NOT NULL;
