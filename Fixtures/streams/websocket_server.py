"""A WebSocket server for the tests, on the standard library only (RFC 6455 by hand, so that
it can also break the protocol on purpose). Usage: websocket_server.py PORT_FILE

Paths:
  /hello      a text, a text in two fragments with a ping between, then close 1000 "bye"
  /echo       each text the client sends (unmasked here) sent back, until the client closes
  /badaccept  101 with a Sec-WebSocket-Accept made from another key
  /missing    404
  /unauthorized 401
  /limited    429 with Retry-After: 120
  /moved      302 to ws://localhost:PORT/headers (another origin: localhost is not 127.0.0.1);
              a request to /headers is logged, so a client that followed it shows in GET /log
  /mixed      a binary message, a text that is not UTF-8, a text of 200 bytes, then {"ok":1}, close
  /silent     nothing, and no pong for a ping
  /ponging    nothing but a pong for each ping (for 3 s), then close 1001
  /headers    the upgrade request's Authorization header (or "none") as a text, then close 1000
  /jetstream  the real Jetstream capture (jetstream-v1.jsonl beside this file), as Jetstream replays
              it: every event whose time_us is at least the query's `cursor`, in the capture's
              order, filtered by `wantedCollections` and `wantedDids`. Query: `drop=N` ends the
              first connection abruptly after N events (later ones send everything); `first=N`:
              the first connection sends only the first N lines; `gap=N`: later connections start
              at line N whatever the cursor (a replay window that has moved on); `pace=S` waits S
              seconds before each event; `pings=N` sends N pings before each event (a ping
              storm); `hold=S` keeps the connection open S seconds after the last event
              (default: close 1000 at once), answering each ping with a pong when `answer=1`;
              `closecode=N` closes with that code; `big=N&size=S` sends N posts of S MiB each
              in place of the capture.
              Each connection's query is logged: GET /log answers them as a JSON array.
  /nostr      a relay (NIP-01) over the real events of nostr-events.jsonl: reads the client's REQ,
              sends ["EVENT", id, e] for each event its filter matches (kinds, authors, #tags,
              since), then ["EOSE", id], then holds the connection. Query: `echo=1` first sends
              the REQ back as a NOTICE; `notices=N` first sends N NOTICEs; `tamper=1` changes the content of the first matching
              event (its id no longer checks out); `closed=REASON` sends ["CLOSED", id, REASON]
              after EOSE; `drop=N` ends the first connection abruptly after N events.
"""
import base64, hashlib, json, os, socket, socketserver, struct, sys, threading, time, urllib.parse

HERE = os.path.dirname(os.path.abspath(__file__))
JETSTREAM = [line.rstrip("\n") for line in open(os.path.join(HERE, "jetstream-v1.jsonl"), encoding="utf-8")]
NOSTR = [json.loads(line) for line in open(os.path.join(HERE, "nostr-events.jsonl"), encoding="utf-8")]
LOG = []
CONNECTIONS = {}
LOCK = threading.Lock()

GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"


def frame(opcode, payload, final=True):
    head = bytes([(0x80 if final else 0) | opcode])
    n = len(payload)
    if n < 126:
        head += bytes([n])
    elif n < 65536:
        head += bytes([126]) + struct.pack(">H", n)
    else:
        head += bytes([127]) + struct.pack(">Q", n)
    return head + payload


def read_frame(rfile):
    first, second = rfile.read(2)
    n = second & 0x7F
    if n == 126:
        n = struct.unpack(">H", rfile.read(2))[0]
    elif n == 127:
        n = struct.unpack(">Q", rfile.read(8))[0]
    mask = rfile.read(4) if second & 0x80 else b"\0\0\0\0"
    data = bytes(b ^ mask[i % 4] for i, b in enumerate(rfile.read(n)))
    return first & 0x0F, bool(second & 0x80), data


class Handler(socketserver.StreamRequestHandler):
    def handle(self):
        request = self.rfile.readline().decode()
        target = request.split(" ")[1] if " " in request else "/"
        path = target.split("?")[0]
        query = dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(target).query))
        query["_raw"] = urllib.parse.urlsplit(target).query
        headers = {}
        while True:
            line = self.rfile.readline().decode().strip()
            if not line:
                break
            name, _, value = line.partition(":")
            headers[name.strip().lower()] = value.strip()
        if path == "/log":
            with LOCK:
                body = json.dumps(LOG).encode()
            self.wfile.write(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n" % len(body) + body)
            return
        if path in ("/jetstream", "/nostr", "/headers"):
            with LOCK:
                LOG.append(target)
                CONNECTIONS[path] = CONNECTIONS.get(path, 0) + 1
                number = CONNECTIONS[path]
        if path == "/missing":
            self.wfile.write(b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n")
            return
        if path == "/unauthorized":
            self.wfile.write(b"HTTP/1.1 401 Unauthorized\r\nContent-Length: 0\r\n\r\n")
            return
        if path == "/moved":
            port = self.server.server_address[1]
            self.wfile.write(b"HTTP/1.1 302 Found\r\nLocation: ws://localhost:%d/headers\r\nContent-Length: 0\r\n\r\n" % port)
            return
        if path == "/limited":
            self.wfile.write(b"HTTP/1.1 429 Too Many Requests\r\nRetry-After: 120\r\nContent-Length: 0\r\n\r\n")
            return
        key = headers.get("sec-websocket-key", "") if path != "/badaccept" else "another key"
        accept = base64.b64encode(hashlib.sha1((key + GUID).encode()).digest()).decode()
        self.wfile.write(("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                          "Sec-WebSocket-Accept: %s\r\n\r\n" % accept).encode())
        if path == "/hello":
            self.wfile.write(frame(0x1, b'{"n":1}') + frame(0x1, b'{"n":', final=False) + frame(0x9, b"are you there")
                             + frame(0x0, b"2}") + frame(0x8, struct.pack(">H", 1000) + b"bye"))
            self.wfile.flush()
            try:
                while True:  # what the client answers (its pong, its close), until it goes
                    opcode, masked, data = read_frame(self.rfile)
                    if opcode == 0x8:
                        break
            except Exception:
                pass
        elif path == "/headers":
            said = headers.get("authorization", "none").encode()
            self.wfile.write(frame(0x1, said) + frame(0x8, struct.pack(">H", 1000))); self.wfile.flush()
            self.drain()
        elif path == "/mixed":
            self.wfile.write(frame(0x2, b"\x00\x01") + frame(0x1, b"\xff\xfe") + frame(0x1, b"x" * 200)
                             + frame(0x1, b'{"ok":1}') + frame(0x8, struct.pack(">H", 1000)))
            self.wfile.flush()
            self.drain()
        elif path == "/silent":
            self.drain()
        elif path == "/ponging":
            import time
            end = time.time() + 3
            try:
                while time.time() < end:  # the client pings whenever it has heard nothing for a while
                    opcode, masked, data = read_frame(self.rfile)
                    if opcode == 0x9:
                        self.wfile.write(frame(0xA, data)); self.wfile.flush()
                self.wfile.write(frame(0x8, struct.pack(">H", 1001))); self.wfile.flush()
            except Exception:
                pass
            self.drain()
        elif path == "/jetstream":
            self.jetstream(query, number)
        elif path == "/nostr":
            self.nostr(query, number)
        elif path == "/echo":
            try:
                while True:
                    opcode, masked, data = read_frame(self.rfile)
                    if opcode == 0x8:
                        self.wfile.write(frame(0x8, data)); break
                    # a client's frame must be masked: say so in what comes back
                    self.wfile.write(frame(0x1, (b"masked:" if masked else b"unmasked:") + data))
                    self.wfile.flush()
            except Exception:
                pass


    def jetstream(self, query, number):
        lines = JETSTREAM[: int(query["first"])] if "first" in query and number == 1 else JETSTREAM
        # As Jetstream filters: commits by collection, every event by account.
        wanted = urllib.parse.parse_qs(query.get("_raw", ""))
        collections, dids = wanted.get("wantedCollections"), wanted.get("wantedDids")
        def passes(line):
            event = json.loads(line)
            if dids and event["did"] not in dids:
                return False
            return not collections or event["kind"] != "commit" or event["commit"]["collection"] in collections
        lines = [line for line in lines if passes(line)]
        if "big" in query:  # N events of S MiB each (a post whose text is that long)
            size = int(float(query.get("size", "15")) * 1024 * 1024)
            base = json.loads(lines[0])
            lines = []
            for index in range(int(query["big"])):
                event = dict(base)
                event["time_us"] = base["time_us"] + index
                event["commit"] = dict(base["commit"], rkey="big%d" % index, operation="create",
                                       collection="app.bsky.feed.post",
                                       record={"text": "x" * size, "$type": "app.bsky.feed.post"})
                lines.append(json.dumps(event))
        if "gap" in query and number > 1:
            lines = lines[int(query["gap"]):]
        elif "cursor" in query:
            lines = [line for line in lines if json.loads(line)["time_us"] >= int(query["cursor"])]
        drop = int(query["drop"]) if "drop" in query and number == 1 else None
        for index, line in enumerate(lines):
            if drop is not None and index == drop:
                self.wfile.flush()
                self.connection.shutdown(socket.SHUT_RDWR)  # abruptly: no close frame
                return
            if "pace" in query:
                self.wfile.flush()
                time.sleep(float(query["pace"]))
            for _ in range(int(query.get("pings", "0"))):
                self.wfile.write(frame(0x9, b"storm"))
            self.wfile.write(frame(0x1, line.encode()))
        self.wfile.flush()
        if "hold" in query:
            end = time.time() + float(query["hold"])
            if query.get("answer"):  # a pong for each ping while it holds, as every real server
                import select
                while time.time() < end:
                    if not select.select([self.connection], [], [], 0.1)[0]:
                        continue
                    try:
                        opcode, masked, data = read_frame(self.rfile)
                    except Exception:
                        return
                    if opcode == 0x9:
                        self.wfile.write(frame(0xA, data)); self.wfile.flush()
                    elif opcode == 0x8:
                        return
            else:
                time.sleep(float(query["hold"]))
        self.wfile.write(frame(0x8, struct.pack(">H", int(query.get("closecode", "1000"))))); self.wfile.flush()
        self.drain()

    def nostr(self, query, number):
        opcode, masked, data = read_frame(self.rfile)
        request = json.loads(data.decode())
        subscription, wanted = request[1], request[2]
        if query.get("echo"):
            self.send_json(["NOTICE", data.decode()])
        for index in range(int(query.get("notices", "0"))):  # a flood of them
            self.send_json(["NOTICE", "notice %d" % (index + 1)], flush=False)
        def matches(event):
            if "kinds" in wanted and event["kind"] not in wanted["kinds"]:
                return False
            if "authors" in wanted and event["pubkey"] not in wanted["authors"]:
                return False
            if "since" in wanted and event["created_at"] < wanted["since"]:
                return False
            for name, values in wanted.items():
                if name.startswith("#") and not any(t[:1] == [name[1:]] and t[1:2] and t[1] in values for t in event["tags"]):
                    return False
            return True
        events = [dict(event) for event in NOSTR if matches(event)]
        if query.get("tamper") and events:
            events[0]["content"] += " (changed)"
        drop = int(query["drop"]) if "drop" in query and number == 1 else None
        for index, event in enumerate(events):
            if drop is not None and index == drop:
                self.wfile.flush()
                self.connection.shutdown(socket.SHUT_RDWR)
                return
            self.send_json(["EVENT", subscription, event], flush=False)
        self.send_json(["EOSE", subscription])
        if "closed" in query:
            self.send_json(["CLOSED", subscription, query["closed"]])
        self.drain()

    def send_json(self, value, flush=True):
        self.wfile.write(frame(0x1, json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode()))
        if flush:
            self.wfile.flush()

    def drain(self):
        """Reads (and ignores) what the client sends until it goes."""
        try:
            while self.rfile.read(1):
                pass
        except Exception:
            pass


class Server(socketserver.ThreadingMixIn, socketserver.TCPServer):
    daemon_threads = True
    allow_reuse_address = True


server = Server(("127.0.0.1", int(os.environ.get("PORT", "0"))), Handler)  # PORT: a fixed port, to restart on
open(sys.argv[1], "w").write(str(server.server_address[1]))
server.serve_forever()
