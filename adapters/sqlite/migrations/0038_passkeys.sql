-- Passkeys (docs/decisions.md §20): a user's WebAuthn credentials, and the
-- challenges of ceremonies begun and not yet finished (kept here so any
-- instance can finish one; each is deleted when taken, once).
CREATE TABLE passkeys (
	id            INTEGER PRIMARY KEY AUTOINCREMENT,
	user_id       INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
	credential_id BLOB NOT NULL UNIQUE,
	name          TEXT NOT NULL,
	credential    BLOB NOT NULL,
	sign_count    INTEGER NOT NULL,
	created_at    INTEGER NOT NULL,
	last_used_at  INTEGER
) STRICT;
CREATE INDEX passkeys_user ON passkeys (user_id);

CREATE TABLE passkey_challenges (
	id         TEXT PRIMARY KEY,
	purpose    TEXT NOT NULL CHECK (purpose IN ('register', 'assert')),
	user_id    INTEGER NOT NULL,
	session    BLOB NOT NULL,
	expires_at INTEGER NOT NULL
) STRICT;
CREATE INDEX passkey_challenges_expiry ON passkey_challenges (expires_at);
