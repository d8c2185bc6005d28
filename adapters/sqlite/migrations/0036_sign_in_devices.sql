-- The devices each user signed in from (docs/decisions.md §18): the
-- user-agent family and the address network of every successful sign-in,
-- with when they were last used, so a sign-in from one not seen for 90
-- days emails the user. Sessions are pruned a day after they end; this
-- table keeps what the comparison needs (one row per user and value).
CREATE TABLE sign_in_devices (
	user_id   INTEGER NOT NULL REFERENCES users (id),
	kind      TEXT NOT NULL CHECK (kind IN ('agent', 'network')),
	value     TEXT NOT NULL,
	last_seen INTEGER NOT NULL,
	PRIMARY KEY (user_id, kind, value)
) STRICT, WITHOUT ROWID;
