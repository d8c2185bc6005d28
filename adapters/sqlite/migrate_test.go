package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/matryer/is"

	"counsel/domain/contract"
)

// openUpTo creates the database at path as a Counsel of migration last
// left it, and returns its writer for the test to fill.
func openUpTo(t testing.TB, path string, last int) *sql.DB {
	t.Helper()
	write, err := sql.Open("sqlite", dsn(path, false))
	if err != nil {
		t.Fatal(err)
	}
	write.SetMaxOpenConns(1)
	db := &DB{path: path, write: write, Now: func() time.Time { return t0 }}
	if err := db.migrateUpTo(context.Background(), migrationFS, last); err != nil {
		write.Close()
		t.Fatalf("migrate %s up to %d: %v", path, last, err)
	}
	return write
}

// execAll runs statements, failing the test on the first error.
func execAll(t testing.TB, db *sql.DB, stmts ...string) {
	t.Helper()
	for _, s := range stmts {
		if _, err := db.Exec(s); err != nil {
			t.Fatalf("exec %q: %v", s, err)
		}
	}
}

// dump reads every row of query as text, one line a row.
func dump(t testing.TB, q interface {
	Query(string, ...any) (*sql.Rows, error)
}, query string, args ...any) []string {
	t.Helper()
	rows, err := q.Query(query, args...)
	if err != nil {
		t.Fatalf("query %q: %v", query, err)
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		out = append(out, fmt.Sprintf("%v", vals))
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// state is what migration 0008 must keep: every table's rows (the
// full-text index's shadow tables included) and the planner statistics.
func state(t testing.TB, q interface {
	Query(string, ...any) (*sql.Rows, error)
}) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	for _, name := range dump(t, q, `SELECT name FROM sqlite_schema WHERE type = 'table'
		AND name NOT IN ('schema_migrations', 'sqlite_sequence', 'contracts_fts') ORDER BY name`) {
		name = strings.Trim(name, "[]")
		order := "rowid"
		if !strings.HasPrefix(name, "sqlite_stat") && len(dump(t, q, `SELECT 1 FROM pragma_table_list WHERE name = '`+name+`' AND wr`)) > 0 {
			order = "1, 2" // WITHOUT ROWID: every such table's key starts with its first columns
		}
		if strings.HasPrefix(name, "sqlite_stat") {
			order = "1, 2"
		}
		out[name] = dump(t, q, "SELECT * FROM "+name+" ORDER BY "+order)
	}
	return out
}

// seed0007 fills a database of migration 0007 the way a running Counsel
// does, ids given by hand to make each case plain.
var seed0007 = []string{
	`INSERT INTO offices (id, name, created_at, updated_at) VALUES (1, 'Sydney', 1, 1), (2, 'Perth', 1, 1)`,
	`INSERT INTO users (id, email, first_name, office_id, created_at, updated_at) VALUES
		(1, 'admin@example.com', 'Ada', 1, 1, 1), (2, 'bo@example.com', 'Bo', 2, 1, 1), (3, 'cy@example.com', 'Cy', NULL, 1, 1)`,
	`UPDATE users SET deleted_at = 5 WHERE id = 3`,
	`INSERT INTO roles (id, name, is_system_admin) VALUES (1, 'Administrator', 1), (2, 'Staff', 0), (3, 'Temp', 0)`,
	`INSERT INTO role_permissions VALUES (1, 'UsersView'), (2, 'ContractView'), (3, 'UsersView')`,
	`INSERT INTO user_roles VALUES (1, 1), (2, 2), (2, 3)`,
	`INSERT INTO sessions VALUES ('s1', 1, 'password', 1, 99, NULL)`,
	`INSERT INTO remunerations (id, staff_id, fte_load, remuneration_inc_super, billing_rate, billable_percentage,
		remuneration_date, commencement_date, cost_per_hour, kpi, kpi_billable, kpi_invoiced, created_at)
		VALUES (1, 2, 10000, 100000, 20000, 8000, 1, 1, 5000, 1, 1, 1, 1), (2, 2, 10000, 100000, 20000, 8000, 2, 1, 5000, 1, 1, 1, 1)`,
	`INSERT INTO pqe_adjustments (id, staff_id, name, start_date, end_date, created_at) VALUES (1, 2, 'Leave', 1, 2, 1)`,
	`INSERT INTO contracts (id, uuid, contract_name, contract_description, contract_type, status, created_at, updated_at)
		VALUES (1, 'u1', 'Warehouse lease', 'keys at reception', 1, 1, 1, 1), (2, 'u2', 'Supply agreement', '', 1, 2, 2, 2)`,
	`INSERT INTO contract_audit (contract_id, action, to_status, actor_kind, actor_user_id, actor_name, at) VALUES
		(1, 'created', 1, 1, 1, 'Ada', 1), (2, 'created', 1, 1, 1, 'Ada', 2)`,
	`INSERT INTO contract_documents (id, contract_id, file_name, content_type, size, sha256, storage_key, uploaded_at, uploaded_by)
		VALUES (1, 1, 'a.pdf', 'application/pdf', 1, 'aa', 'k1', 1, 1), (2, 1, 'b.pdf', 'application/pdf', 1, 'bb', 'k2', 1, 2)`,
	`INSERT INTO signing_templates (id, name, slug, external_id, created_at, updated_at) VALUES (1, 'T1', 't1', 'u1', 1, 1)`,
	`INSERT INTO signing_template_documents VALUES (1, 0, '1', 'a.pdf', 'application/pdf')`,
	`INSERT INTO signing_submissions (id, template_id, signing_order, status, created_at, updated_at)
		VALUES (1, 1, 'preserved', 'pending', 1, 1)`,
	`INSERT INTO signing_submitters (id, submission_id, position, slug, email, status)
		VALUES (1, 1, 0, 'slug-1', 'x@example.com', 'sent'), (2, 1, 1, 'slug-2', 'y@example.com', 'awaiting')`,
	`UPDATE contracts SET digital_contract_id = '1', digital_contract_submission_id = '1', is_digital = 1 WHERE id = 1`,
	`INSERT INTO contract_signing_events VALUES (1, '1', 'completed:x@example.com', 3)`,
}

// nextIDs inserts one row into each table and returns the ids SQLite gave.
func nextIDs(t testing.TB, db *DB) map[string]int64 {
	t.Helper()
	inserts := []struct{ table, query string }{
		{"users", `INSERT INTO users (email, created_at, updated_at) VALUES ('next@example.com', 9, 9)`},
		{"offices", `INSERT INTO offices (name, created_at, updated_at) VALUES ('Next', 9, 9)`},
		{"roles", `INSERT INTO roles (name) VALUES ('Next')`},
		{"contracts", `INSERT INTO contracts (uuid, contract_name, contract_type, status, created_at, updated_at)
			VALUES ('next', 'Brand new lease', 1, 1, 9, 9)`},
		{"contract_documents", `INSERT INTO contract_documents (contract_id, file_name, content_type, size, sha256, storage_key, uploaded_at, uploaded_by)
			VALUES ((SELECT max(id) FROM contracts), 'n.pdf', 'application/pdf', 1, 'nn', 'next', 9, 1)`},
		{"contract_audit", `INSERT INTO contract_audit (contract_id, action, actor_kind, actor_name, at)
			VALUES ((SELECT max(id) FROM contracts), 'edited', 1, 'Ada', 9)`},
		{"remunerations", `INSERT INTO remunerations (staff_id, fte_load, remuneration_inc_super, billing_rate, billable_percentage,
			remuneration_date, commencement_date, cost_per_hour, kpi, kpi_billable, kpi_invoiced, created_at)
			VALUES ((SELECT max(id) FROM users), 10000, 1, 1, 1, 9, 1, 1, 1, 1, 1, 9)`},
		{"pqe_adjustments", `INSERT INTO pqe_adjustments (staff_id, name, start_date, end_date, created_at)
			VALUES ((SELECT max(id) FROM users), 'Next', 1, 2, 9)`},
		{"signing_templates", `INSERT INTO signing_templates (name, slug, created_at, updated_at) VALUES ('Next', 'next', 9, 9)`},
		{"signing_submissions", `INSERT INTO signing_submissions (template_id, signing_order, status, created_at, updated_at)
			VALUES ((SELECT max(id) FROM signing_templates), 'random', 'pending', 9, 9)`},
		{"signing_submitters", `INSERT INTO signing_submitters (submission_id, position, slug, email, status)
			VALUES ((SELECT max(id) FROM signing_submissions), 9, 'next', 'n@example.com', 'awaiting')`},
	}
	out := map[string]int64{}
	for _, in := range inserts {
		res, err := db.write.Exec(in.query)
		if err != nil {
			t.Fatalf("insert into %s: %v", in.table, err)
		}
		if out[in.table], err = res.LastInsertId(); err != nil {
			t.Fatal(err)
		}
	}
	return out
}

// TestMigration0008 migrates databases of 0007 and checks that data,
// schema, statistics and search come through, and that each table's next
// id is above every id it ever gave out.
func TestMigration0008(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	// The schema every database must have after 0008: a new one's.
	fresh := openUpTo(t, filepath.Join(t.TempDir(), "fresh.db"), 8)
	wantSchema := dump(t, fresh, `SELECT type, name, tbl_name, sql FROM sqlite_schema ORDER BY name`)
	fresh.Close()

	next := func(contracts, documents, audit, users, roles, offices, rems, pqes, templates, submissions, submitters int64) map[string]int64 {
		return map[string]int64{"contracts": contracts, "contract_documents": documents, "contract_audit": audit,
			"users": users, "roles": roles, "offices": offices, "remunerations": rems, "pqe_adjustments": pqes,
			"signing_templates": templates, "signing_submissions": submissions, "signing_submitters": submitters}
	}
	tests := []struct {
		name string
		seed []string
		want map[string]int64 // the next ids
		// history is the audit trail per contract id after the migration.
		history map[int64][]string
		search  map[string][]string // term: the names found
	}{
		{
			name: "empty database",
			want: next(1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1),
		},
		{
			// Before 0008: role 3 and contract 2 were deleted and their ids
			// handed out again; document 3 was removed after a template
			// named it; signing ids from the contracts' text columns and
			// an actor id (a user removed by hand) outrun their tables.
			name: "ids already reused",
			seed: append(seed0007[:len(seed0007):len(seed0007)],
				`DELETE FROM roles WHERE id = 3`,
				`INSERT INTO roles (id, name) VALUES (3, 'Temp again')`,
				`INSERT INTO contract_audit (contract_id, action, actor_kind, actor_user_id, actor_name, at) VALUES
					(2, 'deleted', 1, 1, 'Ada', 3)`,
				`DELETE FROM contracts WHERE id = 2`,
				`INSERT INTO contracts (id, uuid, contract_name, contract_type, status, created_at, updated_at)
					VALUES (2, 'u2b', 'Stranger''s lease', 1, 1, 4, 4)`,
				`INSERT INTO contract_audit (contract_id, action, to_status, actor_kind, actor_user_id, actor_name, at) VALUES
					(2, 'created', 1, 1, 9, 'Gone', 4)`,
				`INSERT INTO contract_documents (id, contract_id, file_name, content_type, size, sha256, storage_key, uploaded_at, uploaded_by)
					VALUES (3, 1, 'c.pdf', 'application/pdf', 1, 'cc', 'k3', 1, 1)`,
				`INSERT INTO signing_template_documents VALUES (1, 1, '3', 'c.pdf', '')`,
				`DELETE FROM contract_documents WHERE id = 3`,
				`UPDATE contracts SET digital_contract_id = '7', digital_contract_submission_id = '12', is_digital = 1 WHERE id = 2`,
				`INSERT INTO contract_signing_events VALUES (2, 'docuseal-abc', 'submission.completed', 5)`,
			),
			want: next(3, 4, 5, 10, 4, 3, 3, 2, 8, 13, 3),
			history: map[int64][]string{
				1: {"created"},
				2: {"created", "deleted", "created"}, // merged before 0008: stays so
			},
			search: map[string][]string{"lease": {"Warehouse lease", "Stranger's lease", "Brand new lease"}, "supply": nil, "recep": {"Warehouse lease"}},
		},
		{
			// The newest contract was deleted: its id lives only in the
			// audit trail, and its removed document's only in a history
			// entry. An office deleted by hand before 0008 leaves no
			// trace, so its id is given again (the one loss 0008 cannot
			// undo).
			name: "newest contract deleted",
			seed: append(seed0007[:len(seed0007):len(seed0007)],
				`INSERT INTO contracts (id, uuid, contract_name, contract_type, status, created_at, updated_at)
					VALUES (3, 'u3', 'Short-lived lease', 1, 1, 3, 3)`,
				`INSERT INTO contract_documents (id, contract_id, file_name, content_type, size, sha256, storage_key, uploaded_at, uploaded_by)
					VALUES (7, 3, 'd.pdf', 'application/pdf', 1, 'dd', 'k7', 3, 1)`,
				`INSERT INTO contract_audit (contract_id, action, to_status, actor_kind, actor_user_id, actor_name, at, details) VALUES
					(3, 'created', 1, 1, 1, 'Ada', 3, ''),
					(3, 'documentRemoved', NULL, 1, 1, 'Ada', 4, 'odd (document 99 name).pdf (document 7)'),
					(3, 'deleted', NULL, 1, 1, 'Ada', 5, 'deleted "Short-lived lease" (u3)')`,
				`DELETE FROM contracts WHERE id = 3`,
				`UPDATE users SET office_id = NULL WHERE id = 2`,
				`DELETE FROM offices WHERE id = 2`,
			),
			want: next(4, 8, 6, 4, 4, 2, 3, 2, 2, 2, 3),
			history: map[int64][]string{
				1: {"created"},
				2: {"created"},
				3: {"created", "documentRemoved", "deleted"},
			},
			search: map[string][]string{"lease": {"Warehouse lease", "Brand new lease"}, "short": nil, "supply": {"Supply agreement"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			path := filepath.Join(t.TempDir(), "counsel.db")
			old := openUpTo(t, path, 7)
			execAll(t, old, tt.seed...)
			before := state(t, old)
			is.NoErr(old.Close())

			// 0008 alone first, to compare with 0007; then the rest.
			mid := openUpTo(t, path, 8)
			is.Equal(dump(t, mid, `SELECT name FROM schema_migrations WHERE version = 8`), []string{"[0008_never_reused_ids.sql]"})
			after := state(t, mid)
			is.Equal(len(after), len(before))
			for table, rows := range before {
				if strings.Join(after[table], "\n") != strings.Join(rows, "\n") {
					t.Errorf("%s changed:\nbefore %q\nafter  %q", table, rows, after[table])
				}
			}
			is.Equal(dump(t, mid, `SELECT type, name, tbl_name, sql FROM sqlite_schema ORDER BY name`), wantSchema)
			is.Equal(dump(t, mid, `PRAGMA foreign_key_check`), []string(nil))
			is.Equal(dump(t, mid, `PRAGMA foreign_keys`), []string{"[1]"}) // back on for the writer
			is.Equal(dump(t, mid, `PRAGMA integrity_check`), []string{"[ok]"})
			is.NoErr(mid.Close())

			db := openPath(t, path)
			// 0014 removed the statistics 0003 and 0007 wrote by hand for
			// a table of 100,000 contracts (what Open's PRAGMA optimize
			// measures instead is the table's own).
			is.Equal(scalar[int](t, db, `SELECT count(*) FROM sqlite_stat1 WHERE stat LIKE '100000 %' OR stat LIKE '50000 %'`), 0)
			// The full-text index still matches its content table.
			exec(t, db, `INSERT INTO contracts_fts (contracts_fts, rank) VALUES ('integrity-check', 1)`)

			is.Equal(nextIDs(t, db), tt.want)
			// Once more after a delete: the id deleted is not handed out.
			exec(t, db, `DELETE FROM contracts WHERE id = ?`, tt.want["contracts"])
			exec(t, db, `INSERT INTO contracts (uuid, contract_name, contract_type, status, created_at, updated_at)
				VALUES ('again', 'Again', 1, 1, 9, 9)`)
			is.Equal(scalar[int64](t, db, `SELECT max(id) FROM contracts`), tt.want["contracts"]+1)
			exec(t, db, `DELETE FROM contracts WHERE uuid = 'again'`) // the search below looks for "Brand new lease"
			exec(t, db, `INSERT INTO contracts (uuid, contract_name, contract_type, status, created_at, updated_at)
				VALUES ('next2', 'Brand new lease', 1, 1, 9, 9)`)

			store := NewContractStore(db)
			for id, want := range tt.history {
				h, _, err := store.History(ctx, id, 100, 0)
				is.NoErr(err)
				var got []string
				for i := len(h) - 1; i >= 0; i-- {
					got = append(got, string(h[i].Action))
				}
				is.Equal(got, want) // history of contract id
			}
			for term, want := range tt.search {
				cs, _, err := store.Contracts(ctx, contract.Filter{Search: term, Limit: 10, SortBy: contract.SortCreatedAt})
				is.NoErr(err)
				var got []string
				for _, c := range cs {
					got = append(got, c.Name)
				}
				is.Equal(got, want) // search for term
			}
		})
	}
}

// TestIntegerIDsAutoincrement keeps the rule 0008 set for every table a
// later migration adds: a table whose key is an integer row id takes
// AUTOINCREMENT, so a deleted row's id is never handed out again. The
// exceptions are keyed by a number they are given, not one SQLite picks.
func TestIntegerIDsAutoincrement(t *testing.T) {
	t.Parallel()
	db := openDB(t)
	given := map[string]bool{
		"schema_migrations": true, // the migration's number
		"user_totp":         true, // the user's id
		"totp_keys":         true, // one row, its id neither shown nor referenced
		"contract_terms":    true, // the search's word list (0012): rows are never deleted, so no id is freed
	}
	tables := dump(t, db.read, `SELECT l.name, s.sql FROM pragma_table_list AS l JOIN sqlite_schema AS s ON s.name = l.name
		WHERE l.schema = 'main' AND l.type = 'table' AND NOT l.wr AND l.name NOT LIKE 'sqlite\_%' ESCAPE '\'`)
	if len(tables) < 15 {
		t.Fatalf("only %d tables listed", len(tables))
	}
	for _, row := range tables {
		name, def, _ := strings.Cut(strings.Trim(row, "[]"), " ")
		pk := dump(t, db.read, `SELECT type FROM pragma_table_info(?) WHERE pk > 0`, name)
		if len(pk) != 1 || !strings.EqualFold(pk[0], "[INTEGER]") || given[name] {
			continue
		}
		if !strings.Contains(strings.ToUpper(def), "AUTOINCREMENT") {
			t.Errorf("table %s: its INTEGER PRIMARY KEY needs AUTOINCREMENT (ids are never reused)", name)
		}
	}
}

// TestMigrationForeignKeysOff checks the runner's rules for a migration
// that rebuilds tables: it commits only when every index and trigger is
// back and no reference is broken, and foreign keys are on again after.
func TestMigrationForeignKeysOff(t *testing.T) {
	t.Parallel()
	const base = `CREATE TABLE parent (id INTEGER PRIMARY KEY, name TEXT NOT NULL) STRICT;
CREATE INDEX parent_name ON parent (name);
CREATE TABLE child (id INTEGER PRIMARY KEY, parent_id INTEGER NOT NULL REFERENCES parent (id) ON DELETE CASCADE) STRICT;
CREATE TRIGGER parent_upper AFTER INSERT ON parent BEGIN UPDATE parent SET name = upper(name) WHERE id = new.id; END;
INSERT INTO parent VALUES (1, 'a'), (2, 'b');
INSERT INTO child VALUES (1, 1), (2, 2);
`
	const rebuild = `-- migrate: foreign keys off
CREATE TABLE new_parent (id INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT NOT NULL) STRICT;
INSERT INTO new_parent SELECT * FROM parent;
DROP TABLE parent;
ALTER TABLE new_parent RENAME TO parent;
`
	const restore = `CREATE INDEX parent_name ON parent (name);
CREATE TRIGGER parent_upper AFTER INSERT ON parent BEGIN UPDATE parent SET name = upper(name) WHERE id = new.id; END;
`
	tests := []struct {
		name, second, err string
	}{
		{"rebuilt with its index and trigger", rebuild + restore, ""},
		{"index forgotten", rebuild + `CREATE TRIGGER parent_upper AFTER INSERT ON parent BEGIN UPDATE parent SET name = upper(name) WHERE id = new.id; END;`,
			"index parent_name is missing"},
		{"index changed", rebuild + strings.Replace(restore, "(name)", "(name, id)", 1), "index parent_name changed"},
		{"index added", rebuild + restore + `CREATE INDEX parent_extra ON parent (id, name);`, "index parent_extra is new"},
		{"reference broken", rebuild + restore + `DELETE FROM parent WHERE id = 2;`, "row 2 of child refers to a missing row of parent"},
		{"without the marker", strings.TrimPrefix(rebuild, "-- migrate: foreign keys off\n") + restore, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			fsys := fstest.MapFS{
				"migrations/0001_base.sql":    {Data: []byte(base)},
				"migrations/0002_rebuild.sql": {Data: []byte(tt.second)},
			}
			path := filepath.Join(t.TempDir(), "m.db")
			write, err := sql.Open("sqlite", dsn(path, false))
			is.NoErr(err)
			defer write.Close()
			write.SetMaxOpenConns(1)
			db := &DB{path: path, write: write, Now: func() time.Time { return t0 }}
			err = db.migrateUpTo(context.Background(), fsys, 2)
			applied := dump(t, write, `SELECT version FROM schema_migrations ORDER BY version`)
			is.Equal(dump(t, write, `PRAGMA foreign_keys`), []string{"[1]"}) // on again, whatever happened
			if tt.name == "without the marker" {
				// With foreign keys on, dropping the parent deletes the
				// children: the reason for the marker.
				is.NoErr(err)
				is.Equal(dump(t, write, `SELECT count(*) FROM child`), []string{"[0]"})
				return
			}
			if tt.err != "" {
				is.True(err != nil && strings.Contains(err.Error(), tt.err)) // the error names the problem
				is.Equal(applied, []string{"[1]"})                           // rolled back
				is.Equal(dump(t, write, `SELECT name FROM sqlite_schema WHERE type = 'index'`), []string{"[parent_name]"})
				is.Equal(dump(t, write, `SELECT count(*) FROM parent`), []string{"[2]"})
				return
			}
			is.NoErr(err)
			is.Equal(applied, []string{"[1]", "[2]"})
			is.Equal(dump(t, write, `SELECT * FROM child ORDER BY id`), []string{"[1 1]", "[2 2]"})
			is.True(strings.Contains(dump(t, write, `SELECT sql FROM sqlite_schema WHERE name = 'parent'`)[0], "AUTOINCREMENT"))
		})
	}
}

// TestOpenOddPath opens databases whose paths hold the characters a URI
// gives a meaning to: each must open its own file, not a shared prefix.
func TestOpenOddPath(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	dir := t.TempDir()
	for _, name := range []string{"a#1.db", "a?2.db", "a%233.db", "a"} {
		db, err := Open(context.Background(), filepath.Join(dir, name))
		is.NoErr(err)
		is.NoErr(db.Close())
	}
	entries, err := filepath.Glob(filepath.Join(dir, "*.db"))
	is.NoErr(err)
	is.Equal(len(entries), 3) // a#1.db, a?2.db and a%233.db, each its own file
}

// TestMigration0019: bytes an earlier release left without a row (kept in
// their own transaction, the row never written) go once they are an hour
// old; a younger one stays (a process of that release may still be
// between its bytes and its row), and so do the bytes rows name. From
// then on, deleting a row deletes its bytes, chunks included, also in a
// connection without foreign keys.
func TestMigration0019(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	path := filepath.Join(t.TempDir(), "counsel.db")
	old := openUpTo(t, path, 18)
	now := time.Now().UnixMilli()
	blob := func(key string, created int64) []string {
		return []string{
			fmt.Sprintf(`INSERT INTO document_blobs (storage_key, size, created_at) VALUES ('%s', 2, %d)`, key, created),
			fmt.Sprintf(`INSERT INTO document_chunks (storage_key, seq, data) VALUES ('%s', 0, x'0102')`, key),
		}
	}
	execAll(t, old,
		`INSERT INTO users (id, email, first_name, created_at, updated_at) VALUES (1, 'a@example.com', 'A', 0, 0)`,
		`INSERT INTO contracts (id, uuid, contract_name, contract_type, status, created_at, updated_at) VALUES (1, 'u1', 'One', 0, 0, 0, 0)`,
		`INSERT INTO contract_documents (id, contract_id, file_name, content_type, size, sha256, storage_key, uploaded_at, uploaded_by)
			VALUES (1, 1, 'a.pdf', 'application/pdf', 2, '', 'named', 0, 1), (2, 1, 'b.pdf', 'application/pdf', 2, '', 'second', 0, 1)`)
	execAll(t, old, blob("named", 0)...)
	execAll(t, old, blob("second", 0)...)
	execAll(t, old, blob("old-orphan", now-2*time.Hour.Milliseconds())...)
	execAll(t, old, blob("young-orphan", now-time.Minute.Milliseconds())...)
	is.NoErr(old.Close())

	db := openPath(t, path)
	keys := func() []string {
		return dump(t, db.read, `SELECT b.storage_key || ':' || (SELECT count(*) FROM document_chunks c WHERE c.storage_key = b.storage_key)
			FROM document_blobs b ORDER BY 1`)
	}
	is.Equal(keys(), []string{"[named:1]", "[second:1]", "[young-orphan:1]"})
	is.Equal(dump(t, db.read, `SELECT count(*) FROM document_chunks WHERE storage_key = 'old-orphan'`), []string{"[0]"})

	// A shell with foreign keys off (the sqlite3 default) deletes a row.
	shell, err := sql.Open("sqlite", "file:"+path)
	is.NoErr(err)
	defer shell.Close()
	execAll(t, shell, `PRAGMA foreign_keys = OFF`, `DELETE FROM contract_documents WHERE id = 2`)
	is.Equal(keys(), []string{"[named:1]", "[young-orphan:1]"})
	_, err = db.write.Exec(`DELETE FROM contracts WHERE id = 1`) // its documents by cascade
	is.NoErr(err)
	is.Equal(keys(), []string{"[young-orphan:1]"})
}

// TestMigration0027: an existing contract's owner is the user of its
// created entry, and its notice date its end date.
func TestMigration0027(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	path := filepath.Join(t.TempDir(), "counsel.db")
	old := openUpTo(t, path, 26)
	execAll(t, old,
		`INSERT INTO users (id, email, first_name, created_at, updated_at) VALUES (1, 'a@example.com', 'A', 0, 0), (2, 'b@example.com', 'B', 0, 0)`,
		`INSERT INTO contracts (id, uuid, contract_name, contract_type, status, end_date, created_at, updated_at)
			VALUES (1, 'u1', 'One', 1, 1, 86400000, 0, 0), (2, 'u2', 'Two', 1, 1, NULL, 0, 0), (3, 'u3', 'Three', 1, 1, NULL, 0, 0)`,
		`INSERT INTO contract_audit (contract_id, action, to_status, actor_kind, actor_user_id, actor_name, at)
			VALUES (1, 'created', 1, 1, 2, 'B', 0), (1, 'updated', NULL, 1, 1, 'A', 1), (2, 'created', 1, 1, 1, 'A', 0)`)
	is.NoErr(old.Close())

	db := openPath(t, path)
	is.Equal(dump(t, db.read, `SELECT id || ':' || coalesce(owner_id, 'none') || ':' || coalesce(notice_date, 'none') || ':' || auto_renew
		FROM contracts ORDER BY id`), []string{"[1:2:86400000:0]", "[2:1:none:0]", "[3:none:none:0]"})
}
