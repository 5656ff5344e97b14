#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""hostile.py ADDR PORT READY_FILE MODE: a hostile "router" on loopback for the reliability
tests. It answers every HTTP request on a new thread and never ends on its own.

  trailers   200, Transfer-Encoding: chunked, one chunk, the last chunk (0), then trailer
             lines of 1,000 bytes forever (issue 21, item 1)
  headers    200 with header lines of 1,000 bytes forever, never a body
  forge      a healthy RouterOS REST API whose board and architecture names carry newlines
             and syslog priorities, to forge journal lines (issue 21, item 8)
  peers [N]  a healthy RouterOS REST API with N WireGuard peers (default 100,000: about 20 MB
             of JSON per poll), to be decoded beside healthy routers (issue 21, item 14)
"""
import json
import socket
import sys
import threading

FORGED_BOARD = "CCR\n<0>emerg: forged by the router"
FORGED_ARCH = "arm64\r\n<1>alert: forged\x1b[2J"
FORGE = {
    "/rest/system/resource": {"uptime": "1h", "version": "7.22.3 (stable)",
                              "board-name": FORGED_BOARD, "architecture-name": FORGED_ARCH,
                              "cpu": "ARM64"},
    "/rest/system/resource/cpu": [{".id": "*0", "cpu": "cpu0", "load": "5", "irq": "0"}],
    "/rest/system/routerboard": {"routerboard": "false"},
}

LINE = b"X-T: " + b"t" * 993 + b"\r\n"  # 1,000 bytes


PEERS = {
    "/rest/system/resource": {"uptime": "1h", "version": "7.22.3 (stable)",
                              "board-name": "CCR2116-12G-4S+", "architecture-name": "arm64",
                              "cpu": "ARM64"},
    "/rest/system/resource/cpu": [{".id": "*0", "cpu": "cpu0", "load": "5", "irq": "0"}],
    "/rest/system/routerboard": {"routerboard": "false"},
    "/rest/interface": [{".id": "*1", "name": "wg1", "type": "wg", "running": "true",
                         "rx-byte": "1", "tx-byte": "1", "rx-packet": "1", "tx-packet": "1",
                         "rx-drop": "0", "tx-drop": "0"}],
}


def peers_body(n):
    peers = [{".id": "*%X" % (i + 1), "interface": "wg1", "name": "peer%d" % i,
              "public-key": "%043dA=" % i, "allowed-address": "10.%d.%d.%d/32" % (i >> 16, (i >> 8) & 255, i & 255),
              "current-endpoint-address": "198.51.100.%d" % (i % 250 + 1),
              "current-endpoint-port": "51820", "last-handshake": "1m%ds" % (i % 60),
              "rx": str(i * 1000), "tx": str(i * 2000), "disabled": "false"} for i in range(n)]
    return json.dumps(peers).encode()


def forge(conn, table=None):
    """Keep-alive HTTP/1.1: each request read whole, answered from FORGE ([] otherwise)."""
    table = table or FORGE
    data = b""
    while True:
        while b"\r\n\r\n" not in data:
            more = conn.recv(65536)
            if not more:
                return
            data += more
        head, data = data.split(b"\r\n\r\n", 1)
        lines = head.decode("latin-1").split("\r\n")
        length = 0
        for h in lines[1:]:
            if h.lower().startswith("content-length:"):
                length = int(h.split(":", 1)[1])
        while len(data) < length:
            data += conn.recv(65536)
        data = data[length:]
        path = lines[0].split(" ")[1].split("?")[0]
        if path.startswith("/rest/interface/wireguard/peers") and table is PEERS:
            body = PEERS_BODY
        else:
            if path == "/rest/interface/print":
                path = "/rest/interface"
            body = json.dumps(table.get(path, [])).encode()
        conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                     b"Content-Length: %d\r\n\r\n" % len(body) + body)


def serve(conn, mode):
    try:
        if mode == "forge":
            forge(conn)
            return
        if mode == "peers":
            forge(conn, PEERS)
            return
        conn.recv(65536)
        if mode == "trailers":
            conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                         b"Transfer-Encoding: chunked\r\n\r\n2\r\n[]\r\n0\r\n")
        else:
            conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n")
        block = LINE * 64
        while True:
            conn.sendall(block)
    except OSError:
        pass
    finally:
        conn.close()


def main():
    global PEERS_BODY
    addr, port, ready, mode = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
    if mode == "peers":
        PEERS_BODY = peers_body(int(sys.argv[5]) if len(sys.argv) > 5 else 100000)
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind((addr, port))
    s.listen(64)
    open(ready, "w").close()
    while True:
        conn, _ = s.accept()
        threading.Thread(target=serve, args=(conn, mode), daemon=True).start()


main()
