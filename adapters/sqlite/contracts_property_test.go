package sqlite

import (
	"testing"

	"counsel/domain/contract"
	"counsel/ports/porttest"
	"counsel/tools/bench/contractgen"
)

// propertyRows is the number of contracts of each data shape the
// property test lists.
const propertyRows = 800

// seedShape opens a database holding propertyRows contracts of shape d.
func seedShape(t testing.TB, d contractgen.Shape) (*ContractStore, []contract.Contract) {
	db := openDB(t)
	s := NewContractStore(db)
	return s, porttest.SeedContracts(t, porttest.Stores{Accounts: db.Stores().Accounts, Users: db.Stores().Users, Contracts: s}, d.Make(propertyRows, 1, porttest.T0))
}

// TestContractListProperty runs random filters against the store and
// the reference in Go over every data shape of contractgen, with the
// planner's thresholds as configured and lowered so that each way of
// reading a page is taken over a small table.
func TestContractListProperty(t *testing.T) {
	t.Parallel()
	for _, d := range contractgen.Shapes() {
		t.Run(d.Name, func(t *testing.T) {
			t.Parallel()
			s, all := seedShape(t, d)
			for _, k := range []struct {
				name  string
				knobs listKnobs
			}{
				{"as configured", defaultKnobs},
				{"small thresholds", listKnobs{walkThreshold: 30, searchProbe: 8, wordPlan: costPlan}},
				{"walk, listing", listKnobs{walkThreshold: 0, searchProbe: 5, wordPlan: func(int64, int64, int64) int { return walkListed }}},
				{"walk, probing", listKnobs{walkThreshold: 0, searchProbe: 5, wordPlan: func(int64, int64, int64) int { return walkProbing }}},
				{"sort", listKnobs{walkThreshold: 1 << 40, searchProbe: 1 << 20, wordPlan: func(int64, int64, int64) int { return sortMatches }}},
			} {
				t.Run(k.name, func(t *testing.T) {
					s.knobs = k.knobs
					porttest.ContractListProperty(t, s, all, 60)
				})
			}
		})
	}
}

// FuzzContractList lists a filter drawn from the fuzzer's seed against
// the reference, over the mixed shape:
//
//	go test -run '^$' -fuzz FuzzContractList -fuzztime 1m ./adapters/sqlite
func FuzzContractList(f *testing.F) {
	s, all := seedShape(f, contractgen.Mixed)
	porttest.FuzzContractList(f, s, all)
}
