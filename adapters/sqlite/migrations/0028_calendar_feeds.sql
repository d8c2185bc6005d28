-- Personal calendar feeds (docs/decisions.md §16): one per user, found by
-- the SHA-256 of its 256-bit token (the token itself is never stored). A
-- user deactivated or deleted loses the feed, whoever made the change
-- (API, console, command line): reactivating does not bring it back.
CREATE TABLE calendar_feeds (
	user_id    INTEGER NOT NULL UNIQUE REFERENCES users (id),
	token_hash BLOB NOT NULL UNIQUE,
	created_at INTEGER NOT NULL
) STRICT;
CREATE TRIGGER calendar_feeds_user_off AFTER UPDATE OF active, deleted_at ON users
	WHEN NEW.active = 0 OR NEW.deleted_at IS NOT NULL
BEGIN
	DELETE FROM calendar_feeds WHERE user_id = NEW.id;
END;
