-- Scheduled backup attempts (COUNSEL_BACKUP_DIR): the file each wrote or
-- meant to write, and whether it was written and verified.
CREATE TABLE backup_runs (
	name       text PRIMARY KEY,
	created_at timestamptz(3) NOT NULL,
	size       bigint NOT NULL,
	ok         boolean NOT NULL,
	error      text NOT NULL
);
CREATE INDEX backup_runs_created ON backup_runs (created_at);
