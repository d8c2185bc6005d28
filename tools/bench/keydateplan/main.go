// Command keydateplan seeds contracts of a contractgen shape into a fresh
// database (a SQLite file or a PostgreSQL URL), each given an owner among
// -owners users and a notice period, and prints the plan of the key-date
// job's candidate query (sqlrow.DueKeyDatesSQL) and the time of the job's
// reads: the first run of a day, with every candidate due, and the
// steady state, once they are announced (docs/performance.md):
//
//	go run ./tools/bench/keydateplan -db /tmp/kd.db
//	go run ./tools/bench/keydateplan -db 'postgres://postgres@127.0.0.1:5432/kd?sslmode=disable'
package main

import (
	"context"
	"database/sql"
	"flag"
	"fmt"
	"log"
	"math/rand/v2"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	_ "modernc.org/sqlite"

	"counsel/adapters/sqlrow"
	"counsel/app"
	"counsel/domain/account"
	"counsel/domain/contract"
	"counsel/domain/user"
	"counsel/ports"
	"counsel/tools/bench/contractgen"
)

func main() {
	dsn := flag.String("db", "keydates-bench.db", "a new SQLite file or an empty PostgreSQL database URL")
	n := flag.Int("n", 100_000, "number of contracts")
	owners := flag.Int("owners", 50, "number of owners")
	shape := flag.String("shape", "legal", "contractgen shape")
	flag.Parse()
	d, ok := contractgen.ByName(*shape)
	if !ok {
		log.Fatalf("unknown shape %q", *shape)
	}
	ctx := context.Background()
	s, err := app.OpenStores(ctx, *dsn, "")
	if err != nil {
		log.Fatal(err)
	}
	defer s.Close()
	if _, err := s.Accounts.Bootstrap(ctx, account.NewUser{Email: "owner0@example.com", FirstName: "Owner", LastName: "0", PasswordHash: "x"}); err != nil {
		log.Fatal(err)
	}
	ids := []int64{}
	for i := range *owners {
		c, err := s.Accounts.CredentialsByEmail(ctx, fmt.Sprintf("owner%d@example.com", i))
		if err != nil {
			u := user.New()
			u.Email, u.FirstName = fmt.Sprintf("owner%d@example.com", i), "Owner"
			p, err := s.Users.CreateUser(ctx, u, "x", nil)
			if err != nil {
				log.Fatal(err)
			}
			ids = append(ids, p.ID)
			continue
		}
		ids = append(ids, c.UserID)
	}
	now := time.Now().UTC()
	have, err := s.RowCount(ctx, "contracts")
	if err != nil {
		log.Fatal(err)
	}
	if have == 0 { // a database seeded before is measured again as it is
		rnd := rand.New(rand.NewPCG(1, 2))
		cs := d.Make(*n, 1, now)
		for i := range cs {
			cs[i].OwnerID = ids[rnd.IntN(len(ids))]
			if rnd.IntN(2) == 0 {
				days := []int{0, 30, 60, 90}[rnd.IntN(4)]
				cs[i].NoticeDays = &days
			}
		}
		t0 := time.Now()
		if err := s.Contracts.ImportContracts(ctx, cs, ids[0]); err != nil {
			log.Fatal(err)
		}
		fmt.Printf("%d %s contracts, %d owners, in %s\n", *n, d.Name, len(ids), time.Since(t0).Round(time.Millisecond))
	}

	thresholds := []int{7, 30, 90}
	from, to := contract.KeyDateWindow(now, thresholds)
	explain(ctx, *dsn, s.Engine, from, to, thresholds)
	t0 := time.Now()
	due, err := s.KeyDates.DueKeyDates(ctx, from, to, thresholds)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("first run of the day: %d candidates read in %s\n", len(due), time.Since(t0).Round(time.Microsecond))
	t0 = time.Now()
	digests := 0
	for len(due) > 0 {
		k := 1
		for k < len(due) && due[k].OwnerID == due[0].OwnerID {
			k++
		}
		var as []ports.KeyDateAnnouncement
		for _, c := range due[:k] {
			if listed, record, ok := contract.KeyDateDue(now, c.NoticeDate, thresholds, c.Announced); ok {
				as = append(as, ports.KeyDateAnnouncement{Due: c, Listed: listed, Record: record})
			}
		}
		if _, err := s.KeyDates.AnnounceKeyDates(ctx, as, func([]ports.KeyDateAnnouncement) error { digests++; return nil }); err != nil {
			log.Fatal(err)
		}
		due = due[k:]
	}
	fmt.Printf("announced in %d digests in %s\n", digests, time.Since(t0).Round(time.Millisecond))
	for i := range 3 {
		t0 = time.Now()
		due, err = s.KeyDates.DueKeyDates(ctx, from, to, thresholds)
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("steady state, run %d: %d candidates read in %s\n", i+1, len(due), time.Since(t0).Round(time.Microsecond))
	}
	explain(ctx, *dsn, s.Engine, from, to, thresholds)
}

// explain prints the plan of the candidate query: EXPLAIN QUERY PLAN on
// SQLite, EXPLAIN (ANALYZE, BUFFERS) on PostgreSQL.
func explain(ctx context.Context, dsn, engine string, from, to time.Time, thresholds []int) {
	if engine == "postgres" {
		q, args := sqlrow.DueKeyDatesSQL(pgTimes{}, from, to, thresholds)
		conn, err := pgx.Connect(ctx, dsn)
		if err != nil {
			log.Fatal(err)
		}
		defer conn.Close(ctx)
		if _, err := conn.Exec(ctx, "ANALYZE"); err != nil {
			log.Fatal(err)
		}
		rows, err := conn.Query(ctx, "EXPLAIN (ANALYZE, BUFFERS) "+dollars(q), args...)
		if err != nil {
			log.Fatal(err)
		}
		defer rows.Close()
		for rows.Next() {
			var line string
			if err := rows.Scan(&line); err != nil {
				log.Fatal(err)
			}
			fmt.Println("  " + line)
		}
		return
	}
	q, args := sqlrow.DueKeyDatesSQL(msTimes{}, from, to, thresholds)
	db, err := sql.Open("sqlite", "file:"+dsn)
	if err != nil {
		log.Fatal(err)
	}
	defer db.Close()
	rows, err := db.QueryContext(ctx, "EXPLAIN QUERY PLAN "+q, args...)
	if err != nil {
		log.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var id, parent, unused int
		var detail string
		if err := rows.Scan(&id, &parent, &unused, &detail); err != nil {
			log.Fatal(err)
		}
		fmt.Println("  " + detail)
	}
}

// dollars numbers the ? placeholders of q as PostgreSQL's $1, $2, ...
func dollars(q string) string {
	var b strings.Builder
	n := 0
	for _, r := range q {
		if r == '?' {
			n++
			b.WriteString("$" + strconv.Itoa(n))
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

type pgTimes struct{}

func (pgTimes) Arg(t time.Time) any               { return t }
func (pgTimes) Decode(src any) (time.Time, error) { return src.(time.Time), nil }

type msTimes struct{}

func (msTimes) Arg(t time.Time) any               { return t.UnixMilli() }
func (msTimes) Decode(src any) (time.Time, error) { return time.UnixMilli(src.(int64)).UTC(), nil }
