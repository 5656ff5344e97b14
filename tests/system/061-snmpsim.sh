#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# 061-snmpsim: wgwatchd polls a MikroTik-shaped SNMP agent (Debian's snmpsim serving
# tests/system/snmpsim/mikrotik.snmprec: 9 cores, WireGuard interfaces of ifType 1 picked by
# name, ifHC counters growing at fixed rates) and, in the same run, its REST twin in wgwatch-sim
# (snmpsim/mikrotik.scenario). Both give the same metric families except what only REST has
# (peers, IRQ share); the cores, version, board and firmware are what the .snmprec serves; the
# interface counters grow at the rates it serves. Two routers sit behind a UDP
# forwarder that drops the first datagram: snmp_retries = 1 is answered, 0 times out once.
# The checks on /metrics are in snmpsim/check.py (one Python start instead of dozens).
. "$top_srcdir/tests/system/lib.sh"
command -v snmpsimd >/dev/null || { echo "SKIP: snmpsim not installed (apt-get install snmpsim)"; exit 77; }
D="$top_srcdir/tests/system/snmpsim"

COMMUNITY=wgw-sim-$$
start_snmpsim "$D/mikrotik.snmprec" "$COMMUNITY"
for n in 0 1; do
	$PY "$D/dropfirst.py" "$SNMP_ADDR" "$SNMP_ADDR:$SNMP_PORT" "$T/fwd$n.port" >"$T/fwd$n.out" 2>&1 &
	PIDS="$PIDS $!"
	wait_until 10 test -s "$T/fwd$n.port" || fail "forwarder $n did not start"
done

start_sim "$D/mikrotik.scenario"
twin_rest=$(routers_conf_value twin rest)
twin_user=$(routers_conf_value twin user)
twin_password=$(routers_conf_value twin password)
{
	printf '[router twin]\nrest = %s\nuser = %s\npassword = %s\ninterfaces = ether1\n\n' \
		"$twin_rest" "$twin_user" "$twin_password"
	printf '[router hub]\nsnmp = %s:%s\nsnmp_community = %s\ninterfaces = ether1\n\n' \
		"$SNMP_ADDR" "$SNMP_PORT" "$COMMUNITY"
	# Polled seldom, with time to spare: only their first poll matters.
	for n in 0 1; do
		printf '[router retries%s]\nsnmp = %s:%s\nsnmp_community = %s\nsnmp_retries = %s\n' \
			"$n" "$SNMP_ADDR" "$(cat "$T/fwd$n.port")" "$COMMUNITY" "$n"
		printf 'interval = 10s\ntimeout = 4s\n\n'
	done
} >"$T/routers.conf"
write_conf 1s 1500ms
start_daemon

# grep, not expo.py: a Python start costs up to a second on a loaded machine.
scrape() { http_get /metrics >"$T/metrics.txt"; }
has() { scrape && grep -qE "$1" "$T/metrics.txt"; }
is_up() { has "^wgwatch_router_up\{router=\"$1\"[,}].* 1\$"; }
for r in hub twin retries1; do
	wait_until 30 is_up "$r" || fail "$r never up: $(grep "router $r" "$T/daemon.log" | tail -1)"
done
wait_until 20 has '^wgwatch_poll_errors_total\{router="retries0"' || fail "retries0 has no poll error"
ok "the snmpsim agent, its REST twin and the forwarded routers are polled"

# Two scrapes at least 5 hub polls apart (1 s interval), then every check in one Python run.
polls() { sed -n 's/^wgwatch_polls_total{router="hub"[^}]*} \([0-9]*\).*/\1/p' "$T/metrics.txt"; }
polled_past() { scrape && [ "$(polls)" -ge "$1" ]; }
wait_until 20 polled_past 2 || fail "hub not polled twice"
cp "$T/metrics.txt" "$T/metrics.a"
wait_until 20 polled_past $(($(polls) + 5)) || fail "hub not polled 5 more times"
cp "$T/metrics.txt" "$T/metrics.b"
$PY "$D/check.py" "$D/mikrotik.snmprec" "$T/metrics.a" "$T/metrics.b" || exit 1
[ "$(grep -c drop "$T/fwd1.out")" -eq 1 ] && [ "$(grep -c drop "$T/fwd0.out")" -eq 1 ] ||
	fail "the forwarders did not drop exactly one datagram each"

http_get /router/hub | grep -q 'id="peers-snmp-only"' || fail "hub page: no SNMP-only peers note"
http_get /router/twin | grep -q 'id="peers-snmp-only"' && fail "twin page has the SNMP-only note"
ok "the router page of the SNMP-only router says why it has no peers"

promtool check metrics <"$T/metrics.txt" >"$T/promtool.log" 2>&1 || { cat "$T/promtool.log"; fail "promtool"; }
ok "promtool check metrics passes with SNMP routers in the fleet"
if grep -q -- "$COMMUNITY" "$T/metrics.txt" "$T/daemon.log"; then fail "the community leaked"; fi
check_log_clean
