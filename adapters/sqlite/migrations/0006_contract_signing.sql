-- Signing events already applied to a contract, so that a provider's
-- repeated delivery (DocuSeal retries a webhook until it gets a 2xx, and
-- reading submissions reconciles what a webhook missed) changes nothing
-- twice. A key names the event within its submission: "completed:<email>",
-- "declined:<email>", "submission.completed", "submission.expired".
-- Contracts are found by digital_contract_submission_id through the
-- contracts_submission index of 0003.
CREATE TABLE contract_signing_events (
	contract_id   INTEGER NOT NULL REFERENCES contracts (id) ON DELETE CASCADE,
	submission_id TEXT NOT NULL,
	event_key     TEXT NOT NULL,
	at            INTEGER NOT NULL,
	PRIMARY KEY (contract_id, submission_id, event_key)
) STRICT, WITHOUT ROWID;
