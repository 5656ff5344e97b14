#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# 037-slowloris: clients that hold connections without ever finishing a request cannot starve
# the listener (issue 21, item 3). Ten addresses open 30 connections each (under the 32 one
# address may hold) and send a request head a byte every 2 s, never ending it. While they do,
# /healthz and /metrics must answer at once; within the 10 s head deadline every one of the
# 300 is closed by the daemon; wgwatch_http_slow_connections_closed_total counts them all.
. "$top_srcdir/tests/system/lib.sh"
EXPO="$PY $top_srcdir/tests/system/expo.py"

: >"$T/routers.conf"
write_conf 1s 1s
start_daemon
BASE=$(sim_base)

$PY - "${BASE%.1}" "$HTTP_PORT" "$T/flood.ready" >"$T/flood.out" 2>&1 <<'PYEOF' &
import select, socket, sys, time
net, port, ready = sys.argv[1], int(sys.argv[2]), sys.argv[3]
socks = []
for a in range(1, 11):
    for _ in range(30):
        s = socket.socket()
        s.bind(("%s.%d" % (net, a), 0))
        s.settimeout(5)
        s.connect(("127.0.0.1", port))
        s.setblocking(False)
        s.send(b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-Slow: ")
        socks.append(s)
open(ready, "w").close()
start, closed = time.monotonic(), set()
while time.monotonic() - start < 16 and len(closed) < len(socks):  # the deadline is 10 s
    live = [s for s in socks if s not in closed]
    r, _, _ = select.select(live, [], [], 2.0)
    for s in r:
        try:
            if s.recv(4096) == b"":
                closed.add(s)
        except OSError:
            closed.add(s)
    for s in live:
        if s not in closed:
            try:
                s.send(b"a")  # one byte: libmicrohttpd's inactivity timeout never fires
            except OSError:
                closed.add(s)
print("closed by the daemon: %d of %d after %.1f s" % (len(closed), len(socks), time.monotonic() - start))
sys.exit(0 if len(closed) == len(socks) else 1)
PYEOF
FLOOD_PID=$!
PIDS="$PIDS $FLOOD_PID"
wait_until 30 test -e "$T/flood.ready" || fail "the flood never got its 300 connections: $(cat "$T/flood.out")"

for path in /healthz /metrics; do
	curl -fsS --max-time 3 -o /dev/null "http://127.0.0.1:$HTTP_PORT$path" ||
		fail "$path did not answer within 3 s beside 300 slow connections"
done
ok "/healthz and /metrics answer beside 300 slow connections from 10 addresses"

wait "$FLOOD_PID" || fail "slow connections left open: $(cat "$T/flood.out")"
cat "$T/flood.out"
ok "every slow connection was closed within the head deadline"

http_get /metrics >"$T/metrics.txt" || fail "/metrics after the flood"
deadline=$($EXPO "$T/metrics.txt" wgwatch_http_slow_connections_closed_total reason=deadline)
reserve=$($EXPO "$T/metrics.txt" wgwatch_http_slow_connections_closed_total reason=reserve)
echo "closed: deadline $deadline, reserve $reserve"
[ "$reserve" -ge 108 ] || fail "reserve closed $reserve, want at least 300 - 192"
[ $((deadline + reserve)) -eq 300 ] || fail "deadline $deadline + reserve $reserve, want 300"
ok "wgwatch_http_slow_connections_closed_total: deadline $deadline + reserve $reserve = 300"
check_log_clean
