package sqlite

import (
	"context"
	"fmt"
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
	ctx := context.Background()
	db := openDB(t)
	s := NewContractStore(db)
	rnd := rand.New(rand.NewPCG(17, 12))
	cs := randomContracts(rnd, 600)
	if err := s.ImportContracts(ctx, cs, 1); err != nil {
		t.Fatal(err)
	}
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
	restore := []func(){}
	defer func() {
		for _, r := range restore {
			r()
		}
	}()
	oldPlan, oldThreshold, oldProbe := wordPlan, walkThreshold, searchProbe
	restore = append(restore, func() { wordPlan, walkThreshold, searchProbe = oldPlan, oldThreshold, oldProbe })
	for _, mode := range []struct {
		name      string
		plan      func(matches, total, need int64) int
		threshold int64
		probe     int
	}{
		{"as configured", oldPlan, oldThreshold, oldProbe},
		{"walk, listing", func(int64, int64, int64) int { return walkListed }, 0, 5},
		{"walk, probing", func(int64, int64, int64) int { return walkProbing }, 0, 5},
		{"sort", func(int64, int64, int64) int { return sortMatches }, 1 << 40, 1 << 20},
	} {
		wordPlan, walkThreshold, searchProbe = mode.plan, mode.threshold, mode.probe
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
