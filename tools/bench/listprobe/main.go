// Command listprobe times the contract list through HTTP, as a firm's
// browser meets it: it seeds -n contracts of a contractgen shape into a
// fresh SQLite file or a fresh PostgreSQL database, starts the real
// `counsel serve` on it, signs in, and requests each list shape (first
// page; a status; a status sorted by name; a rare word; a common word
// with and without a status; type + signed + a start-date range; a deep
// page) -requests times, one at a time. It prints each shape's p50 and
// p99 and the CPU time per request of the server and, for a PostgreSQL
// server on this machine, of its backends, and checks every answer's
// count against the same selection made in Go over the seeded contracts.
//
//	go build -o /tmp/counsel ./cmd/counsel
//	go run ./tools/bench/listprobe -bin /tmp/counsel -shape legal
//	go run ./tools/bench/listprobe -bin /tmp/counsel -shape legal -pg 'postgres://postgres@127.0.0.1:5432/test?sslmode=disable'
//
// The server is started twice: once to create the database and its
// administrator, then, after the seeding, again, as after a restore: the
// statistics its plans need are the service's to make, not the probe's.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"

	"counsel/adapters/postgres"
	"counsel/adapters/sqlite"
	"counsel/domain/contract"
	"counsel/ports/porttest"
	"counsel/tools/bench/contractgen"
)

const password = "probe-password-123456"

func main() {
	bin := flag.String("bin", "", "counsel binary (built from ./cmd/counsel when empty)")
	shapeName := flag.String("shape", "legal", "data shape: legal, archive or mixed")
	n := flag.Int("n", 100_000, "contracts to seed")
	requests := flag.Int("requests", 200, "requests per list shape")
	pg := flag.String("pg", "", "PostgreSQL server URL: seed a fresh database there instead of a SQLite file")
	addr := flag.String("addr", "", "listen address of the server (a free port of 127.0.0.1 when empty)")
	keep := flag.Bool("keep", false, "keep the PostgreSQL database (and print its URL) for a look at its plans")
	flag.Parse()
	shape, ok := contractgen.ByName(*shapeName)
	if !ok {
		log.Fatalf("unknown shape %q", *shapeName)
	}
	tmp, err := os.MkdirTemp("", "listprobe")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(tmp)
	if *bin == "" {
		*bin = filepath.Join(tmp, "counsel")
		if out, err := exec.Command("go", "build", "-o", *bin, "./cmd/counsel").CombinedOutput(); err != nil {
			log.Fatalf("build counsel: %v\n%s", err, out)
		}
	}
	ctx := context.Background()
	dsn := filepath.Join(tmp, "counsel.db")
	engine := "sqlite"
	if *pg != "" {
		engine = "postgres"
		name := fmt.Sprintf("counsel_listprobe_%d", os.Getpid())
		dsn = createDatabase(ctx, *pg, name)
		if *keep {
			defer fmt.Printf("kept %s\n", dsn)
		} else {
			defer dropDatabase(*pg, name)
		}
	}
	if *addr == "" {
		*addr = freeAddr()
	}
	fmt.Printf("%s, %s shape, %d contracts; load average %s\n", engine, shape.Name, *n, loadavg())

	srv := start(*bin, dsn, tmp, *addr) // creates the schema and the administrator
	srv.stop()
	now := time.Now().UTC()
	cs := shape.Make(*n, 1, now)
	t0 := time.Now()
	seed(ctx, engine, dsn, cs)
	fmt.Printf("seeded in %s\n", time.Since(t0).Round(time.Millisecond))
	all := stored(cs)

	srv = start(*bin, dsn, tmp, *addr)
	defer srv.stop()
	dbCPU := func() time.Duration { return 0 } // SQLite runs inside the server
	if engine == "postgres" {
		dbCPU = backendsCPU(ctx, dsn)
	}
	base := "http://" + *addr
	token := signIn(base)
	over := 0
	for _, ls := range shapes(shape) {
		f, err := contract.ParseFilter(query(ls.query))
		if err != nil {
			log.Fatalf("%s: %v", ls.name, err)
		}
		_, want := porttest.Reference(all, f)
		took := make([]time.Duration, 0, *requests)
		cpu0, db0 := srv.cpu(), dbCPU()
		for i := 0; i < *requests; i++ {
			t0 := time.Now()
			count := list(base, token, ls.query)
			took = append(took, time.Since(t0))
			if count != want {
				log.Fatalf("%s: count %d, want %d", ls.name, count, want)
			}
		}
		cpuPer := (srv.cpu() - cpu0) / time.Duration(*requests)
		dbPer := (dbCPU() - db0) / time.Duration(*requests)
		p50, p99 := pct(took, 0.5), pct(took, 0.99)
		mark := ""
		if p99 >= 10*time.Millisecond {
			mark, over = "  OVER", over+1
		}
		dbNote := ""
		if engine == "postgres" {
			dbNote = fmt.Sprintf(", PostgreSQL %5.2f", ms(dbPer))
		}
		fmt.Printf("%-22s count %7d  p50 %6.2f ms  p99 %6.2f ms  CPU/request: server %5.2f%s ms%s\n",
			ls.name, want, ms(p50), ms(p99), ms(cpuPer), dbNote, mark)
	}
	fmt.Printf("load average %s; %d shapes at or over 10 ms p99\n", loadavg(), over)
}

// listShape is one question asked of a contract list.
type listShape struct{ name, query string }

// shapes are the list shapes asked of data shape d (those of
// app/contracts_shapes_bench_test.go).
func shapes(d contractgen.Shape) []listShape {
	st := d.Status.String()
	return []listShape{
		{"first-page", ""},
		{"status", "Status=" + st},
		{"status+name", "Status=" + st + "&SortBy=contractName&SortDesc=false"},
		{"rare-word", "Search=" + d.Rare},
		{"common-word", "Search=" + d.Common},
		{"common-word+status", "Search=" + d.Common + "&Status=" + st},
		{"type+signed+start", "ContractType=ServiceAgreement&IsSigned=true&StartDateFrom=2023-01-01&StartDateTo=2024-12-31"},
		{"status+offset-20000", "Status=" + st + "&Offset=20000"},
	}
}

func query(q string) url.Values {
	v, err := url.ParseQuery(q)
	if err != nil {
		log.Fatal(err)
	}
	return v
}

// stored is cs as the stores keep them: ids in order from 1, times to
// the millisecond.
func stored(cs []contract.Contract) []contract.Contract {
	out := slices.Clone(cs)
	for i := range out {
		out[i].ID = int64(i + 1)
		out[i].CreatedAt = out[i].CreatedAt.Truncate(time.Millisecond)
		out[i].UpdatedAt = out[i].UpdatedAt.Truncate(time.Millisecond)
	}
	return out
}

func seed(ctx context.Context, engine, dsn string, cs []contract.Contract) {
	var err error
	if engine == "postgres" {
		db, oerr := postgres.Open(ctx, dsn)
		if oerr != nil {
			log.Fatal(oerr)
		}
		defer db.Close()
		err = postgres.NewContractStore(db).ImportContracts(ctx, cs, 1)
	} else {
		db, oerr := sqlite.Open(ctx, dsn)
		if oerr != nil {
			log.Fatal(oerr)
		}
		defer db.Close()
		err = sqlite.NewContractStore(db).ImportContracts(ctx, cs, 1)
	}
	if err != nil {
		log.Fatalf("seed: %v", err)
	}
}

func createDatabase(ctx context.Context, server, name string) string {
	conn, err := pgx.Connect(ctx, server)
	if err != nil {
		log.Fatal(err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, `CREATE DATABASE `+name); err != nil {
		log.Fatal(err)
	}
	u, err := url.Parse(server)
	if err != nil {
		log.Fatal(err)
	}
	u.Path = "/" + name
	return u.String()
}

func dropDatabase(server, name string) {
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, server)
	if err != nil {
		log.Print(err)
		return
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, `DROP DATABASE IF EXISTS `+name+` WITH (FORCE)`); err != nil {
		log.Print(err)
	}
}

// freeAddr returns an address of 127.0.0.1 on a port no one listens on.
func freeAddr() string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		log.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

// server is a running `counsel serve`.
type server struct {
	cmd  *exec.Cmd
	done chan struct{}
}

func start(bin, dsn, dir, addr string) server {
	cmd := exec.Command(bin, "serve")
	cmd.Env = append(os.Environ(), "COUNSEL_DB="+dsn, "COUNSEL_DATA_DIR="+filepath.Join(dir, "data"), "COUNSEL_ADDR="+addr,
		"COUNSEL_ADMIN_PASSWORD="+password, "COUNSEL_AUTH_RATE_LIMIT=0", "COUNSEL_OTP_RESEND_INTERVAL=0",
		"COUNSEL_OTP_HOURLY_LIMIT=0", "COUNSEL_LOCKOUT_THRESHOLD=0", "COUNSEL_LOG_LEVEL=warn")
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Start(); err != nil {
		log.Fatal(err)
	}
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	for i := 0; ; i++ {
		select {
		case <-done:
			log.Fatalf("counsel serve ended: %v", cmd.ProcessState)
		default:
		}
		if r, err := http.Get("http://" + addr + "/readyz"); err == nil {
			r.Body.Close()
			if r.StatusCode == 200 {
				break
			}
		}
		if i == 600 {
			cmd.Process.Kill()
			log.Fatal("the server did not become ready in a minute")
		}
		time.Sleep(100 * time.Millisecond)
	}
	return server{cmd, done}
}

func (s server) stop() {
	s.cmd.Process.Signal(syscall.SIGTERM)
	<-s.done
}

// cpu is the server's CPU time so far (user and system), from /proc.
func (s server) cpu() time.Duration { return procCPU(s.cmd.Process.Pid) }

// backendsCPU returns a function reporting the CPU time so far of the
// PostgreSQL backends connected to the database of dsn other than its
// own (the server's pool), when the server runs on this machine (else 0).
func backendsCPU(ctx context.Context, dsn string) func() time.Duration {
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		log.Fatal(err)
	}
	return func() time.Duration {
		rows, err := conn.Query(ctx, `SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()`)
		if err != nil {
			log.Fatal(err)
		}
		pids, err := pgx.CollectRows(rows, pgx.RowTo[int32])
		if err != nil {
			log.Fatal(err)
		}
		var sum time.Duration
		for _, pid := range pids {
			sum += procCPU(int(pid))
		}
		return sum
	}
}

// procCPU is process pid's CPU time so far (user and system), from /proc.
func procCPU(pid int) time.Duration {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	fields := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+2:]))
	utime, _ := strconv.ParseInt(fields[11], 10, 64)
	stime, _ := strconv.ParseInt(fields[12], 10, 64)
	return time.Duration(utime+stime) * 10 * time.Millisecond // USER_HZ 100
}

var otpRE = regexp.MustCompile(`"otp":"([0-9]+)"`)

func signIn(base string) string {
	post := func(path, body string) []byte {
		r, err := http.Post(base+path, "application/json", strings.NewReader(body))
		if err != nil {
			log.Fatal(err)
		}
		defer r.Body.Close()
		b, _ := io.ReadAll(r.Body)
		if r.StatusCode != 200 {
			log.Fatalf("%s: %d %s", path, r.StatusCode, b)
		}
		return b
	}
	m := otpRE.FindSubmatch(post("/api/account/login/get-otp", `{"email":"admin@localhost"}`))
	if m == nil {
		log.Fatal("no OTP in the answer (COUNSEL_OTP_DELIVERY must show it)")
	}
	var tok struct {
		AccessToken string `json:"accessToken"`
	}
	b := post("/api/account/login", fmt.Sprintf(`{"email":"admin@localhost","password":%q,"otp":%q}`, password, m[1]))
	if err := json.Unmarshal(b, &tok); err != nil || tok.AccessToken == "" {
		log.Fatalf("login: %v %s", err, b)
	}
	return tok.AccessToken
}

func list(base, token, q string) int64 {
	req, _ := http.NewRequest("GET", base+"/api/contracts?"+q, nil)
	req.Header.Set("Authorization", "Bearer "+token)
	r, err := http.DefaultClient.Do(req)
	if err != nil {
		log.Fatal(err)
	}
	defer r.Body.Close()
	var page struct {
		Count *int64 `json:"count"`
	}
	b, _ := io.ReadAll(r.Body)
	if r.StatusCode != 200 || json.Unmarshal(b, &page) != nil || page.Count == nil {
		log.Fatalf("GET /api/contracts?%s: %d %.300s", q, r.StatusCode, b)
	}
	return *page.Count
}

func pct(d []time.Duration, p float64) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	return s[int(p*float64(len(s)-1))]
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func loadavg() string {
	b, _ := os.ReadFile("/proc/loadavg")
	return strings.Join(strings.Fields(string(b))[:3], " ")
}
