#!/bin/sh
# Every figure of docs/performance.md's tables in one run (about 8 to 12
# minutes on the 2-core machine), for a quiet machine: the issue-17 list
# shapes over 100,000 contracts of both generated data shapes
# (BenchmarkContractShapes), then the throughput of two binaries side by
# side (throughput.sh: /api/me against the bare handler, refresh at 2, 16
# and 64 clients, idle memory, 50 concurrent logins). Prints the raw lines
# and then a table.
#
#   sh tools/bench/quiet.sh [OLD-REV]      (default OLD-REV: 5e4fffb)
#
# OLD-REV is built from git (git archive) into a temporary folder; NEW is
# the working tree. Needs wrk. The load average is printed before and after.
set -eu
cd "$(dirname "$0")/../.."
old=${1:-5e4fffb}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
mkdir "$tmp/old"
git archive "$old" | tar -x -C "$tmp/old"
(cd "$tmp/old" && go build -o "$tmp/counsel-old" ./cmd/counsel)
go build -o "$tmp/counsel-new" ./cmd/counsel

start=$(date +%s)
COUNSEL_BENCH_CONTRACTS=100000 go test -run '^$' -bench ContractShapes -benchtime 100x -timeout 30m ./app >"$tmp/shapes.log" 2>&1 ||
	{ cat "$tmp/shapes.log"; exit 1; }
echo "list shapes: $(($(date +%s) - start)) s, load average $(cut -d' ' -f1-3 /proc/loadavg)"
sh tools/bench/throughput.sh "$tmp/counsel-old" "$tmp/counsel-new" >"$tmp/tp.log" 2>&1 || { cat "$tmp/tp.log"; exit 1; }
echo "total: $(($(date +%s) - start)) s"
echo
grep -E 'seeded|count .*p50' "$tmp/shapes.log" | sed 's/^ *//'
cat "$tmp/tp.log"
echo
echo "| Shape | data | count | p50 ms | p99 ms | CPU p50 ms | floor p50 ms |"
echo "|---|---|---|---|---|---|---|"
# "legal status: count 41780, p50 0.30 ms, p99 1.2 ms (CPU p50 0.3, p99 0.9); count(*) N: p50 .. ms, ...; word index count N: p50 .."
grep -E 'count .*p50' "$tmp/shapes.log" | sed 's/^ *[^ ]*: *//' | awk '{
	data = $1; shape = $2; sub(":", "", shape)
	line = $0
	match(line, /count [0-9]+/); count = substr(line, RSTART + 6, RLENGTH - 6)
	match(line, /, p50 [0-9.]+/); p50 = substr(line, RSTART + 6, RLENGTH - 6)
	match(line, /, p99 [0-9.]+/); p99 = substr(line, RSTART + 6, RLENGTH - 6)
	match(line, /CPU p50 [0-9.]+/); cpu = substr(line, RSTART + 8, RLENGTH - 8)
	floor = ""
	if (match(line, /word index count [0-9]+: p50 [0-9.]+/)) { s = substr(line, RSTART, RLENGTH); sub(/.*p50 /, "", s); floor = s " (word index)" }
	else if (match(line, /count\(\*\) [0-9]+: p50 [0-9.]+/)) { s = substr(line, RSTART, RLENGTH); sub(/.*p50 /, "", s); floor = s }
	printf "| %s | %s | %s | %s | %s | %s | %s |\n", shape, data, count, p50, p99, cpu, floor
}'
echo
echo "| What | old ($old) | new |"
echo "|---|---|---|"
row() { # label, pattern; the figure after the binary name
	o=$(grep "^counsel-old$2" "$tmp/tp.log" | sed "s|^counsel-old$2||" | tr '\n' ';' | sed 's/;$//')
	n=$(grep "^counsel-new$2" "$tmp/tp.log" | sed "s|^counsel-new$2||" | tr '\n' ';' | sed 's/;$//')
	echo "| $1 | $o | $n |"
}
row "/api/me vs bare" ' /api/me round [12]: '
row "refresh, 2 clients" ' refresh (2): refreshes: '
row "refresh, 16 clients" ' refresh (16): refreshes: '
row "refresh, 64 clients" ' refresh (64): refreshes: '
row "logins" ': logins: '
row "50 logins, peak" ': 50 concurrent logins, peak RSS '
o=$(grep '^== counsel-old' "$tmp/tp.log" | sed 's/.*idle RSS //'); n=$(grep '^== counsel-new' "$tmp/tp.log" | sed 's/.*idle RSS //')
echo "| idle RSS (fresh database) | $o | $n |"
echo
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
