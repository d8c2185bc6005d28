-- Personal calendar feeds (docs/decisions.md §16), as SQLite's 0028.
CREATE TABLE calendar_feeds (
	user_id    bigint PRIMARY KEY REFERENCES users (id),
	token_hash bytea NOT NULL UNIQUE,
	created_at timestamptz(3) NOT NULL
);
CREATE FUNCTION calendar_feeds_user_off() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	DELETE FROM calendar_feeds WHERE user_id = NEW.id;
	RETURN NULL;
END $$;
CREATE TRIGGER calendar_feeds_user_off AFTER UPDATE OF active, deleted_at ON users
	FOR EACH ROW WHEN (NOT NEW.active OR NEW.deleted_at IS NOT NULL)
	EXECUTE FUNCTION calendar_feeds_user_off();
