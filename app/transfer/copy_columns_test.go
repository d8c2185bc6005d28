package transfer

import (
	"context"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"counsel/adapters/postgres/pgtest"
	"counsel/app/stores"
)

// notCopied are the tables and columns copy leaves out on purpose, each
// with its reason: what the target rebuilds from the copied rows, what
// travels another way, and what is not the record. A table or column of
// either schema that is neither copied nor here fails
// TestCopyCarriesEveryColumn, so a new one cannot be dropped silently.
var notCopied = map[string]string{
	// Either engine.
	"schema_migrations":  "the target's own migrations",
	"document_blobs":     "written with each document's bytes (copyDocuments)",
	"document_chunks":    "written with each document's bytes (copyDocuments)",
	"backup_runs":        "the scheduled backups of the source's COUNSEL_BACKUP_DIR, not of the target",
	"passkey_challenges": "ceremonies begun in the last five minutes on the source: not the record",
	"contract_counts":    "kept by the target's triggers (SQLite) or rebuilt by the bulk load (PostgreSQL)",
	// SQLite: the search indexes its triggers fill, and SQLite's own.
	"contract_terms":        "filled by the target's triggers",
	"contract_term_counts":  "the word counts per status, kept by the target's word triggers",
	"contract_terms_text":   "the word triggers' one-row scratch table",
	"contracts.is_digital":  "derived from digital_contract_id (engineRows)",
	"contracts.search_text": "derived from the name, description and comments (engineRows)",
	"sqlite_sequence":       "set past the source's marks (setSequences)",
	"sqlite_stat1":          "measured on the target (ANALYZE)",
	"sqlite_stat4":          "measured on the target (ANALYZE)",
	// PostgreSQL: the word index its triggers and the bulk load keep, and
	// the sign-in limit's counters of the last minute.
	"contract_words":       "the word search's index, rebuilt by the target",
	"contract_postings":    "the word search's index, rebuilt by the target",
	"contract_word_counts": "the word counts per status, rebuilt with the postings by the target",
	"auth_rate":            "per-address sign-in counters of the current minute: not the record",
}

// fullTextShadow reports whether a SQLite table is an FTS5 index or one
// of its shadow tables, which the target's triggers fill.
func fullTextShadow(name string) bool {
	for _, p := range []string{"contracts_fts", "contracts_words", "contract_terms_fts"} {
		if name == p || strings.HasPrefix(name, p+"_") {
			return true
		}
	}
	return false
}

// schemaColumns lists "table.column" of every table of s.
func schemaColumns(t *testing.T, s *stores.Stores) map[string][]string {
	t.Helper()
	ctx := context.Background()
	out := map[string][]string{}
	q := `SELECT m.name, p.name FROM sqlite_schema m JOIN pragma_table_info(m.name) p WHERE m.type = 'table'`
	if s.Engine == "postgres" {
		q = `SELECT table_name::text, column_name::text FROM information_schema.columns
			WHERE table_schema = current_schema() AND table_name IN
			(SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE')`
	}
	err := rowsOf(ctx, s, q, 2, func(v []any) error {
		out[asString(v[0])] = append(out[asString(v[0])], asString(v[1]))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestCopyCarriesEveryColumn compares every table and column of both
// engines' schemas with what copy, backup and restore carry
// (copyTables and documentCols) and the reasoned exceptions.
func TestCopyCarriesEveryColumn(t *testing.T) {
	engines := []string{filepath.Join(t.TempDir(), "c.db")}
	if pgtest.Available() || pgtest.Required() {
		engines = append(engines, pgtest.URL(t))
	}
	carried := map[string]map[string]bool{}
	for _, tb := range allTables() {
		carried[tb.name] = map[string]bool{}
		for _, c := range tb.cols {
			carried[tb.name][c.name] = true
		}
	}
	for _, dsn := range engines {
		s, err := stores.Open(context.Background(), dsn, "")
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		t.Run(s.Engine, func(t *testing.T) {
			schema := schemaColumns(t, s)
			var missing []string
			for table, cols := range schema {
				if _, ok := notCopied[table]; ok || fullTextShadow(table) {
					continue
				}
				if carried[table] == nil {
					missing = append(missing, table+" (the whole table)")
					continue
				}
				for _, c := range cols {
					if _, ok := notCopied[table+"."+c]; !ok && !carried[table][c] {
						missing = append(missing, table+"."+c)
					}
				}
			}
			for table, cols := range carried { // and nothing copied that the schema lacks
				have := map[string]bool{}
				for _, c := range schema[table] {
					have[c] = true
				}
				for c := range cols {
					if !have[c] {
						missing = append(missing, "copied but not in the schema: "+table+"."+c)
					}
				}
			}
			sort.Strings(missing)
			for _, m := range missing {
				t.Errorf("%s is not carried by copy, backup and restore: add it to copyTables (or, with a reason, to notCopied)", m)
			}
		})
	}
}
