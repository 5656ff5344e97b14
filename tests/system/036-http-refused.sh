#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# 036-http-refused: refused HTTP connections cannot flood the log. One address holds its 32
# connections and tries 150 more: the log says so on the first refusal and then once in each
# hundred with the count held back; wgwatch_http_refused_connections_total counts every one;
# other clients are still served (issue 21, item 13). Malformed requests that libmicrohttpd
# answers itself are logged the same way.
. "$top_srcdir/tests/system/lib.sh"
EXPO="$PY $top_srcdir/tests/system/expo.py"

: >"$T/routers.conf"
write_conf 1s 1s
start_daemon
FLOOD=$(sim_base)

$PY - "$FLOOD" "$HTTP_PORT" <<'PYEOF' || fail "the flood did not go as planned"
import socket, sys, time
addr, port = sys.argv[1], int(sys.argv[2])
deadline = time.monotonic() + 30  # for the whole flood: a connection left unanswered fails it
def conn():
    s = socket.socket()
    s.bind((addr, 0))
    s.settimeout(5)
    s.connect(("127.0.0.1", port))
    return s
held = [conn() for _ in range(32)]  # the per-address limit: these are served (idle)
refused = unanswered = 0
for _ in range(150):
    s = conn()
    s.settimeout(max(0.1, deadline - time.monotonic()))
    try:
        refused += s.recv(1) == b""  # closed at once, unread: refused
    except socket.timeout:
        unanswered += 1  # neither served nor refused
    except OSError:
        refused += 1  # reset: refused
    s.close()
print("refused %d of 150, %d left unanswered" % (refused, unanswered))
sys.exit(0 if refused == 150 else 1)
PYEOF

http_get /metrics >"$T/metrics.txt" || fail "/metrics refused beside the flood"
n=$($EXPO "$T/metrics.txt" wgwatch_http_refused_connections_total reason=limit)
[ "$n" = 150 ] || fail "refusals counted: '$n', want 150: $(grep refused "$T/metrics.txt")"
ok "wgwatch_http_refused_connections_total{reason=\"limit\"} = 150"
lines=$(grep -c 'connection limit' "$T/daemon.log" || true)
grep 'connection limit' "$T/daemon.log" | head -5
[ "$lines" -eq 2 ] || fail "$lines log lines for 150 refusals, want 2"
grep -q 'connection limit.* (99 more refused since)$' "$T/daemon.log" || fail "the second line has no count"
ok "150 refusals, 2 log lines, the second with the count held back"

# Requests libmicrohttpd answers itself (a header line without a colon: 400) are no refusal of
# a connection, but each one made it complain: the log takes them the same way.
$PY - "$HTTP_PORT" <<'PYEOF' || fail "the malformed requests did not go as planned"
import socket, sys
port = int(sys.argv[1])
got = {}
for _ in range(150):
    s = socket.create_connection(("127.0.0.1", port), timeout=10)
    s.sendall(b"GET /healthz HTTP/1.1\r\nHost: a\r\nno colon here\r\n\r\n")
    s.shutdown(socket.SHUT_WR)
    reply = b""
    while True:
        chunk = s.recv(4096)
        if not chunk:
            break
        reply += chunk
    s.close()
    status = reply[9:12].decode(errors="replace")
    got[status] = got.get(status, 0) + 1
print("statuses of 150 malformed requests: %s" % got)
sys.exit(0 if got == {"400": 150} else 1)
PYEOF
lines=$(grep -c 'Error processing request' "$T/daemon.log" || true)
grep 'Error processing request' "$T/daemon.log" | cut -c1-120 | head -5
[ "$lines" -eq 2 ] || fail "$lines log lines for 150 malformed requests, want 2"
grep -q 'Error processing request.* (99 more refused since)$' "$T/daemon.log" ||
	fail "the second line has no count"
http_get /metrics >"$T/metrics2.txt" || fail "/metrics refused after the malformed requests"
n=$($EXPO "$T/metrics2.txt" wgwatch_http_refused_connections_total reason=limit)
[ "$n" = 150 ] || fail "malformed requests counted as refused connections: '$n', want 150"
ok "150 malformed requests answered 400, 2 log lines, not counted as refused connections"
