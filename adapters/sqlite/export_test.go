package sqlite

// SetWalkThreshold lets the tests of package sqlite_test read pages both
// ways over a small table. It returns a function that restores the
// threshold.
func SetWalkThreshold(n int64) (restore func()) {
	old := walkThreshold
	walkThreshold = n
	return func() { walkThreshold = old }
}
