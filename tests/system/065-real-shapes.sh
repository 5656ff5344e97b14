#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# 065-real-shapes: wgwatchd polls routers shaped as real ones are (tests/system/shapes.scenario),
# over REST and over SNMP, and a recorded RouterOS 6 agent (snmpsim serving
# snmpsim/routeros6.snmprec, written from the facts of docs/routeros.md §3), and stores and
# serves the right values: interface names with spaces, colons and parentheses (REST .query,
# SNMP name matching, Prometheus labels, the router page), drop and error counters that are
# not zero, every ifType of real routers (lo as 1 or 24) with ifIndex 1..N with gaps, a /system/resource sent
# as a one-element array, a RouterOS 6 agent's board and version from entPhysicalDescr, and the
# uptime from hrSystemUptime while the SNMP agent restarts every 4 s, with no reboot recorded.
. "$top_srcdir/tests/system/lib.sh"
D="$top_srcdir/tests/system"
COMMUNITY=shape-c0mm-$$

start_sim "$D/shapes.scenario" --snmp --snmp-community "$COMMUNITY"
v() { routers_conf_value "$1" "$2"; } # from the sim's fragment, until routers.new replaces it
{
	printf '[router ros7-rest]\nrest = %s\nuser = %s\npassword = %s\n' "$(v ros7 rest)" "$(v ros7 user)" \
		"$(v ros7 password)"
	printf 'interfaces = ether1\ninterfaces = trunk: Switch (br1), wlan1\n\n'
	printf '[router ros7-snmp]\nsnmp = %s\nsnmp_community = %s\n' "$(v ros7 snmp)" "$COMMUNITY"
	printf 'interfaces = ether1\ninterfaces = trunk: Switch (br1), wlan1\n\n'
	printf '[router beta]\nrest = %s\nuser = %s\npassword = %s\n\n' "$(v beta rest)" "$(v beta user)" \
		"$(v beta password)"
	printf '[router ros6]\nsnmp = %s\nsnmp_community = %s\n\n' "$(v ros6 snmp)" "$COMMUNITY"
} >"$T/routers.new"
ROS7_SNMP=$(v ros7 snmp)

# The recorded RouterOS 6 agent, as 061 runs snmpsim.
have_snmpsim=no
if command -v snmpsimd >/dev/null; then
	have_snmpsim=yes
	start_snmpsim "$D/snmpsim/routeros6.snmprec" "$COMMUNITY"
	printf '[router rb952]\nsnmp = %s:%s\nsnmp_community = %s\ninterfaces = pppoe-out1, bridge-local\n\n' \
		"$SNMP_ADDR" "$SNMP_PORT" "$COMMUNITY" >>"$T/routers.new"
else
	echo "note: snmpsim not installed: the recorded RouterOS 6 agent is left out"
fi
mv "$T/routers.new" "$T/routers.conf"
write_conf 1s 900ms
start_daemon

scrape() { http_get /metrics >"$T/metrics.txt"; }
has() { scrape && grep -qE "$1" "$T/metrics.txt"; }
is_up() { has "^wgwatch_router_up\{router=\"$1\"[,}].* 1\$"; }
routers="ros7-rest ros7-snmp beta ros6"
[ $have_snmpsim = yes ] && routers="$routers rb952"
for r in $routers; do
	wait_until 30 is_up "$r" || fail "$r never up: $(grep "router $r" "$T/daemon.log" | tail -1)"
done
ok "every shape is polled: $routers"

# Polls go on across several restarts of ros7's SNMP agent (every 4 s).
polls() { sed -n 's/^wgwatch_polls_total{router="ros7-snmp"[^}]*} \([0-9]*\).*/\1/p' "$T/metrics.txt"; }
polled_past() { scrape && [ "$(polls)" -ge "$1" ]; }
wait_until 30 polled_past 10 || fail "ros7-snmp not polled 10 times"
SNMP_TICKS=$(snmpget -v2c -c "$COMMUNITY" -Oqvt "$ROS7_SNMP" 1.3.6.1.2.1.1.3.0 2>/dev/null || echo -)
# Every ifType of the issue's list is served (lo as 24 with shape = lo-type-24); names decide.
IFTYPES=$(snmpwalk -v2c -c "$COMMUNITY" -Oqve "$ROS7_SNMP" 1.3.6.1.2.1.2.2.1.3 2>/dev/null | sort -un | tr '\n' ' ')
for t in 1 6 23 24 71 131 135 209; do
	case " $IFTYPES" in *" $t "*) ;; *) fail "ros7's ifTypes lack $t: $IFTYPES" ;; esac
done
scrape

$PY - "$T/metrics.txt" "$have_snmpsim" "$SNMP_TICKS" <<'PY' || fail "served values"
import os, sys
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.environ["top_srcdir"], "tests", "system"))
import expo
series, _ = expo.parse(sys.argv[1])
def vals(name, **want):
    return [float(v) for n, l, v in series if n == name and all(l.get(k) == w for k, w in want.items())]
def one(name, **want):
    v = vals(name, **want)
    assert len(v) == 1, (name, want, v)
    return v[0]
def info(router):
    ls = [l for n, l, v in series if n == "wgwatch_router_info" and l.get("router") == router]
    assert len(ls) == 1, (router, ls)
    return ls[0]
wg, trunk = "wg: Transit (SoAda)", "trunk: Switch (br1)"
for r in ("ros7-rest", "ros7-snmp"):
    i = info(r)
    assert i["board"] == "CCR1009-7G-1C-1S+" and i["version"] == "7.21.5", i
    names = {l["interface"]: l["type"] for n, l, v in series
             if n == "wgwatch_interface_transmit_bytes_total" and l.get("router") == r}
    assert names.get(wg) == "wg" and names.get("wg0") == "wg", names
    assert trunk in names and "wlan1" in names and "ether1" in names, names
    assert "lo" not in names, names  # ifType 1 or 24 alike: only names pick interfaces
    drops = one("wgwatch_interface_transmit_drops_total", router=r, interface=wg)
    assert drops > 1000, (r, drops)
    print("%s: %s (type wg) tx drops %d; %s, wlan1 picked by name" % (r, wg, drops, trunk))
rest = one("wgwatch_interface_transmit_drops_total", router="ros7-rest", interface=wg)
snmp = one("wgwatch_interface_transmit_drops_total", router="ros7-snmp", interface=wg)
assert abs(rest - snmp) <= 0.01 * rest, (rest, snmp)
up = one("wgwatch_router_uptime_seconds", router="ros7-snmp")
ticks = sys.argv[3]
assert up > 3 * 86400, up
print("ros7-snmp: uptime %.0f s from hrSystemUptime (the agent's sysUpTime: %s)" % (up, ticks))
assert info("beta")["version"] == "7.1beta6" and info("beta")["board"] == "RB5009UG+S+", info("beta")
print("beta: /system/resource as a one-element array read: 7.1beta6 on RB5009UG+S+")
rs = [info("ros6")] + ([info("rb952")] if sys.argv[2] == "yes" else [])
for i in rs:
    assert i["board"] == "RB952Ui-5ac2nD" and i["version"] == "6.40.5", i
print("ros6%s: board and version from entPhysicalDescr.65536" % (" and rb952" if len(rs) == 2 else ""))
if len(rs) == 2:
    assert one("wgwatch_interface_transmit_drops_total", router="rb952", interface="pppoe-out1") == 3131
    print("rb952: pppoe-out1 (ifType 23, ifIndex 5 after a gap) read, its ifOutDiscards 3131")
PY
ok "names, counters, shapes and boards are stored and served right"

# An SNMP agent restart is no reboot: nothing in the version history but the first sight.
kinds=$(sqlite3 "$T/wgwatch.db" "SELECT h.kind FROM version_history h JOIN routers r ON r.id = h.router_id WHERE r.name = 'ros7-snmp'" 2>&1) ||
	fail "sqlite3: $kinds"
[ "$kinds" = "first" ] || fail "ros7-snmp history: $(echo "$kinds" | tr '\n' ' ')"
ok "ros7-snmp's agent restarted every 4 s and no reboot was recorded"

page=$(http_get /router/ros7-rest) || fail "router page"
echo "$page" | grep -qF 'wg: Transit (SoAda)' || fail "router page: no wg: Transit (SoAda)"
http_get /api/v1/history/ros7-snmp | grep -qF '"wg: Transit (SoAda)"' || fail "history API: no wg: Transit (SoAda)"
ok "the router page and the history API name the interfaces as the router does"

if command -v promtool >/dev/null; then
	promtool check metrics <"$T/metrics.txt" >"$T/promtool.log" 2>&1 || { cat "$T/promtool.log"; fail "promtool"; }
	ok "promtool check metrics passes"
fi
check_log_clean
