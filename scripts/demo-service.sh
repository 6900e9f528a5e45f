#!/bin/bash
# The shipped unit's command (`feedcli follow`, stdout to nowhere) run as systemd runs it, with
# stderr as the journal gets it ($JOURNAL_STREAM naming it: each line with its priority), over
# the fixture stream server: a stream, a polled feed whose server answers 503 for its first
# 6 s (failing, then recovering), a feed whose token variable is unset (failing for good), and
# a feed added by another process while it runs. Prints the journal's lines, the exit status,
# what the store took, and the state folder (the unit writes no file of its own).
# Usage: bash scripts/demo-service.sh [SECONDS] (FEEDCLI=/path/to/feedcli; default: the debug build).
set -u
seconds="${1:-16}"
root="$(cd "$(dirname "$0")/.." && pwd)"
work="$(mktemp -d)"
F="${FEEDCLI:-$root/.build/debug/feedcli}"
state="$work/state/feedcli.sqlite"
python3 "$root/Fixtures/streams/stream_server.py" "$work/port" "$root/Fixtures/streams" 2>/dev/null &
server=$!
trap 'kill $server 2>/dev/null; rm -rf "$work"' EXIT
for _ in $(seq 1 100); do [ -s "$work/port" ] && break; sleep 0.05; done
base="http://127.0.0.1:$(cat "$work/port")"
export FEEDCLI_STATE="$state"
unset DEMO_TOKEN
"$F" feeds add live "$base/sse?count=3&hold=600" --kind sse --keep 1000
"$F" feeds add flaky "$base/polled/flaky?per=2&fail_for=6" --kind linked --every 2s
"$F" feeds add mast "$base/sse?count=5&hold=600" --kind sse --token-env DEMO_TOKEN
journal="$work/journal"
: > "$journal"
# As systemd starts it: stderr to the journal's stream, JOURNAL_STREAM=device:inode of it.
stream="$(stat -c '%d:%i' "$journal")"
echo "\$ JOURNAL_STREAM=$stream feedcli follow >/dev/null 2>journal   # ExecStart, StandardOutput=null"
JOURNAL_STREAM="$stream" "$F" follow >/dev/null 2>>"$journal" &
follow=$!
sleep 3
echo "\$ feedcli feeds add late …/polled/late --kind linked   # another process, while it runs (t=3 s)"
"$F" feeds add late "$base/polled/late?per=2&max=2" --kind linked
sleep 2
echo "\$ feedcli sync flaky --wait 1   # beside the follow that owns it (t=5 s)"
"$F" sync flaky --wait 1 --retries 0 >/dev/null
echo "  exit $?"
sleep $((seconds - 5))
kill -TERM $follow
wait $follow
status=$?
echo "--- the journal's lines (t=0 to ${seconds} s, then SIGTERM):"
sed 's/^/  /' "$journal"
echo "--- follow exited $status"
echo "--- what the store holds, by feed:"
"$F" list --jsonl | python3 -c 'import sys, json, collections; c = collections.Counter(json.loads(l)["feed"] for l in sys.stdin); print("  " + ", ".join("%s %d" % kv for kv in sorted(c.items())))'
echo "--- the state folder (the unit writes no file of its own):"
ls -la "$work/state" | sed 's/^/  /'
