#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# 087-valgrind: one integration run of wgwatchd under valgrind memcheck: REST routers of the sim
# (healthy, 401, invalid JSON), SNMP v2c and v3 routers against a real snmpd (and one with a
# wrong community), three poll rounds, every page, API and /metrics served, a reload, SIGTERM.
# The daemon must exit 0 with no memcheck error and no definite or indirect leak; suppressions
# (tests/system/valgrind.supp) only for documented library false positives. Skipped in a
# sanitizer build (valgrind and ASan cannot share a process).
. "$top_srcdir/tests/system/lib.sh"
EXPO="$PY $top_srcdir/tests/system/expo.py"
command -v valgrind >/dev/null || { echo "SKIP: valgrind not installed (apt-get install valgrind)"; exit 77; }
if grep -q '^WG_CFLAGS = .*-fsanitize' "$top_builddir/Makefile" 2>/dev/null ||
	ldd "$DAEMON" 2>/dev/null | grep -q libasan; then
	echo "SKIP: sanitizer build (valgrind runs the plain build)"; exit 77
fi
ROUNDS=${WGWATCH_VALGRIND_ROUNDS:-3}

start_sim "$top_srcdir/tests/system/basic.scenario"
SNMPD=$(command -v snmpd || echo /usr/sbin/snmpd)
if [ -x "$SNMPD" ]; then
	COMMUNITY=vg-comm-$$
	start_snmpd <<EOF
rocommunity $COMMUNITY 127.0.0.0/8
createUser vg SHA "vg-auth-$$" AES "vg-priv-$$"
rouser vg priv
EOF
	{
		printf '[router snmp-v2]\nsnmp = %s:%s\nsnmp_community = %s\ninterfaces = lo\n\n' \
			"$SNMP_ADDR" "$SNMP_PORT" "$COMMUNITY"
		printf '[router snmp-v3]\nsnmp = %s:%s\nsnmp_version = 3\nsnmp_user = vg\n' "$SNMP_ADDR" "$SNMP_PORT"
		printf 'snmp_auth_password = vg-auth-%s\nsnmp_priv_password = vg-priv-%s\n\n' $$ $$
		printf '[router snmp-bad]\nsnmp = %s:%s\nsnmp_community = wrong-%s\n\n' "$SNMP_ADDR" "$SNMP_PORT" $$
	} >>"$T/routers.conf"
	SNMP_ROUTERS="snmp-v2 snmp-v3 snmp-bad"
else
	echo "(snmpd not installed: REST routers only)"
	SNMP_ROUTERS=""
fi
# Generous timeouts: everything runs ~20x slower under memcheck.
write_conf 2s 1500ms

valgrind -q --leak-check=full --show-leak-kinds=definite,indirect --errors-for-leak-kinds=definite,indirect \
	--error-exitcode=99 --num-callers=30 --track-origins=yes \
	--suppressions="$top_srcdir/tests/system/valgrind.supp" --log-file="$T/valgrind.log" \
	"$DAEMON" -c "$T/wgwatch.conf" -v 2>>"$T/daemon.log" &
DAEMON_PID=$!
PIDS="$PIDS $DAEMON_PID"
wait_until 60 curl -fsS "http://127.0.0.1:$HTTP_PORT/healthz" || fail "wgwatchd under valgrind never answered"

scrape() { curl -fsS --max-time 30 "http://127.0.0.1:$HTTP_PORT/metrics" >"$T/m.txt"; }
polls() { scrape && $EXPO "$T/m.txt" wgwatch_polls_total router="$1"; }
ge() { [ "$(polls "$1" | cut -d. -f1)" -ge "$2" ]; }
for r in arm64-a auth-fail garbage $SNMP_ROUTERS; do
	wait_until 60 ge "$r" "$ROUNDS" || fail "$r not polled $ROUNDS times under valgrind"
done
scrape
[ "$($EXPO "$T/m.txt" wgwatch_router_up router=arm64-a)" = 1 ] || fail "arm64-a not up under valgrind"
for r in $SNMP_ROUTERS; do
	[ "$r" = snmp-bad ] && continue
	[ "$($EXPO "$T/m.txt" wgwatch_router_up router="$r")" = 1 ] || fail "$r not up under valgrind"
done
ok "$ROUNDS poll rounds of $(echo arm64-a auth-fail garbage $SNMP_ROUTERS | wc -w) routers and more under valgrind"

for p in / /router/arm64-a /router/tile-a /router/auth-fail /router/no-such /upgrades \
	/api/v1/routers /api/v1/regressions /api/v1/cohorts /static/wgwatch.css /metrics /no/such/page; do
	curl -sS --max-time 30 -o /dev/null "http://127.0.0.1:$HTTP_PORT$p" || fail "GET $p under valgrind"
done
curl -sS --max-time 30 -o /dev/null -X POST -d x=y "http://127.0.0.1:$HTTP_PORT/metrics" || fail "POST /metrics"
ok "pages, API, /metrics and error paths served"

kill -HUP "$DAEMON_PID"
wait_until 60 grep -q 'reload: ' "$T/daemon.log" || fail "no reload under valgrind"
n=$(polls arm64-a | cut -d. -f1)
wait_until 60 ge arm64-a $((n + 1)) || fail "no poll after the reload"
kill -TERM "$DAEMON_PID"
rc=0
wait "$DAEMON_PID" || rc=$?
summary=$(grep -E 'ERROR SUMMARY|definitely lost|indirectly lost' "$T/valgrind.log" | head -5)
if [ "$rc" != 0 ] || grep -q . "$T/valgrind.log"; then
	head -80 "$T/valgrind.log" >&2
	fail "valgrind: exit status $rc (99: memcheck errors or leaks), log above"
fi
ok "exit 0 after SIGTERM; memcheck: no error, no definite or indirect leak${summary:+ ($summary)}"
check_log_clean 'router (auth-fail|garbage|snmp-bad)'
