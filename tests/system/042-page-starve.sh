#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# 042-page-starve: slow pages must not starve /healthz and /metrics (issue 21 item 4). Pages
# that read the database (here made slow by the test hook WGWATCH_TEST_PAGE_DELAY_MS: since
# the router page is linear in the peers, no real page is slow enough on a database this test
# can fill in time) used to hold libmicrohttpd's two threads, and /healthz waited behind them.
# Now pages render on a pool of their own while their connections are suspended.
. "$top_srcdir/tests/system/lib.sh"
DELAY_MS=3000
N=6

start_sim "$top_srcdir/tests/system/basic.scenario"
write_conf 1s 900ms
WGWATCH_TEST_PAGE_DELAY_MS=$DELAY_MS start_daemon
wait_until 20 http_get /router/arm64-a >/dev/null || fail "the router page never answered"

i=0
for path in /router/arm64-a /api/v1/history/arm64-a / /router/tile-a /upgrades /router/arm64-b; do
	i=$((i + 1))
	curl -s -o /dev/null -w '%{http_code} %{time_total}\n' --max-time 60 \
		"http://127.0.0.1:$HTTP_PORT$path" >"$T/page.$i" &
	PIDS="$PIDS $!"
done
established() { # the server's side of connections to its port, state 01 (proc(5))
	n=$(awk -v p=":$(printf '%04X' "$HTTP_PORT")" '$4 == "01" && substr($2, length($2) - 4) == p' \
		/proc/net/tcp | wc -l)
	[ "$n" -ge "$N" ]
}
wait_until 10 established || fail "the $N page requests did not connect"

for k in 1 2 3; do
	for path in /healthz /metrics; do
		out=$(curl -s -o /dev/null -w '%{http_code} %{time_total}' --max-time 5 "http://127.0.0.1:$HTTP_PORT$path") || true
		echo "$path: $out (round $k)"
		code=${out% *} took=${out#* }
		[ "$code" = 200 ] || fail "$path answered $code behind $N slow pages"
		awk -v t="$took" 'BEGIN { exit !(t < 1.0) }' || fail "$path took $took s behind $N slow pages"
	done
done
ok "/healthz and /metrics answered within 1 s behind $N pages of $DELAY_MS ms each"

for i in $(seq 1 $N); do
	wait_until 40 test -s "$T/page.$i" || fail "page $i never finished"
	read -r code took <"$T/page.$i"
	[ "$code" = 200 ] || fail "page $i answered $code"
	awk -v t="$took" -v d=$DELAY_MS 'BEGIN { exit !(t * 1000 >= d) }' || fail "page $i took $took s: the hook did not slow it"
done
ok "all $N slow pages answered 200"
check_log_clean
