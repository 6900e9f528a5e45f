#!/usr/bin/env bash
# The PostgreSQL store's rows: the same commands on the same data, once on a SQLite
# file and once on a database of a private cluster on loopback (scripts/postgres-cluster.sh),
# each ratio against SQLite's:
#   next      `feedcli next` on an indexed feed (one request), a fresh store each run    ≤ 2.0×
#   sync      `feedcli sync` of 1,000 indexed posts, a fresh store each run             ≤ 1.5×
#   list      `feedcli list --jsonl` over 100,000 entries                               ≤ 2.0×
#   history   `feedcli next` with 100,000 entries stored vs an empty store, on PostgreSQL ≤ 1.2×
# The databases are the SQLite stores bench.sh made, moved by `feedcli store copy`; each run
# starts from a copy (`CREATE DATABASE … TEMPLATE`), as each SQLite run starts from a copy, to
# which one connection was made before (as to every database a user has: the first connection
# to a new database builds the server's catalog cache file, a cost of its first run only, which
# the row `next, first run on a new database` shows).
#
#   FEEDCLI=bin BASE=http://…/posts EMPTY=empty.sqlite HIST=hist.sqlite bash scripts/bench-postgres.sh OUT
set -euo pipefail
cd "$(dirname "$0")/.."
feedcli=${FEEDCLI:?the binary}; base=${BASE:?the posts URL}; empty=${EMPTY:?}; hist=${HIST:?}
out=${1:?a folder for the tables}
mkdir -p "$out"
cluster=$(mktemp -d /tmp/feedcli-bench-postgres.XXXXXX)
work=$(mktemp -d)
trap 'bash scripts/postgres-cluster.sh stop "$cluster"; rm -rf "$work"' EXIT
url=$(bash scripts/postgres-cluster.sh start "$cluster")
port=$(cat "$cluster/port")
server=${url%/*}
admin() { runuser -u postgres -- psql -h "$cluster" -p "$port" -U postgres -d postgres -q -v ON_ERROR_STOP=1 -c "$1" >/dev/null; }
admin "CREATE DATABASE empty OWNER feedcli"
admin "CREATE DATABASE hist OWNER feedcli"
"$feedcli" store copy "$empty" "$server/empty"
"$feedcli" store copy "$hist" "$server/hist"
# A run's database, copied from a template (no connection may hold the template meanwhile) and
# connected to once; new_db leaves out the connection.
new_db() { echo "runuser -u postgres -- psql -h $cluster -p $port -U postgres -d postgres -q -c 'DROP DATABASE IF EXISTS $2' -c 'CREATE DATABASE $2 TEMPLATE $1 OWNER feedcli' >/dev/null"; }
fresh_db() { echo "$(new_db "$1" "$2"); runuser -u postgres -- psql -h $cluster -p $port -U postgres -d $2 -q -c 'SELECT 1' >/dev/null"; }
fresh_file() { echo "rm -f $work/$2.sqlite*; cp $1 $work/$2.sqlite; if [ -f $1-wal ]; then cp $1-wal $work/$2.sqlite-wal; fi"; }

hf() { sync; hyperfine -N --style basic --export-json "$out/$1.json" "${@:2}" >/dev/null; }
mean() { jq -r ".results[$2].mean" "$out/$1.json"; }
# `hf` in ROUNDS rounds of the same commands, each command's times merged into one result: a
# ratio of two commands measured one after the other carries whatever the machine did between
# them (on this shared 2-core machine, ±10% from minute to minute), and rounds that alternate
# give both the same minutes. `hf_rounds NAME ROUNDS hyperfine-arguments…`
hf_rounds() {
  local name=$1 rounds=$2; shift 2
  for round in $(seq 1 "$rounds"); do hf "$name.round$round" "$@"; done
  python3 - "$out/$name" "$rounds" <<'PY'
import json, statistics, sys
base, rounds = sys.argv[1], int(sys.argv[2])
parts = [json.load(open(f"{base}.round{r}.json"))["results"] for r in range(1, rounds + 1)]
merged = []
for index, first in enumerate(parts[0]):
    times = [t for part in parts for t in part[index]["times"]]
    merged.append({"command": first["command"], "mean": statistics.mean(times), "stddev": statistics.stdev(times),
                   "median": statistics.median(times), "min": min(times), "max": max(times), "times": times})
json.dump({"results": merged, "rounds": rounds}, open(f"{base}.json", "w"))
PY
}
# The `next` rows: 40 runs of each command, in four rounds of ten that alternate SQLite and
# PostgreSQL (the third command is the second on a database nobody connected to yet; the fourth
# is the second through the server's Unix socket, where the cluster trusts the local user as a
# server on one's own machine does with peer authentication: no password exchange, whose
# SCRAM-SHA-256 rounds are most of what a connection over TCP costs the client).
socket="postgresql://feedcli@/s?host=$cluster&port=$port"
hf_rounds next 4 --runs 10 --warmup 2 \
  --prepare "sh -c '$(fresh_file "$empty" s)'" "$feedcli next b --state $work/s.sqlite" \
  --prepare "sh -c \"$(fresh_db empty s)\"" "$feedcli next b --state $server/s" \
  --prepare "sh -c \"$(new_db empty s)\"" "$feedcli next b --state $server/s" \
  --prepare "sh -c \"$(fresh_db empty s)\"" "$feedcli next b --state '$socket'"
hf sync-sqlite --runs 10 --warmup 1 --prepare "sh -c '$(fresh_file "$empty" s)'" "$feedcli sync b --max-pages 1001 --state $work/s.sqlite"
hf sync-postgres --runs 10 --warmup 1 --prepare "sh -c \"$(fresh_db empty s)\"" "$feedcli sync b --max-pages 1001 --state $server/s"
hf list --runs 10 --warmup 1 "$feedcli list --jsonl --state $hist" "$feedcli list --jsonl --state $server/hist"
hf history --runs 40 --warmup 2 --prepare "sh -c \"$(fresh_db empty s); $(fresh_db hist t)\"" \
  "$feedcli next b --state $server/s" "$feedcli next b --state $server/t"

ratio() { python3 -c "print(f'{$1/$2:.2f}')"; }
ms() { python3 -c "print(f'{$1*1000:.1f}')"; }
echo "| PostgreSQL row | SQLite | PostgreSQL | ratio | target |"
echo "| --- | --- | --- | --- | --- |"
echo "| next (one request, fresh store) | $(ms "$(mean next 0)") ms | $(ms "$(mean next 1)") ms | $(ratio "$(mean next 1)" "$(mean next 0)")× | ≤ 2.0× |"
echo "| next, first run on a new database | $(ms "$(mean next 0)") ms | $(ms "$(mean next 2)") ms | $(ratio "$(mean next 2)" "$(mean next 0)")× | |"
echo "| next through the server's Unix socket (no password exchange) | $(ms "$(mean next 0)") ms | $(ms "$(mean next 3)") ms | $(ratio "$(mean next 3)" "$(mean next 0)")× | |"
echo "| sync of 1,000 indexed posts | $(ms "$(mean sync-sqlite 0)") ms | $(ms "$(mean sync-postgres 0)") ms | $(ratio "$(mean sync-postgres 0)" "$(mean sync-sqlite 0)")× | ≤ 1.5× |"
echo "| list --jsonl of 100,000 entries | $(ms "$(mean list 0)") ms | $(ms "$(mean list 1)") ms | $(ratio "$(mean list 1)" "$(mean list 0)")× | ≤ 2.0× |"
echo "| next with 100,000 entries vs empty (PostgreSQL) | | $(ms "$(mean history 1)") ms vs $(ms "$(mean history 0)") ms | $(ratio "$(mean history 1)" "$(mean history 0)")× | ≤ 1.2× |"
