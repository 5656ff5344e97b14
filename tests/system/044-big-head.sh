#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# 044-big-head: a request head too big for a connection's memory (16 KiB) is refused at once.
# libmicrohttpd 0.9.75 parses a target's query arguments into that memory after reading the
# request line; when they do not fit it queues a 431 but goes on waiting for headers, and never
# sends it: the client waited 10 s for the head deadline, 30 s when bytes were left unread (a
# fuzz unit, "HEAD /router/N/NFO: R?unn..." of 15 KB with 28 arguments, took 60 s). Each shape
# below must get an HTTP refusal within 2 s and be closed, and the daemon must serve after.
. "$top_srcdir/tests/system/lib.sh"

: >"$T/routers.conf"
write_conf 1s 1s
start_daemon

$PY - "$HTTP_PORT" <<'PYEOF' || fail "a big request head was not refused at once"
import socket, sys, time
port = int(sys.argv[1])
LIMIT = 2.0
end = b" HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"
fuzz = b"/router/N/NFO: R?unn\x90)&FO6 R?un&nn{{{{{{{{{{{{{{{{{{{{{{"
shapes = [
    # (a) a request line with a 15 KB target (no query)
    ("target 15 KB", b"GET /" + b"a" * 15000 + end),
    # (b) a normal request line with 15 KB of headers
    ("headers 15 KB", b"GET /healthz HTTP/1.1\r\nHost: x\r\n" +
        b"".join(b"X-F%d: %s\r\n" % (i, b"v" * 90) for i in range(150)) + b"\r\n"),
    # (c) over 16 KiB: a target, then one header
    ("target 17 KB", b"GET /" + b"a" * 17000 + end),
    ("header 17 KB", b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: " + b"v" * 17000 + b"\r\n\r\n"),
    # (d) the fuzz unit's shape: a 15 KB target with blanks and a few query arguments
    ("fuzz unit shape", b"HEAD " + (fuzz * 400)[:15300] + end),
    # and what it comes down to: more query arguments than the memory holds records for
    ("500 arguments in 1 KB", b"GET /metrics?" + b"a&" * 500 + end),
    # the same behind a raw NUL in the path: libmicrohttpd finds the '?' past it, the daemon's
    # copy of the target (a C string) ends at it (a fuzz unit; the close came at 10.4 s)
    ("NUL before 300 arguments", b"GET /a\x00b?" + b"a&" * 300 + end),
    # two arguments that do not fit after 16 KB of blanks (libmicrohttpd skips them): here the
    # exact status depends on libmicrohttpd's bookkeeping, and a close with no reply (when not
    # even a refusal fits) is allowed too; waiting is not
    ("2 arguments after 16 KB of blanks", b"GET" + b" " * 16300 + b"/metrics?a=1&b=2" + end),
]
ANY = ("2 arguments after 16 KB of blanks",)
bad = 0
for name, data in shapes:
    s = socket.create_connection(("127.0.0.1", port), timeout=5)
    start = time.monotonic()
    s.settimeout(LIMIT + 1)
    got, closed = b"", False
    try:
        s.sendall(data)
        while not closed:
            b = s.recv(4096)
            got += b
            closed = b == b""
    except socket.timeout:
        pass
    except OSError:  # reset after the reply, the rest of the request unread
        closed = True
    took = time.monotonic() - start
    s.close()
    status = got.split(b"\r\n", 1)[0].decode("latin-1")
    code = status.split(" ")[1] if status.startswith("HTTP/1.") and " " in status else ""
    good = (code in ("400", "414", "431") or name in ANY) and closed and took <= LIMIT
    bad += not good
    print("%s: %-36s %5d bytes, %.2f s, %s%s" % ("ok" if good else "FAIL", name, len(data), took,
          status or "no reply", "" if closed else ", left open"))
sys.exit(1 if bad else 0)
PYEOF
ok "every big request head refused within 2 s and closed"

for path in /healthz /metrics; do
	curl -fsS --max-time 3 -o /dev/null "http://127.0.0.1:$HTTP_PORT$path" || fail "$path after the big heads"
done
ok "/healthz and /metrics answer after"
check_log_clean
