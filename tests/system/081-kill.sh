#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# 081-kill: SIGKILL during heavy ingest (300 routers every second), 20 times in a row. After
# each kill the database passes PRAGMA integrity_check, every poll committed before the kill
# is still there, every poll the daemon had made before its last two commits was stored, and
# version history has exactly one 'first' event per router and nothing invented.
. "$top_srcdir/tests/system/lib.sh"
EXPO="$PY $top_srcdir/tests/system/expo.py"
DB="$T/wgwatch.db"
ROUNDS=${WGWATCH_KILL_ROUNDS:-20}
q() { sqlite3 "$DB" "$1"; }
qp() { "$WSQL" "$DB" "$1"; } # the polls, chunked hours included

start_sim "$top_srcdir/tests/system/ingest.scenario"
write_conf 1s 900ms
scrape() { http_get /metrics >"$T/m.txt"; }
polls() { scrape && $EXPO "$T/m.txt" wgwatch_polls_total router="$1"; }
ge() { [ "$(polls "$1")" -ge "$2" ]; }
samples() { scrape && $EXPO "$T/m.txt" wgwatch_store_samples_total; }
samples_gt() { [ "$(samples)" -gt "$1" ]; }
rows() { qp "SELECT p.time_ms FROM store_polls p JOIN routers r ON r.id = p.router_id WHERE r.name = 'edge-001'
	AND p.time_ms >= ${1:-0} ORDER BY 1"; }

R=edge-001
: >"$T/before"
i=1
while [ "$i" -le "$ROUNDS" ]; do
	run_start=$(date +%s%3N)
	start_daemon
	wait_until 20 ge $R 2 || fail "round $i: $R not polled"
	p0=$(polls $R)
	v0=$(samples)
	# Two commits that end after p0 was read: the second took everything queued before it.
	wait_until 20 samples_gt "$v0" || fail "round $i: no commit"
	wait_until 20 samples_gt "$(samples)" || fail "round $i: no second commit"
	rows >"$T/before"
	sleep "0.$(od -An -N1 -tu1 /dev/urandom | tr -dc 0-9 | cut -c1)"   # anywhere in the writer's cycle
	stop_daemon -KILL
	[ "$(q 'PRAGMA integrity_check')" = ok ] || fail "round $i: integrity_check: $(q 'PRAGMA integrity_check' | head -3)"
	rows >"$T/after"
	lost=$(comm -23 "$T/before" "$T/after" | wc -l)
	[ "$lost" = 0 ] || fail "round $i: $lost committed polls of $R lost by the kill"
	n=$(rows "$run_start" | wc -l)
	[ "$n" -ge "$p0" ] || fail "round $i: $n polls of $R stored this run, the daemon had made $p0 before two commits"
	i=$((i + 1))
done
total=$(wc -l <"$T/after")
ok "$ROUNDS SIGKILLs during ingest: integrity ok each time, no committed poll lost ($total polls of $R)"

nrouters=$(q "SELECT count(*) FROM routers")
[ "$nrouters" = 300 ] || fail "$nrouters routers in the database"
[ "$(q "SELECT count(*) FROM version_history WHERE kind = 'first'")" = 300 ] ||
	fail "want 300 'first' events, have $(q "SELECT count(*) FROM version_history WHERE kind = 'first'")"
[ "$(q "SELECT count(*) FROM version_history WHERE kind <> 'first'")" = 0 ] ||
	fail "kills invented events: $(q "SELECT kind, count(*) FROM version_history GROUP BY kind")"
ok "version history intact: one 'first' per router, no invented event"
start_daemon
wait_until 20 ge $R 1 || fail "no poll after the last kill"
stop_daemon -TERM
check_log_clean
