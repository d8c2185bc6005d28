#!/bin/bash
# Peak resident memory of counsel serve under ten parallel downloads of one
# 20 MiB document (three rounds, each download checked against its SHA-256):
# VmHWM from /proc/PID/status (Linux).
#
#   go build -o /tmp/counsel ./cmd/counsel
#   bash tools/bench/download-rss.sh /tmp/counsel /tmp/rss.db 18411
#   bash tools/bench/download-rss.sh /tmp/counsel 'postgres://postgres@127.0.0.1:5432/test?sslmode=disable&search_path=rss%2Cpublic' 18412
#
# DB is a new SQLite path or the URL of an empty PostgreSQL database or
# schema (with pg_trgm reachable on the search path). Needs curl and python3.
set -euo pipefail
BIN=$1 DB=$2 PORT=$3
W=$(mktemp -d)
head -c $((20 * 1024 * 1024 - 20)) /dev/urandom >"$W/body"
{ printf '%%PDF-1.4\n'; cat "$W/body"; printf '\n%%%%EOF\n'; } | head -c $((20 * 1024 * 1024)) >"$W/doc.pdf"
COUNSEL_DB=$DB COUNSEL_DATA_DIR=$W/data COUNSEL_ADDR=127.0.0.1:$PORT COUNSEL_ADMIN_PASSWORD=measure-pass-1 \
	COUNSEL_LOG_LEVEL=error "$BIN" serve >"$W/log" 2>&1 &
PID=$!
trap 'kill $PID 2>/dev/null; rm -rf "$W"' EXIT
U=http://127.0.0.1:$PORT
for _ in $(seq 100); do curl -sf "$U/healthz" >/dev/null && break; sleep 0.2; done
json() { python3 -c "import sys,json;print(json.load(sys.stdin)[\"$1\"])"; }
OTP=$(curl -sf -XPOST "$U/api/account/login/get-otp" -H 'content-type: application/json' -d '{"email":"admin@localhost"}' | json otp)
TOK=$(curl -sf -XPOST "$U/api/account/login" -H 'content-type: application/json' \
	-d "{\"email\":\"admin@localhost\",\"password\":\"measure-pass-1\",\"otp\":\"$OTP\"}" | json accessToken)
CID=$(curl -sf -XPOST "$U/api/contracts" -H "authorization: Bearer $TOK" -H 'content-type: application/json' -d '{"contractName":"Memory"}' | json id)
DID=$(curl -sf -XPOST "$U/api/contracts/$CID/documents" -H "authorization: Bearer $TOK" -F "file=@$W/doc.pdf;type=application/pdf" | json id)
echo "after start and one 20 MiB upload: $(grep -E 'VmHWM|VmRSS' /proc/$PID/status | tr -s ' \t\n' ' ')"
WANT=$(sha256sum "$W/doc.pdf" | cut -c1-64)
for round in 1 2 3; do
	pids=()
	for i in $(seq 10); do
		curl -sf -H "authorization: Bearer $TOK" "$U/api/contracts/$CID/documents/$DID/content" -o "$W/out.$i" &
		pids+=($!)
	done
	wait "${pids[@]}"
	for i in $(seq 10); do [ "$(sha256sum "$W/out.$i" | cut -c1-64)" = "$WANT" ] || echo "download $i differs"; done
	echo "after round $round of 10 parallel downloads: $(grep -E 'VmHWM|VmRSS' /proc/$PID/status | tr -s ' \t\n' ' ')"
done
