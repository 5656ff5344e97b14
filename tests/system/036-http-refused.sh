#!/bin/sh
# 036-http-refused: refused HTTP connections cannot flood the log. One address holds its 32
# connections and tries 150 more: the log says so on the first refusal and then once in each
# hundred with the count held back; wgwatch_http_refused_connections_total counts every one;
# other clients are still served (issue 21, item 13).
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
