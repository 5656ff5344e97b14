#!/usr/bin/env python3
"""hostile.py ADDR PORT READY_FILE MODE: a hostile "router" on loopback for the reliability
tests. It answers every HTTP request on a new thread and never ends on its own.

  trailers   200, Transfer-Encoding: chunked, one chunk, the last chunk (0), then trailer
             lines of 1,000 bytes forever (issue 21, item 1)
  headers    200 with header lines of 1,000 bytes forever, never a body
"""
import socket
import sys
import threading

LINE = b"X-T: " + b"t" * 993 + b"\r\n"  # 1,000 bytes


def serve(conn, mode):
    try:
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
    addr, port, ready, mode = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind((addr, port))
    s.listen(64)
    open(ready, "w").close()
    while True:
        conn, _ = s.accept()
        threading.Thread(target=serve, args=(conn, mode), daemon=True).start()


main()
