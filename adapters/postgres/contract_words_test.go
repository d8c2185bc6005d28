package postgres

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/matryer/is"

	"counsel/domain/account"
	"counsel/domain/contract"
)

// TestContractWordCounts holds the counts read from contract_postings
// (migration 0007) to the API's search, a case-insensitive substring of
// name, description and comments, after creates, text and status changes
// and deletes; and the postings, per-status counts and word counts to a
// recomputation.
func TestContractWordCounts(t *testing.T) {
	is := is.New(t)
	ctx := context.Background()
	db := openDB(t)
	if _, err := db.Stores().Accounts.Bootstrap(ctx, account.NewUser{Email: "admin@example.com", PasswordHash: "h"}); err != nil {
		t.Fatal(err)
	}
	store := NewContractStore(db)
	now := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	long := strings.Repeat("x", 4000) // a word longer than a btree entry may be
	texts := [][3]string{
		{"Alpha beta", "", ""},
		{"alphabet soup", "standard terms", ""},
		{"Lease " + long, "", "tail"},
		{"Tab\tseparated", "line\nbreak", "100% done_ok"},
		{"Ünïcode STRASSE straße", "", ""},
		{"standard", "nonstandard", "Standardised"},
		{"plain", "", ""},
	}
	ids := make([]int64, len(texts))
	for i, tx := range texts {
		c, err := store.CreateContract(ctx, contract.Contract{UUID: fmt.Sprintf("u-%d", i), Name: tx[0], Description: tx[1],
			Comments: tx[2], Type: contract.LicenseAgreement, Status: contract.Draft, CreatedAt: now, UpdatedAt: now}, nil)
		is.NoErr(err)
		ids[i] = c.ID
	}
	change := func(id int64, fn func(c *contract.Contract)) {
		t.Helper()
		_, err := store.UpdateContract(ctx, id, func(c *contract.Contract) ([]contract.AuditEntry, error) { fn(c); return nil, nil })
		is.NoErr(err)
	}
	change(ids[0], func(c *contract.Contract) { c.Name = "Gamma beta" })
	change(ids[1], func(c *contract.Contract) { c.Status = contract.Signed })
	change(ids[5], func(c *contract.Contract) { c.Status = contract.Signed; c.Comments = "" })
	change(ids[4], func(c *contract.Contract) { c.Amount = nil }) // neither text nor status
	_, err := store.DeleteContract(ctx, ids[6], func(contract.Contract) ([]contract.AuditEntry, error) { return nil, nil })
	is.NoErr(err)

	terms := []string{"alpha", "ALPHA", "gamma", "beta", "bet", "standard", "STAND", "andard", "xxxx", long, "lease " + long[:10],
		"tab", "separated", "tab\tsep", "100%", "_ok", "0%", "straße", "strasse", "ünï", "a b", "ta", "a", "plain",
		"nowhere", "line\nbreak", "%", "___"}
	statuses := [][]contract.Status{nil, {contract.Draft}, {contract.Signed}, {contract.Draft, contract.Signed}}
	for _, term := range terms {
		for _, st := range statuses {
			_, got, err := store.Contracts(ctx, contract.Filter{Search: term, Statuses: st, SortBy: contract.SortUpdatedAt})
			is.NoErr(err)
			var want int64
			is.NoErr(db.QueryRow(ctx, `SELECT count(*) FROM contracts WHERE strpos(search_text, ?) > 0
				AND (cardinality(?::smallint[]) = 0 OR status = ANY (?))`,
				strings.ToLower(strings.TrimSpace(term)), smallints(st), smallints(st)).Scan(&want))
			is.Equal(got, want) // count of term with statuses
		}
	}
	var stray int
	is.NoErr(db.QueryRow(ctx, `WITH want AS (
			SELECT DISTINCT w.word_id, c.status, c.id AS contract_id FROM contracts c,
				regexp_split_to_table(c.search_text, '[ \t\n\r\f\v]+') s JOIN contract_words w ON w.word = s WHERE s <> '')
		SELECT (SELECT count(*) FROM (SELECT * FROM want EXCEPT SELECT * FROM contract_postings) a)
			+ (SELECT count(*) FROM (SELECT * FROM contract_postings EXCEPT SELECT * FROM want) b)`).Scan(&stray))
	is.Equal(stray, 0) // postings differing from a recomputation
	is.NoErr(db.QueryRow(ctx, `SELECT count(*) FROM contract_counts k FULL JOIN
		(SELECT status, count(*) AS n FROM contracts GROUP BY status) c USING (status)
		WHERE coalesce(k.n, 0) <> coalesce(c.n, 0)`).Scan(&stray))
	is.Equal(stray, 0) // per-status counts differing from the table
	is.NoErr(db.QueryRow(ctx, `SELECT count(*) FROM contract_word_counts k FULL JOIN
		(SELECT word_id, status, count(*) AS n FROM contract_postings GROUP BY word_id, status) p USING (word_id, status)
		WHERE coalesce(k.n, 0) <> coalesce(p.n, 0)`).Scan(&stray))
	is.Equal(stray, 0) // word counts differing from the postings
	_, err = db.pool.Exec(ctx, `SELECT contract_words_rebuild()`)
	is.NoErr(err)
	is.NoErr(db.QueryRow(ctx, `SELECT count(*) FROM contract_word_counts k FULL JOIN
		(SELECT word_id, status, count(*) AS n FROM contract_postings GROUP BY word_id, status) p USING (word_id, status)
		WHERE coalesce(k.n, 0) <> coalesce(p.n, 0)`).Scan(&stray))
	is.Equal(stray, 0) // and after a rebuild
}
