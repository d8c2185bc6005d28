package porttest

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode"
	"unicode/utf8"

	"counsel/domain/account"
	"counsel/domain/contract"
)

// ContractImporter is the bulk insert both engines' contract stores have
// (imports and benchmark seeding).
type ContractImporter interface {
	ImportContracts(ctx context.Context, cs []contract.Contract, userID int64) error
}

// SeedContracts stores cs (through ImportContracts when the store has
// it, else one by one) and returns them as stored, with their ids: the
// rows a reference list is made from.
func SeedContracts(t testing.TB, s Stores, cs []contract.Contract) []contract.Contract {
	t.Helper()
	ctx := context.Background()
	uid := bootstrap(t, s)
	// Owners and notice periods spread over the rows, for the OwnerId and
	// NoticeDate filters: three owners, a third of the contracts without
	// noticeDays (their notice date is the end date).
	owners := []int64{uid, seedUser(t, s, "owner1@example.com"), seedUser(t, s, "owner2@example.com")}
	cs = slices.Clone(cs)
	for i := range cs {
		if cs[i].OwnerID == 0 {
			cs[i].OwnerID = owners[i%len(owners)]
		}
		if cs[i].NoticeDays == nil && i%3 != 0 {
			n := (i * 37) % 400
			cs[i].NoticeDays = &n
			cs[i].AutoRenew = i%2 == 0
		}
	}
	if imp, ok := s.Contracts.(ContractImporter); ok {
		if err := imp.ImportContracts(ctx, cs, uid); err != nil {
			t.Fatalf("import %d contracts: %v", len(cs), err)
		}
	} else {
		for _, c := range cs {
			if _, err := s.Contracts.CreateContract(ctx, c, created(uid, c.CreatedAt)); err != nil {
				t.Fatalf("create %s: %v", c.UUID, err)
			}
		}
	}
	items, n, err := s.Contracts.Contracts(ctx, contract.Filter{SortBy: contract.SortCreatedAt, Limit: int64(len(cs)) + 1})
	if err != nil || n != int64(len(cs)) || len(items) != len(cs) {
		t.Fatalf("list every contract: %d items, count %d, err %v; want %d", len(items), n, err, len(cs))
	}
	all := make([]contract.Contract, 0, len(items))
	for _, it := range items {
		c, err := s.Contracts.Contract(ctx, it.ID)
		if err != nil {
			t.Fatalf("read contract %d: %v", it.ID, err)
		}
		all = append(all, c)
	}
	return all
}

// seedUser returns the id of the user with email, created if need be.
func seedUser(t testing.TB, s Stores, email string) int64 {
	t.Helper()
	ctx := context.Background()
	if c, err := s.Accounts.CredentialsByEmail(ctx, email); err == nil {
		return c.UserID
	}
	id, err := createUser(ctx, s.Users, account.NewUser{Email: email, FirstName: "Owner", PasswordHash: "h"})
	if err != nil {
		t.Fatalf("create %s: %v", email, err)
	}
	return id
}

// ContractListProperty runs random filters (every field of
// contract.Filter, the order and the page) against the store and against
// reference, the plain selection in Go, over the stored contracts all:
// the page's ids in order and the exact count must agree. It runs
// iterations filters from a fixed seed, then as many from a seed of the
// moment (COUNSEL_PROPERTY_SEED fixes it), logged on failure so that a
// failure can be replayed.
func ContractListProperty(t *testing.T, s ContractStores, all []contract.Contract, iterations int) {
	t.Helper()
	seeds := []uint64{1, uint64(time.Now().UnixNano())}
	if v, err := strconv.ParseUint(os.Getenv("COUNSEL_PROPERTY_SEED"), 10, 64); err == nil {
		seeds[1] = v
	}
	for _, seed := range seeds {
		rnd := rand.New(rand.NewPCG(seed, 28))
		for i := range iterations {
			f := RandomFilter(rnd, all)
			if msg := CheckList(s, all, f); msg != "" {
				t.Fatalf("seed %d (COUNSEL_PROPERTY_SEED=%d), filter %d: %s", seed, seed, i, msg)
			}
		}
	}
}

// CheckList lists f from s and from reference over all, and returns ""
// when they agree, else what differs.
func CheckList(s ContractStores, all []contract.Contract, f contract.Filter) string {
	want, wantN := reference(all, f)
	got, n, err := s.Contracts(context.Background(), f)
	if err != nil {
		return fmt.Sprintf("%s: %v", describe(f), err)
	}
	ids := make([]int64, 0, len(got))
	for _, c := range got {
		ids = append(ids, c.ID)
	}
	if n != wantN || !slices.Equal(ids, want) {
		return fmt.Sprintf("%s:\ncount %d, want %d\nids  %v\nwant %v", describe(f), n, wantN, ids, want)
	}
	return ""
}

// describe writes f with its pointers followed.
func describe(f contract.Filter) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Search=%q Statuses=%v Types=%v", f.Search, f.Statuses, f.Types)
	ptr := func(name string, v any) {
		switch p := v.(type) {
		case *bool:
			if p != nil {
				fmt.Fprintf(&b, " %s=%v", name, *p)
			}
		case *int64:
			if p != nil {
				fmt.Fprintf(&b, " %s=%d", name, *p)
			}
		case *time.Time:
			if p != nil {
				fmt.Fprintf(&b, " %s=%s", name, p.Format(time.RFC3339Nano))
			}
		}
	}
	ptr("IsSigned", f.IsSigned)
	ptr("IsDigital", f.IsDigital)
	ptr("MatterID", f.MatterID)
	ptr("ClientID", f.ClientID)
	ptr("ProjectID", f.ProjectID)
	if f.Related != contract.RelatedNone {
		fmt.Fprintf(&b, " Related=%s", f.Related)
	}
	ptr("RelatedID", f.RelatedID)
	ptr("StartFrom", f.StartFrom)
	ptr("StartTo", f.StartTo)
	ptr("EndFrom", f.EndFrom)
	ptr("EndTo", f.EndTo)
	ptr("OwnerID", f.OwnerID)
	ptr("NoticeFrom", f.NoticeFrom)
	ptr("NoticeTo", f.NoticeTo)
	fmt.Fprintf(&b, " SortBy=%s SortDesc=%v Limit=%d Offset=%d", f.SortBy, f.SortDesc, f.Limit, f.Offset)
	return b.String()
}

// RandomFilter draws a valid filter whose values mostly come from all
// (words and parts of words of their text in any case, ids, dates on and
// beside theirs), so that it matches some contracts, sometimes none;
// every field of contract.Filter is drawn.
func RandomFilter(rnd *rand.Rand, all []contract.Contract) contract.Filter {
	some := func() contract.Contract { return all[rnd.IntN(len(all))] }
	chance := func(p float64) bool { return rnd.Float64() < p }
	f := contract.Filter{SortBy: contract.SortField(rnd.IntN(6)), SortDesc: chance(0.6)}
	if chance(0.5) && len(all) > 0 {
		f.Search = randomTerm(rnd, some())
	}
	if chance(0.4) {
		for range 1 + rnd.IntN(3) {
			f.Statuses = append(f.Statuses, contract.Status(1+rnd.IntN(8)))
		}
	}
	if chance(0.25) {
		for range 1 + rnd.IntN(2) {
			f.Types = append(f.Types, contract.Type(1+rnd.IntN(6)))
		}
	}
	boolp := func() *bool { b := chance(0.5); return &b }
	if chance(0.2) {
		f.IsSigned = boolp()
	}
	if chance(0.15) {
		f.IsDigital = boolp()
	}
	idOf := func(get func(c contract.Contract) *int64) *int64 {
		for range 5 {
			if id := get(some()); id != nil {
				return id
			}
		}
		n := int64(rnd.IntN(3))
		return &n
	}
	matter := func(c contract.Contract) *int64 { return c.MatterID }
	client := func(c contract.Contract) *int64 { return c.ClientID }
	project := func(c contract.Contract) *int64 { return c.ProjectID }
	if chance(0.08) {
		f.MatterID = idOf(matter)
	}
	if chance(0.08) {
		f.ClientID = idOf(client)
	}
	if chance(0.08) {
		f.ProjectID = idOf(project)
	}
	if chance(0.12) {
		f.Related = contract.RelatedEntity(1 + rnd.IntN(3))
		if chance(0.5) {
			f.RelatedID = idOf([]func(contract.Contract) *int64{matter, client, project}[f.Related-1])
		}
	}
	dateOf := func(get func(c contract.Contract) *time.Time) *time.Time {
		d := time.Date(2020+rnd.IntN(8), time.Month(1+rnd.IntN(12)), 1+rnd.IntN(28), 0, 0, 0, 0, time.UTC)
		for range 5 {
			if v := get(some()); v != nil {
				d = *v // a bound on a stored date: both ends are inclusive
				break
			}
		}
		if chance(0.3) {
			d = d.AddDate(0, 0, rnd.IntN(61)-30)
		}
		return &d
	}
	rangeOn := func(get func(c contract.Contract) *time.Time) (from, to *time.Time) {
		switch rnd.IntN(3) {
		case 0:
			from = dateOf(get)
		case 1:
			to = dateOf(get)
		default:
			from, to = dateOf(get), dateOf(get)
			if to.Before(*from) {
				from, to = to, from
			}
		}
		return from, to
	}
	if chance(0.2) {
		f.StartFrom, f.StartTo = rangeOn(func(c contract.Contract) *time.Time { return c.StartDate })
	}
	if chance(0.15) {
		f.EndFrom, f.EndTo = rangeOn(func(c contract.Contract) *time.Time { return c.EndDate })
	}
	if chance(0.12) {
		f.OwnerID = idOf(func(c contract.Contract) *int64 { id := c.OwnerID; return &id })
	}
	if chance(0.15) {
		f.NoticeFrom, f.NoticeTo = rangeOn(func(c contract.Contract) *time.Time { return c.NoticeDate() })
	}
	f.Limit = []int64{0, 1, 5, 20, 20, 100, 100}[rnd.IntN(7)]
	switch rnd.IntN(6) {
	case 0, 1, 2:
	case 3:
		f.Offset = int64(rnd.IntN(40))
	case 4:
		f.Offset = int64(rnd.IntN(len(all) + 1))
	default:
		f.Offset = int64(len(all)) + int64(rnd.IntN(5))
	}
	return f
}

// randomTerm draws a search term from c's text: a word, a part of one (as
// short as one character), two words with the space between them, in the
// case written, lower or upper, sometimes with a character no text holds,
// a LIKE wildcard, or blank around it.
func randomTerm(rnd *rand.Rand, c contract.Contract) string {
	text := c.Name + " " + c.Description + " " + c.Comments
	words := strings.Fields(text)
	if len(words) == 0 {
		return "agreement"
	}
	i := rnd.IntN(len(words))
	w := words[i]
	switch rnd.IntN(10) {
	case 0: // two words
		if i+1 < len(words) {
			w += " " + words[i+1]
		}
	case 1, 2, 3: // a part of a word
		r := []rune(w)
		a := rnd.IntN(len(r))
		b := a + 1 + rnd.IntN(len(r)-a)
		w = string(r[a:b])
	case 4: // found nowhere
		w += "qx"
	case 5:
		w = []string{"%", "_", "a_b", "10%", `\`, `"`, "'", "é", "ü", "&"}[rnd.IntN(10)]
	}
	switch rnd.IntN(4) {
	case 0:
		w = strings.ToUpper(w)
	case 1:
		w = strings.ToLower(w)
	case 2:
		r, n := utf8.DecodeRuneInString(w)
		w = string(unicode.ToUpper(r)) + w[n:]
	}
	if rnd.IntN(8) == 0 {
		w = " " + w + " "
	}
	return w
}

// Reference returns the ids of f's page and the number of all matches
// among all, selected, ordered and paged in Go as the stores must.
func Reference(all []contract.Contract, f contract.Filter) ([]int64, int64) {
	return reference(all, f)
}

// FuzzContractList lists a filter drawn from the fuzzer's seed from s
// and from the reference over all (the contracts s holds).
func FuzzContractList(f *testing.F, s ContractStores, all []contract.Contract) {
	for _, seed := range []uint64{1, 2, 3, 28} {
		f.Add(seed, seed*7)
	}
	f.Fuzz(func(t *testing.T, a, b uint64) {
		if msg := CheckList(s, all, RandomFilter(rand.New(rand.NewPCG(a, b)), all)); msg != "" {
			t.Fatal(msg)
		}
	})
}
