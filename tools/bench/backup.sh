#!/bin/bash
# Times counsel backup, counsel backup --verify and counsel restore (onto a
# new SQLite file and onto a fresh PostgreSQL database) of a SQLite database
# of 100,000 contracts and 1 GiB of documents (512 of 2 MiB), then a backup
# of the PostgreSQL database restored; prints each step's wall and CPU time,
# peak memory and the sizes.
#
#   bash tools/bench/backup.sh [WORKDIR]
#
# WORKDIR (default: a new temporary folder, removed at the end) needs some
# 4 GiB free. Environment: N contracts (100000), DOCS documents (512) of
# DOCSIZE bytes (2097152); PGSERVER, a PostgreSQL server URL without a
# database name (postgres://postgres@127.0.0.1:5432), on which the database
# counsel_bench_restore is dropped and created again. Needs psql and GNU
# time. Run from the repository's root.
set -euo pipefail
N=${N:-100000} DOCS=${DOCS:-512} DOCSIZE=${DOCSIZE:-2097152}
PGSERVER=${PGSERVER:-postgres://postgres@127.0.0.1:5432}
PGDB=counsel_bench_restore
if [ $# -gt 0 ]; then
	W=$1
	mkdir -p "$W"
else
	W=$(mktemp -d)
	trap 'rm -rf "$W"' EXIT
fi
rm -f "$W"/src.db* "$W"/backup.db "$W"/restored.db* "$W"/pg-backup.db
PG="$PGSERVER/$PGDB?sslmode=disable"

echo "load: $(cat /proc/loadavg)"
go build -o "$W/counsel" ./cmd/counsel
go build -o "$W/seed" ./tools/bench/seed
"$W/seed" -db "$W/src.db" -n "$N" -docs "$DOCS" -docsize "$DOCSIZE"

size() { stat -c %s "$1" | awk '{printf "%.1f MiB", $1 / 1048576}'; }
# step NAME COMMAND...: runs COMMAND, its output to $W/NAME.log, and prints
# its times and peak memory.
step() {
	local name=$1
	shift
	/usr/bin/time -f "%e s wall, %U s user, %S s sys, %M KiB peak RSS" -o "$W/$name.time" "$@" >"$W/$name.log" 2>&1 ||
		{ cat "$W/$name.log"; exit 1; }
	printf '%-34s %s\n' "$name:" "$(cat "$W/$name.time")"
}

echo "source: $(size "$W/src.db") ($N contracts, $DOCS documents of $DOCSIZE bytes); load: $(cat /proc/loadavg)"
step "backup (SQLite)" "$W/counsel" backup --db "$W/src.db" "$W/backup.db"
echo "  backup file: $(size "$W/backup.db")"
step "backup --verify" "$W/counsel" backup --verify "$W/backup.db"
step "restore onto a new SQLite file" "$W/counsel" restore "$W/backup.db" --to "$W/restored.db"
echo "  restored file: $(size "$W/restored.db")"
psql -q "$PGSERVER/postgres?sslmode=disable" -c "SET client_min_messages = warning" -c "DROP DATABASE IF EXISTS $PGDB" -c "CREATE DATABASE $PGDB"
echo "load: $(cat /proc/loadavg)"
step "restore onto PostgreSQL" "$W/counsel" restore "$W/backup.db" --to "$PG"
echo "  PostgreSQL database: $(psql -tA "$PG" -c "SELECT pg_size_pretty(pg_database_size(current_database()))")"
step "backup (PostgreSQL)" "$W/counsel" backup --db "$PG" "$W/pg-backup.db"
echo "  backup file: $(size "$W/pg-backup.db")"
step "backup --verify (of PostgreSQL's)" "$W/counsel" backup --verify "$W/pg-backup.db"
echo "load: $(cat /proc/loadavg)"
