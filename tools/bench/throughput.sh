#!/bin/sh
# Throughput side by side, in one run: GET /api/me (wrk) against the bare
# net/http handler, token refresh and 50 concurrent logins (tools/bench/load),
# idle memory, for each counsel binary given (e.g. a build of main and one of
# this branch).
#
#   go build -o /tmp/counsel-new ./cmd/counsel
#   sh tools/bench/throughput.sh /tmp/counsel-old /tmp/counsel-new
#
# Needs wrk (apt-get install wrk). Each binary runs on a fresh database in a
# temporary folder, on port 18080. With COUNSEL_BENCH_PG set to a PostgreSQL
# URL (say postgres://postgres@127.0.0.1:5432/test?sslmode=disable), each
# binary then runs again on a fresh database created on that server (and
# dropped after), so both engines are measured in one window:
#
#   COUNSEL_BENCH_PG=postgres://... sh tools/bench/throughput.sh /tmp/counsel-new
#
# With COUNSEL_BENCH_METRICS=1 each binary and engine runs twice, metrics
# off (COUNSEL_METRICS_TOKEN unset) and on (set), named .../metrics, so the
# cost of metrics is measured side by side; otherwise a COUNSEL_METRICS_TOKEN
# of the caller's environment reaches every server as it is. Each refresh
# line ends with the load tool's CPU time per refresh and the server's
# (read from /proc during the timed loop, sign-ins excluded).
set -eu
cd "$(dirname "$0")/../.."
PW='bench-password-123456'
tmp=$(mktemp -d)
PG=${COUNSEL_BENCH_PG:-}
pgdb=counsel_bench_$$
dropdb() { [ -z "$PG" ] || psql -q "$PG" -c "DROP DATABASE IF EXISTS $pgdb WITH (FORCE)" >/dev/null 2>&1 || true; }
trap 'kill $(cat "$tmp"/*.pid 2>/dev/null) 2>/dev/null || true; sleep 0.5; dropdb; rm -rf "$tmp"' EXIT
hz=$(getconf CLK_TCK)
ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; } # user + system, in 1/hz s
variants=default
[ -z "${COUNSEL_BENCH_METRICS:-}" ] || variants="off on"
go build -o "$tmp/bare" ./tools/bench/bare
go build -o "$tmp/load" ./tools/bench/load
"$tmp/bare" -addr 127.0.0.1:18090 & echo $! > "$tmp/bare.pid"
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
engines=sqlite
[ -z "$PG" ] || engines="sqlite postgres"
for bin in "$@"; do for engine in $engines; do for variant in $variants; do
	name=$(basename "$bin")
	rm -rf "$tmp/db" && mkdir -p "$tmp/db"
	db="$tmp/db/c.db"
	if [ "$engine" = postgres ]; then
		name="$name/postgres"
		dropdb
		psql -q "$PG" -c "CREATE DATABASE $pgdb" >/dev/null
		db=$(echo "$PG" | sed "s|^\(postgres[a-z]*://[^/]*\)/[^?]*|\1/$pgdb|")
	elif [ -n "$PG" ]; then
		name="$name/sqlite"
	fi
	metrics=${COUNSEL_METRICS_TOKEN:-}
	case $variant in
	off) metrics= ;;
	on) metrics=bench-metrics name="$name/metrics" ;;
	esac
	env -u COUNSEL_METRICS_TOKEN ${metrics:+COUNSEL_METRICS_TOKEN=$metrics} COUNSEL_DB="$db" COUNSEL_DATA_DIR="$tmp/db/data" COUNSEL_ADDR=127.0.0.1:18080 \
		COUNSEL_ADMIN_PASSWORD=$PW COUNSEL_AUTH_RATE_LIMIT=0 COUNSEL_OTP_RESEND_INTERVAL=0 \
		COUNSEL_OTP_HOURLY_LIMIT=0 COUNSEL_LOCKOUT_THRESHOLD=0 \
		"$bin" serve >"$tmp/$(echo "$name" | tr / -).log" 2>&1 & echo $! > "$tmp/serve.pid"
	pid=$(cat "$tmp/serve.pid")
	for _ in $(seq 50); do curl -s -o /dev/null http://127.0.0.1:18080/healthz 2>/dev/null && break; sleep 0.2; done
	sleep 6
	echo "== $name: idle RSS $(($(ps -o rss= -p "$pid") / 1024)) MB"
	otp=$(curl -s -X POST http://127.0.0.1:18080/api/account/login/get-otp -H 'Content-Type: application/json' \
		-d '{"email":"admin@localhost"}' | sed 's/.*"otp":"\([0-9]*\)".*/\1/')
	at=$(curl -s -X POST http://127.0.0.1:18080/api/account/login -H 'Content-Type: application/json' \
		-d "{\"email\":\"admin@localhost\",\"password\":\"$PW\",\"otp\":\"$otp\"}" | sed 's/.*"accessToken":"\([^"]*\)".*/\1/')
	test "$(curl -s -o /dev/null -w '%{http_code}' -H "Authorization: Bearer $at" http://127.0.0.1:18080/api/me)" = 200
	for round in 1 2; do
		# Besides requests a second, each server's CPU time a request
		# (from /proc): on a machine shared with other work the CPU
		# figures hold better than the rates.
		c0=$(ticks "$pid")
		wrk -t2 -c32 -d5s -H "Authorization: Bearer $at" http://127.0.0.1:18080/api/me >"$tmp/wrk.out"
		c1=$(ticks "$pid")
		me=$(awk '/Requests\/sec/ {print $2}' "$tmp/wrk.out") men=$(awk '/requests in/ {print $1}' "$tmp/wrk.out")
		c2=$(ticks "$(cat "$tmp/bare.pid")")
		wrk -t2 -c32 -d5s http://127.0.0.1:18090/api/me >"$tmp/wrk.out"
		c3=$(ticks "$(cat "$tmp/bare.pid")")
		bare=$(awk '/Requests\/sec/ {print $2}' "$tmp/wrk.out") baren=$(awk '/requests in/ {print $1}' "$tmp/wrk.out")
		echo "$name /api/me round $round: $me req/s, bare $bare req/s ($(echo "$me $bare" | awk '{printf "%.0f", 100*$1/$2}')%);" \
			"CPU a request $(echo "$c0 $c1 $men $c2 $c3 $baren" | awk -v hz="$hz" '{m = ($2 - $1) * 1e6 / hz / $3; b = ($5 - $4) * 1e6 / hz / $6
				printf "%.1f µs, bare %.1f µs (bare/counsel %.0f%%)", m, b, 100 * b / m}')"
	done
	for c in 2 16 64; do
		"$tmp/load" -url http://127.0.0.1:18080 -mode refresh -c $c -d 5s -password "$PW" -server-pid "$pid" 2>&1 | sed "s|^|$name refresh ($c): |"
	done
	echo "$name: RSS after refresh $(($(ps -o rss= -p "$pid") / 1024)) MB"
	for i in $(seq 0 49); do # while it runs, as an operator would
		echo "$PW" | COUNSEL_DB="$db" "$bin" user create --email "load$i@example.com" --first-name L --last-name U >/dev/null
	done
	"$tmp/load" -url http://127.0.0.1:18080 -mode login -c 50 -d 5s -email 'load%d@example.com' -password "$PW" 2>&1 | sed "s|^|$name: |" &
	lp=$! peak=0
	while kill -0 $lp 2>/dev/null; do
		r=$(ps -o rss= -p "$pid"); [ "$r" -gt "$peak" ] && peak=$r; sleep 0.1
	done
	echo "$name: 50 concurrent logins, peak RSS $((peak / 1024)) MB"
	kill "$pid"; wait "$pid" 2>/dev/null || true
done; done; done
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
