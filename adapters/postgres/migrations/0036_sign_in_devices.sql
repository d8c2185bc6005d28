-- The devices each user signed in from (docs/decisions.md §18), as
-- SQLite's 0036.
CREATE TABLE sign_in_devices (
	user_id   bigint NOT NULL REFERENCES users (id),
	kind      text NOT NULL CHECK (kind IN ('agent', 'network')),
	value     text NOT NULL,
	last_seen timestamptz(3) NOT NULL,
	PRIMARY KEY (user_id, kind, value)
);
