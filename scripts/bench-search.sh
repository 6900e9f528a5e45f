#!/usr/bin/env bash
# Measures `feedcli search` (issue 63's rows) on a store of N entries (default 1,000,000) that
# feedcli makes itself: `sync` of an NDJSON stream of a generated corpus (about 500 characters an
# entry, words drawn from a Zipf distribution over 20,000 made-up words, one entry in twenty in
# Japanese), served by python on loopback. Three words are planted at known rates: `zquartz`
# (0.05% of entries), `zmarble` (1%) and `zcobalt` (10%). Prints the rows as
# docs/PERFORMANCE.md shows them.
# Usage: FEEDCLI=path [N=1000000] [POSTGRES=url] bash scripts/bench-search.sh
set -euo pipefail
cd "$(dirname "$0")/.."
feedcli="${FEEDCLI:-$(bash scripts/build-release.sh | tail -n 1)}"
count="${N:-1000000}"
# KEEP=DIR keeps the store (and the corpus) there for a look afterwards.
work="${KEEP:-$(mktemp -d)}"
mkdir -p "$work"
trap 'kill $(jobs -p) 2>/dev/null || true; [ -n "${KEEP:-}" ] || rm -rf "$work"' EXIT

python3 - "$count" "$work/corpus.ndjson" <<'PY'
import json, random, sys
count, path = int(sys.argv[1]), sys.argv[2]
rng = random.Random(63)
syllables = ["ka", "to", "ri", "mo", "sen", "dal", "vi", "ne", "lo", "qua", "ber", "is", "un", "tor", "pa", "el"]
words = sorted({"".join(rng.choice(syllables) for _ in range(rng.randint(1, 4))) for _ in range(40000)})[:20000]
import itertools
weights = list(itertools.accumulate(1 / (rank + 1) for rank in range(len(words))))
kana = "東京大阪日本語のテキストを読むことができますニュース天気予報今日明日"
planted = [("zquartz", 0.0005), ("zmarble", 0.01), ("zcobalt", 0.10)]
with open(path, "w") as out:
    for n in range(1, count + 1):
        if n % 20 == 0:
            text = "".join(rng.choice(kana) for _ in range(160))
            title = "".join(rng.choice(kana) for _ in range(12))
        else:
            body = rng.choices(words, cum_weights=weights, k=80)
            title = " ".join(rng.choices(words, cum_weights=weights, k=6)).capitalize()
            for word, rate in planted:
                if rng.random() < rate:
                    body[rng.randrange(len(body))] = word
            text = " ".join(body)
        out.write(json.dumps({"id": str(n), "title": title, "text": text,
                              "published": "2026-%02d-%02dT%02d:%02d:00Z" % (1 + n % 11, 1 + n % 28, n % 24, n % 60)},
                             ensure_ascii=False) + "\n")
PY

python3 - "$work/corpus.ndjson" "$work/port" <<'PY' &
import http.server, socketserver, sys
path, port_file = sys.argv[1], sys.argv[2]
class Handler(http.server.BaseHTTPRequestHandler):
    def log_message(self, *args): pass
    def do_GET(self):
        self.send_response(200)
        self.send_header("Content-Type", "application/x-ndjson")
        self.end_headers()
        with open(path, "rb") as f:
            while chunk := f.read(1 << 20):
                self.wfile.write(chunk)
server = socketserver.TCPServer(("127.0.0.1", 0), Handler)
open(port_file, "w").write(str(server.server_address[1]))
server.serve_forever()
PY
for _ in $(seq 100); do [ -s "$work/port" ] && break; sleep 0.1; done
url="http://127.0.0.1:$(cat "$work/port")/corpus"

export FEEDCLI_STATE="$work/store.sqlite"
"$feedcli" feeds add corpus "$url" --kind ndjson --keep all >/dev/null
start=$(date +%s.%N)
"$feedcli" sync corpus --quiet --timeout 3600 >/dev/null
echo "made the store: $count entries in $(echo "$(date +%s.%N) - $start" | bc) s"
start=$(date +%s.%N)
"$feedcli" search zquartz --limit 1 >/dev/null
echo "the first search indexed them in $(echo "$(date +%s.%N) - $start" | bc) s"
"$feedcli" status corpus

row() {  # row NAME COMMAND… : the mean of hyperfine's runs, in ms
  hyperfine -N --warmup "${WARMUP:-3}" --runs "${RUNS:-20}" --export-json "$work/h.json" "$@" >/dev/null 2>&1
  python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))["results"]; print(" ".join("%.1f" % (x["mean"]*1000) for x in r))' "$work/h.json"
}
list=$(row "$feedcli list corpus --limit 20")
rare=$(row "$feedcli search zquartz --limit 20")
common=$(row "$feedcli search zcobalt --limit 20")
ranked=$(row "$feedcli search zmarble --rank --limit 20")
japanese=$(row "$feedcli search 東京 --limit 20")
echo "| search a rare word (0.05%) --limit 20 vs list --limit 20 | $(python3 -c "print('%.2f' % ($rare/$list))")× ($rare ms / $list ms) | ≤ 1.5× |"
echo "| search a common word (10%) --limit 20 vs list --limit 20 | $(python3 -c "print('%.2f' % ($common/$list))")× ($common ms / $list ms) | ≤ 1.5× |"
echo "| search --rank a 1% word --limit 20 | $ranked ms | ≤ 60 ms |"
echo "| search 東京 (CJK, a phrase of two characters) --limit 20 | $japanese ms | |"
scan=$(WARMUP=0 RUNS=2 row "bash -c '$feedcli list corpus --jsonl | jq -c \"select(.text | test(\\\"zquartz\\\"))\" >/dev/null'")
echo "| search a rare word vs list --jsonl \| jq select(test) | $(python3 -c "print('%.0f' % ($scan/$rare))")× faster ($rare ms / $scan ms) | ≥ 100× |"
sizes=$(sqlite3 "$FEEDCLI_STATE" "SELECT (SELECT SUM(pgsize) FROM dbstat WHERE name LIKE 'entry_search%'), (SELECT SUM(LENGTH(CAST(title AS BLOB)) + LENGTH(CAST(text AS BLOB))) FROM entry)")
index=${sizes%|*}; text=${sizes#*|}
echo "| index size vs the text it indexes | $(python3 -c "print('%.2f' % ($index/$text))")× ($((index / 1048576)) MiB / $((text / 1048576)) MiB) | ≤ 0.8× |"
if [ -n "${POSTGRES:-}" ]; then
  "$feedcli" store copy "$FEEDCLI_STATE" "$POSTGRES" >/dev/null
  export FEEDCLI_STATE="$POSTGRES"
  prare=$(row "$feedcli search zquartz --limit 20")
  pcommon=$(row "$feedcli search zcobalt --limit 20")
  pranked=$(row "$feedcli search zmarble --rank --limit 20")
  echo "| PostgreSQL: search a rare word vs SQLite | $(python3 -c "print('%.2f' % ($prare/$rare))")× ($prare ms / $rare ms) | ≤ 2× |"
  echo "| PostgreSQL: search a common word vs SQLite | $(python3 -c "print('%.2f' % ($pcommon/$common))")× ($pcommon ms / $common ms) | ≤ 2× |"
  echo "| PostgreSQL: search --rank a 1% word vs SQLite | $(python3 -c "print('%.2f' % ($pranked/$ranked))")× ($pranked ms / $ranked ms) | ≤ 2× |"
fi
