package sqlite

// The contract list's planner: how a filter becomes a count and a page,
// and which index each query reads. The CRUD is sqlrow's ContractStore,
// the row writes and the import contracts.go;
// the word path of a search is contract_words.go.

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"counsel/adapters/sqlrow"
	"counsel/domain/contract"
	"counsel/ports"
)

var _ ports.ContractStore = (*ContractStore)(nil)

// ContractStore implements ports.ContractStore, written once in sqlrow
// but for the list (this file) and the bulk import (contracts.go).
type ContractStore struct {
	sqlrow.ContractStore
	db *DB
	// knobs are the list planner's thresholds.
	knobs listKnobs
	// trace, when set, is told every query a list runs (the plan tests).
	trace func(query string, args []any)
}

// NewContractStore returns the contract store of db.
func NewContractStore(db *DB) *ContractStore {
	return &ContractStore{ContractStore: sqlrow.NewContractStore(engine{db: db}, contractRows{db}), db: db, knobs: defaultKnobs}
}

// tracer is a queryer that reports each query before running it.
type tracer struct {
	q     queryer
	trace func(query string, args []any)
}

func (t tracer) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	t.trace(query, args)
	return t.q.QueryContext(ctx, query, args...)
}

func (t tracer) QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
	t.trace(query, args)
	return t.q.QueryRowContext(ctx, query, args...)
}

// sortOrder is the ORDER BY clause of f's order, its sort column behind
// prefix: "+" makes it an expression no index can deliver in order.
func sortOrder(f contract.Filter, prefix string) string {
	dir := "ASC"
	if f.SortDesc {
		dir = "DESC"
	}
	return fmt.Sprintf(" ORDER BY %s%s %s, c.id %s", prefix, sortColumns[f.SortBy], dir, dir)
}

// searchHint is the index clause of a count of a search for term: the
// rows of the trigram index's matches (their ids, NOT INDEXED), or for a
// term too short for it, contracts_search, which holds the text behind
// the status. Left to itself the planner may read the matches through a
// filter's index instead, which it cannot tell holds 100,000 entries.
func searchHint(term string) string {
	if utf8.RuneCountInString(term) >= minTrigram {
		return " NOT INDEXED"
	}
	return " INDEXED BY contracts_search"
}

// sortColumns maps each sort field to its ORDER BY expression; each has
// an index ending in id.
var sortColumns = map[contract.SortField]string{
	contract.SortUpdatedAt:    "c.updated_at",
	contract.SortCreatedAt:    "c.created_at",
	contract.SortContractName: "c.contract_name COLLATE NOCASE",
	contract.SortStartDate:    "c.start_date",
	contract.SortEndDate:      "c.end_date",
	contract.SortAmount:       "c.amount",
}

// minTrigram is the shortest search the trigram index can answer; shorter
// ones fall back to LIKE.
const minTrigram = 3

// searchText is the text a LIKE search reads: the searched columns
// joined by a line feed, the expression contracts_search indexes (the
// planner reads it from the index only when written exactly so). A
// search that reads it holds no line feed, so a match never spans two
// columns.
const searchText = `(c.contract_name || char(10) || c.contract_description || char(10) || c.comments)`

// searchCond is the condition of a search for s: a trigram match when
// it is long enough, else LIKE over searchText.
func searchCond(s string) (string, []any) {
	if utf8.RuneCountInString(s) >= minTrigram {
		// A quoted FTS5 string is one phrase: with the trigram
		// tokenizer, a case-insensitive substring.
		return `c.id IN (SELECT rowid FROM contracts_fts WHERE contracts_fts MATCH ?)`,
			[]any{`"` + strings.ReplaceAll(s, `"`, `""`) + `"`}
	}
	return likeCond(s)
}

// likeCond is the condition of a LIKE search for s over searchText. LIKE
// folds ASCII letters only, so it stands for the trigram match only for
// printable ASCII terms (likeable); a term too short for the trigram
// index is matched by LIKE in each of its case forms (caseForms), any of
// them.
func likeCond(s string) (string, []any) {
	forms := caseForms(s)
	conds := make([]string, len(forms))
	args := make([]any, len(forms))
	for i, f := range forms {
		conds[i] = searchText + ` LIKE ? ESCAPE '\'`
		args[i] = "%" + escapeLike(f) + "%"
	}
	if len(conds) == 1 {
		return conds[0], args
	}
	return "(" + strings.Join(conds, " OR ") + ")", args
}

// maxCaseForms bounds the case forms of a LIKE search: past it (a term
// of several letters outside ASCII, which the trigram index answers when
// it has three or more) s is matched as written.
const maxCaseForms = 64

// caseForms returns the spellings of s that differ from it only in the
// case of letters outside ASCII (LIKE folds ASCII letters itself): every
// choice, for each such letter, of a letter with the same lower case.
// A text holds s without regard to case when it holds one of them.
func caseForms(s string) []string {
	forms := []string{""}
	for _, r := range s {
		alts := []rune{r}
		if r >= utf8.RuneSelf {
			alts = foldSame(r)
		}
		if len(forms)*len(alts) > maxCaseForms {
			return []string{s}
		}
		next := make([]string, 0, len(forms)*len(alts))
		for _, f := range forms {
			for _, a := range alts {
				next = append(next, f+string(a))
			}
		}
		forms = next
	}
	return forms
}

// foldSame returns r and the other letters whose lower case is r's, from
// r's case-folding orbit and its lower case's.
func foldSame(r rune) []rune {
	low := unicode.ToLower(r)
	out := []rune{r}
	for _, start := range []rune{r, low} {
		for x := unicode.SimpleFold(start); x != start; x = unicode.SimpleFold(x) {
			if unicode.ToLower(x) == low && !slices.Contains(out, x) {
				out = append(out, x)
			}
		}
		if unicode.ToLower(start) == low && !slices.Contains(out, start) {
			out = append(out, start)
		}
	}
	return out
}

// whereContracts builds the WHERE clause of f and its arguments.
func whereContracts(f contract.Filter) (string, []any) {
	var search string
	var args []any
	if s := strings.TrimSpace(f.Search); s != "" {
		search, args = searchCond(s)
	}
	return whereWith(f, search, args)
}

// whereWith builds the WHERE clause of f's conditions other than the
// search, behind search (a condition with its arguments, or ""), by the
// builder both engines share.
func whereWith(f contract.Filter, search string, searchArgs []any) (string, []any) {
	return sqlrow.ContractWhere(dialect{}, f, search, searchArgs)
}

// escapeLike escapes LIKE's wildcards with a backslash.
func escapeLike(s string) string {
	return strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(s)
}

// listKnobs are the thresholds by which the planner picks how a page is
// read. Fields of the store, so that tests can take every path over a
// small table, each on its own store, in parallel.
type listKnobs struct {
	// walkThreshold is the number of matches above which a page is read
	// by walking the sort order and testing each contract against the
	// filter, rather than finding every match and sorting them: past it a
	// page of 100 turns up within a few thousand contracts of any table.
	walkThreshold int64
	// searchProbe is the number of trigram matches up to which a search
	// takes its matches from the trigram index (per status named). A
	// common word has many more, and reading them and their rows costs
	// tens of milliseconds; past it, a search that names statuses reads
	// their range of contracts_search instead, which costs the same for
	// any word.
	searchProbe int
	// wordPlan picks how a page of a word search is read (costPlan).
	wordPlan func(matches, total, need int64) int
}

var defaultKnobs = listKnobs{walkThreshold: 2000, searchProbe: 500, wordPlan: costPlan}

// filterIndexFields are the conditions contracts_filter holds, and
// filterIndexOwn those only it covers (type, signed, digital).
var (
	filterIndexFields = contract.Fields("Statuses", "Types", "IsSigned", "IsDigital", "StartFrom", "StartTo", "EndFrom", "EndTo")
	filterIndexOwn    = contract.Fields("Types", "IsSigned", "IsDigital")
)

// byFilterIndex reports whether the filter's conditions are all in
// contracts_filter and include one only that index covers: then counting
// reads that narrow index, at worst all of it, and never the table. The
// planner cannot tell this from the statistics: it takes a date range
// for a selective one. Stated positively, so a field added to the filter
// later takes the general path until it is listed here.
func byFilterIndex(f contract.Filter) bool {
	return f.Within(filterIndexFields) && f.Has(filterIndexOwn)
}

// sortIndexes names the index of each order, alone and behind status.
var sortIndexes = map[contract.SortField][2]string{
	contract.SortUpdatedAt:    {"contracts_updated", "contracts_status_updated"},
	contract.SortCreatedAt:    {"contracts_created", "contracts_status_created"},
	contract.SortContractName: {"contracts_name", "contracts_status_name"},
	contract.SortStartDate:    {"contracts_start", "contracts_status_start"},
	contract.SortEndDate:      {"contracts_end", "contracts_status_end"},
	contract.SortAmount:       {"contracts_amount", "contracts_status_amount"},
}

// Contracts implements ports.ContractStore. The count and the page are
// read in one read transaction, so they agree. The page's ids come first
// and only their rows are read, so rows skipped by Offset cost an index
// entry, not a row.
//
// A search is the costly part (reading the trigram index, or LIKE over
// the text), so it runs once: searchPage finds the ids of all matches
// once and reads the page among them. Otherwise the count comes first,
// from a covering index, and decides how the page is read: a few matches
// are found through the filter's indexes and sorted; many are met by
// walking the sort order's index.
func (s *ContractStore) Contracts(ctx context.Context, f contract.Filter) ([]contract.Contract, int64, error) {
	items, count, err := s.list(ctx, f)
	if err != nil {
		return nil, 0, fmt.Errorf("list contracts: %w", err)
	}
	return items, count, nil
}

func (s *ContractStore) list(ctx context.Context, f contract.Filter) ([]contract.Contract, int64, error) {
	where, args := whereContracts(f)
	order := sortOrder(f, "")
	tx, err := s.db.read.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return nil, 0, err
	}
	defer tx.Rollback()
	var q queryer = tx
	if s.trace != nil {
		q = tracer{q, s.trace}
	}
	count := int64(-1)
	var ids []any
	if term := strings.TrimSpace(f.Search); term != "" {
		terms, ok, err := wordTerms(ctx, q, term)
		switch {
		case err != nil:
			return nil, 0, err
		case ok:
			if ids, count, err = s.wordSearchPage(ctx, q, f, terms, order); err != nil {
				return nil, 0, err
			}
		case f.Limit > 0:
			if ids, count, err = s.searchPage(ctx, q, f, term, where, args, order); err != nil {
				return nil, 0, err
			}
		}
	}
	if count < 0 { // not known yet: no search, or Offset past the matches
		from := " FROM contracts c"
		if term := strings.TrimSpace(f.Search); term != "" {
			from += searchHint(term)
		}
		if storedCount(f) {
			if err := q.QueryRowContext(ctx, `SELECT coalesce(sum(n), 0) FROM contract_counts c`+where, args...).Scan(&count); err != nil {
				return nil, 0, err
			}
		} else if byFilterIndex(f) {
			from = " FROM contracts c INDEXED BY contracts_filter"
		}
		if count < 0 {
			if err := q.QueryRowContext(ctx, `SELECT count(*)`+from+where, args...).Scan(&count); err != nil {
				return nil, 0, err
			}
		}
	}
	items := []contract.Contract{}
	if count == 0 || f.Limit == 0 || f.Offset >= count {
		return items, count, nil
	}
	var rows *sql.Rows
	if ids != nil {
		rows, err = q.QueryContext(ctx, `SELECT `+sqlrow.ContractItemCols+` FROM contracts c NOT INDEXED WHERE c.id IN (`+placeholders(len(ids))+`)`+order, ids...)
	} else {
		from, inner := " FROM contracts c", order
		switch {
		case byFilterIndex(f) && f.SortBy == contract.SortUpdatedAt && count <= 4*s.knobs.walkThreshold:
			// contracts_filter ends with updated_at (migration 0015), so
			// its matches sort from the index alone: a few thousand
			// entries cost less than walking the order's index and
			// reading rows to find the rare ones (2,315 of 100,000: the
			// walk reads about 43 rows per contract of the page).
			from += " INDEXED BY contracts_filter"
		case count > s.knobs.walkThreshold:
			from += " INDEXED BY " + walkIndex(f)
		case byFilterIndex(f):
			from += " INDEXED BY contracts_filter"
		default:
			// A few matches: found through the filter's indexes and
			// sorted. The unary + keeps the planner from walking the
			// sort order's index instead, which it would do without
			// statistics (it cannot tell the matches are few).
			inner = sortOrder(f, "+")
		}
		rows, err = q.QueryContext(ctx, `SELECT `+sqlrow.ContractItemCols+` FROM contracts c NOT INDEXED WHERE c.id IN (SELECT c.id`+from+
			where+inner+` LIMIT ? OFFSET ?)`+order, append(args, f.Limit, f.Offset)...)
	}
	if err != nil {
		return nil, 0, err
	}
	defer rows.Close()
	for rows.Next() {
		c, err := sqlrow.ScanContractItem(dialect{}, rows)
		if err != nil {
			return nil, 0, err
		}
		items = append(items, c)
	}
	return items, count, rows.Err()
}

// searchPage reads the ids of one page of a search and the number of all
// matches. A search first finds every match (ids only, from an index),
// then reads the page: the matches' rows sorted when they are few, else
// the sort order's index walked, keeping the matches. Each way the work
// is bounded by the matches or the statuses' share of the table, never
// by a word's frequency in the whole table, except for a common word with
// no status, which reads the trigram index as before.
func (s *ContractStore) searchPage(ctx context.Context, tx queryer, f contract.Filter, term, where string, args []any, order string) ([]any, int64, error) {
	long := utf8.RuneCountInString(term) >= minTrigram
	if long && !likeable(term) { // only the trigram index folds its case
		return pageWithCount(ctx, tx, where+order, args, f)
	}
	var match string
	var matchArgs []any
	if long {
		limit := s.knobs.searchProbe * max(1, len(f.Statuses))
		found, err := queryIDs(ctx, tx, `SELECT rowid FROM contracts_fts WHERE contracts_fts MATCH ? LIMIT ?`,
			`"`+strings.ReplaceAll(term, `"`, `""`)+`"`, limit+1)
		if err != nil {
			return nil, 0, err
		}
		switch {
		case len(found) <= limit && f.Within(searchOnly): // the matches themselves
			return s.searchIDsPage(ctx, tx, f, found, order)
		case len(found) <= limit: // the matches that pass the other conditions
			w, a := whereWith(f, `c.id IN (SELECT value FROM json_each(?))`, []any{jsonIDs(found)})
			match, matchArgs = `SELECT c.id FROM contracts c NOT INDEXED`+w, a
		case len(f.Statuses) == 0:
			return pageWithCount(ctx, tx, where+order, args, f)
		}
	}
	if match == "" {
		cond, a := likeCond(term)
		w, a := whereWith(f, cond, a)
		match, matchArgs = `SELECT c.id FROM contracts c INDEXED BY contracts_search`+w, a
	}
	matches, err := queryIDs(ctx, tx, match, matchArgs...)
	if err != nil {
		return nil, 0, err
	}
	return s.searchIDsPage(ctx, tx, f, matches, order)
}

// searchOnly is a filter of a search alone.
var searchOnly = contract.Fields("Search")

// searchIDsPage reads the ids of one page of matches (every contract
// that passes f). With one status, walking the sort order's index reads
// at most that status's range of it (12,500 entries of 100,000, about
// 2.5 ms), which costs less than reading and sorting more than a few
// hundred rows; hence a lower threshold there.
func (s *ContractStore) searchIDsPage(ctx context.Context, tx queryer, f contract.Filter, matches []int64, order string) ([]any, int64, error) {
	count := int64(len(matches))
	if count == 0 || f.Offset >= count {
		return nil, count, nil
	}
	from, cond, pageArgs := " FROM contracts c NOT INDEXED", `c.id IN (SELECT value FROM json_each(?))`, []any{jsonIDs(matches)}
	if count > s.knobs.walkThreshold || len(f.Statuses) == 1 && count > s.knobs.walkThreshold/4 {
		from = " FROM contracts c INDEXED BY " + walkIndex(f)
		if len(f.Statuses) == 1 { // the status's range of the index
			cond += ` AND c.status = ?`
			pageArgs = append(pageArgs, int(f.Statuses[0]))
		}
	}
	page, err := queryIDs(ctx, tx, `SELECT c.id`+from+` WHERE `+cond+order+` LIMIT ? OFFSET ?`, append(pageArgs, f.Limit, f.Offset)...)
	if err != nil {
		return nil, 0, err
	}
	return intArgs(page), count, nil
}

// likeable reports whether LIKE over searchText finds exactly what the
// trigram index finds for s: printable ASCII only, so LIKE's ASCII case
// folding is all the folding s needs, and no line feed to span columns.
func likeable(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] > 0x7e {
			return false
		}
	}
	return true
}

// jsonIDs encodes ids as a JSON array, for json_each: one argument for
// any number of ids.
func jsonIDs(ids []int64) string {
	b := make([]byte, 0, 8*len(ids)+2)
	b = append(b, '[')
	for i, id := range ids {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendInt(b, id, 10)
	}
	return string(append(b, ']'))
}

// queryIDs runs q and returns the ids it reads.
func queryIDs(ctx context.Context, tx queryer, q string, args ...any) ([]int64, error) {
	rows, err := tx.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	ids, err := scanIDs(rows)
	if ids == nil && err == nil {
		ids = []int64{}
	}
	return ids, err
}

// pageWithCount reads the ids of one page and the number of all matches
// in one pass. count is -1 when the page is empty (Offset past the
// matches), which tells nothing of the count.
func pageWithCount(ctx context.Context, tx queryer, whereOrder string, args []any, f contract.Filter) ([]any, int64, error) {
	rows, err := tx.QueryContext(ctx, `SELECT c.id, count(*) OVER () FROM contracts c NOT INDEXED`+whereOrder+` LIMIT ? OFFSET ?`,
		append(args, f.Limit, f.Offset)...)
	if err != nil {
		return nil, 0, err
	}
	defer rows.Close()
	ids, count := []any{}, int64(-1)
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id, &count); err != nil {
			return nil, 0, err
		}
		ids = append(ids, id)
	}
	return ids, count, rows.Err()
}

// walkIndex is the index a page is read in order from when it has many
// matches: the sort order's behind status when the filter names exactly
// one status (its contracts are then one range in order), else the sort
// order's own, testing each contract against the filter.
func walkIndex(f contract.Filter) string {
	if len(f.Statuses) == 1 {
		return sortIndexes[f.SortBy][1]
	}
	return sortIndexes[f.SortBy][0]
}
