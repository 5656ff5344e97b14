#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# 080-reload: SIGHUP reloads the configuration. Routers added start polling, removed ones stop,
# an untouched router keeps its schedule, its state and every sample (no gap, no duplicate);
# a bad new config is refused with its FILE:LINE and the old one keeps running; reloads while
# /metrics is scraped hard (and polls of a hanging router are in flight) harm nothing.
. "$top_srcdir/tests/system/lib.sh"
EXPO="$PY $top_srcdir/tests/system/expo.py"
DB="$T/wgwatch.db"
q() { sqlite3 "$DB" "$1"; }
qp() { "$WSQL" "$DB" "$1"; } # the polls, chunked hours included

start_sim "$top_srcdir/tests/system/faults.scenario"
section() { awk -v r="[router $1]" '$0 == r { p = 1; print; next } /^\[/ { p = 0 } p' "$T/routers.conf"; }
# use ROUTER...: the routers wgwatchd polls, through the file its config includes.
use() {
	: >"$T/active.tmp"
	for r in "$@"; do section "$r" >>"$T/active.tmp"; done
	mv "$T/active.tmp" "$T/active.conf"
}
use ok-01 hang
write_conf 1s 800ms
sed -i 's/^include = routers.conf$/include = active.conf/' "$T/wgwatch.conf"
start_daemon

scrape() { http_get /metrics >"$T/m.txt"; }
polls() { scrape && $EXPO "$T/m.txt" wgwatch_polls_total router="$1"; }
ge() { [ "$(polls "$1")" -ge "$2" ]; }
known() { scrape && [ -n "$($EXPO "$T/m.txt" wgwatch_router_up router="$1")" ]; }
stored() { qp "SELECT count(*) FROM store_polls p JOIN routers r ON r.id = p.router_id WHERE r.name = '$1'"; }
# hup: SIGHUP, then wait until the daemon logs the reload's outcome (done or refused).
reloads() { grep -c 'reload: [0-9]* routers\|reload refused' "$T/daemon.log" || true; }
reloaded_since() { [ "$(reloads)" -gt "$1" ]; }
hup() {
	n=$(reloads)
	kill -HUP "$DAEMON_PID"
	wait_until 10 reloaded_since "$n" || fail "no reload logged"
}
wait_until 20 ge ok-01 3 || fail "ok-01 not polled"
known ok-02 && fail "ok-02 is known before it is configured"

# Add ok-02, remove hang.
p1=$(polls ok-01)
use ok-01 ok-02
hup
grep -q 'reload: 2 routers (1 added, 1 removed)' "$T/daemon.log" || fail "reload summary: $(grep reload "$T/daemon.log")"
wait_until 10 ge ok-02 2 || fail "added router ok-02 not polled"
known hang && fail "removed router hang still exported"
[ "$(polls ok-01)" -ge "$p1" ] || fail "ok-01's poll count went back across the reload"
h1=$(stored hang)
scrape
[ "$($EXPO "$T/m.txt" wgwatch_config_last_reload_successful)" = 1 ] || fail "reload_successful after a good reload"
good_at=$($EXPO "$T/m.txt" wgwatch_config_last_reload_success_timestamp_seconds)
# The API follows the fleet as it is now, not the configuration it started with.
api_code() { curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$HTTP_PORT/api/v1/routers/$1/$2"; }
[ "$(api_code ok-02 profiles)" = 200 ] && [ "$(api_code ok-02 probes)" = 200 ] ||
	fail "the added router's profiles and probes: HTTP $(api_code ok-02 profiles), $(api_code ok-02 probes)"
[ "$(api_code hang profiles)" = 404 ] && [ "$(api_code hang probes)" = 404 ] ||
	fail "the removed router's profiles and probes: HTTP $(api_code hang profiles), $(api_code hang probes)"
ok "SIGHUP added ok-02 and removed hang; ok-01 kept its count; the API knows ok-02, not hang"

# A bad config is refused with FILE:LINE; the old one keeps running.
cp "$T/active.conf" "$T/good.conf"
section ok-01 >>"$T/active.conf"                  # a duplicate router section
printf 'interval = soon\n' >>"$T/active.conf"       # and a bad value
line=$(grep -n '^interval = soon' "$T/active.conf" | cut -d: -f1)
dupline=$(grep -n '^\[router ok-01\]' "$T/active.conf" | tail -1 | cut -d: -f1)
p2=$(polls ok-02)
hup
grep -q '^<3>.*reload refused' "$T/daemon.log" || fail "bad config not refused"
grep -q "^<3>error: reload: $T/active.conf:$line: " "$T/daemon.log" || fail "no FILE:LINE for the bad value"
grep -q "^<3>error: reload: $T/active.conf:$dupline: " "$T/daemon.log" || fail "no FILE:LINE for the duplicate"
wait_until 10 ge ok-02 $((p2 + 2)) || fail "ok-02 not polled after the refused reload"
known hang && fail "refused reload changed the routers"
scrape
[ "$($EXPO "$T/m.txt" wgwatch_config_last_reload_successful)" = 0 ] || fail "reload_successful after a refused reload"
[ "$($EXPO "$T/m.txt" wgwatch_config_last_reload_success_timestamp_seconds)" = "$good_at" ] ||
	fail "the refused reload moved the last success time"
ok "bad config refused: $(grep "active.conf:$line" "$T/daemon.log" | head -1 | cut -c1-100)"
mv "$T/good.conf" "$T/active.conf"

# Reload after reload, a hanging router in and out, while /metrics and the API are scraped.
(
	while :; do
		curl -fsS "http://127.0.0.1:$HTTP_PORT/metrics" >/dev/null 2>&1 || true
		curl -fsS "http://127.0.0.1:$HTTP_PORT/api/v1/routers" >/dev/null 2>&1 || true
	done
) &
SCRAPER=$!
PIDS="$PIDS $SCRAPER"
for i in 1 2 3 4 5 6 7 8; do
	if [ $((i % 2)) = 1 ]; then use ok-01 ok-02 hang slow; else use ok-01 ok-02; fi
	hup
	sleep 0.$((3 + i % 5))    # let some polls of hang and slow get in flight before the next
done
kill "$SCRAPER"
kill -0 "$DAEMON_PID" || fail "wgwatchd died during reloads"
known hang && fail "hang exported after its last removal"
wait_until 10 ge ok-02 $(( $(polls ok-02) + 2 )) || fail "ok-02 not polled after the reloads"
ok "8 reloads under scraping, hanging polls cancelled"

# --reload PID, systemd's ExecReload: exit 0 only when the daemon took the configuration. A bad
# file is refused before any signal (FILE:LINE on stderr); a file the daemon's guard refuses
# (it would remove every router) is signalled, and the daemon's answer makes it exit 1.
reload_cmd() { rc=0; "$DAEMON" -c "$T/wgwatch.conf" --reload "$DAEMON_PID" >"$T/reload.out" 2>&1 || rc=$?; }
use ok-01 ok-02 slow
reload_cmd
[ "$rc" = 0 ] && grep -q "reloaded, 3 routers" "$T/reload.out" || fail "--reload of a good file: exit $rc: $(cat "$T/reload.out")"
wait_until 10 known slow || fail "--reload said reloaded, but slow is not polled"
n=$(reloads)
printf 'interval = soon\n' >>"$T/active.conf"
reload_cmd
[ "$rc" = 1 ] && grep -q "active.conf:[0-9]*: interval = soon" "$T/reload.out" ||
	fail "--reload of a bad file: exit $rc: $(cat "$T/reload.out")"
[ "$(reloads)" = "$n" ] || fail "--reload of a bad file signalled the daemon"
: >"$T/active.conf"
reload_cmd
[ "$rc" = 1 ] && grep -q "reload of $DAEMON_PID refused" "$T/reload.out" ||
	fail "--reload of a file the guard refuses: exit $rc: $(cat "$T/reload.out")"
grep -q "reload refused\|refused: it would remove" "$T/daemon.log" || fail "the daemon logged no refusal"
use ok-01 ok-02
reload_cmd
[ "$rc" = 0 ] || fail "--reload back to two routers: exit $rc: $(cat "$T/reload.out")"
ok "--reload: taken (exit 0), a bad file refused unsent (exit 1), the guard's refusal told (exit 1)"

h2=$(stored hang)
stop_daemon -TERM
h3=$(stored hang)
[ "$h3" -ge "$h1" ] || fail "hang's stored polls went down"
# ok-01 was never touched: its polls are one interval apart all through, none twice.
gaps=$(qp "SELECT min(g), max(g), count(*) FROM (SELECT p.time_ms - lag(p.time_ms) OVER (ORDER BY p.time_ms)
	AS g FROM store_polls p JOIN routers r ON r.id = p.router_id WHERE r.name = 'ok-01') WHERE g IS NOT NULL")
min=${gaps%%|*} n=${gaps##*|} max=${gaps#*|} max=${max%|*}
[ "$n" -ge 10 ] || fail "only $n gaps for ok-01"
[ "$max" -le 1600 ] || fail "ok-01 waited $max ms between two polls across the reloads"
[ "$min" -ge 500 ] || fail "ok-01 polled twice within $min ms (a duplicate across a reload)"
[ "$(q "SELECT count(*) FROM version_history h JOIN routers r ON r.id = h.router_id
	WHERE r.name = 'ok-01' AND h.kind = 'first'")" = 1 ] || fail "ok-01's 'first' event duplicated"
ok "ok-01 continuous over $n polls: gaps $min..$max ms (hang stored: $h1 $h2 $h3)"
check_log_clean 'reload|hang|slow'
