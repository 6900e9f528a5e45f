#!/usr/bin/env bash
# Measures the contract's performance targets side by side on loopback, and prints every ratio
# with its target:
#   next      `feedcli next` on an indexed feed vs `curl -s` of the same URL            ≤ 2.0×
#   sync      `feedcli sync` of 1,000 indexed posts vs one kept-alive curl of the URLs  ≤ 1.0×
#   list      `feedcli list --jsonl` over 100,000 entries vs `jq -c '.[]'`             ≤ 0.5× (< 64 MiB)
#   history   `feedcli next` after a 100,000-entry sync, and after a 300,000-item page,
#             vs an empty store (stores made by feedcli, journals as it left them)      ≤ 1.2×
#   store I/O what one such `next` reads and writes of the store and its journal        < 1 MiB
#   slow      `feedcli sync` of 100 feeds whose server answers after 100 ms vs
#             `curl --parallel --parallel-max 4` over the same 100 URLs                ≤ 1.5×
#   idle      `feedcli sync` of 1,000 unchanged feeds (every one 304) vs
#             `curl --parallel --parallel-max 4` over the same 1,000 URLs              ≤ 4.0×
#   export    `feedcli export --format atom` of 100,000 entries, peak memory            < 64 MiB
#   limit     `feedcli list FEED --limit 10` over 1,000,000 entries                    milliseconds
#   page      `feedcli sync` of the largest page the default --max-size allows (16 MiB of
#             `{"id":N}`, 1.2 million items; and of `{}`, 5.6 million items without an id),
#             peak memory                                                               < 160 MiB
#   json page `feedcli sync` of a json feed's page at its value limit (99,999 tiny items;
#             jq holds a page whole), peak memory of feedcli and of feedcli with its jq
#             worker together (the processes' summed PSS, sampled)                     < 160 MiB
#   interleaved  the sync and idle rows again, as medians of rounds that alternate curl and
#             feedcli (and BEFORE), each run after a fresh copy of its store and a `sync` of the
#             disk, so that no command pays for another's dirty pages or the machine's phase
#   streams   `feedcli follow` of 100,000 events vs curl | sed | jq, its memory over 1,000,000,
#             and an event's latency (scripts/bench-streams.sh)
#   websocket `feedcli follow` of 100,000 Jetstream events vs a Python websockets client | jq,
#             its memory over 1,000,000, and an event's latency (scripts/bench-websocket.sh)
#   retention `feedcli follow` of Wikimedia-shaped events with --keep 100000: the store's size
#             over time, memory, time vs no --keep, reading the pruned store
#             (scripts/bench-retention.sh; RETENTION_EVENTS, default 2,000,000)
#   follow    --exec's cost an entry; a follow of 1,000 idle polled feeds (scripts/bench-follow.sh)
#   postgres  next, sync, list and history on a PostgreSQL store vs the same on SQLite
#             (scripts/bench-postgres.sh; ONLY=postgres runs just these after the set-up)
#   jq        `feedcli sync` of a preset (Reddit) page: its jq expressions run in a worker
#             process; with BEFORE=/path/to/an/older/feedcli, also that binary (jq in
#             process), for the contract's "at most 10 ms more"                         ≤ +10 ms
# Baselines are the fastest honest curl: `hyperfine -N` (no shell) discards stdout, so curl runs
# without `-o`. Every store is made by feedcli (`feeds add`, `sync`), never by hand. Needs
# nginx-light, hyperfine, jq, strace and GNU time (installed when missing).
# FEEDCLI=/path/to/feedcli measures that binary instead of building the static release (to
# compare versions on one machine); BENCH_OUT keeps hyperfine's tables (default: a temp folder);
# BEFORE=/path/to/feedcli adds that binary to the jq, next and sync rows (same stores, same runs;
# so a binary of an older store schema cannot be BEFORE: it refuses the newer store, 74).
set -euo pipefail
cd "$(dirname "$0")/.."
[ -d /opt/swift/usr/bin ] && export PATH="/opt/swift/usr/bin:$PATH"
need=()
command -v nginx >/dev/null || [ -x /usr/sbin/nginx ] || need+=(nginx-light)
command -v hyperfine >/dev/null || need+=(hyperfine)
command -v jq >/dev/null || need+=(jq)
[ -x /usr/bin/time ] || need+=(time)
command -v strace >/dev/null || need+=(strace)
pkg-config --exists libcurl 2>/dev/null || need+=(libcurl4-openssl-dev pkg-config)
[ -f /usr/include/sqlite3.h ] || need+=(libsqlite3-dev)
[ -f /usr/include/jq.h ] || need+=(libjq-dev)
[ -f /usr/include/postgresql/libpq-fe.h ] || need+=(libpq-dev)
ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || need+=(postgresql)
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

# 1,000 jsonplaceholder-shaped posts (the real 100, repeated with new ids), one file each;
# 1,000 single-page Graph feeds; a Graph feed of 100,000 entries in 100 pages; one JSON Feed page
# of 300,000 items; a Graph feed of 1,000,000 entries in 10 pages.
mkdir -p "$work/www/posts" "$work/www/g" "$work/www/hist" "$work/www/million"
python3 - "$work/www" <<'PY'
import json, sys
www = sys.argv[1]
posts = json.load(open("Fixtures/posts/posts.json"))
for n in range(1, 1001):
    p = dict(posts[(n - 1) % 100]); p["id"] = n
    open(f"{www}/posts/{n}", "w").write(json.dumps(p, indent=2))
    page = {"data": [{"id": f"{n}_1", "created_time": "2026-11-01T10:00:00+0000", "message": p["body"]}], "paging": {}}
    open(f"{www}/g/{n}.json", "w").write(json.dumps(page))
def graph(folder, pages, per_page, text):
    total = pages * per_page
    for page in range(1, pages + 1):
        first = total - (page - 1) * per_page  # newest first
        data = [{"id": str(n), "created_time": "2026-11-01T10:00:00+0000", "message": text(n),
                 "from": {"name": "Ann"}} for n in range(first, first - per_page, -1)]
        paging = {"next": f"/{folder}/{page + 1}.json"} if page < pages else {}
        json.dump({"data": data, "paging": paging}, open(f"{www}/{folder}/{page}.json", "w"), separators=(",", ":"))
graph("hist", 100, 1000, lambda n: posts[n % 100]["body"])
graph("million", 10, 100000, lambda n: posts[n % 100]["title"])
items = [{"id": str(n), "title": posts[n % 100]["title"], "content_text": posts[n % 100]["title"],
          "date_published": "2026-11-01T10:00:00Z"} for n in range(300000, 0, -1)]
json.dump({"version": "https://jsonfeed.org/version/1.1", "title": "big", "items": items},
          open(f"{www}/page300k.json", "w"), separators=(",", ":"))
# The largest pages the default --max-size (16 MiB) allows: as many distinct tiny items as fit,
# and as many items without an id.
limit = 16 * 1024 * 1024
parts, size, n = [], 2, 0
while size + len('{"id":%d},' % n) <= limit:
    parts.append('{"id":%d}' % n); size += len(parts[-1]) + 1; n += 1
open(f"{www}/maxpage.json", "w").write("[" + ",".join(reversed(parts)) + "]")
open(f"{www}/noids.json", "w").write("[" + ",".join(["{}"] * ((limit - 2) // 3)) + "]")
# A Reddit listing (the preset's fixture), for the jq worker's row.
import shutil
shutil.copy("Fixtures/apis/reddit.json", f"{www}/reddit.json")
# A json feed's largest page: 200,000 values (`[`, then `{` and a comma an item).
open(f"{www}/jqpage.json", "w").write("[" + ",".join('{"id":%d}' % n for n in range(99999, 0, -1)) + "]")
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

# Every store is made by feedcli itself (`feeds add`, `sync` against the local servers) and
# each run starts from a copy of it with its journal (`-wal`) exactly as feedcli left it: what a
# user has. Nothing is inserted or checkpointed by hand.
fresh() {
  echo "rm -f $work/$2.sqlite $work/$2.sqlite-wal $work/$2.sqlite-shm; cp $work/$1.sqlite $work/$2.sqlite;" \
       "if [ -f $work/$1.sqlite-wal ]; then cp $work/$1.sqlite-wal $work/$2.sqlite-wal; fi"
}
copy() { sh -c "$(fresh "$1" "$2")"; }
# Each store starts as `empty` does: the indexed feed the measures read, and no internet feed.
"$feedcli" feeds add b "$base" --kind indexed --state "$work/empty.sqlite"
# (A first feed of one's own retires the unused built-in posts; an older feedcli kept it.)
"$feedcli" feeds remove posts --state "$work/empty.sqlite" 2>/dev/null || true
from_empty() { copy empty "$1"; }
from_empty hist; "$feedcli" feeds add h "http://127.0.0.1:$port/hist/1.json" --kind graph --state "$work/hist.sqlite"
"$feedcli" sync h --max-pages 100 --quiet --state "$work/hist.sqlite" >/dev/null          # 100,000 entries
from_empty page; "$feedcli" feeds add p "http://127.0.0.1:$port/page300k.json" --kind jsonfeed --state "$work/page.sqlite"
"$feedcli" sync p --max-size 268435456 --quiet --state "$work/page.sqlite" >/dev/null       # 300,000 items, one page
from_empty million; "$feedcli" feeds add m "http://127.0.0.1:$port/million/1.json" --kind graph --state "$work/million.sqlite"
"$feedcli" sync m --max-pages 10 --quiet --state "$work/million.sqlite" >/dev/null         # 1,000,000 entries
"$feedcli" list --json --state "$work/hist.sqlite" > "$work/all.json"
from_empty slow
for n in $(seq 1 100); do "$feedcli" feeds add "s$n" "http://127.0.0.1:$slow_port/feed/$n" --kind graph --state "$work/slow.sqlite"; done
from_empty idle
for n in $(seq 1 1000); do "$feedcli" feeds add "g$n" "http://127.0.0.1:$port/g/$n.json" --kind graph --state "$work/idle.sqlite"; done
"$feedcli" sync --quiet --state "$work/idle.sqlite" >/dev/null   # now every feed has its ETag
from_empty jq; "$feedcli" feeds add r "http://127.0.0.1:$port/reddit.json" --kind reddit --state "$work/jq.sqlite"
journals=$(for f in empty hist page million slow idle jq; do
  printf '%s %s KiB; ' "$f" "$(( $(stat -c %s "$work/$f.sqlite-wal" 2>/dev/null || echo 0) / 1024 ))"; done)

if [ "${ONLY:-}" = postgres ]; then
  FEEDCLI="$feedcli" BASE="$base" EMPTY="$work/empty.sqlite" HIST="$work/hist.sqlite" bash scripts/bench-postgres.sh "$out/postgres"
  exit 0
fi

# Each measure starts with the disk idle: writing back what the set-up (or the measure before)
# left dirty would otherwise slow the fsyncs of feedcli's journal and not curl's.
hf() { sync; hyperfine -N --style basic --export-json "$out/$1.json" --export-markdown "$out/$1.md" "${@:2}" >/dev/null; }
mean() { jq -r ".results[$2].mean" "$out/$1.json"; }

before=()  # the older binary's commands, when BEFORE is given: measured beside the current one
[ -n "${BEFORE:-}" ] && before=(1)
hf next --runs 40 --warmup 2 --prepare "sh -c '$(fresh empty s)'" \
  "curl -s $base/1" "$feedcli next b --state $work/s.sqlite" ${before:+"$BEFORE next b --state $work/s.sqlite"}
hf sync --runs 15 --warmup 2 --prepare "sh -c '$(fresh empty s)'" \
  "curl -s $base/[1-1000]" "$feedcli sync b --max-pages 1001 --state $work/s.sqlite" \
  ${before:+"$BEFORE sync b --max-pages 1001 --state $work/s.sqlite"}
hf jq --runs 30 --warmup 2 --prepare "sh -c '$(fresh jq s)'" \
  "$feedcli sync r --quiet --state $work/s.sqlite" ${before:+"$BEFORE sync r --quiet --state $work/s.sqlite"}
hf list --runs 10 --warmup 1 "jq -c .[] $work/all.json" "$feedcli list --jsonl --state $work/hist.sqlite"
hf history --runs 40 --warmup 2 --prepare "sh -c '$(fresh empty s); $(fresh hist t); $(fresh page u)'" \
  "$feedcli next b --state $work/s.sqlite" "$feedcli next b --state $work/t.sqlite" "$feedcli next b --state $work/u.sqlite"
hf slow --runs 3 --warmup 1 --prepare "sh -c '$(fresh slow s)'" \
  "curl -s --parallel --parallel-max 4 http://127.0.0.1:$slow_port/feed/[1-100]" "$feedcli sync --state $work/s.sqlite"
hf idle --runs 10 --warmup 1 --prepare "sh -c '$(fresh idle s)'" \
  "curl -s --parallel --parallel-max 4 http://127.0.0.1:$port/g/[1-1000].json" "$feedcli sync --state $work/s.sqlite"
# The same comparisons interleaved: round after round, each command once, each after a fresh
# copy of its store and a `sync`, so that a phase of the machine or dirty pages written back
# at a journal's fsync fall on every command alike. Medians, in seconds.
interleaved() {  # interleaved NAME ROUNDS STORE COMMAND…
  python3 - "$work" "$out/$1.interleaved" "$2" "$3" "${@:4}" <<'PY'
import os, shutil, statistics, subprocess, sys, time
work, out, rounds, store, commands = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4], sys.argv[5:]
times = [[] for _ in commands]
for _ in range(rounds):
    for index, command in enumerate(commands):
        for suffix in ("", "-wal", "-shm"):
            if os.path.exists(f"{work}/s.sqlite{suffix}"): os.remove(f"{work}/s.sqlite{suffix}")
        for suffix in ("", "-wal"):
            if os.path.exists(f"{work}/{store}.sqlite{suffix}"): shutil.copy(f"{work}/{store}.sqlite{suffix}", f"{work}/s.sqlite{suffix}")
        os.sync()
        start = time.perf_counter()
        subprocess.run(command.split(), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        times[index].append(time.perf_counter() - start)
open(out, "w").write(" ".join(str(statistics.median(t)) for t in times))
PY
}
imean() { python3 -c "print('$(cat "$out/$1.interleaved")'.split()[$2])"; }
interleaved sync 15 empty "curl -s $base/[1-1000]" "$feedcli sync b --max-pages 1001 --state $work/s.sqlite" \
  ${before:+"$BEFORE sync b --max-pages 1001 --state $work/s.sqlite"}
interleaved idle 10 idle "curl -s --parallel --parallel-max 4 http://127.0.0.1:$port/g/[1-1000].json" \
  "$feedcli sync --state $work/s.sqlite" ${before:+"$BEFORE sync --state $work/s.sqlite"}
peak=$(/usr/bin/time -f %M "$feedcli" list --jsonl --state "$work/hist.sqlite" 2>&1 >/dev/null | tail -n 1)
lines=$("$feedcli" list --jsonl --state "$work/hist.sqlite" | wc -l)
# A page is held as its body and a few bytes an item: the largest pages the default --max-size
# allows, synced into a fresh store.
page_peak() {  # page_peak PAGE [KIND]
  from_empty "$1"
  "$feedcli" feeds add m "http://127.0.0.1:$port/$1.json" --kind "${2:-linked}" --state "$work/$1.sqlite"
  /usr/bin/time -f %M "$feedcli" sync m --quiet --state "$work/$1.sqlite" 2>&1 >/dev/null | tail -n 1
}
peak_page=$(page_peak maxpage); peak_noids=$(page_peak noids); peak_jq=$(page_peak jqpage json)
# The same json page with its jq worker counted: the summed PSS of feedcli and its children
# (proportional: the binary's pages both map count once), sampled every 5 ms while it runs (a
# worker is not waited for, so time -f %M misses it).
tree_peak() {  # tree_peak COMMAND…: the largest summed PSS of the command and its descendants, KiB
  python3 - "$@" <<'PY'
import os, subprocess, sys, time
child = subprocess.Popen(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
def tree(root):
    parents = {}
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try: parents[int(pid)] = int(open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()[1])
        except (OSError, IndexError, ValueError): pass
    found, frontier = {root}, [root]
    while frontier:
        p = frontier.pop()
        for pid, parent in parents.items():
            if parent == p and pid not in found: found.add(pid); frontier.append(pid)
    return found
def rss(pid):
    try:
        for line in open(f"/proc/{pid}/smaps_rollup"):
            if line.startswith("Pss:"): return int(line.split()[1])
    except OSError: pass
    return 0
peak = 0
while child.poll() is None:
    peak = max(peak, sum(rss(p) for p in tree(child.pid)))
    time.sleep(0.005)
print(peak)
PY
}
from_empty jqtree; "$feedcli" feeds add m "http://127.0.0.1:$port/jqpage.json" --kind json --state "$work/jqtree.sqlite"
peak_jq_tree=$(tree_peak "$feedcli" sync m --quiet --state "$work/jqtree.sqlite")
page_items=$("$feedcli" status m --json --state "$work/maxpage.sqlite" | jq '.[0].entries')
# export streams its document: memory flat for 100,000 entries, as for list.
peak_export=$(/usr/bin/time -f %M "$feedcli" export --format atom --state "$work/hist.sqlite" 2>&1 >/dev/null | tail -n 1)
# What one `next` reads and writes of the store and its journal (strace: every read and write
# call on those files; the -shm is mapped, not read), after each big sync.
store_io() {
  copy "$1" io
  strace -f -y -qq -e trace=read,pread64,write,pwrite64 -o "$work/io.trace" "$feedcli" next b --state "$work/io.sqlite" >/dev/null || true
  python3 - "$work/io.trace" "$work/io.sqlite" <<'PY'
import re, sys
read = written = 0
for line in open(sys.argv[1]):
    m = re.search(r'(read|pread64|write|pwrite64)\(\d+<([^>]*)>.*\)\s+=\s+(\d+)', line)
    if not m or not m.group(2).startswith(sys.argv[2]):
        continue
    if "read" in m.group(1): read += int(m.group(3))
    else: written += int(m.group(3))
print(f"{read / 1048576:.2f} MiB read, {written / 1048576:.2f} MiB written")
PY
}
io_hist=$(store_io hist); io_page=$(store_io page)

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
row history 1 0 1.2 "next after a 100,000-entry sync vs an empty store"
row history 2 0 1.2 "next after a 300,000-item page vs an empty store"
irow() {  # irow NAME FEEDCLI_INDEX BASELINE_INDEX GOAL LABEL: a row of the interleaved medians
  local f b
  f=$(imean "$1" "$2"); b=$(imean "$1" "$3")
  printf '| %s | %.1f ms | %.1f ms | %s× | ≤ %s× (%s) |\n' "$5" "$(python3 -c "print($f*1000)")" "$(python3 -c "print($b*1000)")" \
    "$(python3 -c "print(f'{$f/$b:.2f}')")" "$4" "$(python3 -c "print('met' if $f/$b <= $4 else 'NOT met')")"
}
irow sync 1 0 1.0 "sync 1,000 posts vs one curl, interleaved"
irow idle 1 0 3.0 "sync 1,000 unchanged feeds vs curl --parallel-max 4, interleaved"
printf '| next after the 100,000-entry sync: store I/O | %s | | | < 1 MiB |\n' "$io_hist"
printf '| next after the 300,000-item page: store I/O | %s | | | < 1 MiB |\n' "$io_page"
printf '| list --jsonl 100k, peak memory | %s MiB | | | < 64 MiB |\n' "$((peak / 1024))"
printf '| export --format atom of 100k entries, peak memory | %s MiB | | | < 64 MiB |\n' "$((peak_export / 1024))"
printf '| sync of a 16 MiB page of %s items, peak memory | %s MiB | | | < 160 MiB |\n' "$page_items" "$((peak_page / 1024))"
printf '| sync of a 16 MiB page of items without an id, peak memory | %s MiB | | | < 160 MiB |\n' "$((peak_noids / 1024))"
printf '| sync of a json page of 99,999 items (its value limit), peak memory | %s MiB | | | < 160 MiB |\n' "$((peak_jq / 1024))"
printf '| the same, feedcli and its jq worker together (summed PSS, sampled) | %s MiB | | | < 160 MiB |\n' "$((peak_jq_tree / 1024))"
printf '| sync of a preset (Reddit) page, jq in a worker | %.1f ms | | | |\n' "$(python3 -c "print($(mean jq 0)*1000)")"
if [ -n "${BEFORE:-}" ]; then
  printf '| the same, BEFORE (%s) | %.1f ms | | %+.1f ms | ≤ +10 ms |\n' "$BEFORE" "$(python3 -c "print($(mean jq 1)*1000)")" \
    "$(python3 -c "print(($(mean jq 0)-$(mean jq 1))*1000)")"
  row next 2 0 2.0 "next vs curl -s, BEFORE"
  row sync 2 0 1.0 "sync 1,000 posts vs one curl, BEFORE"
  irow sync 2 0 1.0 "sync 1,000 posts vs one curl, interleaved, BEFORE"
  irow idle 2 0 3.0 "sync 1,000 unchanged feeds, interleaved, BEFORE"
fi
printf '| list FEED --limit 10 over 1,000,000 entries | %.1f ms | | | milliseconds |\n' "$(python3 -c "print($(mean limit 0)*1000)")"
# The live-stream rows (follow's throughput, memory and latency), measured by their own script.
FEEDCLI="$feedcli" bash scripts/bench-streams.sh "$out/streams"
# The WebSocket rows (a Jetstream follow's throughput against a websockets client, memory, latency).
FEEDCLI="$feedcli" bash scripts/bench-websocket.sh "$out/websocket"
# The "Running for months" rows: a follow with --keep (RETENTION_EVENTS events, default 2,000,000).
FEEDCLI="$feedcli" bash scripts/bench-retention.sh "${RETENTION_EVENTS:-2000000}"
# The "One command that stays" rows: --exec's cost an entry, and a follow of idle polled feeds.
FEEDCLI="$feedcli" bash scripts/bench-follow.sh 1000 6 240
# The search rows (issue 63): a store of SEARCH_ENTRIES entries (default 1,000,000) made by sync
# of a generated corpus; with SEARCH_POSTGRES=url, the same on PostgreSQL (scripts/bench-search.sh).
FEEDCLI="$feedcli" N="${SEARCH_ENTRIES:-1000000}" POSTGRES="${SEARCH_POSTGRES:-}" bash scripts/bench-search.sh
# The PostgreSQL store's rows, against the same commands on SQLite (scripts/bench-postgres.sh).
FEEDCLI="$feedcli" BASE="$base" EMPTY="$work/empty.sqlite" HIST="$work/hist.sqlite" bash scripts/bench-postgres.sh "$out/postgres"
echo "(journals as feedcli left them: $journals)"
echo "($lines lines listed; $(uname -m), $(nproc) cores, $(date -u +%Y-%m-%d); hyperfine tables in $out)"
