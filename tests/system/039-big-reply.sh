#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# 039-big-reply: two routers with 30,000 WireGuard peers each (about 6 MB of JSON a poll,
# max_body raised to let it in), polled every 4 s beside the healthy routers of basic.scenario,
# polled every second. Their replies are decoded off the loop thread, so the healthy routers'
# polls keep their schedule (issue 21, item 14: decoded on the loop, 7 of 53 polls started more
# than 250 ms late here, 13 %; with 40,000 peers every 3 s, 81 of 130, 28 more than 1 s), and
# the big routers' peers are all read.
. "$top_srcdir/tests/system/lib.sh"
# Under the sanitizers decoding is several times slower: fewer peers (still decoded off the
# loop), and the schedule is reported, not asserted; ASan and UBSan watch the handoff.
sanitized=no
if grep -q '^WG_CFLAGS = .*-fsanitize' "$top_builddir/Makefile" 2>/dev/null; then sanitized=yes; fi

start_sim "$top_srcdir/tests/system/basic.scenario"
NPEERS=30000
[ "$sanitized" = no ] || NPEERS=8000
write_conf 1s 5s "max_body = 64M"
HOST=$(sim_base)
HOST=${HOST%.1}
for i in 1 2; do
	port=$(free_port)
	$PY "$top_srcdir/tests/system/hostile.py" "$HOST.$((i + 1))" "$port" "$T/big$i.ready" peers $NPEERS \
		2>"$T/big$i.log" &
	PIDS="$PIDS $!"
	wait_until 60 test -e "$T/big$i.ready" || fail "router big-$i did not start"
	printf '[router big-%d]\nrest = http://%s:%d\nuser = wgwatch\npassword = x\ninterval = 4s\n' \
		"$i" "$HOST.$((i + 1))" "$port" >>"$T/routers.conf"
done
start_daemon
# The exposition holds 200,000 peer series: count polls in the database, scrape once, grep.
line() { grep -F "$1" "$T/metrics.txt" | sed 's/.* //'; }
stored() {
	n=$("$WSQL" "$T/wgwatch.db" "SELECT min(c) FROM (SELECT count(*) c FROM store_polls p JOIN routers r
		ON r.id = p.router_id WHERE r.name IN ('big-1', 'big-2') AND p.err IS NULL GROUP BY r.id
		HAVING count(*) > 0)" 2>/dev/null) && [ "${n:-0}" -ge "$1" ] &&
		[ "$(sqlite3 "$T/wgwatch.db" "SELECT count(*) FROM routers WHERE name LIKE 'big-%'")" = 2 ]
}
wait_until 90 stored 3 || fail "the big routers were not polled three times: $(grep big- "$T/daemon.log" | tail -3)"
http_get /metrics >"$T/metrics.txt" || fail "/metrics"
for r in big-1 big-2; do
	[ "$(line "wgwatch_router_up{router=\"$r\"}")" = 1 ] || fail "$r is down: $(grep "router $r" "$T/daemon.log" | tail -2)"
	n=$(grep -c "^wgwatch_wireguard_peer_receive_bytes_total{router=\"$r\"" "$T/metrics.txt")
	[ "$n" = $NPEERS ] || fail "$r: $n peers on /metrics, want $NPEERS"
done
ok "both big routers up, $NPEERS peers each"

[ "$(line 'wgwatch_router_up{router="arm64-a"')" = 1 ] || fail "arm64-a down beside the big routers"
starts=$(line 'wgwatch_poll_start_delay_seconds_count')
late=$((starts - $(line 'wgwatch_poll_start_delay_seconds_bucket{le="0.25"}')))
grep '^wgwatch_poll_start_delay_seconds_bucket' "$T/metrics.txt"
if [ "$sanitized" = yes ]; then
	ok "sanitizer build: $late of $starts polls started more than 250 ms late (not asserted)"
	exit 0
fi
# Decoded on the loop, 13 % of the polls start over 250 ms late; off it, none on an idle
# machine, and a few when make check runs another test beside this one on two CPUs: the
# bound is 5 %.
[ $((late * 20)) -le "$starts" ] || fail "$late of $starts polls started more than 250 ms late"
ok "$late of $starts polls started more than 250 ms late (at most 5 %)"
