#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# 082-term: SIGTERM with a large queue. Another process holds the database's write lock while
# 300 routers are polled every second, so thousands of polls queue up; the lock goes, SIGTERM
# comes at once: wgwatchd must write every queued poll and exit 0 within a bound.
. "$top_srcdir/tests/system/lib.sh"
EXPO="$PY $top_srcdir/tests/system/expo.py"
DB="$T/wgwatch.db"
BOUND_MS=10000
q() { sqlite3 "$DB" "$1"; }
qp() { "$WSQL" "$DB" "$1"; } # the polls, chunked hours included

start_sim "$top_srcdir/tests/system/ingest.scenario"
write_conf 1s 900ms
run_start=$(date +%s%3N)
start_daemon
scrape() { http_get /metrics >"$T/m.txt"; }
queued() { scrape && $EXPO "$T/m.txt" wgwatch_store_queue_length; }
queue_ge() { [ "$(queued)" -ge "$1" ]; }
failing() { scrape && [ "$($EXPO "$T/m.txt" wgwatch_store_failing)" = 1 ]; }

$PY -c '
import os, sqlite3, sys, time
c = sqlite3.connect(sys.argv[1], isolation_level=None, timeout=30)
c.execute("BEGIN IMMEDIATE")
open(sys.argv[2], "w").close()
while os.path.exists(sys.argv[2]):    # hold the write lock until the test removes the flag
    time.sleep(0.05)
c.execute("ROLLBACK")
' "$DB" "$T/locked" &
LOCKER=$!
PIDS="$PIDS $LOCKER"
wait_until 10 test -e "$T/locked" || fail "could not take the write lock"
wait_until 60 queue_ge 2000 || fail "the queue did not grow past 2000 (at $(queued))"
failing || fail "wgwatch_store_failing is not 1 while the database is locked"
ok "queue at $(queued) polls behind a locked database"

rm "$T/locked"
wait "$LOCKER" || fail "the lock holder failed"
scrape
made=$($EXPO "$T/m.txt" wgwatch_polls_total | awk '{ s += $1 } END { print s }')
t0=$(date +%s%3N)
kill -TERM "$DAEMON_PID"
rc=0
wait "$DAEMON_PID" || rc=$?
took=$(( $(date +%s%3N) - t0 ))
[ "$rc" = 0 ] || fail "exit status $rc after SIGTERM"
[ "$took" -le "$BOUND_MS" ] || fail "SIGTERM took $took ms (bound $BOUND_MS ms)"
stored=$(qp "SELECT count(*) FROM store_polls WHERE time_ms >= $run_start")
[ "$stored" -ge "$made" ] || fail "$stored polls stored, the daemon had made $made before SIGTERM"
[ "$(q 'PRAGMA integrity_check')" = ok ] || fail "integrity_check"
ok "SIGTERM: exit 0 in $took ms, all $made+ polls stored ($stored)"
check_log_clean 'locked|busy'
