#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# 045-page-resume: a connection suspended for a page is always resumed. libmicrohttpd neither
# times out nor watches a suspended connection, so a page that never renders (or waits in the
# pool's queue behind such pages) used to hold its client for ever; fuzz_http once waited 35 s
# for "/". Now the pool's watchdog answers 503 at the deadline. Pages are made to stall by the
# test hook WGWATCH_TEST_PAGE_DELAY_MS, well past the deadline the test sets with
# WGWATCH_TEST_PAGE_DEADLINE_MS; then the daemon must still serve and stop cleanly.
# wgwatch_http_pages_late_total counts every such 503, so that Prometheus can alert on them.
. "$top_srcdir/tests/system/lib.sh"
EXPO="$PY $top_srcdir/tests/system/expo.py"
DELAY_MS=8000
DEADLINE_MS=1000
N=6 # two render (the pool has two threads), four wait in its queue

start_sim "$top_srcdir/tests/system/basic.scenario"
write_conf 1s 900ms
WGWATCH_TEST_PAGE_DELAY_MS=$DELAY_MS WGWATCH_TEST_PAGE_DEADLINE_MS=$DEADLINE_MS start_daemon

page() { # page PATH OUT: code and seconds, with a client that gives up long before the stall ends
	curl -s -o "$2.body" -w '%{http_code} %{time_total}\n' --max-time 5 \
		"http://127.0.0.1:$HTTP_PORT$1" >"$2" || echo "000 5" >"$2"
}
late_total() { # late_total OUT: wgwatch_http_pages_late_total from a fresh /metrics
	http_get /metrics >"$1" || fail "/metrics: cannot fetch"
	$EXPO "$1" wgwatch_http_pages_late_total
}
check_late() { # check_late OUT WHAT
	read -r code took <"$1"
	[ "$code" = 503 ] || fail "$2 answered $code after $took s, not 503 at the deadline"
	awk -v t="$took" -v d=$DEADLINE_MS 'BEGIN { exit !(t * 1000 >= d - 50 && t < 4) }' ||
		fail "$2 took $took s; the deadline is $DEADLINE_MS ms"
	grep -q 'not ready within' "$1.body" || fail "$2: the 503 does not say why: $(cat "$1.body")"
}

n=$(late_total "$T/metrics.before")
[ "$n" = 0 ] || fail "wgwatch_http_pages_late_total is '$n' before any page, want 0"
ok "wgwatch_http_pages_late_total is 0 before any page"

page / "$T/one"
check_late "$T/one" "a page that stalls"
ok "a stalled page is answered 503 at the deadline: $(cat "$T/one")"

i=0
PAGES=""
for path in /router/arm64-a /api/v1/history/arm64-a / /router/tile-a /upgrades /router/arm64-b; do
	i=$((i + 1))
	page "$path" "$T/page.$i" &
	PAGES="$PAGES $!"
done
for pid in $PAGES; do wait "$pid"; done
for i in $(seq 1 $N); do check_late "$T/page.$i" "page $i of $N"; done
ok "$N pages behind a stalled pool all answered 503 at the deadline"

seen=$(for f in "$T/one" $(seq -f "$T/page.%g" 1 $N); do cat "$f"; done | grep -c '^503 ')
n=$(late_total "$T/metrics.after")
[ "$n" = "$seen" ] || fail "wgwatch_http_pages_late_total is '$n' after $seen answers 503"
ok "wgwatch_http_pages_late_total counts the $seen late pages"

code=$(curl -s -o /dev/null -w '%{http_code}' --max-time 5 "http://127.0.0.1:$HTTP_PORT/healthz") || true
[ "$code" = 200 ] || fail "/healthz answered $code"
grep -q 'not rendered within' "$T/daemon.log" || fail "no warning about the late pages"
# The stalled renderers finish after the connections let go of their jobs: they free them.
stop_daemon
wait_until 20 sh -c "! kill -0 $DAEMON_PID" || fail "wgwatchd did not stop"
grep -qE 'AddressSanitizer|LeakSanitizer|runtime error' "$T/daemon.log" && fail "sanitizer report"
ok "the daemon stopped with renderers still at work"
check_log_clean
