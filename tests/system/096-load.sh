#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# 096-load: wgwatchd polls a 1,000-router sim fleet (REST) every 10 s while wrk holds 200
# connections for 20 s on the dashboard (/) and /metrics (180 and 20: one /metrics of 1,000
# routers is ~2.6 MB). Every request must be answered 2xx, with no socket error (connect, read,
# write, or no reply within 30 s), and polling must keep its schedule during the load: no late
# poll, and each router polled elapsed/interval times +-1. Requests/s and latency percentiles
# are printed; they are upper bounds on a shared 2-core machine.
# wgwatchd allows 32 connections per client address, so the connections come from 10 loopback
# addresses (tests/system/srcbind.c, preloaded into wrk).
# Knobs: WGWATCH_LOAD_ROUTERS, WGWATCH_LOAD_SECONDS, WGWATCH_LOAD_CONNS (a sanitizer build
# defaults to 250 routers, 10 s, 100 connections).
. "$top_srcdir/tests/system/lib.sh"
command -v wrk >/dev/null || { echo "SKIP: wrk not installed (apt-get install wrk)"; exit 77; }
CC=${CC:-cc}
command -v "$CC" >/dev/null || { echo "SKIP: no C compiler for the srcbind shim"; exit 77; }
if grep -q '^WG_CFLAGS = .*-fsanitize' "$top_builddir/Makefile" 2>/dev/null ||
	ldd "$DAEMON" 2>/dev/null | grep -q libasan; then
	ROUTERS=${WGWATCH_LOAD_ROUTERS:-250} SECONDS_=${WGWATCH_LOAD_SECONDS:-10} CONNS=${WGWATCH_LOAD_CONNS:-100}
else
	ROUTERS=${WGWATCH_LOAD_ROUTERS:-1000} SECONDS_=${WGWATCH_LOAD_SECONDS:-20} CONNS=${WGWATCH_LOAD_CONNS:-200}
fi
INTERVAL=10
MCONNS=$((CONNS / 10))
DCONNS=$((CONNS - MCONNS))
EXPO="$PY $top_srcdir/tests/system/expo.py"

"$CC" -O2 -shared -fPIC -o "$T/srcbind.so" "$top_srcdir/tests/system/srcbind.c" -ldl 2>"$T/cc.log" ||
	fail "cannot build the srcbind shim: $(cat "$T/cc.log")"
{
	printf '[global]\nuser = wgwatch\npassword = load-secret\nseed = 7\n\n[group edge]\ncount = %s\n' "$ROUTERS"
	printf 'board = RB5009UG+S+\narchitecture = arm64\ncpu = ARM64\ncores = 4\nversion = 7.22.3\n'
	printf 'wg = wg0:4\ntx_mbps = 50\nrx_mbps = 20\ncpu_load = 20 10\nlabels = site=lab\n'
} >"$T/load.scenario"
start_sim "$T/load.scenario"
write_conf ${INTERVAL}s 5s
start_daemon

# scrape FILE: /metrics into FILE; prints the time in ms at the middle of the scrape.
scrape() {
	a=$(date +%s%3N)
	curl -fsS --max-time 30 "http://127.0.0.1:$HTTP_PORT/metrics" >"$1" || return 1
	b=$(date +%s%3N)
	echo $(((a + b) / 2))
}
up_count() { scrape "$T/m.txt" >/dev/null && [ "$($EXPO "$T/m.txt" wgwatch_router_up | grep -c '^1$')" -eq "$1" ]; }
wait_until 60 up_count "$ROUTERS" ||
	fail "not all $ROUTERS routers up: $($EXPO "$T/m.txt" wgwatch_router_up | grep -c '^1$')"
ok "$ROUTERS routers up, polled every ${INTERVAL}s"

t0=$(scrape "$T/m0.txt") || fail "scrape before the load"
base=$(sim_base)
wrk_run() {   # wrk_run NAME CONNS PATH
	SRCBIND_BASE=$base SRCBIND_COUNT=10 LD_PRELOAD="$T/srcbind.so" \
		wrk -t1 -c"$2" -d"${SECONDS_}s" --timeout 30s --latency "http://127.0.0.1:$HTTP_PORT$3" \
		>"$T/wrk-$1.out" 2>&1
}
wrk_run metrics "$MCONNS" /metrics &
WRK_PID=$!
PIDS="$PIDS $WRK_PID"
wrk_run dash "$DCONNS" / || fail "wrk on /: $(cat "$T/wrk-dash.out")"
wait "$WRK_PID" || fail "wrk on /metrics: $(cat "$T/wrk-metrics.out")"
t1=$(scrape "$T/m1.txt") || fail "scrape after the load"
[ "$($EXPO "$T/m1.txt" wgwatch_router_up | grep -c '^1$')" -eq "$ROUTERS" ] || fail "routers went down during the load"

summary() {   # summary NAME PATH CONNS: checks one wrk report, prints its figures
	f="$T/wrk-$1.out"
	n=$(sed -n 's/^ *\([0-9]*\) requests in .*/\1/p' "$f")
	[ -n "$n" ] && [ "$n" -gt 0 ] || fail "wrk $2: no requests: $(cat "$f")"
	! grep -q 'Socket errors' "$f" || fail "wrk $2 ($3 connections): $(grep 'Socket errors' "$f")"
	! grep -q 'Non-2xx' "$f" || fail "wrk $2 ($3 connections): $(grep 'Non-2xx' "$f")"
	rps=$(sed -n 's/^Requests\/sec: *//p' "$f")
	pct=$(awk '/Latency Distribution/ { on = 1; next } on && NF == 2 { printf "p%s %s ", $1, $2 } on && NF != 2 { on = 0 }' "$f")
	ok "$2: $n requests on $3 connections, all 2xx, no socket error; $rps req/s; latency $pct"
}
summary dash / "$DCONNS"
summary metrics /metrics "$MCONNS"

late0=$($EXPO "$T/m0.txt" wgwatch_polls_late_total)
late1=$($EXPO "$T/m1.txt" wgwatch_polls_late_total)
[ "$late1" = "$late0" ] || fail "$((late1 - late0)) polls started late during the load"
$PY - "$T/m0.txt" "$T/m1.txt" "$t0" "$t1" "$INTERVAL" "$ROUTERS" <<'EOF' || fail "polling lost its schedule"
import os, sys
m0, m1, t0, t1, interval, routers = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), \
    int(sys.argv[5]), int(sys.argv[6])
sys.path.insert(0, os.environ["top_srcdir"] + "/tests/system")
import expo
def polls(path):
    return {l["router"]: int(v) for n, l, v in expo.parse(path)[0] if n == "wgwatch_polls_total"}
p0, p1 = polls(m0), polls(m1)
want = (t1 - t0) / 1000.0 / interval
bad = {r: p1.get(r, 0) - p0[r] for r in p0 if abs(p1.get(r, 0) - p0[r] - want) > 1.0}
deltas = sorted(p1.get(r, 0) - p0[r] for r in p0)
print("ok: polls per router during %.1f s: min %d, max %d, want %.2f +-1 (%d routers)" %
      ((t1 - t0) / 1000.0, deltas[0], deltas[-1], want, len(p0)))
if len(p0) != routers or bad:
    print("off schedule: %d routers, e.g. %s" % (len(bad), sorted(bad.items())[:5]), file=sys.stderr)
    sys.exit(1)
EOF
ok "no poll late during the load"
check_log_clean
