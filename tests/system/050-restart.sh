#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# 050-restart: SIGTERM writes everything and exits promptly; a restart keeps all history and
# adds no false 'first' or 'upgrade' events; after SIGKILL the database is consistent and
# opens again; a second daemon on the same database is refused with a clear message.
. "$top_srcdir/tests/system/lib.sh"
EXPO="$PY $top_srcdir/tests/system/expo.py"
DB="$T/wgwatch.db"
q() { sqlite3 "$DB" "$1"; }
qp() { "$WSQL" "$DB" "$1"; } # the polls, chunked hours included

start_sim "$top_srcdir/tests/system/basic.scenario"
write_conf 1s 1s
start_daemon
polls() { http_get /metrics >"$T/m.tmp" && $EXPO "$T/m.tmp" wgwatch_polls_total router="$1"; }
ge() { [ "$(polls "$1")" -ge "$2" ]; }
wait_until 20 ge tile-a 3 || fail "tile-a not polled 3 times"

n_before=$(polls tile-a)
start=$(date +%s)
stop_daemon -TERM
[ $(( $(date +%s) - start )) -le 5 ] || fail "SIGTERM took more than 5 s"
a=$(qp "SELECT count(*) FROM store_polls p JOIN routers r ON r.id = p.router_id WHERE r.name = 'tile-a'")
[ "$a" -ge "$n_before" ] || fail "after SIGTERM the database has $a polls of tile-a, the daemon had done $n_before"
[ "$(q "SELECT count(*) FROM version_history WHERE kind = 'first'")" = 3 ] || fail "want 3 'first' events"
ok "SIGTERM: prompt exit, all $a polls of tile-a stored"

start_daemon
"$DAEMON" -c "$T/wgwatch.conf" >/dev/null 2>"$T/second.log" &
second=$!
wait "$second" && fail "a second daemon on the same database was allowed to run"
grep -qi 'in use\|locked' "$T/second.log" || fail "second daemon's message: $(cat "$T/second.log")"
ok "a second daemon on the same database is refused: $(grep -i 'in use\|locked' "$T/second.log" | head -1)"

wait_until 20 ge tile-a 3 || fail "tile-a not polled after restart"
stored() { [ "$(qp "SELECT count(*) FROM store_polls p JOIN routers r ON r.id = p.router_id
	WHERE r.name = 'tile-a'")" -gt "$a" ]; }
wait_until 20 stored || fail "no poll of tile-a committed within 20 s of the restart"
stop_daemon -KILL
[ "$(q 'PRAGMA integrity_check')" = ok ] || fail "integrity_check after SIGKILL"
b=$(qp "SELECT count(*) FROM store_polls p JOIN routers r ON r.id = p.router_id WHERE r.name = 'tile-a'")
[ "$b" -gt "$a" ] || fail "no polls stored after the restart ($a then $b)"
[ "$(q "SELECT count(*) FROM version_history WHERE kind = 'first'")" = 3 ] || fail "restart added 'first' events"
[ "$(q "SELECT count(*) FROM version_history WHERE kind IN ('upgrade','downgrade','reboot')")" = 0 ] ||
	fail "restart invented events: $(q 'SELECT * FROM version_history')"
ok "after SIGKILL: integrity ok, history kept ($a then $b polls), no invented events"

start_daemon
wait_until 20 ge tile-a 1 || fail "no poll after restarting from a killed daemon"
ok "restarts after SIGKILL"
check_log_clean 'in use|locked'
