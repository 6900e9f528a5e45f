#!/usr/bin/env bash
# The live-stream rows of the benchmark, printed as table rows:
#   follow    `feedcli follow --jsonl` of 100,000 small events sent as fast as loopback allows vs
#             `curl -sN URL | sed -n 's/^data: //p' | jq -c .` printing them         ≤ 3.0×
#   memory    the same over 1,000,000 events, peak memory                               < 64 MiB
#   latency   events sent 20 ms apart: from the server's send to feedcli's line on
#             stdout, median of 200                                                     ≤ 50 ms
#   sustained 10,000 events a second for 30 s (Nagle off, each carrying its send time):
#             the 99th percentile of send to stdout, and nothing dropped               ≤ 50 ms
# Usage: FEEDCLI=/path/to/feedcli bash scripts/bench-streams.sh [OUT_DIR] (bench.sh runs it);
# SUSTAINED_ONLY=1 measures only the sustained-rate row, THROUGHPUT_ONLY=1 only the throughput row.
set -euo pipefail
cd "$(dirname "$0")/.."
feedcli="${FEEDCLI:?FEEDCLI=/path/to/feedcli}"
work="$(mktemp -d)"; out="${1:-$work}"; mkdir -p "$out"
trap 'kill "$server" 2>/dev/null; rm -rf "$work"' EXIT
python3 - "$work/port" >/dev/null 2>&1 <<'PY' &
# /events?n=N: N events at once (`{"id","title","body"}`), then the connection stays open
# (`close=1`: closed, for the baseline's pipeline to end); /paced?n=N&ms=M: one every M ms, each
# carrying the time it was sent. Generated as they are sent: a million events are not held.
import json, socketserver, sys, time
from http.server import BaseHTTPRequestHandler, HTTPServer
from urllib.parse import urlparse, parse_qs
class H(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    def log_message(self, *a): pass
    def do_GET(self):
        url = urlparse(self.path); q = {k: v[0] for k, v in parse_qs(url.query).items()}
        self.send_response(200); self.send_header("Content-Type", "text/event-stream")
        self.send_header("Connection", "close"); self.end_headers()
        n = int(q.get("n", "1000"))
        if self.headers.get("Last-Event-ID"): time.sleep(3600)  # a session ends by its limit
        if url.path == "/sustained":
            # `rate` events a second for `seconds`, on a schedule (never more at once than the
            # 5 ms tick's share unless the socket held them back: that is feedcli not reading).
            import socket
            self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            rate, seconds = int(q.get("rate", "10000")), float(q.get("seconds", "30"))
            start, k, total = time.time(), 0, int(rate * seconds)
            while k < total:
                due = min(total, int((time.time() - start) * rate) + 1)
                lines = []
                now = time.time()
                while k < due:
                    k += 1
                    lines.append("id: %d\ndata: {\"id\":\"%d\",\"sent\":%.6f}\n\n" % (k, k, now))
                if lines: self.wfile.write("".join(lines).encode()); self.wfile.flush()
                time.sleep(0.005)
        elif url.path == "/paced":
            for k in range(1, n + 1):
                time.sleep(int(q.get("ms", "20")) / 1000)
                self.wfile.write(("id: %d\ndata: %s\n\n" % (k, json.dumps({"id": str(k), "sent": time.time()}))).encode())
                self.wfile.flush()
        else:
            chunk = []
            for k in range(1, n + 1):
                chunk.append("id: %d\ndata: {\"id\":\"%d\",\"title\":\"event %d\",\"body\":\"text of event %d\"}\n\n" % (k, k, k, k))
                if len(chunk) == 1000: self.wfile.write("".join(chunk).encode()); chunk = []
            self.wfile.write("".join(chunk).encode())
        self.wfile.flush()
        if "close" not in q: time.sleep(3600)
class S(socketserver.ThreadingMixIn, HTTPServer): daemon_threads = True
s = S(("127.0.0.1", 0), H)
open(sys.argv[1], "w").write(str(s.server_address[1]))
s.serve_forever()
PY
server=$!
for _ in $(seq 1 100); do [ -s "$work/port" ] && break; sleep 0.05; done
port=$(cat "$work/port")
# The latency rows' reader of feedcli's stdout: each line's delay from its send time, summed up
# as the row says (`median`, or `p99` of 300,000). It is started, and its imports done, before
# feedcli starts (through a FIFO): feedcli waits for its reader to take each line, so a reader
# still starting up (Python's imports, ~100 ms here) counted as feedcli's delay of the first
# thousand events.
cat > "$work/reader.py" <<'PY'
import json, statistics, sys, time
mode, fifo, ready = sys.argv[1:4]
open(ready, "w").close()
delays = []
for line in open(fifo):
    delays.append((time.time() - json.loads(line)["source"]["sent"]) * 1000)
if mode == "median":
    print(f"{statistics.median(delays):.1f} ms (90th percentile {sorted(delays)[int(len(delays) * 0.9)]:.1f} ms)")
else:
    delays.sort()
    p99 = delays[int(len(delays) * 0.99)] if delays else float("inf")
    verdict = "met" if p99 <= 50 and len(delays) == 300000 else "NOT met"
    print(f"{p99:.1f} ms | {len(delays)} of 300000 printed, median {statistics.median(delays):.1f} ms | {verdict}")
PY
read_delays() {  # read_delays MODE COMMAND...: COMMAND's stdout read by reader.py
  rm -f "$work/out.fifo" "$work/ready"; mkfifo "$work/out.fifo"
  python3 "$work/reader.py" "$1" "$work/out.fifo" "$work/ready" > "$work/summary" &
  local reader=$!
  for _ in $(seq 1 500); do [ -e "$work/ready" ] && break; sleep 0.01; done
  "${@:2}" > "$work/out.fifo"
  wait "$reader"
  cat "$work/summary"
}
if [ -z "${SUSTAINED_ONLY:-}" ]; then  # SUSTAINED_ONLY=1: just the sustained-rate row
# Each measured run starts with the disk flushed (`sync`): the writeback of the run before it (a
# follow writes hundreds of MiB) slowed whatever came next, the sustained row most.
fresh="rm -rf $work/f.sqlite $work/f.sqlite-wal $work/f.sqlite-shm $work/f.sqlite.locks; sync; $feedcli feeds add e http://127.0.0.1:$port/events?n=100000 --kind sse --state $work/f.sqlite"
hyperfine --style basic --runs 5 --warmup 1 --export-json "$out/follow.json" \
  --prepare "sh -c '$fresh'" "$feedcli follow --max-entries 100000 --jsonl --state $work/f.sqlite" \
  "sh -c \"curl -sN 'http://127.0.0.1:$port/events?n=100000&close=1' | sed -n 's/^data: //p' | jq -c . >/dev/null\"" >/dev/null 2>&1
f=$(jq -r '.results[0].mean' "$out/follow.json"); b=$(jq -r '.results[1].mean' "$out/follow.json")
printf '| follow --jsonl of 100,000 events vs curl -sN | sed | jq -c | %.0f ms | %.0f ms | %s× | ≤ 3.0× (%s) |\n' \
  "$(python3 -c "print($f*1000)")" "$(python3 -c "print($b*1000)")" "$(python3 -c "print(f'{$f/$b:.2f}')")" \
  "$(python3 -c "print('met' if $f/$b <= 3.0 else 'NOT met')")"
[ -n "${THROUGHPUT_ONLY:-}" ] && exit 0
sh -c "rm -rf $work/m.sqlite*; sync; $feedcli feeds add e 'http://127.0.0.1:$port/events?n=1000000' --kind sse --state $work/m.sqlite"
peak=$(/usr/bin/time -f %M "$feedcli" follow --max-entries 1000000 --jsonl --state "$work/m.sqlite" 2>&1 >/dev/null | tail -n 1)
printf '| follow of 1,000,000 events, peak memory | %s MiB | | | < 64 MiB |\n' "$((peak / 1024))"
sh -c "rm -rf $work/p.sqlite*; sync; $feedcli feeds add e 'http://127.0.0.1:$port/paced?n=200&ms=20' --kind sse --state $work/p.sqlite"
latency=$(read_delays median "$feedcli" follow --max-entries 200 --jsonl --state "$work/p.sqlite")
printf '| an event printed after its send, median of 200 paced 20 ms apart | %s | | | ≤ 50 ms |\n' "$latency"
fi
sh -c "rm -rf $work/s.sqlite*; sync; $feedcli feeds add e 'http://127.0.0.1:$port/sustained?rate=10000&seconds=30' --kind sse --state $work/s.sqlite"
sustained=$(read_delays p99 "$feedcli" follow --max-entries 300000 --max-time 90s --jsonl --state "$work/s.sqlite")
printf '| 10,000 events a second for 30 s: 99th percentile of send to stdout | %s |\n' "$sustained"
