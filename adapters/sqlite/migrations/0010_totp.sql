-- Authenticator apps (API-DECISIONS 9). The vault key lives in a table of
-- its own, apart from the secrets it seals.

CREATE TABLE totp_keys (
	id         INTEGER PRIMARY KEY,
	key        BLOB NOT NULL,
	created_at INTEGER NOT NULL
) STRICT;

-- One enrolment per user: pending while confirmed_at is NULL.
CREATE TABLE user_totp (
	user_id         INTEGER PRIMARY KEY REFERENCES users (id),
	sealed_secret   BLOB NOT NULL,              -- AES-256-GCM, the user id as additional data
	created_at      INTEGER NOT NULL,
	confirmed_at    INTEGER,
	last_step       INTEGER NOT NULL DEFAULT 0, -- time step of the last accepted app code
	recovery_hashes BLOB NOT NULL DEFAULT x''   -- HMAC-SHA256 of each unused recovery code, 32 bytes each
) STRICT;
