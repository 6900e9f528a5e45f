#!/bin/bash
# A follow session across a server restart: the server streams events 1..40 (one every 50 ms),
# is killed (SIGKILL) mid-stream and started again on the same port a second later; it replays
# from the Last-Event-ID feedcli sends. Every event is printed and stored once.
# Usage: bash scripts/demo-stream-restart.sh (FEEDCLI=/path/to/feedcli; default: the debug build).
set -u
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
F="${FEEDCLI:-$(cd "$(dirname "$0")/.." && pwd)/.build/debug/feedcli}"
S=$work/s.sqlite
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
cat > $work/server.py <<'PY'
import json, socketserver, sys, time
from http.server import BaseHTTPRequestHandler, HTTPServer
class H(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    def log_message(self, *a): pass
    def do_GET(self):
        last = self.headers.get("Last-Event-ID")
        sys.stderr.write("server: connection with Last-Event-ID %s\n" % last); sys.stderr.flush()
        self.send_response(200); self.send_header("Content-Type", "text/event-stream"); self.end_headers()
        self.wfile.write(b"retry: 200\n\n")
        for k in range(int(last or 0) + 1, 41):
            self.wfile.write(("id: %d\ndata: %s\n\n" % (k, json.dumps({"id": str(k), "title": "event %d" % k}))).encode()); self.wfile.flush()
            time.sleep(0.05)
        time.sleep(3600)
class S(socketserver.ThreadingMixIn, HTTPServer):
    daemon_threads = True; allow_reuse_address = True
S(("127.0.0.1", int(sys.argv[1])), H).serve_forever()
PY
rm -rf $S*
python3 $work/server.py $PORT 2>>$work/server.log & SERVER=$!
sleep 0.3
$F feeds add live http://127.0.0.1:$PORT/events --kind sse --state $S
$F follow live --jsonl --max-entries 40 -v --state $S > $work/out.jsonl 2>$work/follow.err & FOLLOW=$!
sleep 0.8
kill -9 $SERVER; echo "(server killed after $(wc -l < $work/out.jsonl) events printed)"
sleep 1
python3 $work/server.py $PORT 2>>$work/server.log & SERVER=$!
wait $FOLLOW; echo "follow exit: $?"
kill $SERVER 2>/dev/null; wait $SERVER 2>/dev/null
echo "printed: $(wc -l < $work/out.jsonl) lines, $(jq -r .id $work/out.jsonl | sort -u | wc -l) distinct ids, ids 1-40 all there: $(jq -r .id $work/out.jsonl | sort -n | tr '\n' ' ' | grep -c '^1 2 3 .* 40 $')"
$F status live --json --state $S | jq -c '.[0] | {entries, unread, last_event_id}'
cat $work/server.log
grep -E "reconnecting|stream\)" $work/follow.err | sed 's/^[0-9T:-]*Z //' | head -8
