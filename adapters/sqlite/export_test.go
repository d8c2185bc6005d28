package sqlite

// SetWalkThreshold lets the tests of package sqlite_test read pages both
// ways over a small table. It returns a function that restores the
// threshold.
func SetWalkThreshold(n int64) (restore func()) {
	old := walkThreshold
	walkThreshold = n
	return func() { walkThreshold = old }
}

// SetSearchProbe lets the tests of package sqlite_test take a search
// past the trigram index's probe over a small table. It returns a
// function that restores the limit.
func SetSearchProbe(n int) (restore func()) {
	old := searchProbe
	searchProbe = n
	return func() { searchProbe = old }
}
