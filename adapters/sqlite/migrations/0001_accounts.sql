-- Accounts: users, roles and permissions, one-time passwords, sessions,
-- refresh tokens, signing keys and server secrets.
-- Timestamps are UTC Unix milliseconds.

CREATE TABLE settings (
	name  TEXT PRIMARY KEY,
	value BLOB NOT NULL
) STRICT;

CREATE TABLE signing_keys (
	kid         TEXT PRIMARY KEY,
	private_key BLOB NOT NULL,
	created_at  INTEGER NOT NULL,
	retired_at  INTEGER
) STRICT;

CREATE TABLE users (
	id                  INTEGER PRIMARY KEY,
	email               TEXT NOT NULL,            -- trimmed, lower-case
	first_name          TEXT NOT NULL DEFAULT '',
	last_name           TEXT NOT NULL DEFAULT '',
	contact_number      TEXT NOT NULL DEFAULT '',
	profile_picture_url TEXT NOT NULL DEFAULT '',
	password_hash       TEXT NOT NULL DEFAULT '', -- argon2id PHC string; '' = no password sign-in
	active              INTEGER NOT NULL DEFAULT 1,
	is_legal            INTEGER NOT NULL DEFAULT 0,
	is_staff            INTEGER NOT NULL DEFAULT 1,
	failed_logins       INTEGER NOT NULL DEFAULT 0,
	locked_until        INTEGER NOT NULL DEFAULT 0,
	deleted_at          INTEGER,                  -- soft delete
	created_at          INTEGER NOT NULL,
	updated_at          INTEGER NOT NULL
) STRICT;
-- A deleted user's email may be used again.
CREATE UNIQUE INDEX users_email ON users (email) WHERE deleted_at IS NULL;

CREATE TABLE roles (
	id              INTEGER PRIMARY KEY,
	name            TEXT NOT NULL UNIQUE COLLATE NOCASE,
	is_system_admin INTEGER NOT NULL DEFAULT 0,
	is_default_role INTEGER NOT NULL DEFAULT 0
) STRICT;

CREATE TABLE role_permissions (
	role_id    INTEGER NOT NULL REFERENCES roles (id) ON DELETE CASCADE,
	permission TEXT NOT NULL,
	PRIMARY KEY (role_id, permission)
) STRICT, WITHOUT ROWID;

CREATE TABLE user_roles (
	user_id INTEGER NOT NULL REFERENCES users (id),
	role_id INTEGER NOT NULL REFERENCES roles (id) ON DELETE CASCADE,
	PRIMARY KEY (user_id, role_id)
) STRICT, WITHOUT ROWID;
CREATE INDEX user_roles_role ON user_roles (role_id);

CREATE TABLE otps (
	email      TEXT PRIMARY KEY,
	code_hash  BLOB,                     -- keyed hash; NULL when used or voided
	expires_at INTEGER NOT NULL DEFAULT 0,
	attempts   INTEGER NOT NULL DEFAULT 0,
	sends      TEXT NOT NULL DEFAULT ''  -- comma-separated issue times within the last hour
) STRICT;

CREATE TABLE sessions (
	id         TEXT PRIMARY KEY,
	user_id    INTEGER NOT NULL REFERENCES users (id),
	method     TEXT NOT NULL,
	created_at INTEGER NOT NULL,
	expires_at INTEGER NOT NULL,
	revoked_at INTEGER
) STRICT;
CREATE INDEX sessions_user ON sessions (user_id);

-- Only SHA-256 hashes of refresh tokens are stored. A used row stays so
-- that presenting it again is detected as reuse.
CREATE TABLE refresh_tokens (
	hash       BLOB PRIMARY KEY,
	session_id TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
	created_at INTEGER NOT NULL,
	used_at    INTEGER
) STRICT, WITHOUT ROWID;
CREATE INDEX refresh_tokens_session ON refresh_tokens (session_id);
