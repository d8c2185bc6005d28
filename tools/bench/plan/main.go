// Command plan prints each query's plan (EXPLAIN QUERY PLAN), its first
// rows, and the CPU time of twelve runs (rows:time), which a machine shared
// with other work disturbs much less than wall time:
//
//	go run ./tools/bench/plan /tmp/legal.db "SELECT count(*) FROM contracts WHERE status = 4"
//
// A database to look at comes from tools/bench/seed.
package main

import (
	"database/sql"
	"fmt"
	"os"
	"strings"
	"syscall"
	"time"

	_ "modernc.org/sqlite"
)

func main() {
	db, err := sql.Open("sqlite", "file:"+os.Args[1])
	if err != nil {
		panic(err)
	}
	for _, q := range os.Args[2:] {
		for k, pre := range []string{"EXPLAIN QUERY PLAN ", "", "", "", "", "", "", "", "", "", "", "", ""} {
			t0 := time.Now()
			var ru0 syscall.Rusage
			syscall.Getrusage(syscall.RUSAGE_SELF, &ru0)
			rows, err := db.Query(pre + q)
			if err != nil {
				fmt.Println("ERR", err)
				continue
			}
			cols, _ := rows.Columns()
			n := 0
			for rows.Next() {
				vals := make([]any, len(cols))
				ptrs := make([]any, len(cols))
				for i := range vals {
					ptrs[i] = &vals[i]
				}
				rows.Scan(ptrs...)
				if n < 3 && k < 2 {
					var s []string
					for _, v := range vals {
						s = append(s, fmt.Sprint(v))
					}
					fmt.Println(strings.Join(s, " | "))
				}
				n++
			}
			rows.Close()
			if k > 0 {
				var ru1 syscall.Rusage
				syscall.Getrusage(syscall.RUSAGE_SELF, &ru1)
				cpu := time.Duration(ru1.Utime.Nano() + ru1.Stime.Nano() - ru0.Utime.Nano() - ru0.Stime.Nano())
				_ = t0
				fmt.Printf("%d:%s ", n, cpu.Round(100*time.Microsecond))
			}
		}
		fmt.Println()
	}
}
