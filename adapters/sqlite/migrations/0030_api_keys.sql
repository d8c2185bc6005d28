-- API keys (docs/decisions.md §17): only the SHA-256 of a key is kept,
-- with its first characters for recognition. permissions is the names,
-- comma-separated. A revoked key's row stays, so its hash is refused.
CREATE TABLE api_keys (
	id           INTEGER PRIMARY KEY AUTOINCREMENT,
	user_id      INTEGER NOT NULL REFERENCES users (id),
	name         TEXT NOT NULL,
	permissions  TEXT NOT NULL,
	prefix       TEXT NOT NULL,
	hash         BLOB NOT NULL UNIQUE,
	created_at   INTEGER NOT NULL,
	expires_at   INTEGER,
	last_used_at INTEGER,
	revoked_at   INTEGER
) STRICT;
CREATE INDEX api_keys_user ON api_keys (user_id, created_at) WHERE revoked_at IS NULL;
