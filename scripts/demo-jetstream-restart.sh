#!/usr/bin/env bash
# Usage: FEEDCLI=/path/to/feedcli bash scripts/demo-jetstream-restart.sh
# A Jetstream follow across a server restart: the server killed mid-stream (SIGKILL), started
# again on the same port 2 s later; every create commit of the capture printed once.
set -u
cd "$(dirname "$0")/.."
F=${FEEDCLI:-.build-static/x86_64-unknown-linux-gnu/release/feedcli}
w=$(mktemp -d)
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')  # kept for the restart
start() { PORT=$port python3 Fixtures/streams/websocket_server.py "$w/port" & server=$!; for _ in $(seq 50); do [ -s "$w/port" ] && break; sleep 0.1; done; }
start
$F feeds add j "ws://127.0.0.1:$port/jetstream?pace=0.03" --kind jetstream --collection app.bsky.feed.post --collection app.bsky.feed.like --state "$w/s.sqlite"
$F follow j --jsonl --state "$w/s.sqlite" > "$w/out.jsonl" 2> "$w/err" & follow=$!
sleep 2; echo "printed before the kill: $(wc -l < "$w/out.jsonl")"
kill -9 $server; wait $server 2>/dev/null; rm -f "$w/port"; echo "server killed"; sleep 2
start; echo "server started again on $port"
sleep 8; echo "the restarted server was asked for: $(curl -s http://127.0.0.1:$port/log)"; kill -TERM $follow; wait $follow; echo "follow exit: $?"
kill $server
echo "printed: $(wc -l < "$w/out.jsonl"), distinct ids: $(jq -r .id "$w/out.jsonl" | sort -u | wc -l)"
python3 - "$w/out.jsonl" <<'PY'
import json, sys
want = [json.loads(l) for l in open("Fixtures/streams/jetstream-v1.jsonl")]
want = ["at://%s/%s/%s" % (e["did"], e["commit"]["collection"], e["commit"]["rkey"]) for e in want
        if e["kind"] == "commit" and e["commit"]["operation"] == "create" and e["commit"]["collection"] in ("app.bsky.feed.post", "app.bsky.feed.like")]
got = [json.loads(l)["id"] for l in open(sys.argv[1])]
print("capture's creates:", len(want), " missing:", len(set(want) - set(got)), " twice:", len(got) - len(set(got)), " in order:", got == [i for i in want if i in set(got)])
PY
echo "--- stderr"; cat "$w/err"
echo "--- status"; $F status --state "$w/s.sqlite"
