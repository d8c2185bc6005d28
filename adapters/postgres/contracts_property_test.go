package postgres

import (
	"math/rand/v2"
	"testing"

	"counsel/adapters/postgres/pgtest"
	"counsel/ports/porttest"
	"counsel/tools/bench/contractgen"
)

// propertyRows is the number of contracts of each data shape the
// property test lists: past deepOffset, so that deep pages take their
// own path.
const propertyRows = 1200

// TestContractListProperty runs random filters against the store and
// the reference in Go over every data shape of contractgen.
func TestContractListProperty(t *testing.T) {
	pgtest.Skip(t)
	for _, d := range contractgen.Shapes() {
		t.Run(d.Name, func(t *testing.T) {
			t.Parallel()
			db := openDB(t)
			s := NewContractStore(db)
			all := porttest.SeedContracts(t, porttest.Stores{Accounts: NewAccountStore(db), Users: NewUserStore(db), Contracts: s}, d.Make(propertyRows, 1, porttest.T0))
			porttest.ContractListProperty(t, s, all, 150)
			// And with few contracts taken as an id list, so that searches
			// past the bound take the postings' subquery.
			s.postedIDs = 20
			porttest.ContractListProperty(t, s, all, 100)
		})
	}
}

// FuzzContractList lists a filter drawn from the fuzzer's seed against
// the reference, over the mixed shape:
//
//	go test -run '^$' -fuzz FuzzContractList -fuzztime 1m ./adapters/postgres
func FuzzContractList(f *testing.F) {
	pgtest.Skip(f)
	db := openDB(f)
	s := NewContractStore(db)
	all := porttest.SeedContracts(f, porttest.Stores{Accounts: NewAccountStore(db), Users: NewUserStore(db), Contracts: s}, contractgen.Mixed.Make(propertyRows, 1, porttest.T0))
	for _, seed := range []uint64{1, 2, 3, 28} {
		f.Add(seed, seed*7)
	}
	f.Fuzz(func(t *testing.T, a, b uint64) {
		if msg := porttest.CheckList(s, all, porttest.RandomFilter(rand.New(rand.NewPCG(a, b)), all)); msg != "" {
			t.Fatal(msg)
		}
	})
}
