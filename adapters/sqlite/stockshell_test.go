package sqlite

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"

	"counsel/adapters/sqlite/sqlitetest"
	"counsel/domain/contract"

	"github.com/matryer/is"
)

// TestStockShellOpensDatabase opens a populated database with the host's
// sqlite3 shell (Debian's 3.40 on CI): the schema parses,
// integrity_check is ok, every table reads and a .dump loads into a new
// file with the same rows. A contract the shell writes, changes and
// deletes keeps every index exact, and the store's word search finds it.
func TestStockShellOpensDatabase(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "counsel.db")
	db, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	s := NewContractStore(db)
	rnd := rand.New(rand.NewPCG(28, 1))
	if err := s.ImportContracts(ctx, randomContracts(rnd, 300), 1); err != nil {
		t.Fatal(err)
	}
	exec(t, db, `UPDATE contracts SET status = 3, comments = 'Quixotic clause' WHERE id % 7 = 0`)
	exec(t, db, `DELETE FROM contracts WHERE id % 11 = 0`)
	want := scalar[int64](t, db, `SELECT count(*) FROM contracts`)
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}

	is := is.New(t)
	counts := sqlitetest.Check(t, path)
	is.Equal(counts["contracts"], want) // the shell reads every contract
	shell := sqlitetest.Shell(t)
	got := sqlitetest.Run(t, shell, path, nil,
		`SELECT count(*) FROM contracts_words WHERE contracts_words MATCH 'quixotic'`,
		`SELECT count(*) FROM contracts_fts WHERE contracts_fts MATCH '"uixoti"'`)
	n := fmt.Sprint(multiples(7, 11, 300))
	is.Equal(strings.Fields(got), []string{n, n}) // the shell reads the full-text indexes

	// The shell writes: a new contract, a change and a deletion.
	sqlitetest.Run(t, shell, path, nil,
		`INSERT INTO contracts (uuid, contract_name, contract_description, comments, contract_type, status, created_at, updated_at)
			VALUES ('shell-1', 'Zebracrossing accord', 'Written by "sqlite3"; see §4', '', 1, 1, 1, 1)`,
		`UPDATE contracts SET contract_name = 'Boulevard-Marquee', status = 2 WHERE id = 1`,
		`DELETE FROM contracts WHERE id = 2`)

	db = openPath(t, path)
	checkContractIndexes(t, db)
	s = NewContractStore(db)
	for _, term := range []string{"ebracrossin", "ZEBRA", "oulevard", "marquee"} {
		f := contract.Filter{Search: term, Limit: 10}
		items, count, err := s.Contracts(ctx, f)
		is.NoErr(err)             // search
		is.Equal(count, int64(1)) // found by the word search
		is.Equal(len(items), 1)   // listed
		_, wantCount := naiveContracts(t, db, f)
		is.Equal(count, wantCount) // as a plain scan finds
	}
	sqlitetest.Check(t, path)
}

// multiples is the number of ids 1..n that k divides and d does not.
func multiples(k, d, n int) int {
	c := 0
	for id := 1; id <= n; id++ {
		if id%k == 0 && id%d != 0 {
			c++
		}
	}
	return c
}
