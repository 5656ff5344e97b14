#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""webhook.py ADDR PORT OUT_FILE READY_FILE: an Alertmanager webhook receiver on loopback for
the alert tests. Every POST body (Alertmanager's JSON notification) is appended to OUT_FILE as
one line, flushed at once; READY_FILE is written once it listens. Runs until killed."""
import http.server
import json
import sys


class Handler(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        with open(sys.argv[3], "a", encoding="utf-8") as f:
            f.write(json.dumps(json.loads(body)) + "\n")
        self.send_response(200)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *args):
        pass


server = http.server.ThreadingHTTPServer((sys.argv[1], int(sys.argv[2])), Handler)
with open(sys.argv[4], "w", encoding="utf-8") as f:
    f.write("ready\n")
server.serve_forever()
