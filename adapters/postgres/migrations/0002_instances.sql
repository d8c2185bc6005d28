-- State that several instances share: the per-address sign-in limit, a
-- token bucket per client address (API-DECISIONS 10).
CREATE TABLE auth_rate (
	key    text PRIMARY KEY,
	tokens double precision NOT NULL,
	last   timestamptz(3) NOT NULL
);
CREATE INDEX auth_rate_last ON auth_rate (last);
