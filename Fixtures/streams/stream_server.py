#!/usr/bin/env python3
"""A streaming HTTP server for feedcli's stream tests (Python standard library only).

    python3 stream_server.py PORTFILE [FIXTURES_DIR]

Writes its port to PORTFILE once listening. Paths:
  /sse?count=N&first=F&hold=S&heartbeat=H&retry=MS&drop=K&type=T&shared_id=1
      Server-Sent Events `id: K` / `data: {"id":"K","title":"event K"}` for K from the request's
      Last-Event-ID + 1 (else F, default 1) up to N; then, with hold=S, keeps the connection
      open S seconds (a `:hb` comment every H seconds when H > 0); then closes. drop=K closes
      the connection abruptly after K events of this connection (a server restart). retry=MS
      sends `retry: MS` first. type=T sends each event as `event: T`. shared_id=1 gives every
      event of a connection the same id (as EventStreams can). pad=P makes each title P KiB longer.
  /ndjson?count=N&hold=S&after=K&grow=1
                          one JSON object a line, ids K+1..N (`{"id","title","seq"}`); with grow=1
                          the stream has two more lines at every request (3, 5, 7…); pad=P makes
                          each title P KiB longer.
  /status/CODE            answers CODE with an empty body (204, 401, 404, 410, 503…).
  /wrongtype              200 with Content-Type application/json.
  /fixture/NAME           the file FIXTURES_DIR/NAME, sent as text/event-stream (a real capture).
  /log                    the Last-Event-ID header of every stream request so far, as a JSON array
                          (null when a request had none).
  /api/v1/streaming/public?live=A-B&hold=S
                          Mastodon-style: `event: update` with statuses A..B (no ids: Mastodon
                          cannot replay), then S seconds open.
  /api/v1/timelines/public?min_id=X
                          the statuses 1001..1009 newer than X, two at a time (the oldest two),
                          newest first, as Mastodon pages with min_id.
  /timeline-log           the min_id of every timeline request, as a JSON array.
  /polled/NAME?per=K&max=M&retry_first=S&fail_for=S&evil=PATH
                          a polled feed (not a stream): a JSON array of items `{"id":"NAME-i",
                          "title","url"}`, newest first, K more at each request of NAME (at most M);
                          with retry_first=S the first request of NAME answers 429 with
                          `Retry-After: S`; with fail_for=S every request answers 503 for the
                          server's first S seconds; with evil=PATH item 1's title holds shell syntax that
                          would create PATH (and PATH2) if a shell ever ran it, and control characters.
  /polled-log             [NAME, seconds since the server started] of every /polled request.
"""
import json, os, socketserver, sys, threading, time
from http.server import BaseHTTPRequestHandler, HTTPServer
from urllib.parse import urlparse, parse_qs

LOG = []
GROWN = [0]
TIMELINE_LOG = []
POLLED = {}
POLLED_LOG = []
STARTED = time.time()


def status(n):
    return {"id": str(n), "content": "<p>status %d</p>" % n, "account": {"acct": "ann@m.example"},
            "created_at": "2026-11-25T10:%02d:00.000Z" % (n % 60), "url": "https://m.example/@ann/%d" % n}
LOCK = threading.Lock()
FIXTURES = sys.argv[2] if len(sys.argv) > 2 else os.path.dirname(os.path.abspath(__file__))


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def head(self, status, content_type):
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Connection", "close")
        self.end_headers()
        self.wfile.flush()  # a stream that sends nothing yet still answers at once

    def json(self, value):
        """A whole JSON answer (not a stream)."""
        body = json.dumps(value).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def send(self, text):
        self.wfile.write(text.encode())
        self.wfile.flush()

    def do_GET(self):
        url = urlparse(self.path)
        query = {k: v[0] for k, v in parse_qs(url.query).items()}
        number = lambda name, default: float(query.get(name, default))
        if url.path in ("/log", "/timeline-log", "/polled-log"):
            with LOCK:
                return self.json({"/log": LOG, "/timeline-log": TIMELINE_LOG, "/polled-log": POLLED_LOG}[url.path])
        if url.path.startswith("/polled/"):
            return self.polled(url.path.rsplit("/", 1)[1], query)
        if url.path == "/api/v1/timelines/public":
            newer = int(query.get("min_id", "0"))
            with LOCK:
                TIMELINE_LOG.append(query.get("min_id"))
            page = [status(n) for n in range(1001, 1010) if n > newer][:2]
            return self.json(list(reversed(page)))
        if url.path.startswith("/status/"):
            code = int(url.path.rsplit("/", 1)[1])
            with LOCK:
                LOG.append(self.headers.get("Last-Event-ID"))
            self.send_response(code)
            self.send_header("Content-Length", "0")
            if code == 503:
                self.send_header("Retry-After", "1")
            self.end_headers()
            return
        if url.path == "/wrongtype":
            return self.json([{"id": "1"}])
        with LOCK:
            LOG.append(self.headers.get("Last-Event-ID"))
        try:
            if url.path == "/sse":
                self.sse(query, number)
            elif url.path == "/api/v1/streaming/public":
                self.head(200, "text/event-stream")
                first, last = (int(x) for x in query.get("live", "1-0").split("-"))
                for n in range(first, last + 1):
                    self.send("event: update\ndata: %s\n\n" % json.dumps(status(n)))
                time.sleep(number("hold", 0))
            elif url.path == "/ndjson":
                self.head(200, "application/x-ndjson")
                count = int(number("count", 3))
                if "grow" in query:
                    with LOCK:
                        count = 3 + 2 * GROWN[0]
                        GROWN[0] += 1
                with LOCK:
                    LOG.append("after=%s" % query.get("after"))
                for k in range(int(number("after", 0)) + 1, count + 1):
                    title = "line %d" % k + "x" * (1024 * int(number("pad", 0)))
                    self.send(json.dumps({"id": str(k), "title": title, "seq": k}) + "\n")
                time.sleep(number("hold", 0))
            elif url.path.startswith("/fixture/"):
                name = os.path.basename(url.path)
                with open(os.path.join(FIXTURES, name), "rb") as f:
                    data = f.read()
                self.head(200, "text/event-stream")
                self.wfile.write(data)
                self.wfile.flush()
                time.sleep(number("hold", 0))
            else:
                self.send_response(404)
                self.send_header("Content-Length", "0")
                self.end_headers()
        except (BrokenPipeError, ConnectionResetError):
            pass

    def polled(self, name, query):
        with LOCK:
            POLLED_LOG.append([name, time.time() - STARTED])
            requests = POLLED.get(name, 0) + 1
            POLLED[name] = requests
        if "fail_for" in query and time.time() - STARTED < float(query["fail_for"]):
            self.send_response(503)  # a server down for its first S seconds
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        if "retry_first" in query and requests == 1:
            self.send_response(429)
            self.send_header("Retry-After", query["retry_first"])
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        count = min(int(query.get("per", "2")) * (requests - (1 if "retry_first" in query else 0)), int(query.get("max", "1000000")))
        def title(i):
            if i == 1 and "evil" in query:
                path = query["evil"]
                return "$(touch %s) `touch %s2` \u001b[31mred\nnext line\u0007" % (path, path)
            return "item %d of %s" % (i, name)
        items = [{"id": "%s-%d" % (name, i), "title": title(i), "url": "https://example.org/%s/%d" % (name, i)}
                 for i in range(count, 0, -1)]
        self.json(items)

    def sse(self, query, number):
        # replay_all: a server that ignores Last-Event-ID and sends everything again.
        last = None if "replay_all" in query else self.headers.get("Last-Event-ID")
        start = int(last) + 1 if last and last.isdigit() else int(number("first", 1))
        count = int(number("count", 3))
        drop = int(number("drop", 0))
        self.head(200, "text/event-stream; charset=utf-8")
        if "retry" in query:
            self.send("retry: %s\n\n" % query["retry"])
        sent = 0
        for k in range(start, count + 1):
            event = "event: %s\n" % query["type"] if "type" in query else ""
            shared = "shared_id" in query
            data = json.dumps({"id": str(k), "title": "event %d" % k + "x" * (1024 * int(number("pad", 0)))})
            self.send("%sid: %s\ndata: %s\n\n" % (event, start if shared else k, data))
            sent += 1
            if drop and sent >= drop:
                self.connection.shutdown(2)
                return
        hold, heartbeat = number("hold", 0), number("heartbeat", 0)
        deadline = time.time() + hold
        while time.time() < deadline:
            if heartbeat > 0:
                time.sleep(min(heartbeat, max(0, deadline - time.time())))
                self.send(":hb\n")
            else:
                time.sleep(min(0.05, max(0, deadline - time.time())))


class Server(socketserver.ThreadingMixIn, HTTPServer):
    daemon_threads = True
    allow_reuse_address = True


server = Server(("127.0.0.1", 0), Handler)
with open(sys.argv[1] + ".tmp", "w") as f:
    f.write(str(server.server_address[1]))
os.rename(sys.argv[1] + ".tmp", sys.argv[1])
server.serve_forever()
