#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# 043-shm-gone: the database's wal-index (-shm) truncated under the running daemon (issue 21
# item 6; chattr +i needs root and a file system that has it, truncation needs neither and
# breaks the shared mapping the same way). Before, the next access to the mapping raised
# SIGBUS and the daemon died within a second. Now it lives on: it stops writing (everything
# committed stays in the WAL, which the next start reads back) and says why, in the log,
# wgwatch_store_failing and /healthz (503 naming the -shm); polling and /metrics go on.
. "$top_srcdir/tests/system/lib.sh"
EXPO="$PY $top_srcdir/tests/system/expo.py"
DB="$T/wgwatch.db"
q() { sqlite3 "$DB" "$1"; }
qp() { "$WSQL" "$DB" "$1"; } # the polls, chunked hours included

start_sim "$top_srcdir/tests/system/basic.scenario"
write_conf 1s 900ms
start_daemon
scrape() { http_get /metrics >"$T/m.txt"; }
polls() { scrape && [ "$($EXPO "$T/m.txt" wgwatch_polls_total router=arm64-a)" -ge "$1" ]; }
stored() { [ "$(qp 'SELECT count(*) FROM store_polls')" -ge "$1" ]; }
wait_until 20 stored 4 || fail "nothing stored"
[ -f "$DB-shm" ] || fail "no $DB-shm while the daemon runs"

before=$(qp 'SELECT count(*) FROM store_polls')
truncate -s 0 "$DB-shm"
healthz_says() {
	code=$(curl -s -o "$T/healthz" -w '%{http_code}' --max-time 5 "http://127.0.0.1:$HTTP_PORT/healthz")
	[ "$code" = 503 ] && grep -q 'wal-index' "$T/healthz"
}
dead_or_reported() { ! kill -0 "$DAEMON_PID" 2>/dev/null || healthz_says; }
wait_until 20 dead_or_reported || fail "/healthz did not report the broken -shm: $code $(cat "$T/healthz")"
kill -0 "$DAEMON_PID" 2>/dev/null || fail "wgwatchd died: $(tail -n 2 "$T/daemon.log")"
ok "/healthz: $(cat "$T/healthz")"
[ "$(grep -c 'wal-index (-shm)' "$T/daemon.log")" = 1 ] || fail "not logged once: $(grep -- -shm "$T/daemon.log")"
scrape
[ "$($EXPO "$T/m.txt" wgwatch_store_failing)" = 1 ] || fail "wgwatch_store_failing is not 1"
n=$($EXPO "$T/m.txt" wgwatch_polls_total router=arm64-a)
wait_until 10 polls $((n + 2)) || fail "polling stopped with the writer"
kill -0 "$DAEMON_PID" || fail "wgwatchd died"
ok "alive, writing stopped and said so; polling and /metrics go on"
stop_daemon -TERM
[ "$(q 'PRAGMA integrity_check')" = ok ] || fail "integrity_check"
have=$(qp 'SELECT count(*) FROM store_polls')
[ "$have" -ge "$before" ] || fail "$have polls in the database, $before were stored before the -shm broke"
ok "nothing stored was lost: $have polls (>= $before)"
