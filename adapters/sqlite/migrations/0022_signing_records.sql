-- What Counsel remembers of a signing provider's records that keeps its
-- own copies (DocuSeal), by the provider's ids (README, "DocuSeal").

-- The SHA-256 of the documents each template was built from, so a
-- submission of changed documents builds the template again.
CREATE TABLE signing_template_digests (
	template_id TEXT PRIMARY KEY,
	digest      TEXT NOT NULL,
	recorded_at INTEGER NOT NULL
) STRICT;

-- Each submitter's signing link, which DocuSeal returns only when the
-- submission is created: sealed (AES-256-GCM under a key derived from the
-- authenticator vault's, the submission and submitter ids as additional
-- data).
CREATE TABLE signing_signer_links (
	submission_id TEXT NOT NULL,
	submitter_id  TEXT NOT NULL,
	sealed        BLOB NOT NULL,
	recorded_at   INTEGER NOT NULL,
	PRIMARY KEY (submission_id, submitter_id)
) STRICT;
