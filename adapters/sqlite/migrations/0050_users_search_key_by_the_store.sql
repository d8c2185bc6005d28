-- The stores write users.search_key (user.SearchKey) with every change of
-- a name or an email, in the statement that changes them, as on
-- PostgreSQL; the update trigger would overwrite that key with its own.
-- The insert trigger stays: it fills the key of a row inserted without
-- one (search_key = '').
DROP TRIGGER IF EXISTS users_search_key_update;
