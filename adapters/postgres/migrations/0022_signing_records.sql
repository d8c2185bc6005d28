-- What Counsel remembers of a signing provider's records that keeps its
-- own copies (DocuSeal), as SQLite's 0022.
CREATE TABLE signing_template_digests (
	template_id text PRIMARY KEY,
	digest      text NOT NULL,
	recorded_at timestamptz(3) NOT NULL
);

CREATE TABLE signing_signer_links (
	submission_id text NOT NULL,
	submitter_id  text NOT NULL,
	sealed        bytea NOT NULL,
	recorded_at   timestamptz(3) NOT NULL,
	PRIMARY KEY (submission_id, submitter_id)
);
