#!/usr/bin/env python3
"""feedcli's fixture server: serves the files in Fixtures/ on 127.0.0.1 the way real feeds do.

Routes (GET only):
  /posts/<n>                  jsonplaceholder post n (404 with body {} past the last)
  /jsonfeed/<name>.json       a whole JSON Feed document from jsonfeed/
  /jsonfeed/<name>/<k>.json   page k (1-based, 10 items) of that document, chained by next_url
  /graph?page=<k>             Graph-API style pages of 5 items: {data, paging: {cursors, next}}
  /linked?page=<k>            GitHub-style pages of 5 items, chained by a Link: rel="next" header
Every 200 carries an ETag; a matching If-None-Match gets 304.

Usage: python3 Fixtures/serve.py [--port N] [--port-file PATH]   (port 0 picks a free one)
"""
import argparse, hashlib, json, os, sys, threading
from http.server import ThreadingHTTPServer, BaseHTTPRequestHandler
from urllib.parse import urlsplit, parse_qs

ROOT = os.path.dirname(os.path.abspath(__file__))

def load(path):
    with open(os.path.join(ROOT, path), encoding="utf-8") as f:
        return json.load(f)

POSTS = {p["id"]: p for p in load("posts/posts.json")}
GRAPH = load("graph/items.json")
LINKED = load("linked/items.json")
PAGE = 5

class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    # Headers and body go out in separate writes; without this, Nagle and delayed ACKs add 40 ms
    # to every keep-alive response.
    disable_nagle_algorithm = True

    def log_message(self, fmt, *args):
        if os.environ.get("FIXTURE_LOG"):
            sys.stderr.write("fixture: " + fmt % args + "\n")

    def base(self):
        return "http://" + self.headers.get("Host", "127.0.0.1")

    def send(self, status, body, content_type="application/json", headers=()):
        data = body if isinstance(body, bytes) else json.dumps(body).encode()
        etag = '"%s"' % hashlib.sha1(data).hexdigest()[:16]
        if status == 200 and self.headers.get("If-None-Match") == etag:
            self.send_response(304)
            self.send_header("ETag", etag)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(data)))
        if status == 200:
            self.send_header("ETag", etag)
        for name, value in headers:
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self):
        url = urlsplit(self.path)
        parts = [p for p in url.path.split("/") if p]
        page = int(parse_qs(url.query).get("page", ["1"])[0])
        if len(parts) == 2 and parts[0] == "posts" and parts[1].isdigit():
            post = POSTS.get(int(parts[1]))
            return self.send(200, post) if post else self.send(404, {})
        if len(parts) == 2 and parts[0] == "jsonfeed" and parts[1].endswith(".json"):
            path = os.path.join(ROOT, "jsonfeed", parts[1])
            if os.path.isfile(path):
                with open(path, "rb") as f:
                    return self.send(200, f.read(), "application/feed+json")
        if len(parts) == 3 and parts[0] == "jsonfeed" and parts[2].endswith(".json"):
            name, k = parts[1], parts[2][:-5]
            path = os.path.join(ROOT, "jsonfeed", name + ".json")
            if os.path.isfile(path) and k.isdigit() and int(k) >= 1:
                doc = load(os.path.join("jsonfeed", name + ".json"))
                k = int(k)
                items = doc["items"]
                doc["items"] = items[(k - 1) * 10:k * 10]
                if k * 10 < len(items):
                    doc["next_url"] = "%s/jsonfeed/%s/%d.json" % (self.base(), name, k + 1)
                return self.send(200, doc, "application/feed+json")
        if parts == ["graph"]:
            data = GRAPH[(page - 1) * PAGE:page * PAGE]
            paging = {"cursors": {"before": "b%d" % page, "after": "a%d" % page}}
            if page * PAGE < len(GRAPH):
                paging["next"] = "%s/graph?page=%d" % (self.base(), page + 1)
            if page > 1:
                paging["previous"] = "%s/graph?page=%d" % (self.base(), page - 1)
            return self.send(200, {"data": data, "paging": paging})
        if parts == ["linked"]:
            rows = LINKED[(page - 1) * PAGE:page * PAGE]
            links = []
            if page * PAGE < len(LINKED):
                links.append('</linked?page=%d>; rel="next"' % (page + 1))
            links.append('</linked?page=1>; rel="first"')
            return self.send(200, rows, headers=[("Link", ", ".join(links))])
        if len(parts) == 3 and parts[0] == "r" and parts[2] == "new.json":
            # A subreddit's /new.json (the reddit preset), two posts a page, paged by `after`.
            doc = load(os.path.join("apis", "reddit.json"))
            children = doc["data"]["children"]
            later = "after" in parse_qs(url.query)
            doc["data"]["children"] = children[2:] if later else children[:2]
            doc["data"]["after"] = None if later else children[1]["data"]["name"]
            return self.send(200, doc)
        self.send(404, {"error": "no such fixture"})

def main():
    parser = argparse.ArgumentParser(description="feedcli fixture server")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--port-file")
    args = parser.parse_args()
    server = ThreadingHTTPServer(("127.0.0.1", args.port), Handler)
    port = server.server_address[1]
    if args.port_file:
        with open(args.port_file + ".tmp", "w") as f:
            f.write(str(port))
        os.replace(args.port_file + ".tmp", args.port_file)
    print("fixture server on http://127.0.0.1:%d" % port, flush=True)
    server.serve_forever()

if __name__ == "__main__":
    main()
