package sqlite

// SetWalkThreshold lets the tests of package sqlite_test read pages both
// ways over a small table, on store s alone.
func (s *ContractStore) SetWalkThreshold(n int64) { s.knobs.walkThreshold = n }

// SetSearchProbe lets the tests of package sqlite_test take a search
// past the trigram index's probe over a small table, on store s alone.
func (s *ContractStore) SetSearchProbe(n int) { s.knobs.searchProbe = n }
