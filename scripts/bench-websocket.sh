#!/usr/bin/env bash
# The WebSocket rows of the benchmark, printed as table rows:
#   follow    `feedcli follow --jsonl` of 100,000 Jetstream-shaped events sent as fast as loopback
#             allows vs a Python `websockets` client printing each message, piped through
#             `jq -c .` (the client's exact code is below: baseline.py)                    ≤ 3.0×
#   memory    the same over 1,000,000 events, peak memory                                 < 64 MiB
#   latency   events sent 20 ms apart: from the server's send to feedcli's line on stdout,
#             median of 200                                                               ≤ 50 ms
# The server is Python's `websockets` (Debian's python3-websockets, run by /usr/bin/python3).
# Usage: FEEDCLI=/path/to/feedcli bash scripts/bench-websocket.sh [OUT_DIR] (bench.sh runs it);
# THROUGHPUT_ONLY=1 measures only the throughput row.
set -euo pipefail
cd "$(dirname "$0")/.."
feedcli="${FEEDCLI:?FEEDCLI=/path/to/feedcli}"
python=/usr/bin/python3
work="$(mktemp -d)"; out="${1:-$work}"; mkdir -p "$out"
trap 'kill "$server" 2>/dev/null; rm -rf "$work"' EXIT
# /events?n=N: N events at once, each shaped as a Jetstream post (a real one's members, ~450
# bytes), then the connection stays open (`close=1`: closed, for the baseline to end);
# /paced?n=N&ms=M: one every M ms, each carrying the time it was sent (`sent`).
cat > "$work/server.py" <<'PY'
import asyncio, json, sys, time
from urllib.parse import urlparse, parse_qs
import websockets

def event(k, sent=None):
    value = {"did": "did:plc:benchmark%06d" % (k % 1000), "time_us": 1783175888000000 + k, "kind": "commit",
             "commit": {"rev": "3mptbypluud2a", "operation": "create", "collection": "app.bsky.feed.post",
                        "rkey": "3mpt%09d" % k, "record": {"$type": "app.bsky.feed.post", "createdAt": "2026-07-04T14:38:08.999Z",
                        "langs": ["en"], "text": "event %d of the benchmark, about as long as a short post on the network" % k},
                        "cid": "bafyreiguce4jh7kcbmof3pmcvasifqtw24b6isakj5ve5ga2b4z4alpc4i"}}
    if sent is not None:
        value["sent"] = sent
    return json.dumps(value, separators=(",", ":"))

async def handler(ws, path=None):
    url = urlparse(path or ws.path); q = {k: v[0] for k, v in parse_qs(url.query).items()}
    if "cursor" in q:  # a reconnection: a session ends by its limit
        await asyncio.sleep(3600)
    n = int(q.get("n", "1000"))
    if url.path == "/paced":
        for k in range(1, n + 1):
            await asyncio.sleep(int(q.get("ms", "20")) / 1000)
            await ws.send(event(k, time.time()))
    else:
        for k in range(1, n + 1):
            await ws.send(event(k))
    if "close" in q:
        await ws.close()
    else:
        await asyncio.sleep(3600)

async def main():
    async with websockets.serve(handler, "127.0.0.1", 0, max_size=None, compression=None) as server:
        open(sys.argv[1], "w").write(str(server.sockets[0].getsockname()[1]))
        await asyncio.Future()

asyncio.run(main())
PY
# The baseline: the way people follow Jetstream today, a websockets client printing each message.
cat > "$work/baseline.py" <<'PY'
import asyncio, sys
import websockets

async def main():
    async with websockets.connect(sys.argv[1], max_size=None, compression=None) as ws:
        async for message in ws:
            print(message)

asyncio.run(main())
PY
"$python" "$work/server.py" "$work/port" >/dev/null 2>&1 &
server=$!
for _ in $(seq 1 200); do [ -s "$work/port" ] && break; sleep 0.05; done
port=$(cat "$work/port")
cat > "$work/reader.py" <<'PY'
import json, statistics, sys, time
fifo, ready = sys.argv[1:3]
open(ready, "w").close()
delays = [(time.time() - json.loads(line)["source"]["sent"]) * 1000 for line in open(fifo)]
print(f"{statistics.median(delays):.1f} ms (90th percentile {sorted(delays)[int(len(delays) * 0.9)]:.1f} ms)")
PY
fresh="rm -rf $work/f.sqlite $work/f.sqlite-wal $work/f.sqlite-shm $work/f.sqlite.locks; sync; $feedcli feeds add e ws://127.0.0.1:$port/events?n=100000 --kind jetstream --state $work/f.sqlite"
hyperfine --style basic --runs 5 --warmup 1 --export-json "$out/websocket.json" \
  --prepare "sh -c '$fresh'" "$feedcli follow --max-entries 100000 --jsonl --state $work/f.sqlite" \
  "sh -c \"$python $work/baseline.py 'ws://127.0.0.1:$port/events?n=100000&close=1' | jq -c . >/dev/null\"" >/dev/null 2>&1
f=$(jq -r '.results[0].mean' "$out/websocket.json"); b=$(jq -r '.results[1].mean' "$out/websocket.json")
printf '| follow --jsonl of 100,000 Jetstream events vs websockets client | jq -c | %.0f ms | %.0f ms | %s× | ≤ 3.0× (%s) |\n' \
  "$(python3 -c "print($f*1000)")" "$(python3 -c "print($b*1000)")" "$(python3 -c "print(f'{$f/$b:.2f}')")" \
  "$(python3 -c "print('met' if $f/$b <= 3.0 else 'NOT met')")"
[ -n "${THROUGHPUT_ONLY:-}" ] && exit 0
sh -c "rm -rf $work/m.sqlite*; sync; $feedcli feeds add e 'ws://127.0.0.1:$port/events?n=1000000' --kind jetstream --state $work/m.sqlite"
peak=$(/usr/bin/time -f %M "$feedcli" follow --max-entries 1000000 --jsonl --state "$work/m.sqlite" 2>&1 >/dev/null | tail -n 1)
printf '| follow of 1,000,000 Jetstream events, peak memory | %s MiB | | | < 64 MiB |\n' "$((peak / 1024))"
sh -c "rm -rf $work/p.sqlite*; sync; $feedcli feeds add e 'ws://127.0.0.1:$port/paced?n=200&ms=20' --kind jetstream --state $work/p.sqlite"
rm -f "$work/out.fifo" "$work/ready"; mkfifo "$work/out.fifo"
python3 "$work/reader.py" "$work/out.fifo" "$work/ready" > "$work/summary" &
reader=$!
for _ in $(seq 1 500); do [ -e "$work/ready" ] && break; sleep 0.01; done
"$feedcli" follow --max-entries 200 --jsonl --state "$work/p.sqlite" > "$work/out.fifo"
wait "$reader"
printf '| a Jetstream event printed after its send, median of 200 paced 20 ms apart | %s | | | ≤ 50 ms |\n' "$(cat "$work/summary")"
