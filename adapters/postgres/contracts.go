package postgres

import (
	"context"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"

	"counsel/adapters/sqlrow"
	"counsel/domain/contract"
	"counsel/ports"
)

// ContractStore implements ports.ContractStore, written once in sqlrow
// but for the list and the bulk import.
type ContractStore struct {
	sqlrow.ContractStore
	db *DB
	// postedIDs bounds the contracts a search's page query takes as an id
	// list (postedContracts); tests lower it.
	postedIDs int
}

var _ ports.ContractStore = (*ContractStore)(nil)

// NewContractStore returns the contract store of db.
func NewContractStore(db *DB) *ContractStore {
	return &ContractStore{ContractStore: sqlrow.NewContractStore(engine{db: db}, contractRows{db}), db: db, postedIDs: maxPostedIDs}
}

// contractRows writes a contract's row with its search_text, and a
// document's bytes by COPY.
type contractRows struct{ db *DB }

func (contractRows) InsertContract(ctx context.Context, x sqlrow.Querier, c contract.Contract) (int64, error) {
	vals, err := contractValues(c)
	if err != nil {
		return 0, err
	}
	return x.Insert(ctx, `INSERT INTO contracts (uuid, created_at, `+contractWriteCols+`)
		VALUES (`+placeholders(len(vals)+2)+`)`, append([]any{c.UUID, c.CreatedAt}, vals...)...)
}

func (contractRows) SaveContract(ctx context.Context, x sqlrow.Querier, c contract.Contract) error {
	vals, err := contractValues(c)
	if err != nil {
		return err
	}
	_, err = x.Exec(ctx, `UPDATE contracts SET (`+contractWriteCols+`) = (`+placeholders(len(vals))+`) WHERE id = ?`,
		append(vals, c.ID)...)
	return err
}

// searchText is what a search reads: the searched columns lower-cased
// and joined by a line feed.
func searchText(c contract.Contract) string {
	return strings.ToLower(c.Name + "\n" + c.Description + "\n" + c.Comments)
}

// contractValues are the values of contractWriteCols.
func contractValues(c contract.Contract) ([]any, error) {
	amount, err := sqlrow.ContractAmount(c.Amount)
	if err != nil {
		return nil, err
	}
	return []any{c.Name, c.Description, int16(c.Type), int16(c.Status), nullTime(c.StartDate), nullTime(c.EndDate), amount,
		c.Currency, c.IsSigned, c.Comments, c.MatterID, c.ClientID, c.ProjectID,
		c.DigitalContractID, c.DigitalContractSubmissionID, searchText(c), c.UpdatedAt,
		sqlrow.NullOwner(c.OwnerID), nullDays(c.NoticeDays), c.AutoRenew, nullTime(c.NoticeDate())}, nil
}

// nullDays is noticeDays as a column value.
func nullDays(p *int) any {
	if p == nil {
		return nil
	}
	return int32(*p)
}

const contractWriteCols = `contract_name, contract_description, contract_type, status, start_date, end_date, amount,
	currency, is_signed, comments, matter_id, client_id, project_id,
	digital_contract_id, digital_contract_submission_id, search_text, updated_at,
	owner_id, notice_days, auto_renew, notice_date`

// sortColumns maps each sort field to its ORDER BY expression; each has
// an index ending in id, alone and behind status.
var sortColumns = map[contract.SortField]string{
	contract.SortUpdatedAt:    "c.updated_at",
	contract.SortCreatedAt:    "c.created_at",
	contract.SortContractName: `lower(c.contract_name COLLATE "C")`,
	contract.SortStartDate:    "c.start_date",
	contract.SortEndDate:      "c.end_date",
	contract.SortAmount:       "c.amount",
}

// whereContracts builds the WHERE clause of f by the builder both engines
// share; the search is LIKE over the lower-cased search_text, which the
// trigram index answers.
func whereContracts(f contract.Filter) (string, []any) {
	var search string
	var args []any
	if s := strings.TrimSpace(f.Search); s != "" {
		search, args = `c.search_text LIKE ? ESCAPE '\'`, []any{"%" + escapeLike(strings.ToLower(s)) + "%"}
	}
	return sqlrow.ContractWhere(dialect{}, f, search, args)
}

// smallints converts statuses or types to the column's type.
func smallints[T ~int](vs []T) []int16 {
	out := make([]int16, len(vs))
	for i, v := range vs {
		out[i] = int16(v)
	}
	return out
}

// anyOf is the condition "col is one of vs": an equality for one value,
// so that a generic plan still reads the (col, order…) index in order,
// which the planner does not do for = ANY of an array parameter.
func anyOf[T any](col string, vs []T) (string, any) {
	if len(vs) == 1 {
		return col + ` = ?`, vs[0]
	}
	return col + ` = ANY (?)`, vs
}

// deepOffset is the offset from which a page is found by its ids first
// (an index-only walk past the skipped entries) and only its own rows are
// read, instead of reading every skipped row. A filter on other columns
// than status and text is found so too: its ids and sort keys come from a
// covering index (contracts_filter, contracts_type_signed_start) and are
// sorted there, where reading rows down the sort order's index until a
// page matches can read thousands.
const deepOffset = 1000

// maxTermWords bounds the words a term may match for its count to be
// read from contract_postings; a term in more words (a very short one) is
// counted on contracts.
const maxTermWords = 1000

// Contracts implements ports.ContractStore. The count and the page are
// read in one snapshot. NULL dates and amounts come first in ascending
// order and last in descending order, as on SQLite, which the indexes
// (NULLS FIRST, read backwards for descending) serve.
//
// The exact count comes from the cheapest source that gives it: the
// per-status counts (migration 0003) when only statuses filter; the word
// counts or postings (migrations 0023, 0007) when a search and statuses
// filter; otherwise a count over the filter's index. The count then
// decides how the page is read (sortMatches).
func (s *ContractStore) Contracts(ctx context.Context, f contract.Filter) ([]contract.Contract, int64, error) {
	items := []contract.Contract{}
	if strings.ContainsRune(f.Search, 0) {
		return items, 0, nil // no stored text holds NUL
	}
	where, args := whereContracts(f)
	dir := "ASC NULLS FIRST"
	if f.SortDesc {
		dir = "DESC NULLS LAST"
	}
	order := fmt.Sprintf(" ORDER BY %s %s, c.id %s", sortColumns[f.SortBy], dir, strings.Fields(dir)[0])
	term := strings.ToLower(strings.TrimSpace(f.Search))
	var count int64
	err := s.db.listTx(ctx, func(x q) error {
		words, indexed, err := termWords(ctx, x, term)
		switch {
		case err != nil:
			return err
		case indexed && len(words) == 0:
			return nil // no word holds the term
		case indexed && onlyStatuses(f):
			err = countPostings(ctx, x, words, smallints(f.Statuses)).Scan(&count)
		case term == "" && onlyStatuses(f):
			err = x.row(ctx, `SELECT coalesce(sum(n), 0)::bigint FROM contract_counts WHERE cardinality(?::smallint[]) = 0 OR status = ANY (?)`,
				smallints(f.Statuses), smallints(f.Statuses)).Scan(&count)
		default:
			err = x.row(ctx, `SELECT count(*) FROM contracts c`+where, args...).Scan(&count)
		}
		if err != nil {
			return err
		}
		if count == 0 || f.Limit == 0 || f.Offset >= count {
			return nil
		}
		// With one status, its contracts are one range of the order's
		// index behind status: ordering by the status first (one value,
		// so the same order) lets the planner read that range alone.
		inner := order
		if len(f.Statuses) == 1 {
			inner = fmt.Sprintf(" ORDER BY c.status %s, %s", strings.Fields(dir)[0], strings.TrimPrefix(order, " ORDER BY "))
		}
		sorted, err := s.sortMatches(ctx, x, f, count)
		if err != nil {
			return err
		}
		query := `SELECT ` + sqlrow.ContractItemCols + ` FROM contracts c` + where + inner + ` LIMIT ? OFFSET ?`
		switch {
		case sorted:
			// Every match found through the filter's own indexes, then
			// sorted: the planner, left to itself, walks the order's
			// index and reads a row for each contract it meets. A term
			// whose words are known is found by their postings, exactly
			// (a trigram search for a word of common syllables rechecks
			// thousands of rows).
			matchWhere, matchArgs := where, args
			if indexed {
				// The postings of a few contracts are handed to the page
				// query as their ids: the planner then knows how few they
				// are, where from a word id it guesses the average word's
				// thousands and scans the whole order's index to join them.
				ids, err := postedContracts(ctx, x, words, smallints(f.Statuses), s.postedIDs)
				if err != nil {
					return err
				}
				cond, arg := `c.id IN (SELECT p.contract_id FROM contract_postings p WHERE p.word_id = ANY (?))`, any(words)
				if ids != nil {
					cond, arg = `c.id = ANY (?)`, ids
				}
				matchWhere, matchArgs = sqlrow.ContractWhere(dialect{}, f, cond, []any{arg})
			}
			args = matchArgs
			query = `SELECT ` + sqlrow.ContractItemCols + ` FROM contracts c JOIN (
				WITH m AS MATERIALIZED (SELECT c.id, ` + sortColumns[f.SortBy] + ` AS k FROM contracts c` + matchWhere + `)
				SELECT m.id FROM m ORDER BY m.k ` + dir + `, m.id ` + strings.Fields(dir)[0] + ` LIMIT ? OFFSET ?
			) page ON page.id = c.id` + order
		case f.Offset >= deepOffset || !onlyStatuses(f):
			query = `SELECT ` + sqlrow.ContractItemCols + ` FROM contracts c JOIN (SELECT c.id FROM contracts c` + where + inner +
				` LIMIT ? OFFSET ?) page ON page.id = c.id` + order
		}
		rows, err := x.query(ctx, query, append(args, f.Limit, f.Offset)...)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			c, err := sqlrow.ScanContractItem(dialect{}, rows)
			if err != nil {
				return err
			}
			items = append(items, c)
		}
		return rows.Err()
	})
	if err != nil {
		return nil, 0, fmt.Errorf("list contracts: %w", err)
	}
	return items, count, nil
}

// termWords returns the ids of the words of contract_words containing
// term, and whether they answer for it: term has no ASCII white space (the
// words' separators, so a match lies inside one word), has three runes or
// more (the words' trigram index can find it) and is in at most
// maxTermWords words.
func termWords(ctx context.Context, x q, term string) ([]int32, bool, error) {
	if utf8.RuneCountInString(term) < 3 || strings.ContainsAny(term, " \t\n\r\f\v") {
		return nil, false, nil
	}
	rows, err := x.query(ctx, `SELECT word_id FROM contract_words WHERE word LIKE ? ESCAPE '\' LIMIT ?`,
		"%"+escapeLike(term)+"%", maxTermWords+1)
	if err != nil {
		return nil, false, err
	}
	words, err := pgx.CollectRows(rows, pgx.RowTo[int32])
	if err != nil || len(words) > maxTermWords {
		return nil, false, err
	}
	return words, true, nil
}

// maxPostedIDs bounds the contracts postedContracts lists.
const maxPostedIDs = 2000

// postedContracts returns the ids of the contracts holding one of words
// (and one of statuses, if any) when there are at most max of them, read
// from the postings' primary key alone; nil when there are more. A
// contract has one posting per word, so max·len(words)+1 postings read
// tell more than max contracts from max or fewer.
func postedContracts(ctx context.Context, x q, words []int32, statuses []int16, max int) ([]int64, error) {
	query, args := `SELECT DISTINCT contract_id FROM (SELECT contract_id FROM contract_postings WHERE word_id = ANY (?)`, []any{any(words)}
	if len(statuses) > 0 {
		cond, arg := anyOf("status", statuses)
		query, args = query+" AND "+cond, append(args, arg)
	}
	rows, err := x.query(ctx, query+` LIMIT ?) p`, append(args, max*len(words)+1)...)
	if err != nil {
		return nil, err
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[int64])
	if err != nil || len(ids) > max {
		return nil, err
	}
	return ids, nil
}

// fewMatches is the number of matches up to which a page is always
// read by sorting them (sortMatches).
const fewMatches = 500

// sortMatches reports whether a page of count matches of f is read by
// finding every match through the filter's indexes and sorting them,
// rather than by walking the sort order's index and testing each
// contract met: when the matches are few, or fewer than four times the
// contracts a walk would meet (about Offset+Limit times the walked range
// over the matches, the matches being spread over the order). A filter
// of statuses alone always walks past fewMatches: its walk reads the
// ids from the index of the status and the order, and no row.
func (s *ContractStore) sortMatches(ctx context.Context, x q, f contract.Filter, count int64) (bool, error) {
	if count <= fewMatches {
		return true, nil
	}
	if f.Within(statusesOnly) {
		return false, nil
	}
	var walked int64
	query, args := `SELECT coalesce(sum(n), 0)::bigint FROM contract_counts`, []any(nil)
	if len(f.Statuses) == 1 {
		query, args = query+` WHERE status = ?`, []any{int16(f.Statuses[0])}
	}
	if err := x.row(ctx, query, args...).Scan(&walked); err != nil {
		return false, err
	}
	met := float64(f.Offset+f.Limit) * float64(walked) / float64(count)
	return float64(count) <= 4*met, nil
}

// countPostings counts the contracts with one of words (and one of
// statuses, if any): those of one word from its stored counts (migration
// 0023, at most eight rows), those of several by their entries in
// contract_postings, an index-only count.
func countPostings(ctx context.Context, x q, words []int32, statuses []int16) pgx.Row {
	if len(words) == 1 {
		query, args := `SELECT coalesce(sum(n), 0)::bigint FROM contract_word_counts WHERE word_id = ?`, []any{any(words[0])}
		if len(statuses) > 0 {
			cond, arg := anyOf("status", statuses)
			query, args = query+" AND "+cond, append(args, arg)
		}
		return x.row(ctx, query, args...)
	}
	query, args := `SELECT count(DISTINCT contract_id) FROM contract_postings WHERE word_id = ANY (?)`, []any{any(words)}
	if len(statuses) > 0 {
		cond, arg := anyOf("status", statuses)
		query, args = query+" AND "+cond, append(args, arg)
	}
	return x.row(ctx, query, args...)
}

// statusesOnly is a filter of statuses alone.
var statusesOnly = contract.Fields("Statuses")

// searchAndStatuses are the conditions the per-status counts and the word
// postings answer.
var searchAndStatuses = contract.Fields("Search", "Statuses")

// onlyStatuses reports whether f filters by a search and statuses at
// most. Stated positively: a field added to the filter later is counted
// on the contracts until it is listed here.
func onlyStatuses(f contract.Filter) bool {
	return f.Within(searchAndStatuses)
}

// ImportContracts inserts many contracts in one transaction, each with a
// created entry by user userID at its CreatedAt (and userID its owner
// unless it names one; imports and benchmark seeding), through COPY.
func (s *ContractStore) ImportContracts(ctx context.Context, cs []contract.Contract, userID int64) error {
	if len(cs) == 0 {
		return nil
	}
	err := s.db.tx(ctx, func(x q) error {
		name, err := sqlrow.UserName(ctx, x, userID)
		if err != nil {
			return err
		}
		var first int64
		if err := x.row(ctx, `SELECT nextval(pg_get_serial_sequence('contracts', 'id'))`).Scan(&first); err != nil {
			return err
		}
		rows := make([][]any, len(cs))
		audit := make([][]any, len(cs))
		for i, c := range cs {
			if c.OwnerID == 0 {
				c.OwnerID = userID
			}
			vals, err := contractValues(c)
			if err != nil {
				return err
			}
			id := first + int64(i)
			rows[i] = append([]any{id, c.UUID, c.CreatedAt}, vals...)
			audit[i] = []any{id, string(contract.ActionCreated), int16(c.Status), int16(contract.ActorUser), userID, name, c.CreatedAt}
		}
		cols := append([]string{"id", "uuid", "created_at"}, splitCols(contractWriteCols)...)
		if err := copyRows(ctx, x, "contracts", cols, rows); err != nil {
			return err
		}
		if err := copyRows(ctx, x, "contract_audit", []string{"contract_id", "action", "to_status", "actor_kind", "actor_user_id", "actor_name", "at"}, audit); err != nil {
			return err
		}
		_, err = x.exec(ctx, `SELECT setval(pg_get_serial_sequence('contracts', 'id'), ?)`, first+int64(len(cs))-1)
		return err
	})
	if err != nil {
		return fmt.Errorf("import %d contracts: %w", len(cs), err)
	}
	s.db.analyzeAfter(ctx, len(cs), "contracts", "contract_audit", "contract_words", "contract_postings")
	return nil
}

// splitCols splits a column list.
func splitCols(s string) []string {
	var out []string
	for _, c := range strings.Split(s, ",") {
		out = append(out, strings.TrimSpace(c))
	}
	return out
}
