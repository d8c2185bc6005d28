// Package transfer moves a whole Counsel database between engines and
// files: `counsel copy` (Copy: SQLite or PostgreSQL into an empty SQLite
// or PostgreSQL database), `counsel backup` (Backup: one consistent
// snapshot into a new SQLite file), the verification of a backup file
// (VerifyBackup) and `counsel restore` (Restore, RestoreReplica). Every
// table and column of the record is carried (copyTables, checked against
// both schemas by TestCopyCarriesEveryColumn), documents with their
// bytes, each verified at the end.
//
// Like app/stores it is part of the composition root: it reads and
// writes the engines' databases directly (adapters/sqlite,
// adapters/postgres), beneath the ports.
package transfer
