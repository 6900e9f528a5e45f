#!/usr/bin/env bash
# Measures the contract's performance targets side by side on loopback, and prints every ratio
# with its target:
#   next      `feedcli next` on an indexed feed vs `curl -s` of the same URL            ≤ 2.0×
#   sync      `feedcli sync` of 1,000 indexed posts vs one kept-alive curl of the URLs  ≤ 1.0×
#   list      `feedcli list --jsonl` over 100,000 entries vs `jq -c '.[]'`             ≤ 0.5× (< 64 MiB)
#   history   `feedcli next` with 100,000 entries stored vs none                       ≤ 1.2×
#   slow      `feedcli sync` of 100 feeds whose server answers after 100 ms vs
#             `curl --parallel --parallel-max 4` over the same 100 URLs                ≤ 1.5×
#   idle      `feedcli sync` of 1,000 unchanged feeds (every one 304) vs
#             `curl --parallel --parallel-max 4` over the same 1,000 URLs              ≤ 4.0×
#   limit     `feedcli list FEED --limit 10` over 1,000,000 entries                    milliseconds
# Baselines are the fastest honest curl: `hyperfine -N` (no shell) discards stdout, so curl runs
# without `-o`. Needs nginx-light, hyperfine, jq and GNU time (installed when missing).
# FEEDCLI=/path/to/feedcli measures that binary instead of building the static release (to
# compare versions on one machine); BENCH_OUT keeps hyperfine's tables (default: a temp folder).
set -euo pipefail
cd "$(dirname "$0")/.."
[ -d /opt/swift/usr/bin ] && export PATH="/opt/swift/usr/bin:$PATH"
need=()
command -v nginx >/dev/null || [ -x /usr/sbin/nginx ] || need+=(nginx-light)
command -v hyperfine >/dev/null || need+=(hyperfine)
command -v jq >/dev/null || need+=(jq)
[ -x /usr/bin/time ] || need+=(time)
pkg-config --exists libcurl 2>/dev/null || need+=(libcurl4-openssl-dev pkg-config)
[ -f /usr/include/sqlite3.h ] || need+=(libsqlite3-dev)
if [ ${#need[@]} -gt 0 ]; then
  sudo=""; [ "$(id -u)" -ne 0 ] && sudo="sudo"
  $sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${need[@]}"
fi
export PATH="$PATH:/usr/sbin"

if [ -z "${FEEDCLI:-}" ]; then
  FEEDCLI="$(bash scripts/build-release.sh | tail -n 1)"  # the shipped configuration
fi
feedcli="$FEEDCLI"
work="$(mktemp -d)"; out="${BENCH_OUT:-$work}"; mkdir -p "$out"
cleanup() {
  [ -f "$work/nginx.pid" ] && kill "$(cat "$work/nginx.pid")" 2>/dev/null
  [ -n "${slow_pid:-}" ] && kill "$slow_pid" 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT

# 1,000 jsonplaceholder-shaped posts (the real 100, repeated with new ids), one file each; and
# 1,000 single-page Graph feeds.
mkdir -p "$work/www/posts" "$work/www/g"
python3 - "$work/www" <<'PY'
import json, sys
posts = json.load(open("Fixtures/posts/posts.json"))
for n in range(1, 1001):
    p = dict(posts[(n - 1) % 100]); p["id"] = n
    open(f"{sys.argv[1]}/posts/{n}", "w").write(json.dumps(p, indent=2))
    page = {"data": [{"id": f"{n}_1", "created_time": "2026-11-01T10:00:00+0000", "message": p["body"]}], "paging": {}}
    open(f"{sys.argv[1]}/g/{n}.json", "w").write(json.dumps(page))
PY
chmod a+rx "$work"; chmod -R a+rX "$work/www"
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
port=$(free_port)
cat > "$work/nginx.conf" <<NGINX
worker_processes 1; daemon on; pid $work/nginx.pid; error_log $work/error.log;
events { worker_connections 256; }
http { access_log off; keepalive_requests 100000; default_type application/json;
  server { listen 127.0.0.1:$port; root $work/www; } }
NGINX
nginx -c "$work/nginx.conf" -p "$work"
base="http://127.0.0.1:$port/posts"

# A server that answers every request after 100 ms (one thread per connection, kept alive).
slow_port=$(free_port)
python3 - "$slow_port" >/dev/null 2>&1 <<'PY' &
import http.server, socketserver, sys, time
class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    def do_GET(self):
        time.sleep(0.1)
        n = self.path.rsplit("/", 1)[-1]
        body = ('{"data":[{"id":"%s_1","message":"slow"}],"paging":{}}' % n).encode()
        self.send_response(200); self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body))); self.end_headers(); self.wfile.write(body)
    def log_message(self, *args): pass
class Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True
Server(("127.0.0.1", int(sys.argv[1])), Handler).serve_forever()
PY
slow_pid=$!
sleep 0.5

# Templates hold everything in the main file (feedcli leaves its journal to automatic
# checkpoints), and each run starts from a copy with no journal of its own beside it.
settle() { for f in "$@"; do python3 -c 'import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); c.execute("PRAGMA wal_checkpoint(TRUNCATE)"); c.close()' "$work/$f.sqlite"; done; }
fresh() { echo "rm -f $work/$2.sqlite-wal $work/$2.sqlite-shm; cp $work/$1.sqlite $work/$2.sqlite"; }

# Store templates. Every template drops the built-in internet feed.
template() { "$feedcli" feeds remove posts --state "$1"; }
"$feedcli" feeds add b "$base" --kind indexed --state "$work/empty.sqlite"; template "$work/empty.sqlite"
settle empty; cp "$work/empty.sqlite" "$work/big.sqlite"
python3 - "$work/big.sqlite" 100000 <<'PY'
import json, sqlite3, sys
db = sqlite3.connect(sys.argv[1])
posts = json.load(open("Fixtures/posts/posts.json"))
def rows():
    for n in range(1, int(sys.argv[2]) + 1):
        p = dict(posts[(n - 1) % 100]); p["id"] = n + 1000000
        yield ("b", str(p["id"]), p["title"], p["body"], str(p["userId"]), "2026-11-21T19:00:00Z", 1,
               json.dumps(p, separators=(",", ":")))
db.executemany("INSERT INTO entry (feed,id,title,text,author,fetched_at,read,source) VALUES (?,?,?,?,?,?,?,?)", rows())
db.commit(); db.close()
PY
"$feedcli" list --json --state "$work/big.sqlite" > "$work/all.json"
"$feedcli" feeds list --state "$work/slow.sqlite" >/dev/null; template "$work/slow.sqlite"
settle slow; cp "$work/slow.sqlite" "$work/idle.sqlite"
for n in $(seq 1 100); do "$feedcli" feeds add "s$n" "http://127.0.0.1:$slow_port/feed/$n" --kind graph --state "$work/slow.sqlite"; done
python3 - "$work/idle.sqlite" "$port" <<'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
db.executemany("INSERT INTO feed (name, url, kind, created_at) VALUES (?, ?, 'graph', '2026-11-21T19:00:00Z')",
               [(f"g{n}", f"http://127.0.0.1:{sys.argv[2]}/g/{n}.json") for n in range(1, 1001)])
db.commit(); db.close()
PY
"$feedcli" sync --quiet --state "$work/idle.sqlite" >/dev/null   # now every feed has its ETag

settle empty big slow idle

# Each measure starts with the disk idle: writing back what the set-up (or the measure before)
# left dirty would otherwise slow the fsyncs of feedcli's journal and not curl's.
hf() { sync; hyperfine -N --style basic --export-json "$out/$1.json" --export-markdown "$out/$1.md" "${@:2}" >/dev/null; }
mean() { jq -r ".results[$2].mean" "$out/$1.json"; }

hf next --runs 40 --warmup 2 --prepare "sh -c '$(fresh empty s)'" \
  "curl -s $base/1" "$feedcli next b --state $work/s.sqlite"
hf sync --runs 15 --warmup 2 --prepare "sh -c '$(fresh empty s)'" \
  "curl -s $base/[1-1000]" "$feedcli sync b --max-pages 1001 --state $work/s.sqlite"
hf list --runs 10 --warmup 1 "jq -c .[] $work/all.json" "$feedcli list --jsonl --state $work/big.sqlite"
hf history --runs 40 --warmup 2 --prepare "sh -c '$(fresh empty s); $(fresh big t)'" \
  "$feedcli next b --state $work/s.sqlite" "$feedcli next b --state $work/t.sqlite"
hf slow --runs 3 --warmup 1 --prepare "sh -c '$(fresh slow s)'" \
  "curl -s --parallel --parallel-max 4 http://127.0.0.1:$slow_port/feed/[1-100]" "$feedcli sync --state $work/s.sqlite"
hf idle --runs 10 --warmup 1 --prepare "sh -c '$(fresh idle s)'" \
  "curl -s --parallel --parallel-max 4 http://127.0.0.1:$port/g/[1-1000].json" "$feedcli sync --state $work/s.sqlite"
peak=$(/usr/bin/time -f %M "$feedcli" list --jsonl --state "$work/big.sqlite" 2>&1 >/dev/null | tail -n 1)
lines=$("$feedcli" list --jsonl --state "$work/big.sqlite" | wc -l)

# History at scale: 1,000,000 entries.
cp "$work/empty.sqlite" "$work/million.sqlite"
python3 - "$work/million.sqlite" 1000000 <<'PY'
import json, sqlite3, sys
db = sqlite3.connect(sys.argv[1])
posts = json.load(open("Fixtures/posts/posts.json"))
def rows():
    for n in range(1, int(sys.argv[2]) + 1):
        p = posts[(n - 1) % 100]
        yield ("b", str(n + 1000000), p["title"], p["body"], "1", "2026-11-21T19:00:00Z", 1, json.dumps(p, separators=(",", ":")))
db.executemany("INSERT INTO entry (feed,id,title,text,author,fetched_at,read,source) VALUES (?,?,?,?,?,?,?,?)", rows())
db.commit(); db.close()
PY
hf limit --runs 20 --warmup 2 "$feedcli list b --limit 10 --state $work/million.sqlite"

row() {  # row NAME FEEDCLI_INDEX BASELINE_INDEX GOAL
  local f b r ok
  f=$(mean "$1" "$2"); b=$(mean "$1" "$3")
  r=$(python3 -c "print(f'{$f/$b:.2f}')")
  ok=$(python3 -c "print('met' if $f/$b <= $4 else 'NOT met')")
  printf '| %s | %.1f ms | %.1f ms | %s× | ≤ %s× (%s) |\n' "$5" "$(python3 -c "print($f*1000)")" \
    "$(python3 -c "print($b*1000)")" "$r" "$4" "$ok"
}
printf '\n| measure | feedcli | baseline | ratio | target |\n|---|---|---|---|---|\n'
row next 1 0 2.0 "next vs curl -s"
row sync 1 0 1.0 "sync 1,000 posts vs one curl of the 1,000 URLs"
row slow 1 0 1.5 "sync 100 feeds answering after 100 ms vs curl --parallel-max 4"
row idle 1 0 4.0 "sync 1,000 unchanged feeds (304) vs curl --parallel-max 4"
row list 1 0 0.5 "list --jsonl 100k vs jq -c"
row history 1 0 1.2 "next, 100k stored vs none"
printf '| list --jsonl 100k, peak memory | %s MiB | | | < 64 MiB |\n' "$((peak / 1024))"
printf '| list FEED --limit 10 over 1,000,000 entries | %.1f ms | | | milliseconds |\n' "$(python3 -c "print($(mean limit 0)*1000)")"
echo "($lines lines listed; $(uname -m), $(nproc) cores, $(date -u +%Y-%m-%d); hyperfine tables in $out)"
