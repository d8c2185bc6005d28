-- Scheduled backup attempts (COUNSEL_BACKUP_DIR): the file each wrote or
-- meant to write, and whether it was written and verified.
CREATE TABLE backup_runs (
	name       TEXT PRIMARY KEY,
	created_at INTEGER NOT NULL,
	size       INTEGER NOT NULL,
	ok         INTEGER NOT NULL,
	error      TEXT NOT NULL
) STRICT;
CREATE INDEX backup_runs_created ON backup_runs (created_at);
