// Command inserts times writes into the contracts table of a Counsel
// database with SQLite's default settings (no pragmas beyond what the
// file keeps): one transaction of -batch contracts, then -single
// contracts each in its own transaction (p50 and p95). It writes to the
// file given, so run it on a copy:
//
//	go run ./tools/bench/seed -db /tmp/big.db -n 100000
//	cp /tmp/big.db /tmp/x.db && go run ./tools/bench/inserts -db /tmp/x.db
//
// An empty database for the baseline is one `counsel` has migrated
// (go run ./tools/bench/seed -db /tmp/empty.db -n 0).
package main

import (
	"context"
	"database/sql"
	"flag"
	"fmt"
	"log"
	"os"
	"runtime/pprof"
	"slices"
	"time"

	"counsel/tools/bench/contractgen"

	_ "modernc.org/sqlite"
)

func main() {
	path := flag.String("db", "", "database file (written to)")
	batch := flag.Int("batch", 1000, "contracts in the one transaction")
	single := flag.Int("single", 200, "contracts each in its own transaction")
	prof := flag.String("cpuprofile", "", "write a CPU profile of the writes to this file")
	pre := flag.String("exec", "", "SQL to run first (an experiment's setting)")
	flag.Parse()
	if *path == "" {
		log.Fatal("-db is required")
	}
	ctx := context.Background()
	db, err := sql.Open("sqlite", "file:"+*path)
	if err != nil {
		log.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	if *pre != "" {
		if _, err := db.ExecContext(ctx, *pre); err != nil {
			log.Fatal(err)
		}
	}
	var n int64
	if err := db.QueryRowContext(ctx, `SELECT count(*) FROM contracts`).Scan(&n); err != nil {
		log.Fatal(err)
	}
	cs := contractgen.Legal.Make(*batch+*single, uint64(time.Now().UnixNano()), time.Now().UTC())
	const q = `INSERT INTO contracts (uuid, contract_name, contract_description, comments, contract_type, status,
		start_date, end_date, amount, currency, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`
	now := time.Now().UnixMilli()
	insert := func(x interface {
		ExecContext(context.Context, string, ...any) (sql.Result, error)
	}, i int) {
		c := cs[i]
		if _, err := x.ExecContext(ctx, q, fmt.Sprintf("%d-%d", now, i), c.Name, c.Description, c.Comments, int(c.Type), int(c.Status),
			now, now, 100, "EUR", now, now); err != nil {
			log.Fatal(err)
		}
	}
	if *prof != "" {
		f, err := os.Create(*prof)
		if err != nil {
			log.Fatal(err)
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			log.Fatal(err)
		}
		defer pprof.StopCPUProfile()
	}
	t0 := time.Now()
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		log.Fatal(err)
	}
	for i := 0; i < *batch; i++ {
		insert(tx, i)
	}
	if err := tx.Commit(); err != nil {
		log.Fatal(err)
	}
	batchTime := time.Since(t0)
	var ds []time.Duration
	for i := *batch; i < *batch+*single; i++ {
		t := time.Now()
		insert(db, i)
		ds = append(ds, time.Since(t))
	}
	slices.Sort(ds)
	pct := func(p float64) time.Duration {
		if len(ds) == 0 {
			return 0
		}
		return ds[int(p*float64(len(ds)-1))]
	}
	fmt.Printf("contracts before: %d; %d in one transaction: %s (%.3f ms each); %d single: p50 %.3f ms, p95 %.3f ms\n",
		n, *batch, batchTime.Round(time.Millisecond), float64(batchTime.Microseconds())/1000/float64(max(*batch, 1)),
		*single, float64(pct(0.5).Microseconds())/1000, float64(pct(0.95).Microseconds())/1000)
}
