package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"strings"

	"counsel/domain/contract"
)

// The word path of a contract search (migration 0012). A term of ASCII
// letters and digits can only be found inside one word of the ascii
// tokenizer (a run of ASCII letters, digits and non-ASCII characters), so
// "the text contains the term" is "the text holds a word containing the
// term". contract_terms lists the words; its trigram index, which folds
// case as contracts_fts does, turns the term into the words containing
// it; contracts_words, a word index with the status, type, signed and
// digital as tags, then finds and counts the contracts holding any of
// them without reading a contract. The result is what contracts_fts finds,
// contract for contract (TestWordSearchMatchesNaive).

// maxWordTerms bounds the words a term may stand for on the word path; a
// term inside more words (a few digits inside thousands of numbers) takes
// the trigram path, where it is as cheap.
const maxWordTerms = 64

// wordable reports whether term can take the word path: at least
// minTrigram ASCII letters and digits and nothing else.
func wordable(term string) bool {
	if len(term) < minTrigram {
		return false
	}
	for i := 0; i < len(term); i++ {
		if !asciiAlnum(term[i]) {
			return false
		}
	}
	return true
}

func asciiAlnum(b byte) bool {
	return b >= '0' && b <= '9' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z'
}

// wordTerms returns the words containing term, and false when term does
// not take the word path (not wordable, or inside too many words).
func wordTerms(ctx context.Context, tx queryer, term string) ([]string, bool, error) {
	if !wordable(term) {
		return nil, false, nil
	}
	rows, err := tx.QueryContext(ctx, `SELECT term FROM contract_terms WHERE id IN
		(SELECT rowid FROM contract_terms_fts WHERE contract_terms_fts MATCH ?) LIMIT ?`, `"`+term+`"`, maxWordTerms+1)
	if err != nil {
		return nil, false, err
	}
	defer rows.Close()
	var terms []string
	for rows.Next() {
		var t string
		if err := rows.Scan(&t); err != nil {
			return nil, false, err
		}
		terms = append(terms, t)
	}
	if err := rows.Err(); err != nil {
		return nil, false, err
	}
	return terms, len(terms) <= maxWordTerms, nil
}

// wordMatch is the FTS5 query of contracts_words for terms and the
// filter's status (unless !status), type, signed and digital conditions.
// The words need no column filter (which costs a third more): a word
// containing a term of three or more characters is never a tag (two
// characters); the tags do, as the text may hold "s4".
func wordMatch(terms []string, f contract.Filter, status bool) string {
	var b strings.Builder
	b.WriteString(`(`)
	for i, t := range terms {
		if i > 0 {
			b.WriteString(" OR ")
		}
		b.WriteString(`"` + strings.ReplaceAll(t, `"`, `""`) + `"`)
	}
	b.WriteString(")")
	tag := func(prefix string, vs []any) {
		if len(vs) == 0 {
			return
		}
		b.WriteString(" AND tags : (")
		for i, v := range vs {
			if i > 0 {
				b.WriteString(" OR ")
			}
			b.WriteString(prefix)
			fmt.Fprint(&b, v)
		}
		b.WriteString(")")
	}
	if status {
		tag("s", intArgs(f.Statuses))
	}
	tag("t", intArgs(f.Types))
	if f.IsSigned != nil {
		tag("g", []any{boolInt(*f.IsSigned)})
	}
	if f.IsDigital != nil {
		tag("d", []any{boolInt(*f.IsDigital)})
	}
	return b.String()
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// wordIndexFields are the conditions the word index answers: the search
// and the tags.
var wordIndexFields = contract.Fields("Search", "Statuses", "Types", "IsSigned", "IsDigital")

// wordCountFields are the conditions the stored word counts answer
// (migration 0025): a search found in one word, and statuses.
var wordCountFields = contract.Fields("Search", "Statuses")

// tagFree is f without the conditions wordMatch puts in the word index;
// whereWith states the rest.
func tagFree(f contract.Filter) contract.Filter {
	f.Search, f.Statuses, f.Types, f.IsSigned, f.IsDigital = "", nil, nil, nil, nil
	return f
}

// wordSearchPage reads the ids of one page of a word search for terms
// and the number of all matches. The count of a term found in one word,
// with or without statuses, comes from the stored word counts; else from
// the word index alone unless the filter has conditions it does not hold
// (dates, related records). The page is read either by sorting the matches'
// rows, or, when there are many, by walking the sort order's index and
// keeping the matches (costPlan).
func (s *ContractStore) wordSearchPage(ctx context.Context, tx queryer, f contract.Filter, terms []string, order string) ([]any, int64, error) {
	if len(terms) == 0 {
		return nil, 0, nil
	}
	match := wordMatch(terms, f, true)
	var count int64
	var err error
	switch {
	case len(terms) == 1 && f.Within(wordCountFields):
		q, args := `SELECT coalesce(sum(n), 0) FROM contract_term_counts
			WHERE term_id = (SELECT id FROM contract_terms WHERE term = ?)`, []any{terms[0]}
		if len(f.Statuses) > 0 {
			q += ` AND status IN (` + placeholders(len(f.Statuses)) + `)`
			args = append(args, intArgs(f.Statuses)...)
		}
		err = tx.QueryRowContext(ctx, q, args...).Scan(&count)
	case f.Within(wordIndexFields):
		err = tx.QueryRowContext(ctx, `SELECT count(*) FROM contracts_words WHERE contracts_words MATCH ?`, match).Scan(&count)
	default:
		w, a := whereWith(tagFree(f), `c.id IN (SELECT rowid FROM contracts_words WHERE contracts_words MATCH ?)`, []any{match})
		err = tx.QueryRowContext(ctx, `SELECT count(*) FROM contracts c NOT INDEXED`+w, a...).Scan(&count)
	}
	if err != nil {
		return nil, 0, err
	}
	if count == 0 || f.Offset >= count {
		return nil, count, nil
	}
	var q string
	var args []any
	total, err := walkRange(ctx, tx, f)
	if err != nil {
		return nil, 0, err
	}
	match1 := `c.id IN (SELECT rowid FROM contracts_words WHERE contracts_words MATCH ?)`
	plan := s.knobs.wordPlan(count, total, f.Offset+f.Limit)
	switch plan {
	case sortMatches:
		w, a := whereWith(tagFree(f), match1, []any{match})
		q, args = `SELECT c.id FROM contracts c NOT INDEXED`+w, a
	default:
		cond, m := match1, match
		if plan == walkProbing {
			cond = `EXISTS (SELECT 1 FROM contracts_words w WHERE w.contracts_words MATCH ? AND w.rowid = c.id)`
		}
		condArgs := []any{m}
		if len(f.Statuses) == 1 { // the status's range of the index
			if plan == walkProbing { // which holds the status: a probe of one list less
				m = wordMatch(terms, f, false)
			}
			cond = `c.status = ? AND ` + cond
			condArgs = []any{int(f.Statuses[0]), m}
		}
		w, a := whereWith(tagFree(f), cond, condArgs)
		q, args = `SELECT c.id FROM contracts c INDEXED BY `+walkIndex(f)+w, a
	}
	page, err := queryIDs(ctx, tx, q+order+` LIMIT ? OFFSET ?`, append(args, f.Limit, f.Offset)...)
	if err != nil {
		return nil, 0, err
	}
	return intArgs(page), count, nil
}

// How a page of a word search is read.
const (
	// sortMatches reads every match's row and sorts them.
	sortMatches = iota
	// walkListed lists the matches' ids once (with a Bloom filter) and
	// walks the sort order's index, keeping the listed ones.
	walkListed
	// walkProbing walks the sort order's index and asks the word index
	// about each contract: a seek in each word's list every time, but
	// nothing listed.
	walkProbing
)

// costPlan picks how to read a page ending at need out of matches of
// total contracts, by the costs measured over 100,000 contracts
// (BenchmarkContractShapes, tools/bench/sq): reading and sorting a match
// about 3 µs, listing one 0.45 µs, probing the word index 60 µs, walking
// an index entry 0.2 µs. Walking meets about need*total/matches
// entries, the matches being spread over the order.
func costPlan(matches, total, need int64) int {
	walked := float64(need) * float64(total) / float64(max(matches, 1))
	sortCost := 3 * float64(matches)
	listCost := 0.45*float64(matches) + 0.2*walked
	probeCost := 60 * walked
	switch {
	case sortCost <= listCost && sortCost <= probeCost:
		return sortMatches
	case listCost <= probeCost:
		return walkListed
	}
	return walkProbing
}

// walkRange is the number of contracts a walk of walkIndex(f) can meet:
// one status's (from the stored counts) or all.
func walkRange(ctx context.Context, tx queryer, f contract.Filter) (int64, error) {
	q, args := `SELECT coalesce(sum(n), 0) FROM contract_counts`, []any(nil)
	if len(f.Statuses) == 1 {
		q, args = q+` WHERE status = ?`, []any{int(f.Statuses[0])}
	}
	var n int64
	err := tx.QueryRowContext(ctx, q, args...).Scan(&n)
	return n, err
}

// storedCountFields are the stored counts' columns.
var storedCountFields = contract.Fields("Statuses", "Types", "IsSigned", "IsDigital")

// storedCount reports whether f's conditions are all among the stored
// counts' columns (status, type, signed, digital), so its count is a sum
// of a few rows of contract_counts. Any other condition, a field added
// later included, counts the contracts themselves.
func storedCount(f contract.Filter) bool {
	return f.Within(storedCountFields)
}

// fullTextIndexes are the FTS5 indexes the triggers on contracts keep:
// the trigram index, the word index and the words' trigram index.
var fullTextIndexes = []string{"contracts_fts", "contracts_words", "contract_terms_fts"}

// mergeFullText merges the segments of indexes: wholly into one each
// when pages is 0 (FTS5's 'optimize'), else by at most about pages pages
// of output each ('merge' with -pages, which merges across levels and
// does nothing to an index of one segment). FTS5 writes a segment per
// transaction (or statement) and merges them only as they pile up, so an
// index is usually read as 5 to 12 segments, and every probe of the word
// index (walkProbing) seeks in each, so its cost grows with the number
// of segments (figures in docs/performance.md).
func mergeFullText(ctx context.Context, x interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
}, pages int, indexes ...string) error {
	for _, ix := range indexes {
		var err error
		if pages == 0 {
			_, err = x.ExecContext(ctx, `INSERT INTO `+ix+` (`+ix+`) VALUES ('optimize')`)
		} else {
			_, err = x.ExecContext(ctx, `INSERT INTO `+ix+` (`+ix+`, rank) VALUES ('merge', ?)`, -pages)
		}
		if err != nil {
			return fmt.Errorf("merge the segments of %s: %w", ix, err)
		}
	}
	return nil
}
