#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# 034-trailers: routers that send endless HTTP trailers (or endless headers) are cut off at the
# reply-size cap, marked down with kind "size", and cost the daemon no more memory than a
# healthy poll; the healthy routers beside them keep their schedule (issue 21, item 1).
. "$top_srcdir/tests/system/lib.sh"

start_sim "$top_srcdir/tests/system/basic.scenario"
write_conf 1s 3s
HOST=$(sim_base)
HOST=${HOST%.1}
for i in 1 2 3 4; do
	mode=trailers
	[ "$i" -eq 4 ] && mode=headers
	port=$(free_port)
	$PY "$top_srcdir/tests/system/hostile.py" "$HOST.$((i + 1))" "$port" "$T/hostile$i.ready" $mode \
		2>"$T/hostile$i.log" &
	PIDS="$PIDS $!"
	wait_until 10 test -e "$T/hostile$i.ready" || fail "hostile router $i did not start"
	printf '[router %s-%d]\nrest = http://%s:%d\nuser = wgwatch\npassword = x\n' \
		"$mode" "$i" "$HOST.$((i + 1))" "$port" >>"$T/routers.conf"
done
start_daemon
EXPO="$PY $top_srcdir/tests/system/expo.py"
scrape() { http_get /metrics >"$T/metrics.txt"; }
val() { $EXPO "$T/metrics.txt" "$@"; }
polls() { scrape && val wgwatch_polls_total router="$1"; }
ge() { [ "$(polls "$1")" -ge "$2" ]; }

for r in trailers-1 trailers-2 trailers-3 headers-4; do
	wait_until 30 ge "$r" 3 || fail "$r was not polled three times"
done
scrape
for r in trailers-1 trailers-2 trailers-3 headers-4; do
	[ "$(val wgwatch_router_up router="$r")" = 0 ] || fail "$r is up"
	[ -n "$(val wgwatch_poll_errors_total router="$r" kind=size)" ] ||
		fail "$r: no size error: $(grep "errors_total{router=\"$r\"" "$T/metrics.txt")"
done
grep -q 'router trailers-1: down: size: .*larger than' "$T/daemon.log" ||
	fail "trailers-1: $(grep 'router trailers-1: down' "$T/daemon.log")"
ok "endless trailers and headers: down with kind size"

# Twelve or more polls of routers that would send gigabytes: the peak RSS stays small.
hwm=$(awk '$1 == "VmHWM:" { print $2 }' "/proc/$DAEMON_PID/status")
echo "peak RSS ${hwm} kB"
[ "$hwm" -lt 131072 ] || fail "wgwatchd peaked at $hwm kB of RSS"
ok "peak RSS $((hwm / 1024)) MB"

[ "$(val wgwatch_router_up router=arm64-a)" = 1 ] || fail "arm64-a down beside the hostile routers"
starts=$(val wgwatch_poll_start_delay_seconds_count)
[ "$(val wgwatch_poll_start_delay_seconds_bucket le=0.25)" = "$starts" ] ||
	fail "polls started late: $(grep '^wgwatch_poll_start_delay' "$T/metrics.txt")"
ok "every one of $starts polls started within 250 ms of when it was due"
