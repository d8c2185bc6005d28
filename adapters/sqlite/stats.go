package sqlite

// Connections returns how many connections of the reader pool and the
// writer are in use and idle.
func (db *DB) Connections() (inUse, idle int) {
	r, w := db.read.Stats(), db.write.Stats()
	return r.InUse + w.InUse, r.Idle + w.Idle
}
