-- When a session last proved both factors (a re-authentication); NULL
-- means its sign-in (created_at). Changing a factor needs it recent.
ALTER TABLE sessions ADD COLUMN authenticated_at timestamptz;
