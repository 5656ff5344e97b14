#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# 030-faults: every kind of broken router is marked down with the right kind and reason while
# the healthy ones keep being polled on their schedule; a router that recovers comes back up,
# and each change of state is logged once.
. "$top_srcdir/tests/system/lib.sh"
EXPO="$PY $top_srcdir/tests/system/expo.py"

start_sim "$top_srcdir/tests/system/faults.scenario"
write_conf 1s 800ms
start_daemon
scrape() { http_get /metrics >"$T/metrics.txt"; }
val() { $EXPO "$T/metrics.txt" "$@"; }
polls() { scrape && val wgwatch_polls_total router="$1"; }
ge() { [ "$(polls "$1")" -ge "$2" ]; }

for r in ok-01 ok-02 hang refuse html big truncate slow slowloris reset flaky; do
	wait_until 20 ge "$r" 1 || fail "$r never polled"
done
p0=$(polls ok-01)
scrape
for pair in hang:timeout refuse:connect html:parse big:size truncate:connect slow:timeout \
	slowloris:timeout reset:connect; do
	r=${pair%%:*} kind=${pair#*:}
	[ "$(val wgwatch_router_up router="$r")" = 0 ] || fail "$r is up"
	[ -n "$(val wgwatch_poll_errors_total router="$r" kind="$kind")" ] ||
		fail "$r: no $kind error; errors: $(grep "errors_total{router=\"$r\"" "$T/metrics.txt")"
done
grep -q 'router reset: down: connect: .*reset by peer' "$T/daemon.log" ||
	fail "reset: not a connection reset: $(grep 'router reset: down' "$T/daemon.log")"
# slowloris got some bytes before the timeout cut it: it dripped, it did not just hang.
grep -q 'router slowloris: down: timeout: .* with [1-9][0-9]* out of [0-9]* bytes' "$T/daemon.log" ||
	fail "slowloris: $(grep 'router slowloris: down' "$T/daemon.log")"
ok "each fault is down with its kind"

# The healthy routers keep their 1 s schedule while eight routers hang, drip or babble: read
# the start times of their polls from the database once eight more have been made.
wait_until 60 ge ok-01 $((p0 + 8)) || fail "ok-01 polled only $(( $(polls ok-01) - p0 )) times since"
scrape
[ "$(val wgwatch_router_up router=ok-01)" = 1 ] && [ "$(val wgwatch_router_up router=ok-02)" = 1 ] || fail "ok down"
[ "$(val wgwatch_polls_late_total)" = 0 ] || fail "late polls: $(val wgwatch_polls_late_total)"
# ...and every poll, of a hanging router too, started within a second of when it was due.
starts=$(val wgwatch_poll_start_delay_seconds_count)
[ "$starts" -ge 20 ] || fail "only ${starts:-no} poll starts in wgwatch_poll_start_delay_seconds"
[ "$(val wgwatch_poll_start_delay_seconds_bucket le=1)" = "$starts" ] ||
	fail "polls started over 1 s late: $(grep '^wgwatch_poll_start_delay' "$T/metrics.txt")"
wait_gaps 20 14 "r.name IN ('ok-01', 'ok-02')"
max=$GAPS_MAX n=$GAPS_N
[ "$n" -ge 14 ] || fail "only $n poll gaps stored for ok-01/ok-02"
[ "$max" -le 1600 ] || fail "a healthy router waited $max ms between polls at a 1 s interval"
ok "healthy routers polled on time: longest gap ${max} ms over $n polls, no late polls"

# flaky answers 401 for its first 4 s, then recovers.
up_flaky() { scrape && [ "$(val wgwatch_router_up router=flaky)" = 1 ]; }
wait_until 30 up_flaky || fail "flaky never came back up"
[ "$(grep -c 'router flaky: down' "$T/daemon.log")" -eq 1 ] || fail "flaky's failure not logged exactly once"
[ "$(grep -c 'router flaky: up' "$T/daemon.log")" -eq 1 ] || fail "flaky's recovery not logged exactly once"
[ "$(grep -c 'router hang: down' "$T/daemon.log")" -eq 1 ] || fail "hang's failure logged more than once"
ok "state changes logged once each"
if grep -q 'fault-secret' "$T/metrics.txt" "$T/daemon.log"; then fail "password leaked"; fi
