#!/usr/bin/env bash
# The "One command that stays" rows of the benchmark, printed as table rows:
#   exec      `sync --exec true` of 1,000 new entries against `sync --jsonl` of the same entries
#             plus 1,000 runs of `sh -c true`: feedcli's own cost per entry handed over  ≤ 1 ms
#   idle      `follow` of FEEDS polled feeds due every EVERY seconds, nothing new, for SECONDS:
#             CPU per poll, and the resident memory sampled every 10 s (flat: the last sample
#             against the first after the first minute)
# Usage: FEEDCLI=/path/to/feedcli bash scripts/bench-follow.sh [FEEDS] [EVERY] [SECONDS]
# (defaults 1000 feeds every 60 s for 600 s: ten polls of each; an hour's worth of polls is
# FEEDS=1000 EVERY=6 SECONDS=360).
set -euo pipefail
cd "$(dirname "$0")/.."
feedcli="${FEEDCLI:?FEEDCLI=/path/to/feedcli}"
feeds="${1:-1000}"; every="${2:-60}"; seconds="${3:-600}"
work="$(mktemp -d)"
trap 'kill "$server" 2>/dev/null; rm -rf "$work"' EXIT
python3 Fixtures/streams/stream_server.py "$work/port" Fixtures/streams >/dev/null 2>&1 &
server=$!
for _ in $(seq 1 100); do [ -s "$work/port" ] && break; sleep 0.05; done
port=$(cat "$work/port")
clock() { python3 -c "import time; print(time.monotonic())"; }

# --exec: three fresh stores with the same 1,000 entries.
add() { rm -rf "$work/$1".sqlite*; "$feedcli" feeds add big "http://127.0.0.1:$port/polled/$1?per=1000&max=1000" --kind linked --state "$work/$1.sqlite" 2>/dev/null; }
add exec; start=$(clock); "$feedcli" sync --exec true --state "$work/exec.sqlite"; exec_s=$(python3 -c "import time; print(time.monotonic() - $start)")
add plain; start=$(clock); "$feedcli" sync --jsonl --state "$work/plain.sqlite" >/dev/null; plain_s=$(python3 -c "import time; print(time.monotonic() - $start)")
start=$(clock); for _ in $(seq 1 1000); do sh -c true; done; shells_s=$(python3 -c "import time; print(time.monotonic() - $start)")
# Negative: handing an entry over costs less than bash's own fork and exec of `sh -c true`.
per=$(python3 -c "print(f'{($exec_s - $plain_s - $shells_s):.3f}')")
printf '| sync --exec true of 1,000 new entries vs sync --jsonl + 1,000 sh -c true (from bash) | %.2f s | %.2f s + %.2f s | %s× (%s ms an entry beyond) | ≤ 1 ms an entry (%s) |\n' \
  "$exec_s" "$plain_s" "$shells_s" "$(python3 -c "print(f'{$exec_s / ($plain_s + $shells_s):.2f}')")" "$per" \
  "$(python3 -c "print('met' if $per <= 1 else 'NOT met')")"

# Idle polled feeds: FEEDS feeds, each due every EVERY seconds, nothing new after the first poll.
rm -rf "$work"/idle.sqlite*
python3 - "$work/feeds.opml" "$port" "$feeds" "$every" <<'PY'
import sys
path, port, count, every = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
with open(path, "w") as f:
    f.write('<?xml version="1.0"?><opml version="2.0" xmlns:feedcli="tag:feedcli,2026:opml"><body>\n')
    for i in range(count):
        f.write('<outline text="f%d" xmlUrl="http://127.0.0.1:%s/polled/f%d?per=1&amp;max=1" feedcli:kind="linked" feedcli:every="%ss"/>\n' % (i, port, i, every))
    f.write('</body></opml>\n')
PY
"$feedcli" feeds import "$work/feeds.opml" --state "$work/idle.sqlite" >/dev/null 2>&1
"$feedcli" follow --max-time "${seconds}s" --jsonl --state "$work/idle.sqlite" >/dev/null 2>"$work/idle.err" &
pid=$!
samples=()
ticks=0
# Sampled every 10 s while it runs; its CPU read at the last sample, before its --max-time.
for _ in $(seq 1 $((seconds / 10 - 1))); do
  sleep 10
  samples+=("$(awk '/VmRSS/ {print $2}' /proc/$pid/status 2>/dev/null || echo 0)")
  ticks=$(awk '{print $14 + $15}' /proc/$pid/stat 2>/dev/null || echo "$ticks")
done
wait "$pid" || true
polls=$(python3 -c "import json, urllib.request; print(len(json.load(urllib.request.urlopen('http://127.0.0.1:$port/polled-log'))))")
cpu=$(python3 -c "print($ticks / $(getconf CLK_TCK))")
first=${samples[5]:-${samples[0]}}; last=${samples[-1]}
peak=$(printf '%s\n' "${samples[@]}" | sort -n | tail -n 1)
printf '| follow of %s idle polled feeds every %s s for %s s: CPU per poll | %s polls, %.1f s CPU | %.2f ms a poll | | ≈ 0 between polls |\n' \
  "$feeds" "$every" "$seconds" "$polls" "$cpu" "$(python3 -c "print($cpu * 1000 / max(1, $polls))")"
printf '| that follow, resident memory after the first minute and at its end (peak %s MiB) | %s MiB | %s MiB | %s× | flat |\n' \
  "$((peak / 1024))" "$((first / 1024))" "$((last / 1024))" "$(python3 -c "print(f'{$last / max(1, $first):.2f}')")"
