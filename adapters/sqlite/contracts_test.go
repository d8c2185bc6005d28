package sqlite_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/matryer/is"

	"counsel/adapters/sqlite"
	"counsel/domain"
	"counsel/domain/account"
	"counsel/domain/contract"
	"counsel/domain/decimal"
	"counsel/ports"
)

var contractT0 = time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)

// openContracts opens a fresh database with one user, Ada Lovelace.
func openContracts(t *testing.T) (*sqlite.ContractStore, int64) {
	t.Helper()
	ctx := context.Background()
	db, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "x.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if _, err := db.Stores().Accounts.Bootstrap(ctx, account.NewUser{Email: "ada@example.com", FirstName: "Ada", LastName: "Lovelace"}); err != nil {
		t.Fatal(err)
	}
	return sqlite.NewContractStore(db), 1
}

func created(uid int64, at time.Time) []contract.AuditEntry {
	return []contract.AuditEntry{{Action: contract.ActionCreated, To: contract.Draft, Actor: contract.ActorUser, ActorUserID: uid, At: at}}
}

func newContract(name string) contract.Contract {
	return contract.Contract{UUID: "uuid-" + name, Name: name, Type: contract.Other, Status: contract.Draft, CreatedAt: contractT0, UpdatedAt: contractT0}
}

func TestContractStoreLifecycle(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	ctx := context.Background()
	s, uid := openContracts(t)

	in := newContract("Lease")
	in.Description, in.Comments, in.Currency = "Office lease", "renew in May", "AUD"
	in.Amount = ptr(decimal.MustParse("999999999999999.99"))
	in.StartDate, in.EndDate = ptr(contractT0), ptr(contractT0.AddDate(1, 0, 0))
	in.MatterID, in.ClientID = ptr(int64(4)), ptr(int64(5))
	c, err := s.CreateContract(ctx, in, created(uid, contractT0))
	is.NoErr(err)                                                                          // created
	is.True(c.ID > 0)                                                                      // id assigned
	is.Equal(c.Amount.StringFixed(2), "999999999999999.99")                                // exact, no float on the way
	is.True(c.StartDate.Equal(contractT0) && c.EndDate.Equal(contractT0.AddDate(1, 0, 0))) // dates
	is.Equal(*c.MatterID, int64(4))                                                        // matter
	is.Equal(c.ProjectID, (*int64)(nil))                                                   // no project

	_, err = s.CreateContract(ctx, in, created(uid, contractT0))
	is.Equal(domain.ErrorCode(err), domain.ECONFLICT) // UUID is unique

	// An error from fn rolls back the change and its entries.
	_, err = s.UpdateContract(ctx, c.ID, func(c *contract.Contract) ([]contract.AuditEntry, error) {
		c.Name = "changed"
		return nil, domain.Errorf(domain.ECONFLICT, "no")
	})
	is.Equal(domain.ErrorCode(err), domain.ECONFLICT) // fn's error
	got, err := s.Contract(ctx, c.ID)
	is.NoErr(err)
	is.Equal(got.Name, "Lease") // unchanged

	later := contractT0.Add(time.Hour)
	upd, err := s.UpdateContract(ctx, c.ID, func(c *contract.Contract) ([]contract.AuditEntry, error) {
		c.ID, c.UUID = 999, "other" // ignored
		c.Status, c.DigitalContractID, c.DigitalContractSubmissionID = contract.ContractDesign, "tpl-1", "sub-1"
		c.MatterID, c.UpdatedAt = nil, later
		return []contract.AuditEntry{{Action: contract.ActionStatusChanged, From: contract.Draft, To: contract.ContractDesign, Actor: contract.ActorUser, ActorUserID: uid, At: later}}, nil
	})
	is.NoErr(err)                                 // updated
	is.Equal(upd.ID, c.ID)                        // id kept
	is.Equal(upd.UUID, c.UUID)                    // uuid kept
	is.Equal(upd.Status, contract.ContractDesign) // status saved
	is.True(upd.IsDigital())                      // digital ids saved
	is.Equal(upd.DigitalContractSubmissionID, "sub-1")
	is.Equal(upd.MatterID, (*int64)(nil)) // cleared
	is.True(upd.UpdatedAt.Equal(later))   // timestamp saved

	_, err = s.DeleteContract(ctx, c.ID, func(c contract.Contract) ([]contract.AuditEntry, error) { return nil, contract.CheckDelete(c.Status) })
	is.Equal(domain.ErrorMessage(err), "only Draft contracts can be deleted") // refused by fn
	_, err = s.Contract(ctx, c.ID)
	is.NoErr(err) // still there

	_, err = s.UpdateContract(ctx, c.ID, func(c *contract.Contract) ([]contract.AuditEntry, error) { c.Status = contract.Draft; return nil, nil })
	is.NoErr(err)
	docs, err := s.DeleteContract(ctx, c.ID, func(c contract.Contract) ([]contract.AuditEntry, error) {
		return []contract.AuditEntry{{Action: contract.ActionDeleted, From: c.Status, Actor: contract.ActorUser, ActorUserID: uid, At: later}}, nil
	})
	is.NoErr(err)          // deleted
	is.Equal(len(docs), 0) // had no documents
	_, err = s.Contract(ctx, c.ID)
	is.Equal(domain.ErrorCode(err), domain.ENOTFOUND) // gone
	_, err = s.UpdateContract(ctx, c.ID, func(*contract.Contract) ([]contract.AuditEntry, error) { return nil, nil })
	is.Equal(domain.ErrorCode(err), domain.ENOTFOUND) // cannot update

	hist, n, err := s.History(ctx, c.ID, 10, 0)
	is.NoErr(err)         // the trail outlives the contract
	is.Equal(n, int64(3)) // created, statusChanged, deleted
	is.Equal([]contract.Action{hist[0].Action, hist[1].Action, hist[2].Action},
		[]contract.Action{contract.ActionDeleted, contract.ActionStatusChanged, contract.ActionCreated}) // newest first
	is.Equal(hist[0].ActorName, "Ada Lovelace")   // the user's name
	is.Equal(hist[0].ActorUserID, uid)            // and id
	is.Equal(hist[0].From, contract.Draft)        // from
	is.Equal(hist[0].To, contract.Status(0))      // no to
	is.Equal(hist[1].To, contract.ContractDesign) // status change
	is.Equal(hist[2].ContractID, c.ID)            // contract id filled in
	page, _, err := s.History(ctx, c.ID, 1, 1)
	is.NoErr(err)
	is.Equal(page[0].Action, contract.ActionStatusChanged) // paged
	_, _, err = s.History(ctx, 12345, 10, 0)
	is.Equal(domain.ErrorCode(err), domain.ENOTFOUND) // never existed
}

func TestContractStoreActorNames(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	ctx := context.Background()
	s, uid := openContracts(t)
	entries := []contract.AuditEntry{
		{Action: contract.ActionCreated, To: contract.Draft, Actor: contract.ActorUser, ActorUserID: uid, At: contractT0},
		{Action: contract.ActionSigningEvent, From: contract.WaitingForClientSignature, To: contract.Signed, Actor: contract.ActorSigningProvider, ActorUserID: uid, At: contractT0},
		{Action: contract.ActionStatusChanged, From: contract.Signed, To: contract.Expired, Actor: contract.ActorSystem, At: contractT0},
	}
	c, err := s.CreateContract(ctx, newContract("x"), entries)
	is.NoErr(err)
	hist, _, err := s.History(ctx, c.ID, 10, 0)
	is.NoErr(err)
	is.Equal(hist[0].ActorName, "system")           // sweep
	is.Equal(hist[0].ActorUserID, int64(0))         // no user
	is.Equal(hist[1].ActorName, "signing provider") // provider
	is.Equal(hist[1].ActorUserID, int64(0))         // no user, whatever was passed
	is.Equal(hist[2].ActorName, "Ada Lovelace")     // user
}

// seed imports contracts with every field varied, and returns them with
// their ids.
func seed(t *testing.T, s *sqlite.ContractStore, uid int64, n int) []contract.Contract {
	t.Helper()
	words := []string{"Lease", "lease", "Service", "NDA", "Employment", "Licence", "Partnership", "ab", "100% sure", "under_score", `say "hi"`}
	var cs []contract.Contract
	for i := 0; i < n; i++ {
		c := newContract(fmt.Sprintf("%s %02d", words[i%len(words)], i%7))
		c.UUID = fmt.Sprintf("uuid-%d", i)
		c.Description = words[(i+3)%len(words)] + " description"
		c.Comments = []string{"", "urgent", "Ünïcode straße"}[i%3]
		c.Type = contract.Type(1 + i%6)
		c.Status = contract.Status(1 + i%8)
		c.IsSigned = i%4 == 0
		if i%3 == 0 {
			c.DigitalContractID = fmt.Sprintf("tpl-%d", i)
		}
		if i%5 != 0 {
			c.StartDate = ptr(contractT0.AddDate(0, 0, i%9))
			c.EndDate = ptr(contractT0.AddDate(0, 1, i%11))
		}
		if i%4 != 1 {
			c.Amount = ptr(decimal.New(int64(i%13)*1001, 2))
		}
		if i%2 == 0 {
			c.MatterID = ptr(int64(1 + i%3))
		}
		if i%3 == 1 {
			c.ClientID = ptr(int64(1 + i%2))
		}
		if i%5 == 2 {
			c.ProjectID = ptr(int64(7))
		}
		c.CreatedAt = contractT0.Add(time.Duration(i%10) * time.Minute)
		c.UpdatedAt = contractT0.Add(time.Duration(i%6) * time.Hour)
		cs = append(cs, c)
	}
	if err := s.ImportContracts(context.Background(), cs, uid); err != nil {
		t.Fatal(err)
	}
	for i := range cs {
		cs[i].ID = int64(i + 1)
	}
	return cs
}

// matches is the filter written again in Go, as the reference.
func matches(c contract.Contract, f contract.Filter) bool {
	if q := strings.ToLower(f.Search); q != "" && !strings.Contains(strings.ToLower(c.Name), q) &&
		!strings.Contains(strings.ToLower(c.Description), q) && !strings.Contains(strings.ToLower(c.Comments), q) {
		return false
	}
	if len(f.Statuses) > 0 && !slices.Contains(f.Statuses, c.Status) || len(f.Types) > 0 && !slices.Contains(f.Types, c.Type) {
		return false
	}
	if f.IsSigned != nil && c.IsSigned != *f.IsSigned || f.IsDigital != nil && c.IsDigital() != *f.IsDigital {
		return false
	}
	eq := func(p, want *int64) bool { return want == nil || p != nil && *p == *want }
	if !eq(c.MatterID, f.MatterID) || !eq(c.ClientID, f.ClientID) || !eq(c.ProjectID, f.ProjectID) {
		return false
	}
	if f.Related != contract.RelatedNone {
		p := map[contract.RelatedEntity]*int64{contract.RelatedMatter: c.MatterID, contract.RelatedClient: c.ClientID, contract.RelatedProject: c.ProjectID}[f.Related]
		if p == nil || !eq(p, f.RelatedID) {
			return false
		}
	}
	in := func(t *time.Time, from, to *time.Time) bool {
		if from == nil && to == nil {
			return true
		}
		return t != nil && (from == nil || !t.Before(*from)) && (to == nil || !t.After(*to))
	}
	return in(c.StartDate, f.StartFrom, f.StartTo) && in(c.EndDate, f.EndFrom, f.EndTo)
}

// compare orders two contracts as the store must: by the field (a missing
// value first), then by id.
func compare(a, b contract.Contract, by contract.SortField) int {
	nullable := func(x, y *int64) int {
		switch {
		case x == nil && y == nil:
			return 0
		case x == nil:
			return -1
		case y == nil:
			return 1
		}
		return cmpInt(*x, *y)
	}
	ms := func(t *time.Time) *int64 {
		if t == nil {
			return nil
		}
		return ptr(t.UnixMilli())
	}
	cents := func(d *decimal.Decimal) *int64 {
		if d == nil {
			return nil
		}
		v, _ := d.Scaled(2)
		return &v
	}
	var r int
	switch by {
	case contract.SortContractName:
		r = strings.Compare(strings.ToLower(a.Name), strings.ToLower(b.Name))
	case contract.SortStartDate:
		r = nullable(ms(a.StartDate), ms(b.StartDate))
	case contract.SortEndDate:
		r = nullable(ms(a.EndDate), ms(b.EndDate))
	case contract.SortAmount:
		r = nullable(cents(a.Amount), cents(b.Amount))
	case contract.SortCreatedAt:
		r = cmpInt(a.CreatedAt.UnixMilli(), b.CreatedAt.UnixMilli())
	default:
		r = cmpInt(a.UpdatedAt.UnixMilli(), b.UpdatedAt.UnixMilli())
	}
	if r == 0 {
		r = cmpInt(a.ID, b.ID)
	}
	return r
}

func cmpInt(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func ids(cs []contract.Contract) []int64 {
	out := []int64{}
	for _, c := range cs {
		out = append(out, c.ID)
	}
	return out
}

func TestContractStoreFilters(t *testing.T) {
	t.Parallel()
	t.Run("filter then sort", func(t *testing.T) { t.Parallel(); testFilters(t, func(*sqlite.ContractStore) {}) })
	t.Run("walk the sort order", func(t *testing.T) {
		t.Parallel()
		testFilters(t, func(s *sqlite.ContractStore) { s.SetWalkThreshold(0) })
	})
	// Past the probe, a search for a common word reads the statuses'
	// range of contracts_search (or, with no status, the trigram index).
	t.Run("common words", func(t *testing.T) {
		t.Parallel()
		testFilters(t, func(s *sqlite.ContractStore) { s.SetSearchProbe(0) })
	})
	t.Run("common words, walk the sort order", func(t *testing.T) {
		t.Parallel()
		testFilters(t, func(s *sqlite.ContractStore) { s.SetSearchProbe(0); s.SetWalkThreshold(0) })
	})
}

func testFilters(t *testing.T, setup func(*sqlite.ContractStore)) {
	ctx := context.Background()
	s, uid := openContracts(t)
	setup(s)
	all := seed(t, s, uid, 120)
	d := func(days int) *time.Time { return ptr(contractT0.AddDate(0, 0, days)) }
	filters := map[string]contract.Filter{
		"none":                {},
		"search trigram":      {Search: "lease"},
		"search upper":        {Search: "LEASE 0"},
		"search description":  {Search: "nda desc"},
		"search comments":     {Search: "urgent"},
		"search unicode fold": {Search: "ÜNÏ"},
		"search two letters":  {Search: "ab"},
		"search one letter":   {Search: "Y"},
		"search percent":      {Search: "0%"},
		"search underscore":   {Search: "r_s"},
		"search quote":        {Search: `"hi"`},
		"search fts syntax":   {Search: `lease OR nda*`},
		"search none":         {Search: "nothing like it"},
		"status search":       {Search: "LEASE", Statuses: []contract.Status{contract.Signed}},
		"statuses search":     {Search: "ease 0", Statuses: []contract.Status{contract.Draft, contract.Signed, contract.Expired}},
		"status one letter":   {Search: "e", Statuses: []contract.Status{contract.Draft}},
		"status unicode":      {Search: "ünÏcode", Statuses: []contract.Status{contract.Signed}},
		"status percent":      {Search: "0% s", Statuses: []contract.Status{contract.Draft, contract.Archived}},
		"status underscore":   {Search: "r_s", Statuses: []contract.Status{contract.Draft, contract.Archived}},
		"status line feed":    {Search: "5\nNDA", Statuses: []contract.Status{contract.ContractDesign, contract.Archived}}, // "Lease 05" then "NDA description"
		"one status":          {Statuses: []contract.Status{contract.Signed}},
		"statuses":            {Statuses: []contract.Status{contract.Draft, contract.Expired, contract.Archived}},
		"types":               {Types: []contract.Type{contract.EmploymentContract, contract.Other}},
		"signed":              {IsSigned: ptr(true)},
		"unsigned":            {IsSigned: ptr(false)},
		"digital":             {IsDigital: ptr(true)},
		"paper":               {IsDigital: ptr(false)},
		"matter":              {MatterID: ptr(int64(2))},
		"client":              {ClientID: ptr(int64(1))},
		"project":             {ProjectID: ptr(int64(7))},
		"related matter":      {Related: contract.RelatedMatter, RelatedID: ptr(int64(3))},
		"related client any":  {Related: contract.RelatedClient},
		"related project":     {Related: contract.RelatedProject, RelatedID: ptr(int64(7))},
		"start from":          {StartFrom: d(4)},
		"start range":         {StartFrom: d(2), StartTo: d(5)},
		"end to":              {EndTo: ptr(contractT0.AddDate(0, 1, 3))},
		"end range":           {EndFrom: ptr(contractT0.AddDate(0, 1, 2)), EndTo: ptr(contractT0.AddDate(0, 1, 8))},
		"combined":            {Search: "lease", Statuses: []contract.Status{contract.Draft, contract.ContractDesign, contract.Signed}, IsDigital: ptr(false), StartFrom: d(1)},
	}
	for name, f := range filters {
		for _, by := range contract.AllSortFields() {
			for _, desc := range []bool{false, true} {
				t.Run(fmt.Sprintf("%s/%s/desc=%t", name, by, desc), func(t *testing.T) {
					is := is.New(t)
					var want []contract.Contract
					for _, c := range all {
						if matches(c, f) {
							want = append(want, c)
						}
					}
					slices.SortFunc(want, func(a, b contract.Contract) int {
						if desc {
							return compare(b, a, by)
						}
						return compare(a, b, by)
					})
					f := f
					f.SortBy, f.SortDesc = by, desc
					// Read every page of 25 and join them.
					var got []contract.Contract
					for f.Offset = 0; ; f.Offset += 25 {
						f.Limit = 25
						page, n, err := s.Contracts(ctx, f)
						is.NoErr(err)                 // listed
						is.Equal(n, int64(len(want))) // count of all matches
						if len(page) == 0 {
							break
						}
						got = append(got, page...)
					}
					is.Equal(ids(got), ids(want)) // same contracts in the same order
				})
			}
		}
	}
}

func TestContractStoreListItem(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	ctx := context.Background()
	s, uid := openContracts(t)
	all := seed(t, s, uid, 6)
	got, n, err := s.Contracts(ctx, contract.Filter{Limit: 10, SortBy: contract.SortCreatedAt})
	is.NoErr(err)
	is.Equal(n, int64(6))
	for _, c := range got {
		w := all[c.ID-1]
		is.Equal(c.Name, w.Name)                   // name
		is.Equal(c.Description, "")                // long text is not read for lists
		is.Equal(c.IsDigital(), w.IsDigital())     // digital flag
		is.Equal(c.Status, w.Status)               // status
		is.True(c.UpdatedAt.Equal(w.UpdatedAt))    // timestamp
		is.Equal(c.Amount == nil, w.Amount == nil) // amount presence
		if c.Amount != nil {
			is.True(c.Amount.Equal(*w.Amount)) // amount value
		}
	}
	none, n, err := s.Contracts(ctx, contract.Filter{Limit: 0})
	is.NoErr(err)
	is.Equal(n, int64(6))  // counted
	is.Equal(len(none), 0) // but no page asked for
	past, n, err := s.Contracts(ctx, contract.Filter{Limit: 5, Offset: 50})
	is.NoErr(err)
	is.Equal(n, int64(6))  // counted
	is.Equal(len(past), 0) // past the end
}

func TestContractStoreSearchFollowsEdits(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	ctx := context.Background()
	s, uid := openContracts(t)
	c, err := s.CreateContract(ctx, newContract("Warehouse lease"), created(uid, contractT0))
	is.NoErr(err)
	find := func(q string) int64 {
		_, n, err := s.Contracts(ctx, contract.Filter{Search: q, Limit: 1})
		is.NoErr(err)
		return n
	}
	is.Equal(find("warehouse"), int64(1)) // indexed on insert
	_, err = s.UpdateContract(ctx, c.ID, func(c *contract.Contract) ([]contract.AuditEntry, error) {
		c.Name, c.Comments = "Factory lease", "keys with reception"
		return nil, nil
	})
	is.NoErr(err)
	is.Equal(find("warehouse"), int64(0)) // old text gone from the index
	is.Equal(find("factory"), int64(1))   // new name indexed
	is.Equal(find("reception"), int64(1)) // comments indexed
	_, err = s.UpdateContract(ctx, c.ID, func(c *contract.Contract) ([]contract.AuditEntry, error) {
		c.Status = contract.Archived // not a text change: the index is untouched
		return nil, nil
	})
	is.NoErr(err)
	is.Equal(find("factory"), int64(1)) // still found
	_, err = s.DeleteContract(ctx, c.ID, func(contract.Contract) ([]contract.AuditEntry, error) { return nil, nil })
	is.NoErr(err)
	is.Equal(find("factory"), int64(0)) // removed with the row
}

func TestContractStoreDocuments(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	ctx := context.Background()
	s, uid := openContracts(t)
	c, err := s.CreateContract(ctx, newContract("With files"), created(uid, contractT0))
	is.NoErr(err)
	other, err := s.CreateContract(ctx, newContract("Other"), created(uid, contractT0))
	is.NoErr(err)
	doc := func(i int) ports.NewDocument {
		return withBytes(contract.Document{ContractID: c.ID, FileName: fmt.Sprintf("f%d.pdf", i), ContentType: contract.ContentTypePDF,
			UploadedAt: contractT0, UploadedBy: uid}, strings.Repeat("a", i))
	}
	added := []contract.AuditEntry{{Action: contract.ActionDocumentAdded, Actor: contract.ActorUser, ActorUserID: uid, At: contractT0, Details: "f1.pdf"}}
	d1, err := s.AddDocument(ctx, doc(1), added, nil)
	is.NoErr(err)                    // added
	is.True(d1.ID > 0)               // id assigned
	is.Equal(len(d1.StorageKey), 32) // key assigned
	_, err = s.AddDocument(ctx, withBytes(contract.Document{ContractID: 999}, "x"), nil, nil)
	is.Equal(domain.ErrorCode(err), domain.ENOTFOUND) // unknown contract

	_, err = s.Document(ctx, other.ID, d1.ID)
	is.Equal(domain.ErrorCode(err), domain.ENOTFOUND) // another contract's document
	_, err = s.Document(ctx, 999, d1.ID)
	is.Equal(domain.ErrorMessage(err), "contract not found") // unknown contract
	got, err := s.Document(ctx, c.ID, d1.ID)
	is.NoErr(err)
	is.Equal(got, d1) // read back

	for i := 2; i <= contract.MaxDocuments; i++ {
		_, err := s.AddDocument(ctx, doc(i), nil, contract.CheckRoomForDocument)
		is.NoErr(err)
	}
	_, err = s.AddDocument(ctx, doc(contract.MaxDocuments+1), nil, contract.CheckRoomForDocument)
	is.Equal(domain.ErrorCode(err), domain.ECONFLICT) // at most 100 documents
	list, err := s.Documents(ctx, c.ID)
	is.NoErr(err)
	is.Equal(len(list), contract.MaxDocuments) // all listed
	is.Equal(list[0].ID, d1.ID)                // oldest first
	_, err = s.Documents(ctx, 999)
	is.Equal(domain.ErrorCode(err), domain.ENOTFOUND) // unknown contract

	removed, err := s.RemoveDocument(ctx, c.ID, d1.ID, func(_ contract.Status, d contract.Document) ([]contract.AuditEntry, error) {
		return []contract.AuditEntry{{Action: contract.ActionDocumentRemoved, Actor: contract.ActorUser, ActorUserID: uid, At: contractT0, Details: d.FileName}}, nil
	})
	is.NoErr(err)
	is.Equal(removed.StorageKey, d1.StorageKey) // the removed document
	_, err = s.RemoveDocument(ctx, c.ID, d1.ID, func(contract.Status, contract.Document) ([]contract.AuditEntry, error) { return nil, nil })
	is.Equal(domain.ErrorCode(err), domain.ENOTFOUND) // already gone

	docs, err := s.DeleteContract(ctx, c.ID, func(contract.Contract) ([]contract.AuditEntry, error) { return nil, nil })
	is.NoErr(err)
	is.Equal(len(docs), contract.MaxDocuments-1) // returned for their files
	_, err = s.Document(ctx, c.ID, docs[0].ID)
	is.Equal(domain.ErrorCode(err), domain.ENOTFOUND) // rows gone with the contract
	hist, _, err := s.History(ctx, c.ID, 2, 0)
	is.NoErr(err)
	is.Equal(hist[0].Action, contract.ActionDocumentRemoved) // audited with the removal
	is.Equal(hist[1].Action, contract.ActionDocumentAdded)   // and the addition
}

func TestContractStoreDueForExpiry(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	ctx := context.Background()
	s, uid := openContracts(t)
	mk := func(name string, st contract.Status, end *time.Time) int64 {
		c := newContract(name)
		c.Status, c.EndDate = st, end
		got, err := s.CreateContract(ctx, c, created(uid, contractT0))
		if err != nil {
			t.Fatal(err)
		}
		return got.ID
	}
	late := mk("late", contract.Signed, ptr(contractT0.Add(-2*time.Hour)))
	early := mk("early", contract.Signed, ptr(contractT0.Add(-3*time.Hour)))
	mk("now", contract.Signed, ptr(contractT0))
	mk("future", contract.Signed, ptr(contractT0.Add(time.Hour)))
	mk("no end", contract.Signed, nil)
	mk("draft", contract.Draft, ptr(contractT0.Add(-time.Hour)))
	due, err := s.DueForExpiry(ctx, contractT0, 10)
	is.NoErr(err)
	is.Equal(due, []int64{early, late}) // Signed, ended before now, earliest first
	due, err = s.DueForExpiry(ctx, contractT0, 1)
	is.NoErr(err)
	is.Equal(due, []int64{early}) // limited
}

func TestContractStoreAmountRoundTrip(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, uid := openContracts(t)
	for i, a := range []string{"0", "0.1", "0.2", "0.30", "19.99", "1000000.01", "999999999999999.99"} {
		t.Run(a, func(t *testing.T) {
			is := is.New(t)
			c := newContract(fmt.Sprintf("amount %d", i))
			c.Amount = ptr(decimal.MustParse(a))
			got, err := s.CreateContract(ctx, c, created(uid, contractT0))
			is.NoErr(err)
			is.True(got.Amount.Equal(decimal.MustParse(a)))                          // exact
			is.Equal(got.Amount.StringFixed(2), decimal.MustParse(a).StringFixed(2)) // two places
		})
	}
	is := is.New(t)
	sum := decimal.MustParse("0")
	page, _, err := s.Contracts(ctx, contract.Filter{Search: "amount", Limit: 100})
	is.NoErr(err)
	for _, c := range page {
		if c.Name == "amount 1" || c.Name == "amount 2" {
			sum = sum.Add(*c.Amount)
		}
	}
	is.Equal(sum.StringFixed(2), "0.30") // 0.1 + 0.2 is 0.30 after a round trip
}

// withBytes is d to be stored with body as its bytes (its Size and
// SHA256 those of body).
func withBytes(d contract.Document, body string) ports.NewDocument {
	sum := sha256.Sum256([]byte(body))
	d.Size, d.SHA256 = int64(len(body)), hex.EncodeToString(sum[:])
	return ports.NewDocument{Document: d, Body: strings.NewReader(body)}
}
