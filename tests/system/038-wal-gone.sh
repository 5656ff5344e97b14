#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# 038-wal-gone: the database's write-ahead log deleted under the running daemon (issue 21 item
# 7). Before, the writer went on "healthy" while readers saw another file, and a later stop
# left a malformed database. Now the writer stops writing and says why: in the log, in
# wgwatch_store_failing, and on /healthz (503 naming the WAL); polling and the pages go on.
. "$top_srcdir/tests/system/lib.sh"
EXPO="$PY $top_srcdir/tests/system/expo.py"

start_sim "$top_srcdir/tests/system/basic.scenario"
write_conf 1s 900ms
start_daemon
DB="$T/wgwatch.db"
scrape() { http_get /metrics >"$T/m.txt"; }
polls() { scrape && [ "$($EXPO "$T/m.txt" wgwatch_polls_total router=arm64-a)" -ge "$1" ]; }
wait_until 20 polls 2 || fail "arm64-a not polled"
[ -f "$DB-wal" ] || fail "no $DB-wal while the daemon runs"

rm "$DB-wal"
healthz_says() {
	code=$(curl -s -o "$T/healthz" -w '%{http_code}' --max-time 5 "http://127.0.0.1:$HTTP_PORT/healthz")
	[ "$code" = 503 ] && grep -q 'write-ahead log' "$T/healthz"
}
wait_until 20 healthz_says || fail "/healthz did not report the deleted WAL: $code $(cat "$T/healthz")"
ok "/healthz: $(cat "$T/healthz")"
grep -q 'error: store: writing to .* failed: its write-ahead log (-wal) was deleted' "$T/daemon.log" ||
	fail "the log does not say why writing stopped"
scrape
[ "$($EXPO "$T/m.txt" wgwatch_store_failing)" = 1 ] || fail "wgwatch_store_failing is not 1"
n=$($EXPO "$T/m.txt" wgwatch_polls_total router=arm64-a)
wait_until 10 polls $((n + 2)) || fail "polling stopped with the writer"
ok "writing stopped and said so; polling and /metrics go on"
stop_daemon -TERM
grep -q 'database or disk image is malformed' "$T/daemon.log" && fail "the database was damaged"
ok "stopped cleanly"
