-- Identities: the external (OpenID Connect) identities linked to users.
-- An identity is its provider's issuer and the subject the provider gives
-- the person; it never changes, unlike the email. Timestamps are UTC Unix
-- milliseconds.

CREATE TABLE user_identities (
	issuer     TEXT NOT NULL,
	subject    TEXT NOT NULL,
	user_id    INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
	email      TEXT NOT NULL DEFAULT '', -- as the provider sent it when linked, for the log and audits
	created_at INTEGER NOT NULL,
	PRIMARY KEY (issuer, subject)
) STRICT, WITHOUT ROWID;
-- One subject per user and issuer: an email that moves to another account
-- at the provider does not link a second subject to an already linked user.
-- Also the index for finding a user's identities.
CREATE UNIQUE INDEX user_identities_user ON user_identities (user_id, issuer);
