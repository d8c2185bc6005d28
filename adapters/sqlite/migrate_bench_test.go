//go:build unix

package sqlite

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// BenchmarkMigration0008 times migration 0008 over 100,000 contracts with
// two audit entries each, 20,000 documents and 200 users. The database
// is generated once per run, outside the timer, and copied for each
// iteration. Besides the time it reports cpu-ms/op, the processor time
// the migration took, which a machine busy with other work does not
// inflate.
//
//	go test -run '^$' -bench Migration0008 -benchtime 3x ./adapters/sqlite
func BenchmarkMigration0008(b *testing.B) {
	dir := b.TempDir()
	src := filepath.Join(dir, "seed.db")
	old := openUpTo(b, src, 7)
	execAll(b, old,
		`WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 200)
		INSERT INTO users (id, email, first_name, last_name, created_at, updated_at)
		SELECT i, 'user' || i || '@example.com', 'First' || i, 'Last' || i, 1, 1 FROM n`,
		`WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 100000)
		INSERT INTO contracts (id, uuid, contract_name, contract_description, contract_type, status, start_date, end_date,
			amount, currency, comments, matter_id, created_at, updated_at)
		SELECT i, 'uuid-' || i, 'Contract ' || i || ' lease of premises at ' || (i % 977) || ' George Street',
			'Terms for the supply of services, schedule ' || (i % 41), 1 + i % 6, 1 + i % 8, i * 1000, i * 2000,
			i % 500000, 'AUD', CASE WHEN i % 7 = 0 THEN 'keys with reception' ELSE '' END,
			CASE WHEN i % 2 = 0 THEN i % 5000 END, i, i FROM n`,
		`INSERT INTO contract_audit (contract_id, action, to_status, actor_kind, actor_user_id, actor_name, at)
		SELECT id, 'created', 1, 1, 1 + id % 200, 'First Last', created_at FROM contracts`,
		`INSERT INTO contract_audit (contract_id, action, from_status, to_status, actor_kind, actor_user_id, actor_name, at)
		SELECT id, 'statusChanged', 1, status, 1, 1 + id % 200, 'First Last', updated_at FROM contracts`,
		`INSERT INTO contract_documents (contract_id, file_name, content_type, size, sha256, storage_key, uploaded_at, uploaded_by)
		SELECT id, 'doc' || id || '.pdf', 'application/pdf', 1000, 'ab', 'key-' || id, 1, 1 + id % 200 FROM contracts WHERE id % 5 = 0`,
	)
	if err := old.Close(); err != nil {
		b.Fatal(err)
	}
	seed, err := os.ReadFile(src)
	if err != nil {
		b.Fatal(err)
	}
	var cpu time.Duration
	b.ResetTimer()
	for i := range b.N {
		b.StopTimer()
		path := filepath.Join(dir, fmt.Sprintf("m%d.db", i))
		if err := os.WriteFile(path, seed, 0o600); err != nil {
			b.Fatal(err)
		}
		cpu0 := cpuTime(b)
		b.StartTimer()
		db, err := Open(context.Background(), path)
		if err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		cpu += cpuTime(b) - cpu0
		if n := scalar[int64](b, db, `SELECT seq FROM sqlite_sequence WHERE name = 'contracts'`); n != 100_000 {
			b.Fatalf("contracts sequence %d", n)
		}
		if err := db.Close(); err != nil {
			b.Fatal(err)
		}
		os.Remove(path)
		b.StartTimer()
	}
	b.ReportMetric(float64(cpu.Milliseconds())/float64(b.N), "cpu-ms/op")
}

// cpuTime is the processor time (user and system) the process used.
func cpuTime(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
