#!/usr/bin/env bash
# The "Running for months" rows of the benchmark, printed as table rows:
#   size      `feedcli follow` of N Wikimedia-shaped events (the captured recentchange event,
#             its meta.id rewritten per event) with `--keep 100000 --remember 1m`: the store file
#             and its journal, sampled every 100,000 events, against its size at 100,000   ≤ 1.25×
#   memory    that follow's peak memory                                                     < 64 MiB
#   time      that follow against the same follow without --keep                            ≤ 1.2×
#   reading   `next` and `list --limit 10` on the pruned store against a store that holds the
#             same 100,000 entries and never pruned                                         ≤ 1.2×
# Usage: FEEDCLI=/path/to/feedcli bash scripts/bench-retention.sh [EVENTS] (default 2,000,000).
# KIND=sse follows the same events as a plain SSE feed (ids from each event's own `id`, no jq):
# the preset's jq worker reads some 2,500 events a second here, so 2,000,000 events through it
# take 15 minutes a follow; the store sees the same events either way.
set -euo pipefail
cd "$(dirname "$0")/.."
feedcli="${FEEDCLI:?FEEDCLI=/path/to/feedcli}"
events="${1:-2000000}"
kind="${KIND:-wikimedia}"
work="$(mktemp -d)"
trap 'kill "$server" 2>/dev/null; rm -rf "$work"' EXIT
python3 - "$work/port" Fixtures/streams/wikimedia-recentchange.sse >/dev/null 2>&1 <<'PY' &
# /wiki?n=N: N recentchange events as fast as loopback allows, each the captured one with its
# meta.id (a UUID made of the event's number) and its id (the event's number) rewritten, then the
# connection stays open.
import json, socketserver, sys, time
from http.server import BaseHTTPRequestHandler, HTTPServer
from urllib.parse import urlparse, parse_qs
data = next(l[6:] for l in open(sys.argv[2]) if l.startswith("data: "))
event = json.loads(data)
template = data.replace('"id":%d,' % event["id"], '"id":@N@,', 1).replace(event["meta"]["id"], "@U@")
class H(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    def log_message(self, *a): pass
    def do_GET(self):
        q = {k: v[0] for k, v in parse_qs(urlparse(self.path).query).items()}
        self.send_response(200); self.send_header("Content-Type", "text/event-stream")
        self.send_header("Connection", "close"); self.end_headers()
        if self.headers.get("Last-Event-ID"): time.sleep(3600)
        chunk = []
        for k in range(1, int(q.get("n", "1000")) + 1):
            uid = "%08x-0000-4000-8000-%012x" % (k, k)
            chunk.append("event: message\nid: %d\ndata: %s\n" % (k, template.replace("@U@", uid).replace("@N@", str(k))))
            if len(chunk) == 500: self.wfile.write("".join(chunk).encode()); chunk = []
        self.wfile.write("".join(chunk).encode()); self.wfile.flush()
        time.sleep(3600)
class S(socketserver.ThreadingMixIn, HTTPServer): daemon_threads = True
s = S(("127.0.0.1", 0), H)
open(sys.argv[1], "w").write(str(s.server_address[1]))
s.serve_forever()
PY
server=$!
for _ in $(seq 1 100); do [ -s "$work/port" ] && break; sleep 0.05; done
port=$(cat "$work/port")
url="http://127.0.0.1:$port/wiki?n=$events"
size() { echo $(( $(stat -c %s "$1") + $( [ -f "$1-wal" ] && stat -c %s "$1-wal" || echo 0) )); }
fresh() { rm -rf "$work/$1".sqlite*; "$feedcli" feeds add w "$url" --kind "$kind" --state "$work/$1.sqlite" "${@:2}"; }
seconds() { python3 -c "import time; print(time.monotonic())"; }

# The follow with --keep, its stdout counted: the store's size at every 100,000th event.
fresh kept --keep 100000 --remember 1m
"$feedcli" follow --max-entries "$events" --jsonl --state "$work/kept.sqlite" | python3 -c '
import os, sys
store = sys.argv[1]; n = 0; sizes = []
size = lambda: os.path.getsize(store) + (os.path.getsize(store + "-wal") if os.path.exists(store + "-wal") else 0)
for line in sys.stdin:
    n += 1
    if n % 100000 == 0: sizes.append(size())
print(" ".join(str(s) for s in sizes))' "$work/kept.sqlite" > "$work/sizes"
read -r -a sizes < "$work/sizes"
first=${sizes[0]}; largest=$(printf '%s\n' "${sizes[@]}" | sort -n | tail -n 1)
printf '| follow (--kind %s) of %s Wikimedia-shaped events, --keep 100000: the store (with journal) every 100,000 events | %s MiB at 100,000, at most %s MiB after | | %s× | ≤ 1.25× (%s) |\n' \
  "$kind" "$events" "$((first >> 20))" "$((largest >> 20))" "$(python3 -c "print(f'{$largest/$first:.2f}')")" \
  "$(python3 -c "print('met' if $largest/$first <= 1.25 else 'NOT met')")"
printf '(that store every 100,000 events, MiB: %s)\n' "$(for s in "${sizes[@]}"; do printf '%s ' $((s >> 20)); done)"

# Time and peak memory, with and without --keep (stdout to /dev/null, as the throughput row).
fresh kept --keep 100000 --remember 1m
start=$(seconds)
peak=$(/usr/bin/time -f %M "$feedcli" follow --max-entries "$events" --jsonl --state "$work/kept.sqlite" 2>&1 >/dev/null | tail -n 1)
kept=$(python3 -c "import time; print(time.monotonic() - $start)")
fresh all --keep all
start=$(seconds)
"$feedcli" follow --max-entries "$events" --jsonl --state "$work/all.sqlite" >/dev/null
all=$(python3 -c "import time; print(time.monotonic() - $start)")
printf '| that follow, peak memory | %s MiB | | | < 64 MiB (%s) |\n' "$((peak / 1024))" "$([ $((peak / 1024)) -lt 64 ] && echo met || echo 'NOT met')"
printf '| that follow vs the same without --keep | %.1f s | %.1f s | %s× | ≤ 1.2× (%s) |\n' "$kept" "$all" \
  "$(python3 -c "print(f'{$kept/$all:.2f}')")" "$(python3 -c "print('met' if $kept/$all <= 1.2 else 'NOT met')")"
rm -rf "$work"/all.sqlite*

# Reading: the pruned store against one that holds the same 100,000 entries and never pruned.
url="http://127.0.0.1:$port/wiki?n=100000"
rm -rf "$work"/fresh.sqlite*; "$feedcli" feeds add w "$url" --kind "$kind" --keep all --state "$work/fresh.sqlite"
"$feedcli" follow --max-entries 100000 --jsonl --state "$work/fresh.sqlite" >/dev/null
for command in "next" "list --limit 10"; do
  hyperfine -N --style basic --runs 30 --warmup 3 --export-json "$work/read.json" \
    "$feedcli $command --state $work/kept.sqlite" "$feedcli $command --state $work/fresh.sqlite" >/dev/null 2>&1
  p=$(jq -r '.results[0].mean' "$work/read.json"); f=$(jq -r '.results[1].mean' "$work/read.json")
  printf '| %s on the pruned store vs one that never pruned | %.2f ms | %.2f ms | %s× | ≤ 1.2× (%s) |\n' "$command" \
    "$(python3 -c "print($p*1000)")" "$(python3 -c "print($f*1000)")" "$(python3 -c "print(f'{$p/$f:.2f}')")" \
    "$(python3 -c "print('met' if $p/$f <= 1.2 else 'NOT met')")"
done
