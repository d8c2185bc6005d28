-- Sessions record where they were opened (docs/decisions.md §18), as
-- SQLite's 0034.
ALTER TABLE sessions ADD COLUMN ip text NOT NULL DEFAULT '';
ALTER TABLE sessions ADD COLUMN user_agent text NOT NULL DEFAULT '';
CREATE INDEX sessions_user_live ON sessions (user_id, created_at) WHERE revoked_at IS NULL;
