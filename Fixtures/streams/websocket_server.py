"""A WebSocket server for the tests, on the standard library only (RFC 6455 by hand, so that
it can also break the protocol on purpose). Usage: websocket_server.py PORT_FILE

Paths:
  /hello      a text, a text in two fragments with a ping between, then close 1000 "bye"
  /echo       each text the client sends (unmasked here) sent back, until the client closes
  /badaccept  101 with a Sec-WebSocket-Accept made from another key
  /missing    404
  /limited    429 with Retry-After: 120
  /mixed      a binary message, a text that is not UTF-8, a text of 200 bytes, then {"ok":1}, close
  /silent     nothing, and no pong for a ping
  /ponging    nothing but a pong for each ping (for 3 s), then close 1001
  /headers    the upgrade request's Authorization header (or "none") as a text, then close 1000
"""
import base64, hashlib, socket, socketserver, struct, sys

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
        path = (request.split(" ")[1] if " " in request else "/").split("?")[0]
        headers = {}
        while True:
            line = self.rfile.readline().decode().strip()
            if not line:
                break
            name, _, value = line.partition(":")
            headers[name.strip().lower()] = value.strip()
        if path == "/missing":
            self.wfile.write(b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n")
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


server = Server(("127.0.0.1", 0), Handler)
open(sys.argv[1], "w").write(str(server.server_address[1]))
server.serve_forever()
