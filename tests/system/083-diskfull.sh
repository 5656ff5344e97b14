#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# 083-diskfull: the database on a small tmpfs that a filler file fills up. Polling and /metrics
# go on, the error is logged and exported (wgwatch_store_failing 1, write errors counted);
# when the filler goes, writes resume by themselves, the polls queued meanwhile are written and
# nothing stored before is lost. Skipped (77) where mounting a tmpfs is not permitted.
. "$top_srcdir/tests/system/lib.sh"
EXPO="$PY $top_srcdir/tests/system/expo.py"
DISK="$T/disk"
DB="$DISK/wgwatch.db"
q() { sqlite3 "$DB" "$1"; }
qp() { "$WSQL" "$DB" "$1"; } # the polls, chunked hours included

mkdir "$DISK"
mount -t tmpfs -o size=24m,mode=0700 wgwatch-test "$DISK" 2>/dev/null || { echo "SKIP: cannot mount a tmpfs"; exit 77; }
undisk() {
	rc=$?
	[ -z "${DAEMON_PID:-}" ] || { kill -9 "$DAEMON_PID" 2>/dev/null || true; wait "$DAEMON_PID" 2>/dev/null || true; }
	umount -l "$DISK" || true
	(exit "$rc") || cleanup    # cleanup reads the status from $?: a failure ...
	cleanup                    # ... or success
}
trap undisk EXIT

start_sim "$top_srcdir/tests/system/ingest.scenario"
write_conf 1s 900ms
sed -i "s|^database = .*|database = $DB|" "$T/wgwatch.conf"
run_start=$(date +%s%3N)
start_daemon
scrape() { http_get /metrics >"$T/m.txt"; }
val() { $EXPO "$T/m.txt" "$@"; }
polls() { scrape && val wgwatch_polls_total router="$1"; }
ge() { [ "$(polls "$1")" -ge "$2" ]; }
failing_is() { scrape && [ "$(val wgwatch_store_failing)" = "$1" ]; }
drained() { scrape && [ "$(val wgwatch_store_failing)" = 0 ] && [ "$(val wgwatch_store_queue_length)" -lt 600 ]; }
rows() { qp "SELECT p.time_ms FROM store_polls p JOIN routers r ON r.id = p.router_id WHERE r.name = 'edge-001' ORDER BY 1"; }
wait_until 20 ge edge-001 3 || fail "edge-001 not polled"
rows >"$T/before"
[ -s "$T/before" ] || fail "nothing stored before the disk filled"

dd if=/dev/zero of="$DISK/filler" bs=64k 2>/dev/null && fail "the tmpfs did not fill up"
wait_until 60 failing_is 1 || fail "wgwatch_store_failing never became 1 on a full disk"
errs=$(val wgwatch_store_write_errors_total)
[ "$errs" -ge 1 ] || fail "no write error counted"
grep -q '^<3>error: store: writing to .* failed: .*full' "$T/daemon.log" || fail "disk full not logged"
p=$(polls edge-001)
wait_until 20 ge edge-001 $((p + 3)) || fail "polling stopped on a full disk"
# No assertion that every later commit fails too: SQLite may reuse WAL frames it already owns
# and get a small commit through on a full disk, which is fine; what matters is below.
ok "disk full: polling goes on, wgwatch_store_failing 1, $(val wgwatch_store_write_errors_total) write errors, $(val wgwatch_store_queue_length) polls queued"

rm "$DISK/filler"
wait_until 60 drained || fail "writes did not resume (failing $(val wgwatch_store_failing), queue $(val wgwatch_store_queue_length))"
grep -q '^<6>info: store: writing to .* works again' "$T/daemon.log" || fail "recovery not logged"
made=$(polls edge-001)
stop_daemon -TERM
[ "$(q 'PRAGMA integrity_check')" = ok ] || fail "integrity_check after the disk was full"
rows >"$T/after"
lost=$(comm -23 "$T/before" "$T/after" | wc -l)
[ "$lost" = 0 ] || fail "$lost polls stored before the disk filled are gone"
n=$(qp "SELECT count(*) FROM store_polls p JOIN routers r ON r.id = p.router_id WHERE r.name = 'edge-001'
	AND p.time_ms >= $run_start")
[ "$n" -ge "$made" ] || fail "$n polls of edge-001 stored, $made were made"
ok "space back: writes resumed by themselves, all $made polls of edge-001 stored, none lost"
check_log_clean 'store: writing to .* failed'
