#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# 064-snmp-spoof: SNMP replies are taken only from the router's agent, only as Responses, and
# only for a request ID nobody could guess (issue 21, item 2). Two routers of wgwatch-sim's SNMP
# face sit behind snmpspoof.py, which sees each request and forges an answer to the scalar GET
# (version 6.6.6, board PWNED) before forwarding it: a Response from another port of the agent's
# address, or a GET PDU from the agent's own address and port. wgwatchd --once must report the
# sim's version and board for both and store nothing forged; and the request IDs one session
# sends must not be a counter (net-snmp's are one counter across all sessions).
. "$top_srcdir/tests/system/lib.sh"
COMMUNITY=spoof-c0mm-$$

cat >"$T/spoof.scenario" <<EOF2
[global]
user = wgwatch
password = sim-secret
time_scale = 1
seed = 64

[group victim]
count = 2
board = CCR2004-16G-2S+
architecture = arm64
cpu = ARM64
cores = 4
version = 7.22.3
wg = wg0:2
tx_mbps = 10
rx_mbps = 5
EOF2
start_sim "$T/spoof.scenario" --snmp-only --snmp-community "$COMMUNITY"
for m in otherport getpdu; do
	case $m in otherport) r=victim-01 ;; *) r=victim-02 ;; esac
	$PY "$top_srcdir/tests/system/snmpspoof.py" 127.0.0.1 "$(routers_conf_value $r snmp)" \
		"$T/$m.port" "$m" >"$T/$m.log" 2>&1 &
	PIDS="$PIDS $!"
	wait_until 10 test -s "$T/$m.port" || fail "snmpspoof.py $m did not start"
done
{
	for m in otherport getpdu; do
		printf '[router %s]\nsnmp = 127.0.0.1:%s\nsnmp_community = %s\n\n' "$m" "$(cat "$T/$m.port")" \
			"$COMMUNITY"
	done
} >"$T/routers.conf"
write_conf 2s 1500ms

out=$("$DAEMON" -c "$T/wgwatch.conf" --once 2>"$T/once.log") || { cat "$T/once.log"; fail "--once"; }
echo "$out"
for m in otherport getpdu; do
	grep -q '^forged ' "$T/$m.log" || fail "$m: nothing was forged (did the scalar GET pass by?)"
	echo "$out" | grep -q "^$m up 7.22.3 CCR2004-16G-2S+ " ||
		fail "$m: the forged answer was taken: $(echo "$out" | grep "^$m ")"
done
ok "a forged Response from another port and a forged GET PDU from the agent's own are both ignored"

sqlite3 "$T/wgwatch.db" .dump | grep -qE 'PWNED|6\.6\.6' && fail "the store holds forged values"
grep -qE 'PWNED|6\.6\.6' "$T/once.log" && fail "the log shows forged values"
ok "nothing forged in the store or the log"

# Request IDs: one session's consecutive IDs are far apart (random 31-bit), not a counter.
$PY - "$T/otherport.log" "$T/getpdu.log" <<'PY' || fail "request IDs look like a counter"
import sys
for path in sys.argv[1:]:
    ids = [int(l.split()[2]) for l in open(path) if l.startswith("req ")]
    steps = [abs(b - a) for a, b in zip(ids, ids[1:])]
    print("%s: %d requests, smallest step %d" % (path.rsplit("/", 1)[1], len(ids), min(steps)))
    assert len(ids) >= 4 and min(steps) > 1000, ids
    assert all(0 < i < 2 ** 31 for i in ids), ids
PY
ok "request IDs are random per request, not one counter"
grep -E '^<3>' "$T/once.log" && fail "unexpected error lines"
ok "no error lines"
