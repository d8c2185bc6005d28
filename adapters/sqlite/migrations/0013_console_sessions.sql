-- Console sessions live in the sessions table beside API sessions, so the
-- same revocations (sign-out, password change, deletion) end both. A
-- console session is carried by a cookie whose SHA-256 is token_hash, and
-- it ends when idle: last_seen is written at most once a minute.
ALTER TABLE sessions ADD COLUMN kind TEXT NOT NULL DEFAULT 'api';
ALTER TABLE sessions ADD COLUMN token_hash BLOB;
ALTER TABLE sessions ADD COLUMN last_seen INTEGER;
CREATE UNIQUE INDEX sessions_token ON sessions (token_hash) WHERE token_hash IS NOT NULL;
