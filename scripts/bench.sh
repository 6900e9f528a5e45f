#!/usr/bin/env bash
# Measures the contract's performance targets side by side on loopback:
#   1. `feedcli next` on an indexed feed vs a bare `curl -s` of the same URL       (target ≤ 1.5×)
#   2. `feedcli sync` of 1,000 indexed posts vs one curl fetching the 1,000 URLs   (target ≤ 1×)
#   3. `feedcli list --jsonl` over 100,000 entries vs `jq -c '.[]'` on one file    (target ≤ 0.5×, < 64 MiB)
#   4. `feedcli next` with 100,000 stored entries vs with none                       (target ≤ 1.2×)
# Needs nginx-light, hyperfine, jq and GNU time (installed when missing). Prints a summary table;
# hyperfine's own tables land in $BENCH_OUT (default: a temporary folder).
set -euo pipefail
cd "$(dirname "$0")/.."
[ -d /opt/swift/usr/bin ] && export PATH="/opt/swift/usr/bin:$PATH"
need=()
command -v nginx >/dev/null || [ -x /usr/sbin/nginx ] || need+=(nginx-light)
command -v hyperfine >/dev/null || need+=(hyperfine)
command -v jq >/dev/null || need+=(jq)
[ -x /usr/bin/time ] || need+=(time)
pkg-config --exists libcurl 2>/dev/null || need+=(libcurl4-openssl-dev pkg-config)
if [ ${#need[@]} -gt 0 ]; then
  sudo=""; [ "$(id -u)" -ne 0 ] && sudo="sudo"
  $sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${need[@]}"
fi
export PATH="$PATH:/usr/sbin"

# The shipped configuration: Swift's runtime and Foundation linked statically (start-up is most of
# what `next` costs). Its own build folder, so debug builds and tests are not disturbed.
swift build -c release --static-swift-stdlib --scratch-path .build-static --product feedcli 2>&1 | tail -n 1
feedcli="$(swift build -c release --static-swift-stdlib --scratch-path .build-static --show-bin-path)/feedcli"
work="$(mktemp -d)"; out="${BENCH_OUT:-$work}"; mkdir -p "$out"
trap '[ -f "$work/nginx.pid" ] && kill "$(cat "$work/nginx.pid")" 2>/dev/null; rm -rf "$work"' EXIT

# 1,000 jsonplaceholder-shaped posts (the real 100, repeated with new ids), one file each.
mkdir -p "$work/www/posts"
python3 - "$work/www/posts" <<'PY'
import json, sys
posts = json.load(open("Fixtures/posts/posts.json"))
for n in range(1, 1001):
    p = dict(posts[(n - 1) % 100]); p["id"] = n
    open(f"{sys.argv[1]}/{n}", "w").write(json.dumps(p, indent=2))
PY
chmod a+rx "$work"; chmod -R a+rX "$work/www"
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
cat > "$work/nginx.conf" <<NGINX
worker_processes 1; daemon on; pid $work/nginx.pid; error_log $work/error.log;
events { worker_connections 256; }
http { access_log off; keepalive_requests 100000; default_type application/json;
  server { listen 127.0.0.1:$port; root $work/www; } }
NGINX
nginx -c "$work/nginx.conf" -p "$work"
base="http://127.0.0.1:$port/posts"

# Store templates: empty (feed registered), and 100,000 entries all read (cursor at 1).
"$feedcli" feeds add b "$base" --kind indexed --state "$work/empty.sqlite"
cp "$work/empty.sqlite" "$work/big.sqlite"
python3 - "$work/big.sqlite" <<'PY'
import json, sqlite3, sys
db = sqlite3.connect(sys.argv[1])
posts = json.load(open("Fixtures/posts/posts.json"))
rows = []
for n in range(1, 100001):
    p = dict(posts[(n - 1) % 100]); p["id"] = n + 1000000
    rows.append(("b", str(p["id"]), p["title"], p["body"], str(p["userId"]), "2026-11-21T19:00:00Z", 1,
                 json.dumps(p, separators=(",", ":"))))
db.executemany("INSERT INTO entry (feed,id,title,text,author,fetched_at,read,source) VALUES (?,?,?,?,?,?,?,?)", rows)
db.commit(); db.close()
PY
"$feedcli" list --json --state "$work/big.sqlite" > "$work/all.json"

hf() { hyperfine --style basic --warmup 3 --export-json "$out/$1.json" --export-markdown "$out/$1.md" "${@:2}" >/dev/null; }
mean() { jq -r ".results[$2].mean" "$out/$1.json"; }
ratio() { python3 -c "print(f'{$1/$2:.2f}')"; }

hf next --runs 40 --prepare "cp $work/empty.sqlite $work/s.sqlite" \
  "curl -s $base/1 -o /dev/null" "$feedcli next b --state $work/s.sqlite"
hf sync --runs 10 --prepare "cp $work/empty.sqlite $work/s.sqlite" \
  "curl -s '$base/[1-1000]' -o /dev/null" "$feedcli sync b --max-pages 1001 --state $work/s.sqlite"
hf list --runs 10 "jq -c '.[]' $work/all.json" "$feedcli list --jsonl --state $work/big.sqlite"
hf history --runs 40 --prepare "cp $work/empty.sqlite $work/s.sqlite; cp $work/big.sqlite $work/t.sqlite" \
  "$feedcli next b --state $work/s.sqlite" "$feedcli next b --state $work/t.sqlite"
peak=$(/usr/bin/time -f %M "$feedcli" list --jsonl --state "$work/big.sqlite" 2>&1 >/dev/null | tail -n 1)
lines=$("$feedcli" list --jsonl --state "$work/big.sqlite" | wc -l)

printf '\n| target | feedcli | baseline | ratio | goal |\n|---|---|---|---|---|\n'
printf '| next vs curl -s | %.1f ms | %.1f ms | %s× | ≤ 1.5× |\n' "$(mean next 1)e3" "$(mean next 0)e3" "$(ratio "$(mean next 1)" "$(mean next 0)")"
printf '| sync 1,000 vs curl 1,000 URLs | %.0f ms | %.0f ms | %s× | ≤ 1× |\n' "$(mean sync 1)e3" "$(mean sync 0)e3" "$(ratio "$(mean sync 1)" "$(mean sync 0)")"
printf '| list --jsonl 100k vs jq -c | %.0f ms | %.0f ms | %s× | ≤ 0.5× |\n' "$(mean list 1)e3" "$(mean list 0)e3" "$(ratio "$(mean list 1)" "$(mean list 0)")"
printf '| next, 100k stored vs none | %.1f ms | %.1f ms | %s× | ≤ 1.2× |\n' "$(mean history 1)e3" "$(mean history 0)e3" "$(ratio "$(mean history 1)" "$(mean history 0)")"
printf '| list --jsonl 100k peak memory | %s MiB | | | < 64 MiB |\n' "$((peak / 1024))"
echo "($lines lines listed; hyperfine tables in $out)"
