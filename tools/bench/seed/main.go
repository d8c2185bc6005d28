// Command seed fills a Counsel database with generated contracts of one
// of contractgen's shapes, for looking at query plans and timing lists
// by hand:
//
//	go run ./tools/bench/seed -db /tmp/legal.db -shape legal -n 100000
//	sqlite3 /tmp/legal.db 'EXPLAIN QUERY PLAN SELECT ...'
//
// The database is created and migrated if it does not exist; the
// contracts are added to any already there.
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"time"

	"counsel/adapters/sqlite"
	"counsel/tools/bench/contractgen"
)

func main() {
	path := flag.String("db", "counsel-bench.db", "database file")
	shape := flag.String("shape", "legal", "data shape: legal or archive")
	n := flag.Int("n", 100_000, "number of contracts")
	seed := flag.Uint64("seed", 1, "random seed")
	flag.Parse()
	var d contractgen.Shape
	for _, s := range contractgen.Shapes() {
		if s.Name == *shape {
			d = s
		}
	}
	if d.Name == "" {
		log.Fatalf("unknown shape %q", *shape)
	}
	ctx := context.Background()
	db, err := sqlite.Open(ctx, *path)
	if err != nil {
		log.Fatal(err)
	}
	defer db.Close()
	t0 := time.Now()
	if err := sqlite.NewContractStore(db).ImportContracts(ctx, d.Make(*n, *seed, time.Now().UTC()), 1); err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%d %s contracts in %s (common word %q, rare word %q, status %s)\n",
		*n, d.Name, time.Since(t0).Round(time.Millisecond), d.Common, d.Rare, d.Status)
}
