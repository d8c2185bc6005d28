package postgres

import (
	"testing"

	"counsel/adapters/postgres/pgtest"
	"counsel/domain/contract"
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
			s, all := seedShape(t, d)
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
	s, all := seedShape(f, contractgen.Mixed)
	porttest.FuzzContractList(f, s, all)
}

// seedShape opens a database holding propertyRows contracts of shape d.
func seedShape(t testing.TB, d contractgen.Shape) (*ContractStore, []contract.Contract) {
	db := openDB(t)
	s := NewContractStore(db)
	return s, porttest.SeedContracts(t, porttest.Stores{Accounts: db.Stores().Accounts, Users: db.Stores().Users, Contracts: s}, d.Make(propertyRows, 1, porttest.T0))
}
