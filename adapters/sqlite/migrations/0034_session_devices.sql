-- Sessions record where they were opened (docs/decisions.md §18): the
-- client's address and user agent, as the request showed them. last_seen
-- (0013) is now kept for every kind of session, written at most once a
-- minute. The index lists a user's live sessions.
ALTER TABLE sessions ADD COLUMN ip TEXT NOT NULL DEFAULT '';
ALTER TABLE sessions ADD COLUMN user_agent TEXT NOT NULL DEFAULT '';
CREATE INDEX sessions_user_live ON sessions (user_id, created_at) WHERE revoked_at IS NULL;
