-- Console sessions (SQLite's 0013) and the hardening data rules (SQLite's
-- 0009) on PostgreSQL.

-- A console session lives in sessions beside API sessions, so the same
-- revocations end both; its cookie's SHA-256 is token_hash and last_seen
-- ends it when idle.
ALTER TABLE sessions ADD COLUMN kind text NOT NULL DEFAULT 'api';
ALTER TABLE sessions ADD COLUMN token_hash bytea;
ALTER TABLE sessions ADD COLUMN last_seen timestamptz(3);
CREATE UNIQUE INDEX sessions_token ON sessions (token_hash) WHERE token_hash IS NOT NULL;

-- A system-admin role is never the default role.
UPDATE roles SET is_default_role = false WHERE is_system_admin;

-- URL fields hold only absolute http(s) URLs or nothing.
UPDATE users SET profile_picture_url = ''
	WHERE profile_picture_url <> ''
	AND lower(substr(profile_picture_url, 1, 7)) <> 'http://'
	AND lower(substr(profile_picture_url, 1, 8)) <> 'https://';
UPDATE offices SET website = ''
	WHERE website <> ''
	AND lower(substr(website, 1, 7)) <> 'http://'
	AND lower(substr(website, 1, 8)) <> 'https://';
