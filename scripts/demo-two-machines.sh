#!/bin/bash
# Two machines on one PostgreSQL store: a "server" whose cron syncs a growing feed every round,
# and two "laptops" (each its own HOME, as separate machines have) reading it with `next` at the
# same time, until nothing is left. Every entry is delivered once in total, to one of them.
# Starts a private cluster (scripts/postgres-cluster.sh) and the fixture server; as root.
# Usage: bash scripts/demo-two-machines.sh (FEEDCLI=/path/to/feedcli; default: the debug build).
set -u
cd "$(dirname "$0")/.."
work="$(mktemp -d)"
cluster="$(mktemp -d /tmp/feedcli-demo-postgres.XXXXXX)"   # the postgres user must reach it
F="${FEEDCLI:-$PWD/.build/debug/feedcli}"
url=$(bash scripts/postgres-cluster.sh start "$cluster") || exit 1
python3 Fixtures/serve.py --port 0 --port-file "$work/port" >/dev/null 2>&1 &
server=$!
trap 'kill $server 2>/dev/null; bash scripts/postgres-cluster.sh stop "$cluster"; rm -rf "$work"' EXIT
for _ in $(seq 100); do [ -s "$work/port" ] && break; sleep 0.05; done
mkdir -p "$work/server" "$work/laptop" "$work/phone"
machine() { local home=$1; shift; HOME="$work/$home" FEEDCLI_STATE="$url" "$F" "$@"; }

machine server feeds add posts "http://127.0.0.1:$(cat "$work/port")/posts" --kind indexed --replace
echo "store: $(machine server status 2>&1 | tail -n 1 | tr -s ' ') (on $(echo "$url" | sed "s|:[^:@/]*@|:***@|"))"
: > "$work/delivered"
for round in 1 2 3 4; do
  # The server's cron takes what is new (--max-pages: 25 more posts a round)...
  machine server sync --skip-busy --quiet --max-pages 25 >/dev/null
  # ...while the laptop and the phone each read, at the same time, until nothing is unread.
  # (A `next` that finds nothing unread fetches the next post itself, as on one machine.)
  readers=()
  for reader in laptop phone; do
    ( while machine "$reader" next posts --jsonl --quiet >> "$work/$reader.jsonl" 2>/dev/null; do :; done ) &
    readers+=($!)
  done
  wait "${readers[@]}"
done
laptop=$(grep -c . "$work/laptop.jsonl"); phone=$(grep -c . "$work/phone.jsonl")
total=$(cat "$work/laptop.jsonl" "$work/phone.jsonl" | jq -r .id | sort -n | uniq | wc -l)
all=$(cat "$work/laptop.jsonl" "$work/phone.jsonl" | jq -r .id | wc -l)
stored=$(machine server status --json | jq '.[0].entries')
echo "laptop read $laptop entries, phone read $phone: $all deliveries of $total distinct entries; the store holds $stored"
[ "$all" -eq "$total" ] && [ "$total" -eq "$stored" ] && echo "every entry delivered once" || { echo "MISMATCH"; exit 1; }
