package sqlite

import (
	"context"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/matryer/is"

	"counsel/domain/contract"
	"counsel/tools/bench/contractgen"
)

func TestContractTerms(t *testing.T) {
	t.Parallel()
	tests := []struct {
		text string
		want []string
	}{
		{"", nil},
		{"Standard Lease 42", []string{"standard", "lease", "42"}},
		{"under_score, 100%sure", []string{"under", "score", "100", "sure"}},
		{"Ünïcode straße", []string{"Ünïcode", "straße"}},
		{"\u212Aelvin ſtandard", []string{"\u212Aelvin", "ſtandard"}},
	}
	for _, tt := range tests {
		t.Run(tt.text, func(t *testing.T) {
			is := is.New(t)
			is.Equal(contractTerms(nil, tt.text), tt.want)
		})
	}
}

// naiveContracts is the plain query of a list: the documented search
// (trigram phrase, or LIKE under three characters) with every other
// condition, sorted, counted and paged by SQLite as written.
func naiveContracts(t *testing.T, db *DB, f contract.Filter) ([]int64, int64) {
	t.Helper()
	ctx := context.Background()
	where, args := whereContracts(f)
	dir := "ASC"
	if f.SortDesc {
		dir = "DESC"
	}
	order := fmt.Sprintf(" ORDER BY %s %s, c.id %s", sortColumns[f.SortBy], dir, dir)
	var count int64
	if err := db.read.QueryRowContext(ctx, `SELECT count(*) FROM contracts c NOT INDEXED`+where, args...).Scan(&count); err != nil {
		t.Fatal(err)
	}
	tx, err := db.read.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	ids, err := queryIDs(ctx, tx, `SELECT c.id FROM contracts c NOT INDEXED`+where+order+` LIMIT ? OFFSET ?`, append(args, f.Limit, f.Offset)...)
	if err != nil {
		t.Fatal(err)
	}
	return ids, count
}

// oddText is text the word path must treat as contracts_fts does: case,
// punctuation, non-ASCII letters, letters that fold to ASCII ones (the
// Kelvin sign, the long s), words that look like the word index's tags.
var oddText = []string{"STANDARD", "Standards", "nonstandard", "\u212Aelvin", "kelvin", "ſtandard", "straße", "Ünïcode",
	"under_score", "100%sure", "a-b-c", "x", "s4", "t1 g1 d0", "lease42", "42lease", `say "hi"`, "tab\there", "éclair", "ECLAIR"}

// randomContracts makes n contracts of both generated shapes with odd
// text mixed in.
func randomContracts(rnd *rand.Rand, n int) []contract.Contract {
	cs := append(contractgen.Legal.Make(n/2, rnd.Uint64(), t0), contractgen.Archive.Make(n-n/2, rnd.Uint64(), t0)...)
	for i := range cs {
		cs[i].UUID = fmt.Sprintf("uuid-%d", i)
		if rnd.IntN(3) == 0 {
			cs[i].Name += " " + oddText[rnd.IntN(len(oddText))]
		}
		if rnd.IntN(4) == 0 {
			cs[i].Comments += oddText[rnd.IntN(len(oddText))] + oddText[rnd.IntN(len(oddText))]
		}
	}
	return cs
}

// importedDB opens a database holding n contracts of randomContracts,
// imported in bulk.
func importedDB(t *testing.T, rnd *rand.Rand, n int) (*DB, *ContractStore, []contract.Contract) {
	t.Helper()
	db := openDB(t)
	s := NewContractStore(db)
	cs := randomContracts(rnd, n)
	if err := s.ImportContracts(context.Background(), cs, 1); err != nil {
		t.Fatal(err)
	}
	return db, s, cs
}

// randomTerm is a search term: a piece of a word of some contract's
// text, in any case, sometimes odd.
func randomTerm(rnd *rand.Rand, cs []contract.Contract) string {
	if rnd.IntN(6) == 0 {
		return oddText[rnd.IntN(len(oddText))]
	}
	c := cs[rnd.IntN(len(cs))]
	words := strings.Fields(c.Name + " " + c.Description + " " + c.Comments)
	w := []rune(words[rnd.IntN(len(words))])
	i := rnd.IntN(len(w))
	j := i + 1 + rnd.IntN(len(w)-i)
	term := []rune(string(w[i:j]))
	for k := range term {
		if rnd.IntN(3) == 0 {
			term[k] = []rune(strings.ToUpper(string(term[k])))[0]
		}
	}
	return string(term)
}

func randomFilter(rnd *rand.Rand, cs []contract.Contract) contract.Filter {
	f := contract.Filter{SortBy: contract.SortField(rnd.IntN(6)), SortDesc: rnd.IntN(2) == 0,
		Limit: int64([]int{0, 1, 20, 100}[rnd.IntN(4)]), Offset: int64([]int{0, 0, 0, 5, 50, 300}[rnd.IntN(6)])}
	if rnd.IntN(4) > 0 {
		f.Search = randomTerm(rnd, cs)
	}
	for range rnd.IntN(3) {
		f.Statuses = append(f.Statuses, contract.Status(1+rnd.IntN(8)))
	}
	if rnd.IntN(4) == 0 {
		f.Types = append(f.Types, contract.Type(1+rnd.IntN(6)))
	}
	if rnd.IntN(4) == 0 {
		b := rnd.IntN(2) == 0
		f.IsSigned = &b
	}
	if rnd.IntN(5) == 0 {
		b := rnd.IntN(2) == 0
		f.IsDigital = &b
	}
	if rnd.IntN(5) == 0 {
		from := t0.AddDate(-rnd.IntN(5), 0, 0)
		f.StartFrom = &from
	}
	if rnd.IntN(8) == 0 {
		f.Related = contract.RelatedMatter
	}
	return f
}

// TestWordSearchMatchesNaive checks the fast paths of a contract list
// (stored counts, the word index, walking or sorting) against the plain
// query, ids and count, over random contracts and filters, after inserts,
// edits, status changes and deletes.
func TestWordSearchMatchesNaive(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	rnd := rand.New(rand.NewPCG(17, 12))
	db, s, cs := importedDB(t, rnd, 600)
	for i := range 60 { // edits through the store: new words, other statuses, deletes
		id := int64(1 + rnd.IntN(len(cs)))
		if i%10 == 0 {
			_, err := s.DeleteContract(ctx, id, func(contract.Contract) ([]contract.AuditEntry, error) { return nil, nil })
			if err != nil && code(err) != "not_found" {
				t.Fatal(err)
			}
			continue
		}
		_, err := s.UpdateContract(ctx, id, func(c *contract.Contract) ([]contract.AuditEntry, error) {
			c.Name = oddText[rnd.IntN(len(oddText))] + " renamed" + fmt.Sprint(i)
			c.Status, c.Type, c.IsSigned = contract.Status(1+rnd.IntN(8)), contract.Type(1+rnd.IntN(6)), rnd.IntN(2) == 0
			c.UpdatedAt = t0.Add(time.Duration(i) * time.Minute)
			return nil, nil
		})
		if err != nil && code(err) != "not_found" {
			t.Fatal(err)
		}
	}
	for _, mode := range []struct {
		name      string
		plan      func(matches, total, need int64) int
		threshold int64
		probe     int
	}{
		{"as configured", defaultKnobs.wordPlan, defaultKnobs.walkThreshold, defaultKnobs.searchProbe},
		{"walk, listing", func(int64, int64, int64) int { return walkListed }, 0, 5},
		{"walk, probing", func(int64, int64, int64) int { return walkProbing }, 0, 5},
		{"sort", func(int64, int64, int64) int { return sortMatches }, 1 << 40, 1 << 20},
	} {
		s.knobs = listKnobs{walkThreshold: mode.threshold, searchProbe: mode.probe, wordPlan: mode.plan}
		for i := range 80 {
			f := randomFilter(rnd, cs)
			got, count, err := s.Contracts(ctx, f)
			if err != nil {
				t.Fatalf("%s %d: %+v: %v", mode.name, i, f, err)
			}
			wantIDs, wantCount := naiveContracts(t, db, f)
			gotIDs := []int64{}
			for _, c := range got {
				gotIDs = append(gotIDs, c.ID)
			}
			if count != wantCount || !slices.Equal(gotIDs, wantIDs) {
				t.Fatalf("%s %d: filter %+v (search %q):\ncount %d, want %d\nids %v\nwant %v", mode.name, i, f, f.Search, count, wantCount, gotIDs, wantIDs)
			}
		}
	}
}

// contractTerms appends to dst the words of texts as FTS5's ascii
// tokenizer makes them: runs of bytes that are ASCII letters or digits or
// not ASCII, with ASCII letters folded to lower case. It is the reference
// for the triggers of migration 0014, which fill contract_terms.
func contractTerms(dst []string, texts ...string) []string {
	for _, t := range texts {
		start := -1
		for i := 0; i <= len(t); i++ {
			if i < len(t) && (t[i] >= 0x80 || asciiAlnum(t[i])) {
				if start < 0 {
					start = i
				}
				continue
			}
			if start >= 0 {
				dst = append(dst, strings.Map(func(r rune) rune {
					if r >= 'A' && r <= 'Z' {
						return r + 'a' - 'A'
					}
					return r
				}, t[start:i]))
				start = -1
			}
		}
	}
	return dst
}

// TestContractTermsTriggers checks that contract text written by plain
// SQL, not through the store, lands in contract_terms word for word as
// the ascii tokenizer splits it, on insert and on update, and that a
// substring search then finds it through the word path.
func TestContractTermsTriggers(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := openDB(t)
	var all []string
	for i := 1; i < 128; i++ { // every ASCII byte but NUL, each between two words
		all = append(all, fmt.Sprintf("w%dx%cy%d", i, rune(i), i))
	}
	texts := append(append([]string{}, oddText...), strings.Join(all, ""), "Zebra-Crossing QUIXOTIC\tboulevard")
	for i, text := range texts {
		is := is.New(t)
		id := int64(i + 1)
		exec(t, db, `INSERT INTO contracts (uuid, contract_name, contract_description, comments, contract_type, status, created_at, updated_at)
			VALUES (?, ?, ?, ?, 1, 1, 1, 1)`, fmt.Sprint("raw-", i), "n"+fmt.Sprint(i), text, "")
		for _, w := range contractTerms(nil, text) {
			is.Equal(scalar[int](t, db, `SELECT count(*) FROM contract_terms WHERE term = ?`, w), 1) // inserted
		}
		exec(t, db, `UPDATE contracts SET comments = ? WHERE id = ?`, "Later"+text+" addendum", id)
		for _, w := range contractTerms(nil, "Later"+text+" addendum") {
			is.Equal(scalar[int](t, db, `SELECT count(*) FROM contract_terms WHERE term = ?`, w), 1) // updated
		}
	}

	s := NewContractStore(db)
	for _, term := range []string{"uixot", "ebra", "BOULEVAR", "ddendu", "w100x"} {
		t.Run(term, func(t *testing.T) {
			is := is.New(t)
			f := contract.Filter{Search: term, Limit: 100}
			tx, err := db.read.BeginTx(ctx, nil)
			is.NoErr(err)
			words, ok, err := wordTerms(ctx, tx, term)
			tx.Rollback()
			is.NoErr(err)
			is.True(ok)             // the word path
			is.True(len(words) > 0) // knows the words
			got, count, err := s.Contracts(ctx, f)
			is.NoErr(err)
			want, wantCount := naiveContracts(t, db, f)
			is.True(wantCount > 0)
			is.Equal(count, wantCount)
			var ids []int64
			for _, c := range got {
				ids = append(ids, c.ID)
			}
			is.Equal(ids, want)
		})
	}

	// An outer INSERT OR REPLACE (which contracts_fts itself does not
	// survive: its delete trigger does not fire) leaves the trigram index
	// of the words whole.
	exec(t, db, `INSERT OR REPLACE INTO contracts (id, uuid, contract_name, contract_type, status, created_at, updated_at)
		VALUES (1, 'raw-0', 'boulevard quixotic', 1, 1, 2, 2)`)
	exec(t, db, `INSERT INTO contract_terms_fts (contract_terms_fts) VALUES ('integrity-check')`)
}

// checkContractIndexes fails t unless everything the triggers keep for
// the contracts is exactly what their rows say: the stored counts, the
// trigram index (FTS5's integrity check compares it with the rows), the
// word index word for word and column for column (its contentless
// content compared through fts5vocab with contractTerms of each row),
// contract_terms holding every word, and the word counts per status.
func checkContractIndexes(t *testing.T, db *DB) {
	t.Helper()
	ctx := context.Background()
	is := is.NewRelaxed(t)
	is.Equal(scalar[int](t, db, `SELECT count(*) FROM (
		SELECT status, contract_type, is_signed, is_digital, count(*) AS n FROM contracts GROUP BY 1, 2, 3, 4
		EXCEPT SELECT status, contract_type, is_signed, is_digital, n FROM contract_counts WHERE n > 0)`), 0) // no count missing or wrong
	is.Equal(scalar[int](t, db, `SELECT count(*) FROM contract_counts WHERE n < 0 OR n > 0 AND NOT EXISTS (SELECT 1 FROM contracts c
		WHERE (c.status, c.contract_type, c.is_signed, c.is_digital) = (contract_counts.status, contract_counts.contract_type,
		contract_counts.is_signed, contract_counts.is_digital))`), 0) // no count of nothing
	exec(t, db, `INSERT INTO contracts_fts (contracts_fts) VALUES ('integrity-check')`)
	exec(t, db, `INSERT INTO contracts_words (contracts_words) VALUES ('integrity-check')`)
	exec(t, db, `INSERT INTO contract_terms_fts (contract_terms_fts) VALUES ('integrity-check')`)

	type entry struct {
		doc  int64
		col  string
		term string
	}
	want := map[entry]bool{}
	terms := map[string]bool{}
	type termStatus struct {
		term   string
		status int
	}
	wantCounts := map[termStatus]int64{}
	rows, err := db.write.QueryContext(ctx, `SELECT id, status, contract_name, contract_description, comments,
		's' || status || ' t' || contract_type || ' g' || is_signed || ' d' || is_digital FROM contracts`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var id int64
		var status int
		var cols [4]string
		if err := rows.Scan(&id, &status, &cols[0], &cols[1], &cols[2], &cols[3]); err != nil {
			t.Fatal(err)
		}
		own := map[string]bool{}
		for i, name := range []string{"contract_name", "contract_description", "comments", "tags"} {
			for _, w := range contractTerms(nil, cols[i]) {
				want[entry{id, name, w}] = true
				if i < 3 {
					terms[w] = true
					own[w] = true
				}
			}
		}
		for w := range own {
			wantCounts[termStatus{w, status}]++
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	rows.Close()
	rows, err = db.write.QueryContext(ctx, `SELECT t.term, k.status, k.n FROM contract_term_counts k
		JOIN contract_terms t ON t.id = k.term_id WHERE k.n <> 0`)
	if err != nil {
		t.Fatal(err)
	}
	gotCounts := map[termStatus]int64{}
	for rows.Next() {
		var k termStatus
		var n int64
		if err := rows.Scan(&k.term, &k.status, &n); err != nil {
			t.Fatal(err)
		}
		gotCounts[k] = n
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	rows.Close()
	if !maps.Equal(gotCounts, wantCounts) {
		for k, n := range wantCounts {
			if gotCounts[k] != n {
				t.Errorf("word count of %q with status %d: %d, want %d", k.term, k.status, gotCounts[k], n)
			}
		}
		for k, n := range gotCounts {
			if _, ok := wantCounts[k]; !ok {
				t.Errorf("word count of %q with status %d: %d, want none", k.term, k.status, n)
			}
		}
	}
	exec(t, db, `CREATE VIRTUAL TABLE IF NOT EXISTS temp.contracts_words_instances USING fts5vocab (main, contracts_words, 'instance')`)
	rows, err = db.write.QueryContext(ctx, `SELECT DISTINCT doc, col, term FROM temp.contracts_words_instances`)
	if err != nil {
		t.Fatal(err)
	}
	got := map[entry]bool{}
	for rows.Next() {
		var e entry
		if err := rows.Scan(&e.doc, &e.col, &e.term); err != nil {
			t.Fatal(err)
		}
		got[e] = true
		if !want[e] {
			t.Errorf("the word index holds %q in %s of contract %d", e.term, e.col, e.doc)
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	rows.Close()
	for e := range want {
		if !got[e] {
			t.Errorf("the word index lacks %q in %s of contract %d", e.term, e.col, e.doc)
		}
	}
	rows, err = db.write.QueryContext(ctx, `SELECT term FROM contract_terms`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var w string
		if err := rows.Scan(&w); err != nil {
			t.Fatal(err)
		}
		delete(terms, w)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	for w := range terms {
		t.Errorf("contract_terms lacks %q", w)
	}
}

// TestContractIndexesExact checks what the triggers keep after every way
// contracts are written: a bulk import (many rows to a statement), the
// store's creates, edits and deletes, and plain SQL, REPLACE included:
// a row REPLACE deletes must leave the counts and indexes too.
func TestContractIndexesExact(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	rnd := rand.New(rand.NewPCG(17, 13))
	db, s, cs := importedDB(t, rnd, 400)
	checkContractIndexes(t, db)
	is := is.New(t)
	for _, ix := range fullTextIndexes {
		is.Equal(scalar[int](t, db, `SELECT count(DISTINCT segid) FROM `+ix+`_idx`), 1) // merged after the load
	}
	is.Equal(scalar[int](t, db, `SELECT count(*) FROM contract_audit WHERE action = 'created'`), len(cs)) // an entry each
	is.Equal(scalar[int](t, db, `SELECT count(*) FROM contracts c JOIN contract_audit a ON a.contract_id = c.id
		AND a.to_status = c.status AND a.at = c.created_at`), len(cs)) // with the contract's status and time

	t.Run("store writes", func(t *testing.T) {
		more := randomContracts(rnd, 20)
		for i := range more {
			more[i].UUID = fmt.Sprint("store-", i)
			if _, err := s.CreateContract(ctx, more[i], nil); err != nil {
				t.Fatal(err)
			}
		}
		for i := range 40 {
			id := int64(1 + rnd.IntN(len(cs)))
			_, err := s.UpdateContract(ctx, id, func(c *contract.Contract) ([]contract.AuditEntry, error) {
				switch i % 3 {
				case 0:
					c.Name = oddText[rnd.IntN(len(oddText))] + " renamed" + fmt.Sprint(i)
				case 1:
					c.Description, c.Comments = "", "Comment "+oddText[rnd.IntN(len(oddText))]
				}
				c.Status, c.Type, c.IsSigned = contract.Status(1+rnd.IntN(8)), contract.Type(1+rnd.IntN(6)), rnd.IntN(2) == 0
				return nil, nil
			})
			if err != nil && code(err) != "not_found" {
				t.Fatal(err)
			}
		}
		for range 10 {
			_, err := s.DeleteContract(ctx, int64(1+rnd.IntN(len(cs))), func(contract.Contract) ([]contract.AuditEntry, error) { return nil, nil })
			if err != nil && code(err) != "not_found" {
				t.Fatal(err)
			}
		}
		checkContractIndexes(t, db)
		is := is.New(t)
		is.True(scalar[int](t, db, `SELECT count(DISTINCT segid) FROM contracts_words_idx`) > 1) // the writes' segments
		is.NoErr(db.Optimize(ctx))                                                               // housekeeping merges them
		is.Equal(scalar[int](t, db, `SELECT count(DISTINCT segid) FROM contracts_words_idx`), 1)
		checkContractIndexes(t, db)
	})

	t.Run("plain SQL and REPLACE", func(t *testing.T) { // on few contracts: checked after each statement
		db, s, _ := importedDB(t, rnd, 40)
		live := func() (a, b int64) {
			t.Helper()
			return scalar[int64](t, db, `SELECT min(id) FROM contracts`), scalar[int64](t, db, `SELECT max(id) FROM contracts`)
		}
		a, b := live()
		uuidB := scalar[string](t, db, `SELECT uuid FROM contracts WHERE id = ?`, b)
		for _, q := range []struct {
			sql  string
			args []any
		}{
			{`INSERT OR REPLACE INTO contracts (id, uuid, contract_name, contract_description, contract_type, status, is_signed,
				created_at, updated_at) VALUES (?, 'replaced-same-id', 'Zyzzyva Quokka', 'replaced text', 2, 7, 1, 1, 1)`, []any{a}},
			{`REPLACE INTO contracts (uuid, contract_name, contract_type, status, created_at, updated_at)
				VALUES (?, 'Xylophone of the uuid', 3, 3, 1, 1)`, []any{uuidB}},
			{`UPDATE OR REPLACE contracts SET uuid = 'replaced-same-id', contract_name = 'Wombat', status = 8
				WHERE id = (SELECT max(id) FROM contracts)`, nil}, // deletes the row of id a

			{`INSERT INTO contracts (uuid, contract_name, contract_type, status, created_at, updated_at)
				VALUES ('Wombat', 'Upserted', 1, 1, 1, 1)`, nil},
			{`INSERT INTO contracts (uuid, contract_name, contract_type, status, created_at, updated_at)
				VALUES ('Wombat', 'Upserted again Vicuna', 4, 2, 1, 1)
				ON CONFLICT (uuid) DO UPDATE SET contract_name = excluded.contract_name, status = excluded.status`, nil},
			{`DELETE FROM contracts WHERE id % 3 = 0`, nil},
		} {
			exec(t, db, q.sql, q.args...)
			checkContractIndexes(t, db)
		}
		for _, term := range []string{"zzyv", "xylophon", "ombat", "vicun"} {
			f := contract.Filter{Search: term, Limit: 100}
			got, count, err := s.Contracts(ctx, f)
			if err != nil {
				t.Fatal(err)
			}
			want, wantCount := naiveContracts(t, db, f)
			is := is.New(t)
			is.Equal(count, wantCount)
			is.Equal(len(got), len(want))
		}
	})
}
