#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# 032-clock: a router whose uptime jumps back (2 h) and then forward (30 d) without a reboot
# (clock.scenario) is not recorded as rebooted, gets no negative or huge stored
# rate (read back through /api/v1/history), and stays up and polled; a router that really
# reboots is recorded once.
. "$top_srcdir/tests/system/lib.sh"
EXPO="$PY $top_srcdir/tests/system/expo.py"

start_sim "$top_srcdir/tests/system/clock.scenario"
write_conf 1s 800ms
start_daemon
scrape() { http_get /metrics >"$T/metrics.txt"; }
val() { $EXPO "$T/metrics.txt" "$@"; }
polls() { scrape && val wgwatch_polls_total router="$1"; }
ge() { [ "$(polls "$1")" -ge "$2" ]; }
sql() { sqlite3 "$T/wgwatch.db" "$@"; }

up_before=
wait_until 20 ge jump 2 || fail "jump never polled"
up_before=$(val wgwatch_router_uptime_seconds router=jump)
# Past both jumps (6 s and 12 s), and stored.
for r in steady jump reboots; do wait_until 40 ge "$r" 17 || fail "$r polled only $(polls "$r") times"; done
stored() { [ "$("$WSQL" "$T/wgwatch.db" "SELECT count(*) FROM store_polls p JOIN routers r ON r.id = p.router_id
	WHERE r.name = 'jump' AND p.err IS NULL")" -ge 16 ]; }
wait_until 20 stored || fail "jump's polls were not stored"
scrape
for r in steady jump reboots; do
	[ "$(val wgwatch_router_up router="$r")" = 1 ] || fail "$r is down"
done
up_after=$(val wgwatch_router_uptime_seconds router=jump)
$PY -c "import sys; b, a = float(sys.argv[1]), float(sys.argv[2]); sys.exit(not (a > b + 29 * 86400))" \
	"$up_before" "$up_after" || fail "jump's uptime did not jump forward: $up_before -> $up_after"
ok "uptime jumps: still up and polled ($(val wgwatch_polls_total router=jump) polls), uptime $up_before -> $up_after s"

reboots() { sql "SELECT count(*) FROM version_history h JOIN routers r ON r.id = h.router_id
	WHERE r.name = '$1' AND h.kind = 'reboot'"; }
[ "$(reboots reboots)" = 1 ] || fail "the real reboot was recorded $(reboots reboots) times"
[ "$(reboots jump)" = 0 ] || fail "uptime jumping back was recorded as $(reboots jump) reboot(s)"
[ "$(reboots steady)" = 0 ] || fail "steady recorded a reboot"
ok "a reboot is recorded once; uptime jumps are not reboots"

# The stored wg0 rates, as the router page draws them (/api/v1/history): at most 150 Mbit/s
# (100 Mbit/s tx, swing 0) and never negative, in every bucket that has data.
rates() { http_get "/api/v1/history/$1?range=6h" | $PY -c '
import json, sys
d = json.load(sys.stdin)
v = [x for f in d["interfaces"] if f["name"] == "wg0" for x in f["tx_bps"] if x is not None]
print(len(v), min(v) / 1e6 if v else "nan", max(v) / 1e6 if v else "nan")'; }
for r in steady jump reboots; do
	set -- $(rates "$r")
	n=$1 min=$2 max=$3
	[ "$n" -ge 1 ] || fail "$r: no wg0 rate stored"
	$PY -c "import sys; sys.exit(not (0 <= float(sys.argv[1]) and float(sys.argv[2]) <= 150))" "$min" "$max" ||
		fail "$r: wg0 tx rate out of range: min $min, max $max Mbit/s"
	echo "  $r: $n buckets, wg0 tx $min..$max Mbit/s"
done
ok "no negative or huge rates"
check_log_clean
